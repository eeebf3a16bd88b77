/**
 * The transcript (`#transcript`, `role=log`): turns, each a header with a fold chevron, the
 * user's prompt, its entries and a footer (working indicator or how it ended). Keeps the DOM small
 * for long sessions: only the last turns are shown (older ones behind "Show earlier turns"), all
 * but the last three start folded to a one-line summary, and a turn shows only its last (visible)
 * entries behind "Show N earlier": 50 in earlier turns, 126-150 in the last (see WINDOW_STEP).
 * A match or revealed entry far above a turn's end gets a window of its own around it, with the
 * rest of the turn behind "Show N later" (see `Transcript.prepareTurn`).
 * Entry components are reused by id and skip unchanged entries, so a streaming frame touches only
 * what changed.
 */
import { toolPosition, type Entry, type SessionView, type TurnView } from "../../shared/viewModel";
import { button, cleanInline, formatDuration, h, icon, setText, toggleHidden, uid } from "../dom";
import { turnKey, type RenderCtx } from "./context";
import { createEntry } from "./entries";
import { LEAVING, type EntryComp } from "./entryBase";
import { messageBody } from "./chips";
import { foldCase } from "../find";
import { shownPrompt } from "./searchText";

/** Entries shown in the last turn before "Show earlier"; also the step it grows by. */
const ENTRY_WINDOW = 150;
/** Entries shown in earlier unfolded turns (keeps three long open turns well under the DOM budget). */
const EARLIER_TURN_WINDOW = 50;
/** Turns shown before "Show earlier turns"; also the step. */
export const TURN_WINDOW = 40;
/** The last this-many turns start unfolded. */
const OPEN_TURNS = 3;
/**
 * The last turn's window's first entry moves in steps of this many. Dropping an entry above the
 * view moves every entry below it, and the browser then lays out and repaints them all: once a
 * step, not for each entry that streams in (a turn of short thoughts and tool calls repainted its
 * whole window on every frame). Other windows do not grow, and show exactly their size.
 */
const WINDOW_STEP = 25;

/**
 * A window that stops short of its turn's end (around a match or revealed entry far above it)
 * holds at most this many entries: "Show N later" slides it down rather than growing it.
 */
const ANCHORED_MAX = 2 * ENTRY_WINDOW;

/**
 * The first of a live turn's `count` entries that are drawn even as rows (`.recent`, panel.css):
 * those from the last multiple of WINDOW_STEP on. A row that comes into being
 * `content-visibility: auto` in view has the browser settle whether to draw it in that same frame,
 * running style and layout twice, and a turn of short thoughts and tool calls makes a row or more
 * a frame; so a step's rows are settled together, once, as the next step begins. (Only that few:
 * a row drawn away from the view is painted on every frame.) In the bench's mix of thoughts, tool
 * calls and messages (traced, five alternating pairs) the panel's renderer then worked 16 % less
 * and laid out 330 times instead of 530, and the lag's p95 was a median 48 ms against 65.
 */
export function recentStart(count: number): number {
  return Math.floor(count / WINDOW_STEP) * WINDOW_STEP;
}

/** The first of `count` entries a window of `size` shows, moving in steps of `step`: at most `size` show, and more than `size - step`. */
export function windowStart(count: number, size: number, step = 1): number {
  const excess = count - size;
  return excess <= 0 ? 0 : Math.ceil(excess / step) * step;
}

/**
 * The entries [start, end) of `count` a window of `size` shows: the last ones (the first moving in
 * steps of `step`, see `windowStart`), or, given `end` (a window stopping short of the turn's
 * end), the `size` before it. A window left with nothing before its end (a filter hid it all)
 * shows the first `size`.
 */
export function windowRange(count: number, size: number, step: number, end?: number): { start: number; end: number } {
  if (end === undefined) return { start: windowStart(count, size, step), end: count };
  const e = Math.min(end, count);
  if (e <= 0) return { start: 0, end: Math.min(count, size) };
  return { start: Math.max(0, e - size), end: e };
}

/**
 * Where a window ending at the entry `endId` ends among `visible` (`entries` under the filters):
 * the index after it, or after the last visible entry before it when a filter hides it; undefined
 * when there is no such entry (the window then reaches the turn's end). `hint`: the last answer,
 * checked first, so a streaming frame does not search.
 */
