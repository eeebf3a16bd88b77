/**
 * One component per transcript entry (thought, message, extra user text, notice, error, unknown;
 * tool cards and plan cards live in their own files). Each keeps the entry it last drew and
 * returns at once when handed the same object again — the reducer keeps untouched entries
 * identical — so a frame only costs what changed. A streaming thought grows by `appendData`.
 */
import { agentIdOf, appendedSince, type Entry } from "../../shared/viewModel";
import { pairSafeEnd } from "../../shared/utf16";
import { button, cleanBlock, cleanInline, h, icon, selectedRange, setText, thoughtLabel, toggleHidden, uid } from "../dom";
import { IncrementalMarkdown, wholeBlocks } from "../markdown";
import { lastLineStart } from "../lineStart";
import { entryKey, type RenderCtx, type Ticker } from "./context";
import { afterLayout, runAfterLayout } from "./frame";
import { estimateBox, type Nearby } from "./nearby";
import { entryShell, extendsText, type EntryComp } from "./entryBase";
import { PlanCard } from "./plan";
import { ToolCard } from "./toolCard";
import { messageBody } from "./chips";

type Of<T extends Entry["type"]> = Extract<Entry, { type: T }>;

export function createEntry(entry: Entry, ctx: RenderCtx): EntryComp {
  switch (entry.type) {
    case "thought": return new ThoughtComp(entry, ctx);
    case "message": return new MessageComp(entry, ctx);
    case "user": return new UserComp(entry, (m) => ctx.post(m));
    case "tool": return new ToolCard(entry, ctx);
    case "plan": return new PlanCard(entry);
    case "notice":
    case "error":
    case "unknown": return new NoticeComp(entry, agentIdOf(ctx.session), ctx);
  }
}

/**
 * Thoughts up to this size are markdown, as messages are (agents put bold, lists and code in their
 * reasoning); a longer one — rare, and what a flooding agent sends — turns into plain text
 * segments once, so streaming never re-renders a long markdown tail every frame.
 */
export const THOUGHT_MARKDOWN_MAX = 32 * 1024;

/** How much of a thought longer than THOUGHT_MARKDOWN_MAX is drawn as markdown: its whole blocks within that (see drawPlain). */
export function markdownStart(text: string): number {
  return text.length > THOUGHT_MARKDOWN_MAX ? wholeBlocks(text.slice(0, THOUGHT_MARKDOWN_MAX)) : 0;
}
/** The most of a streaming thought re-rendered per frame (see IncrementalMarkdown's `maxTail`). */
const THOUGHT_MARKDOWN_TAIL = 2 * 1024;
/**
 * A finished thought first drawn open, or a finished message first drawn, at least this long is
 * drawn once near the view (nearby.ts): a thought past a screenful, so its box is as high as a
 * long thought's (panel.css) before and after; a message long enough that estimating its height
 * from its text is worth the error.
 */
const DRAW_NEAR_MIN = 2 * 1024;
/** The same for a message: a long paragraph or list with no blank line is cut into blocks of about this much. */
const MESSAGE_MARKDOWN_TAIL = 8 * 1024;

/**
 * Start a new segment at the next line break once a segment holds this much text, or at a space
 * once it holds SEGMENT_HARD (a little past it, so the cut falls between words), or there even
 * mid-word (text with no spaces, such as Chinese or Japanese). Appending then lays out one small
 * block each frame, not the whole thought: browsers lay out a block's lines again from its start
 * when text is added (a 64 KiB line of Chinese took over 100 ms a frame). A segment with no line
 * break to end it is cut where its drawn text starts a line (not seen: see append); text drawn
 * plain at once (a thought that grew past THOUGHT_MARKDOWN_MAX, or was picked) is not laid out yet
 * and is cut at spaces, where a cut shows as a line break.
 */
const SEGMENT_SOFT = 1024;
const SEGMENT_HARD = 2048;
/** How far past SEGMENT_HARD a segment may run to end at a space. */
const SEGMENT_SLACK = 256;
/** How long a segment may grow while it waits to be cut where a drawn line starts (what one frame lays out at most). */
const SEGMENT_MOST = 2 * SEGMENT_HARD;
/**
 * Segment blocks go in groups of this many (about 8 KB of text), which the browser lays out and
 * paints only near the view (panel.css). It checks each group's distance from the view after every
 * layout: 600 groups of a 5 MB thought instead of 2,400 blocks (a 5 MB thought streamed with tasks
 * of 54-98 ms instead of 85-160, found a rare text with none over 50 ms). A group coming into view
 * is laid out whole, so groups stay small: 16 blocks (32 KB) of Chinese took 100-120 ms.
 */
