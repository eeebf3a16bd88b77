/**
 * One component per transcript entry (thought, message, extra user text, notice, error, unknown;
 * tool cards and plan cards live in their own files). Each keeps the entry it last drew and
 * returns at once when handed the same object again — the reducer keeps untouched entries
 * identical — so a frame only costs what changed. A streaming thought grows by `appendData`.
 */
import { agentIdOf, appendedSince, type Entry } from "../../shared/viewModel";
import { button, cleanBlock, cleanInline, h, icon, selectedRange, setText, thoughtLabel, toggleHidden, uid } from "../dom";
import { IncrementalMarkdown, wholeBlocks } from "../markdown";
import { entryKey, type RenderCtx, type Ticker } from "./context";
import { afterLayout, runAfterLayout } from "./frame";
import { estimateBox, textExtent, type Nearby } from "./nearby";
import { PlainSegments } from "./segments";
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

/**
 * A message up to this size is markdown; a longer one (a flooding agent's, or a generated document
 * pasted as the answer) is markdown for its whole blocks within this size and plain text after them,
 * as a long thought is: drawn whole when picked, a 4.8 MB answer took one task of 6.5-8 s and
 * 192,000 elements. About 50 ms of markdown.
 */
export const MESSAGE_MARKDOWN_MAX = 64 * 1024;