export function anchorEnd(entries: readonly Entry[], visible: readonly Entry[], endId: string | undefined, hint?: number): number | undefined {
  if (endId === undefined) return undefined;
  if (hint !== undefined && hint > 0 && visible[hint - 1]?.id === endId) return hint;
  const at = entries.findIndex((e) => e.id === endId);
  if (at < 0) return undefined;
  if (visible === entries) return at + 1;
  let v = 0;
  for (let i = 0; i <= at && v < visible.length; i++) if (entries[i] === visible[v]) v++;
  return v;
}

/** A turn's window of entries: its size (the reader's "Show earlier" or the default) and step. */
function turnWindow(ctx: RenderCtx, key: string, last: boolean): { size: number; step: number } {
  return { size: ctx.ui.entryWindow.get(key) ?? (last ? ENTRY_WINDOW : EARLIER_TURN_WINDOW), step: last ? WINDOW_STEP : 1 };
}

const STOP_TEXT = {
  end_turn: "",
  cancelled: "Cancelled",
  max_tokens: "Stopped: max tokens",
  max_turn_requests: "Stopped: too many model requests",
  refusal: "Refused",
} as const;

/** A keyed list of entry components with a "Show N earlier" window (and "Show N later" when it stops short of the end). */
export class EntryList {
  readonly el: HTMLElement;
  private more: HTMLButtonElement | undefined;
  private later: HTMLButtonElement | undefined;
  private readonly comps = new Map<string, EntryComp>();
  /** What the last render showed: [start, end) of `visible`. */
  private visible: readonly Entry[] = [];
  private start = 0;
  private end = 0;

  /**
   * `onLater`: "Show N later" was pressed; the window should now end at the entry `endId`
   * (undefined: at the turn's end) and hold `size` entries.
   */
  constructor(private readonly onMore: () => void, private readonly onLater?: (endId: string | undefined, size: number) => void) {
    this.el = h("div", { class: "entries" });
  }

  /** True when entries after the window are hidden behind "Show N later". */
  get hidesLater(): boolean {
    return this.later !== undefined;
  }

  /**
   * Draws the last visible entries, at most `windowSize` of them, the first moving in steps of
   * `step` (see `windowStart`); or, given `endId`, the `windowSize` up to that entry (see `windowRange`).
   */
  render(entries: readonly Entry[], ctx: RenderCtx, windowSize: number, step = 1, endId?: string, live = false): void {
    const visible = ctx.matcher ? entries.filter(ctx.matcher) : entries;
    const { start, end } = windowRange(visible.length, windowSize, step, anchorEnd(entries, visible, endId, this.end));
    this.visible = visible;
    this.start = start;
    this.end = end;
    this.more = this.pager(this.more, start, "earlier", () => this.onMore());
    this.later = this.pager(this.later, visible.length - end, "later", () => this.showLater());
    // Drop what left the window first, so the kept elements line up with the cursor and stay put
    // (moving a node re-lays out its whole subtree).
    const keep = new Set<string>();
    for (let i = start; i < end; i++) keep.add(visible[i]?.id ?? "");
    for (const [id, comp] of this.comps) {
      if (keep.has(id)) continue;
      comp.dispose();
      comp.el.remove();
      this.comps.delete(id);
    }
    let cursor: ChildNode | null = this.more ? this.more.nextSibling : this.el.firstChild;
    const recent = live && end === visible.length ? recentStart(visible.length) : end;
    for (let i = start; i < end; i++) {
      const e = visible[i];
      if (!e) continue;
      let comp = this.comps.get(e.id);
      if (comp) comp.update(e, ctx);
      else {
        comp = createEntry(e, ctx);
        this.comps.set(e.id, comp);
      }
      comp.el.classList.toggle("recent", i >= recent);
      if (comp.el === cursor) cursor = cursor.nextSibling;
      else this.el.insertBefore(comp.el, cursor);
    }
  }