const SEGMENTS_PER_GROUP = 4;

/**
 * Agents often open a thought with blank lines, which would show as an empty gap at its top. This
 * strips them from a streaming text (the first line's indentation stays), scanning each character
 * of the leading whitespace once across updates and slicing (no copy of a long thought per update).
 */
class LeadingBlankLines {
  private raw = "";
  /** Where the text starts after its blank lines, as far as scanned. */
  private start = 0;
  private scanned = 0;
  private done = false;

  strip(full: string): string {
    if (!extendsText(this.raw, full)) {
      this.start = 0;
      this.scanned = 0;
      this.done = false;
    }
    this.raw = full;
    let i = this.scanned;
    for (; !this.done && i < full.length; i++) {
      const c = full.charCodeAt(i);
      if (c === 10) this.start = i + 1;
      else if (c !== 32 && c !== 9 && c !== 13) this.done = true;
    }
    this.scanned = i;
    return this.start === 0 ? full : full.slice(this.start);
  }

  /** Whether `full` is the text last stripped and its blank lines are behind: text appended to it is all text. */
  settledOn(full: string): boolean {
    return this.done && this.raw === full;
  }

  /** `full` is the text it settled on with text appended (see settledOn). */
  follow(full: string): void {
    this.raw = full;
    this.scanned = full.length;
  }
}

class ThoughtComp implements EntryComp, Ticker {
  readonly el: HTMLElement;
  private readonly head: HTMLButtonElement;
  private readonly label: HTMLElement;
  /** The scroll box (12 lines while streaming) and the text inside it. */
  private readonly body: HTMLElement;
  private readonly inner: HTMLElement;
  private seg: Text | undefined;
  private segLen = 0;
  /** The drawn text without its leading blank lines, when made (see `src`). */
  private srcText: string | undefined = "";
  /** The markdown view while the thought is short enough (see THOUGHT_MARKDOWN_MAX). */
  private md: IncrementalMarkdown | undefined;
  private plain = false;
  /**
   * Whether the thought has been open: one drawn closed (a finished thought of a session just
   * picked, or read back) is not drawn until first opened (see `deferred`), so showing a session
   * does not run markdown over every folded thought in it.
   */
  private opened: boolean;
  /**
   * Closed and never opened, and short enough to be drawn as markdown when opened or ended (a long
   * one starts with markdown too, see drawPlain): nothing is drawn yet, so showing a session builds
   * no text and runs no markdown for its folded thoughts; find counts their matches from the entry
   * (`data-body="later"`).
   */
  private deferred = false;
  /**
   * Ended, open and never drawn (a session picked with thinking expanded): put off like `deferred`
   * until its box is near the view (ctx.nearby), so a pick does not draw every open thought at once.
   */
  private waiting = false;
  /** Drawn at least once: a thought drawn while it streamed, or opened, is never put off again. */
  private drawnOnce = false;
  /** Set while the reader's own action draws it (opening it, or coming near): drawn now, not put off. */
  private drawNow = false;
  private readonly lead = new LeadingBlankLines();
  private entry: Of<"thought">;
  private ctx: RenderCtx;
  private version = -1;
  private open: boolean | undefined;
  private streaming: boolean | undefined;

  constructor(entry: Of<"thought">, ctx: RenderCtx) {
    this.entry = entry;
    this.ctx = ctx;
    const bodyId = uid("thought");
    this.label = h("span", { class: "thought-label" });
    this.head = h("button", { class: "entry-head thought-head", attrs: { type: "button", "aria-controls": bodyId } },
      icon("chevron-right", "chevron"), icon("lightbulb", "thought-icon"), this.label);
    // While it streams the box lays its text out bottom-up (panel.css), so it shows the newest
    // line as text arrives without any script reading layout; a reader who scrolls up in it stays put.
    this.inner = h("div", { class: "thought-inner" });
    this.body = h("div", { class: "thought-text", id: bodyId, attrs: { tabindex: "0" } }, this.inner);
    this.el = entryShell(entry);
    this.el.append(this.head, this.body);
    this.head.addEventListener("click", () => this.toggle());
    // Reached with the keyboard while waiting to be drawn: drawn now.
    this.body.addEventListener("focus", () => this.ctx.nearby.now(this.body));
    this.opened = this.wantOpen();
    this.syncText(this.lead.strip(entry.text));
    this.syncOpen();
    this.version = ctx.version;
  }

