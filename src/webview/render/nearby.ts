/**
 * Work that waits until its element is near the view: a finished thought first drawn open (a
 * session picked with thinking expanded, or one the reader had opened) has its text drawn only
 * once its box is within a view's height of the view. Drawing every open thought of a picked
 * session at once could be megabytes of markdown in one task (seconds, for a hundred long
 * thoughts); those far away wait in a box of the height a long thought's box has (panel.css).
 *
 * What is in view when the panel's frame ends (`check`, after the frame has placed its scroll) is
 * drawn in that frame, so the reader never sees an empty box where they look; the rest is drawn
 * when an IntersectionObserver says it is within a view's height, before it comes into view.
 *
 * A long finished message put off so has no box of a known height: its box is as high as its text
 * is estimated to be (`estimateBox`, panel.css), from its characters and line breaks and how many
 * characters fit in a line of the view (`--text-cols`, kept on the root as it is resized). Drawn,
 * it takes its own height; scroll anchoring keeps what the reader sees where it is (one drawn
 * above the view as they scroll up), or the bottom in view while the view follows it.
 */
import { LEAVING } from "./entryBase";

/** At most this many new waiting elements in a frame are drawn without looking where they are. */
const FEW = 4;
/** Text of the kind agents write, whose width per character is the view's average. */
const SAMPLE = "Reading the config file, then running the tests again to see whether the fix (in src/index.ts) holds.";
/** A character as wide as two (CJK, fullwidth forms, emoji: a surrogate pair's first half). */
const WIDE = /[\u2e80-\ud7ff\uf900-\uffff]|[\ud800-\udbff]/;
/** The fewest characters a line is taken to hold, however narrow the view. */
const MIN_COLS = 20;
/** How many times, and for how long, `check` reads where the waiting elements are in one frame. */
const CHECK_ROUNDS = 6;
const CHECK_MS = 12;

/** The longest line taken for a blank one when it holds only spaces, tabs or a carriage return. */
const BLANK_MAX = 16;

/** Whether `text` between `from` and `to` is empty or only spaces, tabs and carriage returns (and short). */
function blank(text: string, from: number, to: number): boolean {
  if (to - from > BLANK_MAX) return false;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * What a text's estimated height is made of: its line breaks, each ending a line (about half a
 * line's height on average, a paragraph's gap or a short line's end), and its width in
 * characters, a wide one (CJK, emoji) counting two; a carriage return before a line break is not
 * one. In markdown a run of blank lines (empty, or spaces, tabs and carriage returns only: `\r\n`
 * line ends) is one paragraph's gap, so such a run counts two breaks at most and its blank lines'
 * characters none: a flood of them (an agent's, or a prompt injection's) would make the box far
 * taller than the text draws, so that every element in it would be drawn at once (Nearby.check).
 * From `plainFrom` on the text is drawn as plain text, where every line break ends a line, so
 * each counts.
 */
export function textExtent(text: string, plainFrom = Infinity): { breaks: number; chars: number } {
  // Found by the engine's own search: a long message is tens of kilobytes (4.6 MB for a session of 150).
  let breaks = 0;
  // Characters not drawn: line breaks, the carriage returns before them, the blank lines of a run past its second break.
  let hidden = 0;
  for (let i = text.indexOf("\n"), prev = -1, run = 0; i >= 0; prev = i, i = text.indexOf("\n", i + 1)) {
    hidden++;
    run = i < plainFrom && prev >= 0 && blank(text, prev + 1, i) ? run + 1 : 1;
    if (run <= 2) {
      breaks++;
      if (i > 0 && text.charCodeAt(i - 1) === 13) hidden++;
    } else hidden += i - prev - 1;
  }
  let chars = text.length - hidden;
  if (WIDE.test(text)) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x2e80) continue;
      // A pair's second half is not counted again (the pair is one wide character); a lone one is one narrow character.
      if (c >= 0xdc00 && c <= 0xdfff) {
        const before = i > 0 ? text.charCodeAt(i - 1) : 0;
        if (before >= 0xd800 && before <= 0xdbff) chars--;
      } else chars++;
    }
  }
  return { breaks, chars };
}

