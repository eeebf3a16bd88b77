/**
 * Tiny DOM helpers for the panel: element construction that only ever inserts strings as text
 * nodes, codicons, and the neutralising of untrusted text (bidi controls, control characters,
 * huge strings) before it is shown. Nothing here touches `innerHTML`.
 */

export type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  id?: string;
  /** Attribute values are set with `setAttribute`, never parsed as markup. */
  attrs?: Record<string, string | number | boolean | undefined>;
}

/** Creates an element; string children become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) el.className = props.class;
    if (props.id) el.id = props.id;
    if (props.attrs) for (const [name, value] of Object.entries(props.attrs)) setAttr(el, name, value);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Sets (or, for `false`/`undefined`, removes) an attribute; `true` sets it empty. */
export function setAttr(el: Element, name: string, value: string | number | boolean | undefined): void {
  if (value === undefined || value === false) el.removeAttribute(name);
  else el.setAttribute(name, value === true ? "" : String(value));
}

/** A codicon from VS Code's icon font (decorative: hidden from screen readers). */
export function icon(name: string, extra?: string): HTMLElement {
  return h("i", { class: `codicon codicon-${name}${extra ? ` ${extra}` : ""}`, attrs: { "aria-hidden": "true" } });
}

/** A button with a codicon and a text label (`labelHidden` keeps the label for screen readers only). */
export function button(opts: { class?: string; icon?: string; label: string; labelHidden?: boolean; title?: string; id?: string }): HTMLButtonElement {
  const b = h("button", { class: opts.class ?? "", ...(opts.id ? { id: opts.id } : {}), attrs: { type: "button", title: opts.title ?? (opts.labelHidden ? opts.label : undefined) } },
    opts.icon ? icon(opts.icon) : null,
    opts.labelHidden ? h("span", { class: "visually-hidden" }, opts.label) : h("span", { class: "label" }, opts.label));
  return b;
}

/** Replaces an element's text only when it changed (cheap for repeated renders). */
export function setText(el: Element, text: string): void {
  const first = el.firstChild;
  if (first && first === el.lastChild && first.nodeType === Node.TEXT_NODE) {
    if ((first as Text).data !== text) (first as Text).data = text;
  } else {
    el.textContent = text;
  }
}

export function toggleHidden(el: HTMLElement, hidden: boolean): void {
  if (el.hidden !== hidden) el.hidden = hidden;
}

// Bidi controls that can reorder what the reader sees (embeddings, overrides, isolates, marks).
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
// C0/C1 controls except tab and newline (carriage returns are dropped separately) — matching them is the point.
// eslint-disable-next-line no-control-regex
const CONTROL_BLOCK = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_INLINE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