  /** The drawn text without its leading blank lines (made when asked after `grow`: slicing a long growing text copies all of it). */
  private get src(): string {
    return this.srcText ??= this.lead.strip(this.entry.text);
  }

  update(entry: Entry, ctx: RenderCtx): void {
    if (entry.type !== "thought" || (entry === this.entry && ctx.version === this.version)) return;
    const drawn = this.entry;
    this.entry = entry;
    this.ctx = ctx;
    this.version = ctx.version;
    if (!this.grow(drawn, entry)) {
      // What is drawn, made now if a grow left it unmade (before the blank-line scan moves on to the new text).
      this.srcText ??= this.lead.strip(drawn.text);
      const text = this.lead.strip(entry.text);
      if (text !== this.srcText) this.syncText(text);
    }
    this.syncOpen();
  }

  /**
   * Plain text that grew by what was appended since `drawn` gets just that, the text itself not
   * read (see appendedSince); false when that is not known or the text is drawn another way.
   * Plain stays plain as text grows: it is long (and only gets longer) or has not been opened.
   */
  private grow(drawn: Of<"thought">, entry: Of<"thought">): boolean {
    if (entry === drawn || !this.plain || this.deferred || !this.lead.settledOn(drawn.text)) return false;
    const added = appendedSince(entry, drawn);
    if (added === undefined) return false;
    this.lead.follow(entry.text);
    this.append(added);
    this.srcText = undefined;
    return true;
  }

  /** `text` is the thought without its leading blank lines (see LeadingBlankLines). */
  private syncText(text: string): void {
    // Markdown while it is short enough and has been open; plain text otherwise (drawn once, then appended to).
    const plain = text.length > THOUGHT_MARKDOWN_MAX || !this.opened;
    // Never opened: drawn when first opened (a long one that streams meanwhile is drawn as it comes).
    if (plain && !this.opened && (text.length <= THOUGHT_MARKDOWN_MAX || this.entry.endedAt !== undefined)) {
      if (!this.deferred) this.putOff();
      this.srcText = text;
      return;
    }
    // Ended and open, never drawn: drawn when near the view (or opened by the reader).
    if (!this.drawnOnce && !this.drawNow && this.entry.endedAt !== undefined && text.length >= DRAW_NEAR_MIN) {
      if (!this.deferred) this.putOff();
      if (!this.waiting) {
        this.waiting = true;
        this.body.classList.add("waiting");
        this.ctx.nearby.whenNear(this.body, () => this.drawWaiting());
      }
      this.srcText = text;
      return;
    }
    if (this.waiting) {
      this.waiting = false;
      this.body.classList.remove("waiting");
      this.ctx.nearby.cancel(this.body);
    }
    if (this.deferred) {
      // Opened, or grown too long for markdown: drawn whole now, however it is drawn.
      this.deferred = false;
      delete this.el.dataset.body;
      this.plain = !plain;
    }
    this.drawnOnce = true;
    if (plain !== this.plain) {
      const md = this.md;
      this.plain = plain;
      this.md = undefined;
      this.body.classList.toggle("plain", plain);
      const start = plain && md && extendsText(this.src, text) ? markdownStart(text) : 0;
      if (md && start > 0) {
        // Grown past THOUGHT_MARKDOWN_MAX as it streamed: the blocks markdown drew stay (see drawPlain), the rest goes on plain.
        md.freeze(text, start);
        this.seg = undefined;
        this.append(text.slice(start));
        this.srcText = text;
        return;
      }
      this.inner.replaceChildren();
      this.seg = undefined;
      this.srcText = "";
    }
    if (!this.plain) {
      if (!this.md) {
        this.md = new IncrementalMarkdown("thought-md", THOUGHT_MARKDOWN_TAIL);
        this.inner.replaceChildren(this.md.el);
      }
      this.md.update(text, this.entry.endedAt !== undefined);
    } else {
      const drawn = this.src;
      if (drawn !== "" && extendsText(drawn, text)) this.append(text.slice(drawn.length));
      else this.drawPlain(text);
    }
    this.srcText = text;
  }

  /** Nothing drawn (`data-body="later"`): find counts it from the entry meanwhile. */
  private putOff(): void {
    this.deferred = true;
    this.plain = true;
    this.md = undefined;
    this.inner.replaceChildren();
    this.seg = undefined;
    this.body.classList.add("plain");
    this.el.dataset.body = "later";
  }