/** `el`, waiting, is as high as `text` is estimated to be (panel.css); plain text from `plainFrom` on (see textExtent). Returns the estimate's parts. */
export function estimateBox(el: HTMLElement, text: string, plainFrom?: number): { breaks: number; chars: number } {
  const extent = textExtent(text, plainFrom);
  el.style.setProperty("--breaks", String(extent.breaks));
  el.style.setProperty("--chars", String(extent.chars));
  return extent;
}

/**
 * What a copy's HTML leaves out, as the browser's copy and the selection's text do: what is not
 * shown (a closed thought drawn before, a closed raw input or output, a session leaving), the
 * page's script, and the prompt box's fields.
 */
const NOT_SHOWN = `[hidden], script, style, template, textarea, input, select, .${LEAVING}, details:not([open]) > :not(summary)`;

/** A waiting element's work: `draw` it; `text`, the source text it will draw (what a copy holds of it meanwhile). */
interface Waiting {
  draw: () => void;
  text: () => string;
}

export class Nearby {
  private readonly waiting = new Map<Element, Waiting>();
  /** Waiting since the last `check`. */
  private readonly fresh = new Set<Element>();
  private readonly observer: IntersectionObserver;
  private readonly resized: ResizeObserver;
  /** The root's font as last measured, and the width of an average character of it. */
  private font = "";
  private charWidth = 0;

  /** `root`: the scroll box the elements are in. */
  constructor(private readonly root: HTMLElement) {
    this.observer = new IntersectionObserver((records) => {
      for (const r of records) if (r.isIntersecting) this.now(r.target);
    }, { root, rootMargin: "100% 0px" });
    // After layout, so the width comes with the report and the style read is of a clean page.
    this.resized = new ResizeObserver((records) => {
      const r = records[records.length - 1];
      if (r) this.columns(r.contentBoxSize[0]?.inlineSize ?? r.contentRect.width);
    });
    this.resized.observe(root);
    // A copy of a selection that holds waiting elements: their source text in their place (drawing them first took seconds for select all in a session of long answers).
    root.ownerDocument.addEventListener("copy", (e) => this.copy(e));
  }

  /**
   * Writes the copy itself when the selection holds elements still waiting to be drawn (which have
   * no text on the page): the selection as the browser serialises it, as text and as HTML, with
   * each waiting element's source text (markdown, as the agent wrote it) in its place (in the
   * HTML, escaped, its line breaks kept). Nothing is drawn: each gets a mark of its own for the
   * one serialisation, taken out in the same task. (Drawing them first took seconds for select
   * all in a session of long answers; selecting the parts between them one at a time, 2.4 ms a
   * part.) A selection with none waiting is the browser's to copy, text and HTML.
   */
  private copy(e: ClipboardEvent): void {
    const sel = this.root.ownerDocument.getSelection();
    if (!sel || sel.rangeCount !== 1 || sel.isCollapsed || !e.clipboardData) return;
    const range = sel.getRangeAt(0);
    const held: { el: Element; text: string }[] = [];
    for (const [el, w] of this.waiting) {
      // (Not one of a folded turn or a hidden kind: the browser's copy leaves those out too.)
      if (this.root.contains(el) && range.intersectsNode(el) && el.checkVisibility()) held.push({ el, text: w.text() });
    }
    if (held.length === 0) return;
    // A mark no text can hold: made for this copy (an agent's text cannot name another's place).
    const nonce = `\ue000${Math.random().toString(36).slice(2)}:`;
    const doc = this.root.ownerDocument;
    const marks: Text[] = [];
    let text: string;
    let html = "";
    try {
      for (const [i, { el }] of held.entries()) marks.push(el.appendChild(doc.createTextNode(`${nonce}${i}\ue001`)));
      text = sel.toString();
      try {
        // The drawn parts as the page has them (no styles: the panel's theme colours stay out of a
        // document pasted into), without what is not shown, which the text leaves out too.
        const box = doc.createElement("div");
        box.appendChild(range.cloneContents());
        for (const el of box.querySelectorAll(NOT_SHOWN)) el.remove();
        html = box.innerHTML;
      } catch {
        // (No HTML, then: the text alone.)
      }
    } finally {
      for (const m of marks) m.remove();
    }
    const marked = new RegExp(`${nonce}(\\d+)\ue001`, "g");
    const sourceOf = (i: string): string => held[Number(i)]?.text ?? "";
    e.clipboardData.setData("text/plain", text.replace(marked, (_, i: string) => sourceOf(i)));
    e.preventDefault();
    if (!html) return;
    try {
      // A waiting element's text as text (the DOM escapes it), its line breaks kept.
      const source = doc.createElement("span");
      source.style.whiteSpace = "pre-wrap";
      e.clipboardData.setData("text/html", html.replace(marked, (_, i: string) => {
        source.textContent = sourceOf(i);
        return source.outerHTML;
      }));
    } catch {
      // (Too long to escape in one string: the text is on the clipboard.)
    }
  }