  /** The "Show N earlier" / "Show N later" button while `hidden` entries lie that way (made at that end of the list), else none. */
  private pager(b: HTMLButtonElement | undefined, hidden: number, way: "earlier" | "later", onClick: () => void): HTMLButtonElement | undefined {
    if (hidden <= 0) {
      b?.remove();
      return undefined;
    }
    if (!b) {
      b = button({ class: `show-${way}`, icon: way === "earlier" ? "fold-up" : "fold-down", label: "" });
      b.addEventListener("click", onClick);
      if (way === "earlier") this.el.prepend(b);
      else this.el.append(b);
    }
    const label = b.querySelector(".label");
    if (label) setText(label, `Show ${Math.min(hidden, ENTRY_WINDOW)} ${way} (${hidden} hidden)`);
    return b;
  }

  /** The next `ENTRY_WINDOW` entries after the window; it slides down once it holds `ANCHORED_MAX`, and reaches the turn's end at last. */
  private showLater(): void {
    const count = this.visible.length;
    const end = Math.min(count, this.end + ENTRY_WINDOW);
    const size = Math.min(end - this.start, ANCHORED_MAX);
    this.onLater?.(end >= count ? undefined : this.visible[end - 1]?.id, size);
  }

  dispose(): void {
    for (const comp of this.comps.values()) comp.dispose();
    this.comps.clear();
    this.el.replaceChildren();
    this.more = undefined;
    this.later = undefined;
    this.visible = [];
    this.start = 0;
    this.end = 0;
  }
}

const toolCounts = new WeakMap<TurnView, number>();
function toolCount(t: TurnView): number {
  let n = toolCounts.get(t);
  if (n === undefined) {
    n = 0;
    for (const e of t.entries) if (e.type === "tool") n++;
    toolCounts.set(t, n);
  }
  return n;
}

const matchCounts = new WeakMap<TurnView, { version: number; count: number }>();
function matchCount(t: TurnView, ctx: RenderCtx): number {
  const cached = matchCounts.get(t);
  if (cached?.version === ctx.version) return cached.count;
  let count = 0;
  if (ctx.matcher) for (const e of t.entries) if (ctx.matcher(e)) count++;
  matchCounts.set(t, { version: ctx.version, count });
  return count;
}

class TurnComp {
  readonly el: HTMLElement;
  private readonly head: HTMLButtonElement;
  private readonly chevron: HTMLElement;
  private readonly title: HTMLElement;
  private readonly meta: HTMLElement;
  private readonly body: HTMLElement;
  private readonly prompt: HTMLElement;
  private readonly footer: HTMLElement;
  private list: EntryList | undefined;
  private turn: TurnView | undefined;
  private key = "";
  private open: boolean | undefined;
  private stamp = "";
  private ctx: RenderCtx | undefined;
  private windowSize: number | undefined;
  private checkpoint = false;
  private footerKey: string | undefined;

  constructor() {
    const bodyId = uid("turn");
    this.chevron = icon("chevron-right", "chevron");
    this.title = h("span", { class: "turn-title" });
    this.meta = h("span", { class: "turn-meta" });
    this.head = h("button", { class: "turn-head", attrs: { type: "button", "aria-controls": bodyId } }, this.chevron, this.title, this.meta);
    this.prompt = h("div", { class: "turn-prompt" });
    this.footer = h("div", { class: "turn-footer" });
    this.body = h("div", { class: "turn-body", id: bodyId }, this.prompt);
    this.el = h("section", { class: "turn" }, this.head, this.body, this.footer);
    this.head.addEventListener("click", () => {
      if (!this.ctx || this.open === undefined) return;
      this.ctx.ui.setTurnOpen(this.key, !this.open);
      this.ctx.invalidate();
    });
  }