  /** Near the view now (or asked for): drawn. */
  private drawWaiting(): void {
    this.drawNow = true;
    try {
      this.syncText(this.src);
    } finally {
      this.drawNow = false;
    }
  }

  /**
   * Draws `text` (longer than THOUGHT_MARKDOWN_MAX) plain after its markdown start: its whole
   * blocks within THOUGHT_MARKDOWN_MAX, as find counts them (searchText.ts); folded, only while it
   * streams (a finished one never opened is drawn when opened, see `deferred`). A thought that grows
   * past THOUGHT_MARKDOWN_MAX as it streams keeps the blocks it drew there (IncrementalMarkdown.freeze),
   * so what was read does not move or lose its formatting; only the paragraph it was in goes on plain.
   */
  private drawPlain(text: string): void {
    this.inner.replaceChildren();
    this.seg = undefined;
    const start = markdownStart(text);
    if (start > 0) {
      // The same markdown view a streaming thought freezes as it crosses the length, drawn at once.
      const md = new IncrementalMarkdown("thought-md");
      md.freeze(text, start);
      this.inner.append(md.el);
    }
    this.append(text.slice(start));
  }

  /** `text` (which may hold text already) is the segment appended to from now on. */
  private startSegment(text: Text): Text {
    this.seg = text;
    this.segLen = text.length;
    // The first segment sits in the body itself; later ones get their own block, in groups.
    if (!this.inner.firstChild) this.inner.append(text);
    else {
      // The last group (the body's last element, not a markdown start) while it has room, else a new one.
      let group = this.inner.lastElementChild;
      if (!group?.classList.contains("segs") || group.childElementCount >= SEGMENTS_PER_GROUP) this.inner.append(group = h("div", { class: "segs" }));
      group.append(h("div", { class: "seg" }, text));
    }
    return text;
  }

  private append(raw: string): void {
    let s = cleanBlock(raw);
    // The segment being appended to as the last frame drew it (laid out): where its last line starts can be read.
    let drawn = this.seg !== undefined && this.segLen > 0;
    while (s.length > 0) {
      const seg = this.seg ?? this.startSegment(document.createTextNode(""));
      let take = s.length;
      if (this.segLen + s.length > SEGMENT_SOFT) {
        const limit = Math.max(1, SEGMENT_HARD - this.segLen);
        const nl = s.indexOf("\n", Math.max(0, SEGMENT_SOFT - this.segLen));
        if (nl >= 0 && nl < limit + SEGMENT_SLACK) take = nl + 1;
        else if (s.length > limit) {
          // No line break to end it: it ends where its last drawn line starts and the next goes on
          // from there, the cut not seen (lastLineStart). Not laid out yet, or too short to cut so,
          // it takes what came (up to SEGMENT_MOST) and is cut so in a later frame. Else at a space,
          // where the cut shows as a line break.
          const line = drawn ? lastLineStart(seg, SEGMENT_SOFT) : undefined;
          drawn = false;
          if (line !== undefined) {
            // The last line goes on in a segment of its own. The reader's selection keeps its ends
            // in it (the split moves them there; moving the node would put them outside).
            const last = seg.splitText(line);
            const range = selectedRange();
            const from = range?.startContainer === last ? range.startOffset : -1;
            const to = range?.endContainer === last ? range.endOffset : -1;
            this.startSegment(last);
            if (range && from >= 0) range.setStart(last, from);
            if (range && to >= 0) range.setEnd(last, to);
            continue;
          }
          if (this.segLen + s.length > SEGMENT_MOST) {
            const sp = s.lastIndexOf(" ", limit + SEGMENT_SLACK - 1);
            take = sp >= Math.max(0, SEGMENT_SOFT - this.segLen) ? sp + 1 : limit;
          }
        }
        if (take > 1) take = pairSafeEnd(s, take);
      }
      drawn = false;
      seg.appendData(s.slice(0, take));
      this.segLen += take;
      s = s.slice(take);
      if (s.length > 0) this.seg = undefined;
    }
  }

  /**
   * A thought that ends while the reader has text in it selected stays open (as if they had opened
   * it), where it would fold on its own: folding it would take away what they are copying.
   */
  private keepOpenWhileSelected(): void {
    if (!selectedRange()?.intersectsNode(this.body)) return;
    this.ctx.ui.entryOpen.set(entryKey(this.ctx, this.entry.id), true);
  }