  /** Keeps `--text-cols` on the root: about how many characters of text fit in a line `width` wide. */
  private columns(width: number): void {
    const style = getComputedStyle(this.root);
    const font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    if (font !== this.font) {
      this.font = font;
      const ctx = document.createElement("canvas").getContext("2d");
      if (ctx) ctx.font = font;
      this.charWidth = ctx ? ctx.measureText(SAMPLE).width / SAMPLE.length : 0;
      // (No canvas: half the font's size, about a proportional font's average.)
      if (!(this.charWidth > 0)) this.charWidth = (parseFloat(style.fontSize) || 13) / 2;
    }
    this.root.style.setProperty("--text-cols", String(Math.max(MIN_COLS, Math.floor(width / this.charWidth))));
  }

  /** `draw` runs once, when `el` is near the view (or is asked for with `now`); `text`: the source text it draws (for a copy meanwhile). */
  whenNear(el: Element, draw: () => void, text: () => string): void {
    this.waiting.set(el, { draw, text });
    this.fresh.add(el);
    this.observer.observe(el);
  }

  /** Whether `el` waits to be drawn. */
  has(el: Element): boolean {
    return this.waiting.has(el);
  }

  /** `el`, if it waits, is drawn now, wherever it is (it came near, the reader opened it, or find goes to a match in it). */
  now(el: Element): void {
    const w = this.waiting.get(el);
    if (!w) return;
    this.cancel(el);
    w.draw();
  }

  /** `el` no longer waits (it is gone, or drawn another way). */
  cancel(el: Element): void {
    this.waiting.delete(el);
    this.fresh.delete(el);
    this.observer.unobserve(el);
  }

  /** `el`, waiting, may have come into view without moving near it (shown again, or a jump): looked at by the next `check`. */
  refresh(el: Element): void {
    if (this.waiting.has(el)) this.fresh.add(el);
  }

  /** After a jump (find going to a match): every element waiting is looked at by the next `check`. */
  refreshAll(): void {
    for (const el of this.waiting.keys()) this.fresh.add(el);
  }

  /**
   * At the end of the panel's frame: what began waiting in it is drawn now if it is in the view. A
   * few (a live turn's new thoughts) are drawn with no layout read; more (a session picked) after
   * one read of their boxes (empty, so cheap), again while drawing brought more into the view (a
   * thought shorter than its box in a wide panel), for at most CHECK_ROUNDS rounds or CHECK_MS:
   * boxes estimated far taller than their text draws (an agent's text made so) would otherwise
   * bring one more into view a round, each round reading every box left. What is left is drawn as
   * the IntersectionObserver finds it near, a frame later.
   */
  check(): void {
    if (this.fresh.size === 0) return;
    let els = [...this.fresh];
    this.fresh.clear();
    if (els.length <= FEW) {
      for (const el of els) this.now(el);
      return;
    }
    const start = performance.now();
    // Each round draws at least one or ends.
    for (let round = 0; els.length > 0 && round < CHECK_ROUNDS && performance.now() - start < CHECK_MS; round++) {
      const view = this.root.getBoundingClientRect();
      if (view.height <= 0) return;
      const near: Element[] = [];
      const rest: Element[] = [];
      for (const el of els) {
        if (!el.isConnected || !this.waiting.has(el)) continue;
        const r = el.getBoundingClientRect();
        (r.height > 0 && r.bottom >= view.top && r.top <= view.bottom ? near : rest).push(el);
      }
      if (near.length === 0) return;
      for (const el of near) this.now(el);
      els = rest;
    }
  }
}