  /** `before`: turns of the session not in its view yet (a saved session showing its last turns while the rest is read). */
  render(turn: TurnView, index: number, count: number, ctx: RenderCtx, before: number): void {
    this.ctx = ctx;
    this.key = turnKey(ctx.sessionId, turn.turnId);
    const open = ctx.ui.turnOpen[this.key] ?? index >= count - OPEN_TURNS;
    const last = index === count - 1;
    const { size: windowSize, step } = turnWindow(ctx, this.key, last);
    const endId = ctx.ui.entryEnd.get(this.key);
    const checkpoint = ctx.host.checkpoints?.[ctx.sessionId]?.includes(turn.turnId) === true;
    const stamp = `${ctx.version}|${ctx.ui.layoutVersion}|${open}|${windowSize}|${endId ?? ""}|${last ? ctx.session.status : ""}|${checkpoint}|${before}`;
    if (turn === this.turn && stamp === this.stamp) return;
    const promptChanged = turn.prompt !== this.turn?.prompt || turn.attachments !== this.turn?.attachments || checkpoint !== this.checkpoint;
    this.checkpoint = checkpoint;
    this.turn = turn;
    this.stamp = stamp;
    this.el.setAttribute("data-turn-id", String(turn.turnId));

    // Only "only entries that match" hides turns; find leaves every turn in place.
    const searching = ctx.ui.searchFiltering && ctx.matcher !== undefined;
    const matches = searching ? matchCount(turn, ctx) : 0;
    const promptMatches = searching && foldCase(shownPrompt(turn.prompt)).includes(ctx.ui.query);
    toggleHidden(this.el, searching && matches === 0 && !promptMatches);

    const n = before + index + 1;
    const duration = turn.endedAt !== undefined ? formatDuration(turn.endedAt - turn.startedAt) : "";
    const tools = toolCount(turn);
    const metaParts: string[] = [];
    if (!open && tools > 0) metaParts.push(`${tools} tool call${tools === 1 ? "" : "s"}`);
    if (duration) metaParts.push(duration);
    else if (!open) metaParts.push("running");
    if (searching) metaParts.push(`${matches} match${matches === 1 ? "" : "es"}`);
    setText(this.title, open ? `Turn ${n}` : `Turn ${n} · “${cleanInline(turn.prompt, 80) || "(no prompt)"}”`);
    setText(this.meta, metaParts.join(" · "));

    if (open !== this.open) {
      this.open = open;
      this.el.classList.toggle("open", open);
      this.head.setAttribute("aria-expanded", String(open));
      toggleHidden(this.body, !open);
      toggleHidden(this.footer, !open);
      if (!open && this.list) {
        this.list.dispose();
        this.list.el.remove();
        this.list = undefined;
      }
    }
    if (!open) return;

    if (promptChanged || !this.prompt.firstChild) {
      const restore = checkpoint ? [button({ class: "turn-action restore-checkpoint", icon: "discard", label: `Restore checkpoint before turn ${n}`, labelHidden: true, title: "Restore checkpoint: put the files this turn and the later ones changed back as they were before it (you pick the files; Undo Restore takes it back)" })] : [];
      const turnId = turn.turnId;
      for (const b of restore) {
        b.addEventListener("click", () => this.ctx?.post({ type: "restoreCheckpoint", sessionId: this.ctx.sessionId, turnId }));
      }
      const edit = turn.prompt.trim() ? [button({ class: "turn-action edit-prompt", icon: "edit", label: `Edit turn ${n}'s prompt and send it again`, labelHidden: true, title: "Edit and send again: put this prompt in the box" })] : [];
      const promptText = turn.prompt;
      for (const b of edit) b.addEventListener("click", () => this.ctx?.editPrompt(promptText));
      const body = messageBody(turn.prompt.slice(0, 50_000), turn.attachments, (m) => ctx.post(m), (shown) => h("div", { class: "prompt-text", attrs: { tabindex: "-1" } }, shown), "(no prompt)");
      this.prompt.replaceChildren(icon("account", "user-icon"), body, ...edit, ...restore);
    }
    if (!this.list) {
      this.list = new EntryList(() => {
        ctx.ui.entryWindow.set(this.key, (this.windowSize ?? ENTRY_WINDOW) + ENTRY_WINDOW);
        ctx.ui.layoutVersion++;
        ctx.invalidate();
      }, (to, size) => {
        if (to === undefined) ctx.ui.entryEnd.delete(this.key);
        else ctx.ui.entryEnd.set(this.key, to);
        ctx.ui.entryWindow.set(this.key, size);
        ctx.ui.layoutVersion++;
        ctx.invalidate();
      });
      this.body.append(this.list.el);
    }
    this.windowSize = windowSize;
    // A window stopping short of the end moves only when asked: entries streaming in wait below it.
    this.list.render(turn.entries, ctx, windowSize, endId === undefined ? step : 1, endId, last && turn.endedAt === undefined);
    this.drawFooter(turn, last, ctx);
  }