  private wantOpen(): boolean {
    const mode = this.ctx.host.thinkingDisplay;
    const override = this.ctx.ui.entryOpen.get(entryKey(this.ctx, this.entry.id));
    return override ?? (mode === "expanded" || (mode === "auto" && this.entry.endedAt === undefined));
  }

  private syncOpen(): void {
    const streaming = this.entry.endedAt === undefined;
    if (this.streaming && !streaming && this.open) this.keepOpenWhileSelected();
    const open = this.wantOpen();
    if (open && !this.opened) {
      // Drawn plain while closed: drawn again as markdown when short enough.
      this.opened = true;
      this.syncText(this.src);
    }
    if (!streaming && this.md?.cut) {
      // Ended, with a paragraph cut while it streamed: drawn whole (IncrementalMarkdown.update) if
      // open; folded, its text goes until it is opened again, as if never opened (find counts it
      // from the entry meanwhile, as it will be drawn).
      if (open) this.md.update(this.src, true);
      else {
        this.opened = false;
        this.syncText(this.src);
      }
    }
    if (open !== this.open) {
      // Shown again while its text waits (thinking set back to expanded): looked at where it now is.
      if (open && this.waiting) this.ctx.nearby.refresh(this.body);
      this.open = open;
      this.el.classList.toggle("open", open);
      this.head.setAttribute("aria-expanded", String(open));
      toggleHidden(this.body, !open);
    }
    this.ctx.rows.mark(this.el, "thought", !open);
    if (streaming !== this.streaming) {
      // Done: the box goes back to top-down (a thought opened later reads from its start); one left open stays at its end.
      if (this.streaming && open) {
        const body = this.body;
        afterLayout(() => { body.scrollTop = body.scrollHeight; });
      }
      this.streaming = streaming;
    }
    this.el.classList.toggle("streaming", streaming);
    this.tick(Date.now());
    if (streaming) this.ctx.tickers.add(this);
    else this.ctx.tickers.delete(this);
  }

  tick(now: number): void {
    const e = this.entry;
    setText(this.label, thoughtLabel(e.startedAt, e.endedAt, now));
  }

  private toggle(): void {
    this.ctx.ui.entryOpen.set(entryKey(this.ctx, this.entry.id), !this.open);
    // Opened by the reader: drawn now, where they look.
    this.drawNow = true;
    try {
      this.syncOpen();
    } finally {
      this.drawNow = false;
    }
    if (this.open) this.ctx.nearby.now(this.body);
    runAfterLayout();
  }

  dispose(): void {
    this.ctx.tickers.delete(this);
    this.ctx.nearby.cancel(this.body);
  }
}

class MessageComp implements EntryComp {
  readonly el: HTMLElement;
  private readonly md = new IncrementalMarkdown("message-body", MESSAGE_MARKDOWN_TAIL);
  private readonly nearby: Nearby;
  private entry: Of<"message">;
  private done: boolean;
  /**
   * Finished when first drawn and long (a session picked, earlier turns shown): put off until its
   * box, as high as its text is estimated to be, is near the view (ctx.nearby), so a pick does not
   * run markdown over every long answer in the session at once.
   */
  private waiting = false;

  constructor(entry: Of<"message">, ctx: RenderCtx) {
    this.entry = entry;
    this.nearby = ctx.nearby;
    this.done = messageDone(entry, ctx);
    this.el = entryShell(entry);
    this.el.append(this.md.el);
    if (this.done && entry.text.length >= DRAW_NEAR_MIN) this.wait();
    else this.md.update(entry.text, this.done);
  }

  update(entry: Entry, ctx: RenderCtx): void {
    if (entry.type !== "message") return;
    const done = messageDone(entry, ctx);
    if (entry === this.entry && done === this.done) return;
    const grew = entry.text !== this.entry.text;
    this.entry = entry;
    this.done = done;
    if (this.waiting) {
      // (Its turn goes on after all: drawn now, as a streaming message is.)
      if (!done) this.nearby.now(this.md.el);
      else if (grew) estimateBox(this.md.el, entry.text);
      return;
    }
    this.md.update(entry.text, done);
  }

  /** Nothing drawn (`data-body="later"`: find counts it from the entry meanwhile), in a box of its estimated height. */
  private wait(): void {
    this.waiting = true;
    this.el.dataset.body = "later";
    this.md.el.classList.add("waiting");
    estimateBox(this.md.el, this.entry.text);
    this.nearby.whenNear(this.md.el, () => this.draw());
  }