/** How much of a text longer than `max` is drawn as markdown: its whole blocks within that (see drawPlain). */
export function markdownStart(text: string, max = THOUGHT_MARKDOWN_MAX): number {
  return text.length > max ? wholeBlocks(text.slice(0, max)) : 0;
}
/** Where a message is drawn as plain text from (past MESSAGE_MARKDOWN_MAX), for its estimated height; none drawn so: Infinity. */
function plainFrom(text: string): number {
  return text.length > MESSAGE_MARKDOWN_MAX ? markdownStart(text, MESSAGE_MARKDOWN_MAX) : Infinity;
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
  /** The plain text drawn after a long thought's markdown start (or a thought never opened). */
  private readonly segs: PlainSegments;
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
    this.segs = new PlainSegments(this.inner);
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
    this.segs.append(added);
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
        this.ctx.nearby.whenNear(this.body, () => this.drawWaiting(), () => this.src);
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
        this.segs.endSegment();
        this.segs.append(text.slice(start));
        this.srcText = text;
        return;
      }
      this.segs.clear();
      this.srcText = "";
    }
    if (!this.plain) {
      if (!this.md) {
        this.md = new IncrementalMarkdown("thought-md", THOUGHT_MARKDOWN_TAIL);
        this.segs.clear();
        this.inner.append(this.md.el);
      }
      this.md.update(text, this.entry.endedAt !== undefined);
    } else {
      const drawn = this.src;
      if (drawn !== "" && extendsText(drawn, text)) this.segs.append(text.slice(drawn.length));
      else this.drawPlain(text);
    }
    this.srcText = text;
  }

  /** Nothing drawn (`data-body="later"`): find counts it from the entry meanwhile. */
  private putOff(): void {
    this.deferred = true;
    this.plain = true;
    this.md = undefined;
    this.segs.clear();
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
    this.segs.clear();
    const start = markdownStart(text);
    if (start > 0) {
      // The same markdown view a streaming thought freezes as it crosses the length, drawn at once.
      const md = new IncrementalMarkdown("thought-md");
      md.freeze(text, start);
      this.inner.append(md.el);
    }
    this.segs.append(text.slice(start));
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

/**
 * A finished message of more line breaks than this is drawn in a box of its own that scrolls, at
 * most three quarters of a view high (`.tall`, panel.css). An agent's answer of 8 MB of ".\n"
 * (4 million lines, past 64 KB drawn plain, each a line) made the transcript taller than the
 * browser lays out (33,554,432 px): what came after it (its tool calls, its next answer, the next
 * turns) was out of reach. Line breaks only: a long answer of prose wraps to as many lines, but
 * an agent writes those for a reader, and the bench's answer of 1,400 paragraphs (84 KB, 2,800
 * breaks) stays in the transcript.
 */
const TALL_LINES = 10_000;
/**
 * Streaming, only past this many (no answer an agent writes for a reader is so long): until then
 * it is drawn in the transcript, which follows its newest line (a box of its own would not).
 */
const TALL_STREAMING_LINES = 100_000;

class MessageComp implements EntryComp {
  readonly el: HTMLElement;
  /** The message's text: its markdown view, then (past MESSAGE_MARKDOWN_MAX) plain text segments. */
  private readonly body: HTMLElement;
  private md: IncrementalMarkdown;
  private readonly segs: PlainSegments;
  /** The text drawn, and whether past MESSAGE_MARKDOWN_MAX (its markdown start, then plain). */
  private drawn = "";
  private plain = false;
  /** The drawn (or waiting) text's line breaks (see TALL_LINES, TALL_STREAMING_LINES), and whether its box is `.tall`. */
  private lines = 0;
  private tall = false;
  private readonly nearby: Nearby;
  private entry: Of<"message">;
  private done: boolean;

  constructor(entry: Of<"message">, ctx: RenderCtx) {
    this.entry = entry;
    this.nearby = ctx.nearby;
    this.done = messageDone(entry, ctx);
    this.md = new IncrementalMarkdown("message-md", MESSAGE_MARKDOWN_TAIL);
    this.body = h("div", { class: "message-body" }, this.md.el);
    this.segs = new PlainSegments(this.body, true);
    this.el = entryShell(entry);
    this.el.append(this.body);
    if (this.done && entry.text.length >= DRAW_NEAR_MIN) this.wait();
    else this.draw();
  }

  update(entry: Entry, ctx: RenderCtx): void {
    if (entry.type !== "message") return;
    const done = messageDone(entry, ctx);
    if (entry === this.entry && done === this.done) return;
    const grew = entry.text !== this.entry.text;
    this.entry = entry;
    this.done = done;
    if (this.nearby.has(this.body)) {
      // (Its turn goes on after all: drawn now, as a streaming message is.)
      if (!done) this.nearby.now(this.body);
      else if (grew) this.sizeWaiting();
      return;
    }
    this.draw();
  }

  /**
   * Finished when first drawn and long (a session picked, earlier turns shown): put off until its
   * box, as high as its text is estimated to be, is near the view (ctx.nearby), so a pick does not
   * run markdown over every long answer in the session at once. Nothing drawn meanwhile
   * (`data-body="later"`: find counts it from the entry).
   */
  private wait(): void {
    this.el.dataset.body = "later";
    this.body.classList.add("waiting");
    this.sizeWaiting();
    this.nearby.whenNear(this.body, () => {
      delete this.el.dataset.body;
      this.body.classList.remove("waiting");
      this.draw();
    }, () => this.entry.text);
  }

  /** The waiting box as high as its text is estimated to be, in a box of its own when it has more than TALL_LINES breaks. */
  private sizeWaiting(): void {
    this.setLines(estimateBox(this.body, this.entry.text, plainFrom(this.entry.text)).breaks);
  }

  private setLines(lines: number): void {
    this.lines = lines;
    const tall = lines > (this.done ? TALL_LINES : TALL_STREAMING_LINES);
    if (tall === this.tall) return;
    this.tall = tall;
    this.body.classList.toggle("tall", tall);
  }

  /** Markdown up to MESSAGE_MARKDOWN_MAX; past it, its whole blocks within that, then plain text (appended to as it streams). */
  private draw(): void {
    const text = this.entry.text;
    const drawn = this.drawn;
    this.drawn = text;
    const goesOn = drawn !== "" && extendsText(drawn, text);
    // What it draws grew by what was appended (counted alone as it streams), or is all of it.
    const added = goesOn ? text.slice(drawn.length) : text;
    // (Plain from its start: every line break counted.)
    this.setLines((goesOn ? this.lines : 0) + textExtent(added, 0).breaks);
    if (this.plain && goesOn) {
      this.segs.append(added);
      return;
    }
    if (!this.plain && text.length <= MESSAGE_MARKDOWN_MAX) {
      this.md.update(text, this.done);
      return;
    }
    const start = markdownStart(text, MESSAGE_MARKDOWN_MAX);
    if (!this.plain && goesOn) {
      // Grown past the length as it streams: the blocks drawn stay, the rest goes on plain.
      this.md.freeze(text, start);
      this.segs.endSegment();
    } else {
      // Drawn anew (its text not what was drawn): markdown, or its markdown start then plain.
      this.segs.clear();
      this.md = new IncrementalMarkdown("message-md", MESSAGE_MARKDOWN_TAIL);
      this.body.append(this.md.el);
      this.plain = text.length > MESSAGE_MARKDOWN_MAX;
      this.body.classList.toggle("plain", this.plain);
      if (!this.plain) {
        this.md.update(text, this.done);
        return;
      }
      this.md.freeze(text, start);
    }
    this.plain = true;
    this.body.classList.add("plain");
    this.segs.append(text.slice(start));
  }

  dispose(): void {
    this.nearby.cancel(this.body);
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