  /**
   * Redrawn only when what it says changes: a new spinner on every frame would restart its turn
   * each time (a spinner that never moves while text streams).
   */
  private drawFooter(turn: TurnView, last: boolean, ctx: RenderCtx): void {
    const waiting = turn.endedAt === undefined && last && ctx.session.status === "awaiting_permission";
    const key = turn.endedAt === undefined ? (waiting ? "waiting" : "working") : `ended\u0000${turn.failed ?? ""}\u0000${turn.stopReason ?? ""}`;
    if (key === this.footerKey) return;
    this.footerKey = key;
    if (turn.endedAt === undefined) {
      this.footer.className = "turn-footer working";
      this.footer.replaceChildren(icon(waiting ? "shield" : "loading", waiting ? "" : "codicon-modifier-spin"), h("span", null, waiting ? "Waiting for your answer…" : "Working…"));
      return;
    }
    if (turn.failed !== undefined) {
      this.footer.className = "turn-footer failed";
      this.footer.replaceChildren(icon("error"), h("span", { class: "ut" }, `Failed: ${cleanInline(turn.failed, 500)}`));
      return;
    }
    const stop = turn.stopReason ? STOP_TEXT[turn.stopReason] ?? `Stopped: ${cleanInline(String(turn.stopReason), 60)}` : "";
    this.footer.className = `turn-footer${stop ? " stopped" : " done"}`;
    this.footer.replaceChildren(...(stop ? [icon(turn.stopReason === "refusal" ? "circle-slash" : "debug-stop"), h("span", null, stop)] : []));
  }

  /** True when this turn is drawn with entries after its window hidden behind "Show N later". */
  get hidesLater(): boolean {
    return this.list?.hidesLater === true && !this.el.hidden;
  }

  dispose(): void {
    this.list?.dispose();
  }
}

export class Transcript {
  readonly el: HTMLElement;
  private readonly pre: EntryList;
  private turnsBox: HTMLElement;
  private readonly earlier: HTMLButtonElement;
  private readonly empty: HTMLElement;
  private readonly emptyText: HTMLElement;
  private readonly emptyHint: HTMLElement;
  /** A saved session being read: "Loading 47 earlier turns…" above the turns it shows. */
  private readonly loading: HTMLElement;
  private readonly loadingText: HTMLElement;
  private readonly comps = new Map<number, TurnComp>();
  private sessionId: string | undefined;
  private stamp = "";
  private turns: readonly TurnView[] | undefined;
  private banners: readonly Entry[] | undefined;
  private preShown: Entry[] = [];

  private preWindow = ENTRY_WINDOW;

  constructor(onEarlierTurns: () => void, invalidate: () => void) {
    this.pre = new EntryList(() => {
      this.preWindow += ENTRY_WINDOW;
      this.stamp = "";
      invalidate();
    });
    this.earlier = button({ class: "show-earlier turns", icon: "fold-up", label: "Show earlier turns" });
    this.earlier.hidden = true;
    this.earlier.addEventListener("click", onEarlierTurns);
    this.turnsBox = h("div", { class: "turns" });
    this.emptyText = h("p", null);
    this.emptyHint = h("p", { class: "hint" }, "Its thoughts, plans, tool calls and permission requests show up here as they happen.");
    this.empty = h("div", { class: "empty-state" }, icon("comment-discussion", "empty-icon"), this.emptyText, this.emptyHint);
    this.loadingText = h("span", null);
    this.loading = h("div", { id: "saved-loading", class: "saved-loading", attrs: { role: "status" } }, icon("loading", "codicon-modifier-spin"), this.loadingText);
    this.loading.hidden = true;
    // One block of content, so following the bottom can take it out of scroll anchoring at once (see ScrollKeeper).
    this.el = h("div", { id: "transcript", attrs: { role: "log", "aria-live": "off", "aria-label": "Agent transcript", tabindex: "0" } },
      h("div", { class: "transcript-content" }, this.empty, this.pre.el, this.loading, this.earlier, this.turnsBox));
  }