  /** Near the view now (or asked for): drawn, and the box takes its text's height. */
  private draw(): void {
    this.waiting = false;
    delete this.el.dataset.body;
    this.md.el.classList.remove("waiting");
    this.md.update(this.entry.text, this.done);
  }

  dispose(): void {
    this.nearby.cancel(this.md.el);
  }
}

/** True when a message will not grow: something came after it, or its turn is over. */
function messageDone(entry: Of<"message">, ctx: RenderCtx): boolean {
  const turn = ctx.session.turns[ctx.session.turns.length - 1];
  return !turn || turn.endedAt !== undefined || turn.entries[turn.entries.length - 1]?.id !== entry.id;
}

class UserComp implements EntryComp {
  readonly el: HTMLElement;
  private main: HTMLElement = h("div", { class: "prompt-main" });
  private entry: Of<"user">;

  constructor(entry: Of<"user">, private readonly post: RenderCtx["post"]) {
    this.entry = entry;
    this.el = entryShell(entry);
    this.el.append(icon("account", "user-icon"), this.main);
    this.draw();
  }

  update(entry: Entry, _ctx: RenderCtx): void {
    if (entry.type !== "user" || entry === this.entry) return;
    this.entry = entry;
    this.draw();
  }

  /** Text, chips, or both; never an empty bubble. */
  private draw(): void {
    const body = messageBody(this.entry.text, this.entry.attachments, this.post, (shown) => h("div", { class: "user-text" }, shown), "(empty message)");
    this.main.replaceWith(body);
    this.main = body;
  }

  dispose(): void {}
}

/** Normalises an agent's free-form severity to the three we style. */
export function severityOf(s: string): "info" | "warning" | "error" {
  if (/err|fatal|crit/i.test(s)) return "error";
  if (/warn/i.test(s)) return "warning";
  return "info";
}

class NoticeComp implements EntryComp {
  readonly el: HTMLElement;
  private entry: Of<"notice" | "error" | "unknown">;

  constructor(entry: Of<"notice" | "error" | "unknown">, private readonly agentName: string, private readonly ctx: Pick<RenderCtx, "post">) {
    this.entry = entry;
    this.el = entryShell(entry);
    this.draw();
  }

  update(entry: Entry, _ctx: RenderCtx): void {
    if ((entry.type !== "notice" && entry.type !== "error" && entry.type !== "unknown") || entry === this.entry) return;
    this.entry = entry;
    this.draw();
  }

  private draw(): void {
    const e = this.entry;
    switch (e.type) {
      case "notice": {
        const sev = severityOf(e.severity);
        this.el.className = `entry entry-notice sev-${sev}`;
        this.el.replaceChildren(
          icon(sev === "info" ? "info" : sev),
          h("div", { class: "notice-text" },
            h("span", { class: "notice-title" }, cleanInline(e.title, 1000)),
            e.description ? h("div", { class: "notice-desc" }, cleanBlock(e.description.slice(0, 20_000))) : null,
            e.action ? h("div", { class: "banner-actions" }, this.action(e.action)) : null),
        );
        return;
      }
      case "error":
        this.el.className = "entry entry-error sev-error";
        this.el.replaceChildren(
          icon("error"),
          h("div", { class: "notice-text" },
            h("span", { class: "notice-title" }, e.fatal ? `Agent stopped: ${cleanInline(e.message, 1000)}` : cleanInline(e.message, 1000)),
            e.detail ? h("pre", { class: "notice-detail", attrs: { tabindex: "0" } }, cleanBlock(e.detail.slice(0, 20_000))) : null),
        );
        return;
      case "unknown":
        this.el.className = "entry entry-unknown";
        this.el.replaceChildren(
          icon("question"),
          h("div", { class: "notice-text" },
            `${cleanInline(this.agentName, 100)} sent something Agent Thoughts does not show: `,
            h("span", { class: "ut" }, cleanInline(e.what, 200)), " — ", h("span", { class: "ut" }, cleanInline(e.reason, 500))),
        );
        return;
    }
  }

  private action(action: "restartAgent"): HTMLButtonElement {
    switch (action) {
      case "restartAgent": {
        const b = button({ class: "banner-action primary", icon: "debug-restart", label: "Restart Agent" });
        b.dataset.action = action;
        b.addEventListener("click", () => this.ctx.post({ type: "restartAgent", agentName: this.agentName }));
        return b;
      }
    }
  }

  dispose(): void {}
}