function codePointMark(c: string): string {
  return `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

function controlMark(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return codePointMark(c);
}

/** Untrusted multi-line text for a `pre-wrap` block: bidi and control characters made visible, `\r` dropped. */
export function cleanBlock(s: string): string {
  return s.replace(/\r/g, "").replace(BIDI, codePointMark).replace(CONTROL_BLOCK, controlMark);
}

/** Untrusted text for one line (titles, paths, names): line breaks shown as ⏎, truncated to `max`. */
export function cleanInline(s: string, max = 500): string {
  let t = s.length > max ? s.slice(0, max) : s;
  if (t.length && t.charCodeAt(t.length - 1) >= 0xd800 && t.charCodeAt(t.length - 1) <= 0xdbff) t = t.slice(0, -1);
  t = t.replace(/\r?\n/g, " ⏎ ").replace(/\t/g, " ").replace(BIDI, codePointMark).replace(CONTROL_INLINE, controlMark);
  return s.length > max ? `${t}…` : t;
}

/** Removes ANSI escape sequences (colours, cursor moves) from terminal output. */
export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g, "");
}

/** "3.2 s", "1 min 5 s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/**
 * Below this, a finished thought's time says nothing: it came in one chunk, or all at once (a
 * reasoning summary sent whole), and the panel cannot know how long the agent took over it.
 */
export const UNTIMED_THOUGHT_MS = 100;

/** A thought's header: "Thinking… 2.1 s" while it streams, "Thought for 2.1 s" after, or "Thought" when it came all at once. */
export function thoughtLabel(startedAt: number, endedAt: number | undefined, now: number): string {
  if (endedAt === undefined) return `Thinking… ${formatDuration(now - startedAt)}`;
  const ms = endedAt - startedAt;
  return ms < UNTIMED_THOUGHT_MS ? "Thought" : `Thought for ${formatDuration(ms)}`;
}

/** A path relative to the session folder when it lies inside it. */
export function displayPath(path: string, cwd: string): string {
  if (cwd && path.startsWith(cwd)) {
    const rest = path.slice(cwd.length);
    if (rest.startsWith("/") || rest.startsWith("\\")) return rest.slice(1) || path;
  }
  return path;
}

let idCounter = 0;
/** A unique DOM id for aria wiring. */
export function uid(prefix: string): string {
  return `${prefix}-${++idCounter}`;
}

let selection: Range | undefined;
let watchingSelection = false;

/**
 * What the reader has selected, or undefined: the range the document's selection had when it last
 * changed (`selectionchange`), kept up to date by the DOM as nodes change. Read during a draw,
 * the selection itself (`isCollapsed`, `rangeCount`) lays the page out first, a forced layout
 * per call; this costs nothing.
 */
export function selectedRange(): Range | undefined {
  if (!watchingSelection) {
    watchingSelection = true;
    const read = (): void => {
      const sel = document.getSelection();
      selection = sel && sel.rangeCount > 0 && !sel.isCollapsed ? sel.getRangeAt(0) : undefined;
    };
    // For the page's life, as the selection is.
    document.addEventListener("selectionchange", read);
    read();
  }
  return selection && !selection.collapsed ? selection : undefined;
}

/** Where a point of the DOM falls in `root`'s text: the characters of its text nodes before it (no layout). */
function textOffset(root: Node, node: Node, offset: number): number {
  const before = document.createRange();
  before.setStart(root, 0);
  before.setEnd(node, offset);
  return before.toString().length;
}

/** A selection noted before a part of the page is drawn again (see `selectionIn`). */
export interface HeldSelection {
  range: Range;
  /** Where it starts, as a character offset into the part's text. */
  start: number;
  /** The text it selected. */
  text: string;
}

/**
 * The reader's selection when it lies wholly in `part` (both its ends), noted so that it can be
 * selected again once `part` is drawn anew (`keepSelection`); undefined otherwise. Reads DOM
 * ranges only (no layout); costs the text of `part` up to the selection's end.
 */
export function selectionIn(part: Node): HeldSelection | undefined {
  const range = selectedRange();
  if (!range || !part.contains(range.startContainer) || !part.contains(range.endContainer)) return undefined;
  return { range, start: textOffset(part, range.startContainer, range.startOffset), text: range.toString() };
}

/**
 * After a part was drawn again as `nodes` (in order): selects what `held` selected, unless the
 * selection survived the drawing or the reader has since selected or focused something else.
 * Only the same text is selected: at the same offsets if it is still there (the text before it
 * drawn the same), else where it is nearest to them (markdown took characters out before it,
 * such as the `**` of bold); if it is not within a few hundred characters, nothing is.
 */
export function keepSelection(held: HeldSelection, nodes: readonly Node[]): void {
  if (selection !== held.range) return;
  if (!held.range.collapsed && held.range.toString() === held.text) return;
  const sel = document.getSelection();
  const active = document.activeElement;
  if (!sel || (active && (active.tagName === "TEXTAREA" || active.tagName === "INPUT"))) return;
  if (sel.rangeCount > 0 && sel.getRangeAt(0) !== held.range) return;
  const texts: Text[] = [];
  for (const root of nodes) {
    if (root instanceof Text) texts.push(root);
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) texts.push(t as Text);
  }
  const all = texts.map((t) => t.data).join("");
  let at = all.startsWith(held.text, held.start) ? held.start : -1;
  if (at < 0) {
    const before = all.lastIndexOf(held.text, held.start);
    const after = all.indexOf(held.text, held.start);
    const near = (i: number): boolean => i >= 0 && Math.abs(i - held.start) <= NEAR_SELECTION;
    at = near(before) && (!near(after) || held.start - before <= after - held.start) ? before : near(after) ? after : -1;
  }
  if (at < 0) return;
  const point = (offset: number): [Text, number] | undefined => {
    let pos = 0;
    for (const t of texts) {
      if (offset <= pos + t.length) return [t, offset - pos];
      pos += t.length;
    }
    return undefined;
  };
  const from = point(at);
  const to = point(at + held.text.length);
  if (!from || !to) return;
  const range = document.createRange();
  range.setStart(from[0], from[1]);
  range.setEnd(to[0], to[1]);
  sel.removeAllRanges();
  sel.addRange(range);
  selection = range;
}

/** How far (characters) `keepSelection` looks for the selected text when it moved. */
const NEAR_SELECTION = 256;