  render(session: SessionView | undefined, ctx: RenderCtx | undefined, agentName: string): void {
    agentName = cleanInline(agentName, 60);
    if (!session || !ctx) {
      this.reset(undefined);
      setText(this.emptyText, `Ask ${agentName} anything.`);
      toggleHidden(this.emptyHint, false);
      toggleHidden(this.loading, true);
      toggleHidden(this.empty, false);
      return;
    }
    if (session.sessionId !== this.sessionId) this.reset(session.sessionId);
    const stamp = `${ctx.version}|${ctx.ui.layoutVersion}|${session.status}`;
    if (session.turns === this.turns && session.banners === this.banners && stamp === this.stamp) return;
    this.stamp = stamp;
    this.turns = session.turns;
    if (session.banners !== this.banners) {
      this.banners = session.banners;
      this.preShown = session.banners.filter((e) => e.type !== "notice" && e.type !== "error" && e.type !== "unknown");
    }
    this.pre.render(this.preShown, ctx, this.preWindow);

    const turns = session.turns;
    const count = turns.length;
    const saved = session.restored ? session.saved : undefined;
    setText(this.emptyText, saved?.loaded === "none" ? "Loading the saved session…" : saved?.loaded === "failed" ? "This saved session could not be read." : `Ask ${agentName} anything.`);
    toggleHidden(this.emptyHint, !!saved);
    toggleHidden(this.empty, count > 0 || this.preShown.length > 0);
    // Its last turns while the rest is read: numbered as they will be, the rest announced above them.
    // (A view sent in pieces has its earlier turns on their way too.)
    const before = saved?.loaded === "tail" ? Math.max(0, saved.turns - count) : session.earlier?.turns ?? 0;
    const loading = saved?.loaded === "tail" || before > 0;
    toggleHidden(this.loading, !loading);
    if (loading) setText(this.loadingText, before > 0 ? `Loading ${before} earlier turn${before === 1 ? "" : "s"}…` : "Loading the rest of this session…");
    const from = Math.max(0, count - ctx.ui.turnsWindow);
    toggleHidden(this.earlier, from === 0);
    if (from > 0) {
      const label = this.earlier.querySelector(".label");
      if (label) setText(label, `Show earlier turns (${from} hidden)`);
    }
    for (const [i, comp] of this.comps) {
      if (i >= from) continue;
      comp.dispose();
      comp.el.remove();
      this.comps.delete(i);
    }
    let cursor: ChildNode | null = this.turnsBox.firstChild;
    for (let i = from; i < count; i++) {
      const turn = turns[i];
      if (!turn) continue;
      let comp = this.comps.get(i);
      if (!comp) {
        comp = new TurnComp();
        this.comps.set(i, comp);
      }
      comp.render(turn, i, count, ctx, before);
      if (comp.el === cursor) cursor = cursor.nextSibling;
      else this.turnsBox.insertBefore(comp.el, cursor);
    }
  }

  /** True when the last turn's newest entries are hidden behind "Show N later" (its window is around something far above them). */
  get hidesLatest(): boolean {
    return this.comps.get(this.lastIndex)?.hidesLater === true;
  }

  /**
   * "Jump to latest" (or news at the bottom: a question, a prompt): the last turn's window reaches
   * its end again, at its usual size (the session's latest entries drawn); true when that changed it.
   */
  showLatest(ui: RenderCtx["ui"]): boolean {
    const turn = this.turns?.[this.lastIndex];
    if (!turn || this.sessionId === undefined) return false;
    const key = turnKey(this.sessionId, turn.turnId);
    if (!ui.entryEnd.delete(key)) return false;
    ui.entryWindow.delete(key);
    return true;
  }

  private get lastIndex(): number {
    return (this.turns?.length ?? 0) - 1;
  }

  /** The entries shown above the first turn. */
  get preEntries(): readonly Entry[] {
    return this.preShown;
  }

  /** Finds an entry (by id or tool call id), unfolding its turn and widening the window so it is drawn (`pin`: see prepareTurn). */
  prepareReveal(session: SessionView, ctx: RenderCtx, entryId: string | undefined, toolCallId: string | undefined, pin = true): string | undefined {
    let ti = -1;
    let ei = -1;
    const pos = toolCallId ? toolPosition(session, toolCallId) : undefined;
    if (pos) [ti, ei] = pos;
    else if (entryId) {
      for (let t = session.turns.length - 1; t >= 0 && ti < 0; t--) {
        const idx = session.turns[t]?.entries.findIndex((e) => e.id === entryId) ?? -1;
        if (idx >= 0) [ti, ei] = [t, idx];
      }
    }
    const entry = session.turns[ti]?.entries[ei];
    if (!entry || !this.prepareTurn(session, ctx, ti, entry, pin)) return undefined;
    return entry.id;
  }

  /**
   * Unfolds the `ti`-th turn and widens the windows so it is drawn, and `entry` in it if given
   * (under the current filters); false when there is no such turn. `pin`: keep the turn open as
   * newer turns come even if it is open only by default (going somewhere does; restoring does not).
   */
  prepareTurn(session: SessionView, ctx: RenderCtx, ti: number, entry?: Entry, pin = true): boolean {
    const turn = session.turns[ti];
    if (!turn) return false;
    const key = turnKey(session.sessionId, turn.turnId);
    // Unpinned, a turn open by default (one of the last few) stays one that folds as newer turns come.
    if (pin || !(ctx.ui.turnOpen[key] ?? ti >= session.turns.length - OPEN_TURNS)) ctx.ui.setTurnOpen(key, true);
    if (entry) {
      const visible = ctx.matcher ? turn.entries.filter(ctx.matcher) : turn.entries;
      const idx = visible.indexOf(entry);
      const last = ti === session.turns.length - 1;
      const { size, step } = turnWindow(ctx, key, last);
      const { start, end } = windowRange(visible.length, size, step, anchorEnd(turn.entries, visible, ctx.ui.entryEnd.get(key)));
      if (idx >= 0 && (idx < start || idx >= end)) {
        const usual = last ? ENTRY_WINDOW : EARLIER_TURN_WINDOW;
        if (visible.length - idx <= 2 * usual) {
          // Near the end: the window reaches the end, wide enough that its first entry, a multiple
          // of the step, is at or before it, and stays there while step - 1 more entries stream in.
          ctx.ui.entryEnd.delete(key);
          ctx.ui.entryWindow.set(key, visible.length - Math.floor(idx / step) * step + step - 1);
        } else {
          // Far above it: a window of the usual size with the entry in its middle, the rest of
          // the turn behind "Show N later" (drawing all of it could be thousands of entries).
          const to = Math.min(visible.length, idx + Math.ceil(usual / 2));
          const endEntry = visible[to - 1];
          if (endEntry) ctx.ui.entryEnd.set(key, endEntry.id);
          ctx.ui.entryWindow.set(key, usual);
        }
      }
    }
    if (session.turns.length - ti > ctx.ui.turnsWindow) ctx.ui.turnsWindow = session.turns.length - ti;
    ctx.ui.layoutVersion++;
    return true;
  }

  private reset(sessionId: string | undefined): void {
    const comps = [...this.comps.values()];
    this.comps.clear();
    if (comps.length > 0) {
      // The turns drawn leave the page once this frame is drawn, not in it: taking a session's
      // thousand-odd elements out and disposing them cost the frame that shows another ~4 ms.
      // Meanwhile they are out of rendering (`leaving`: not styled, laid out or painted, no
      // height), out of reach (inert), hidden from screen readers, and passed over by what looks
      // for entries on the page (LEAVING; the new turns come after them).
      const gone = this.turnsBox;
      this.turnsBox = h("div", { class: "turns" });
      gone.after(this.turnsBox);
      gone.classList.add(LEAVING);
      gone.inert = true;
      gone.setAttribute("aria-hidden", "true");
      // A selection in it goes now, as it went with its text (kept, it would draw the box again to show it).
      const selection = getSelection();
      if (selection && selection.rangeCount > 0 && selection.getRangeAt(0).intersectsNode(gone)) selection.removeAllRanges();
      setTimeout(() => {
        gone.remove();
        for (const comp of comps) comp.dispose();
      }, 0);
    }
    this.pre.dispose();
    this.sessionId = sessionId;
    this.turns = undefined;
    this.banners = undefined;
    this.preShown = [];
    this.preWindow = ENTRY_WINDOW;
    this.stamp = "";
  }
}
