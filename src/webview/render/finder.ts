/**
 * Find in the transcript, as an editor's find widget does it: every match of the search box's
 * text highlighted where it stands, the current one drawn apart, and stepping through them in
 * transcript order (wrapping). Going to a match unfolds its turn, opens its thought or tool card,
 * centres it, and stops the transcript following the bottom until the reader scrolls.
 *
 * Highlights are CSS Custom Highlights over `StaticRange`s: no text node is split or rewritten,
 * and static ranges cost the streaming DOM nothing (live ranges are updated on every append).
 * Only the matches near the view are highlighted (the sites an IntersectionObserver reports within
 * a screen of it, and of a long site the stretch around the view): Chromium rebuilds the markers
 * of every highlighted range whenever the DOM changes, so while the agent streams the cost follows
 * the highlights there are, which this keeps to a few hundred.
 * Matches are counted where they are drawn: from the page for entries on it, each rescanned only
 * from where its text changed (a MutationObserver says which); from the entry's text
 * (`searchText.ts`) for the ones not drawn (folded turns, earlier entries, a closed card's body),
 * counted a time-budgeted slice at a time.
 */
import type { Entry, SessionView, TurnView } from "../../shared/viewModel";
import { countIn, foldCase, PieceScan, siteOf, stepIndex, type PieceReader } from "../find";
import { entryKey, type RenderCtx } from "./context";
import { LEAVING } from "./entryBase";
import { foldFields, PROMPT_REGION, REGIONS, shownPrompt, searchableText, toolBodyFields } from "./searchText";
import type { Transcript } from "./transcript";

/** What the toolbar shows: "3 of 17", "No results", or that counting is still under way. */
export interface FindStatus {
  active: boolean;
  pending: boolean;
  /** The current match (0-based), -1 when none. */
  index: number;
  total: number;
}

export interface FinderHooks {
  /** Stop following the bottom (the reader went somewhere). */
  release(): void;
  invalidate(): void;
  /** The status changed; `announce` when the reader's own action changed it. */
  status(s: FindStatus, announce: boolean): void;
}

/** A place in the transcript that can hold matches: a turn's prompt or an entry. */
interface Site {
  key: string;
  /** Its turn's index in the session; -1 above the first turn. */
  turn: number;
  /** Undefined for a prompt. */
  entry: Entry | undefined;
  prompt: string;
}

/** A site drawn on the page. */
interface DomSite {
  el: HTMLElement;
  scan: PieceScan<Node>;
  /** Highlights of the matches `lo`… (the stretch near the view), in order. */
  lo: number;
  ranges: StaticRange[];
  /** Its match count when it was last painted (to follow a growing end). */
  paintedOf: number;
  /** Matches in what the entry keeps off the page (see countUndrawn), counted from the entry. */
  extra: number;
  extraOf: [Entry, boolean] | undefined;
  /** Its `extra` is put off to a later slice (the frame's time was up): not counted yet. */
  owed: boolean;
}

const SITE_SELECTOR = ".turn-prompt, [data-entry-id]";
/** Counting from entries' text, and scanning a long drawn one, yield after this long and go on in the next task. */
const BUDGET_MS = 8;

/** Says when a slice that ends at `deadline` is over. */
function sliceDue(deadline = performance.now() + BUDGET_MS): () => boolean {
  return () => performance.now() > deadline;
}
/** A site with at most this many matches is highlighted whole when near the view… */
const SMALL_SITE = 64;
/** …a longer one from its first match above the view to its last below, at most this many. */
const SITE_PAINT = 400;
/** How many of a site's matches are measured to find the first one in view. */
const NEAR_SCAN = 200;

const HAS_HIGHLIGHTS = typeof Highlight === "function" && typeof CSS !== "undefined" && "highlights" in CSS;

/** Text nodes read without copying; the region elements between them read as a line break (no query holds one). */
const READ: PieceReader<Node> = {
  length: (n) => (n.nodeType === Node.TEXT_NODE ? (n as Text).length : 1),
  slice: (n, from, to) => (n.nodeType === Node.TEXT_NODE ? (n as Text).substringData(from, to - from) : "\n".slice(from, to)),
};

function piecesOf(root: HTMLElement, selector: string): Node[] {
  const out: Node[] = [];
  for (const region of root.querySelectorAll(selector)) {
    out.push(region);
    const walk = document.createTreeWalker(region, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) out.push(n);
  }
  return out;
}

/** A record of the turns of the session shown before leaving the page, and nothing else. */
function leavingOnly(r: MutationRecord): boolean {
  if (r.type !== "childList" || r.addedNodes.length > 0 || r.removedNodes.length === 0) return false;
  for (const n of r.removedNodes) if (!(n instanceof Element && n.classList.contains(LEAVING))) return false;
  return true;
}

function keyOf(el: HTMLElement): string | undefined {
  const id = el.dataset.entryId;
  if (id !== undefined) return `e:${id}`;
  const turn = el.closest<HTMLElement>(".turn")?.dataset.turnId;
  return turn === undefined ? undefined : `p:${turn}`;
}

/** True when a scroll box clips `el` (it scrolls on the y or x axis). */
function scrolls(el: HTMLElement): boolean {
  if (el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) return false;
  const s = getComputedStyle(el);
  return /auto|scroll/.test(s.overflowY) || /auto|scroll/.test(s.overflowX);
}

/** A live range over a match's bounds; undefined when the text changed since it was scanned (the next scan redraws it). */
function rangeOf(b: readonly [Node, number, Node, number]): Range | undefined {
  const r = document.createRange();
  try {
    r.setStart(b[0], b[1]);
    r.setEnd(b[2], b[3]);
  } catch {
    return undefined;
  }
  return r;
}

/**
 * A streaming thought's blocks that are not drawn while away from its box's view (panel.css): one
 * measures at its guessed height and takes its own once drawn, and the box reads bottom-up, so the
 * match in it would move. (A finished thought's box reads top-down: a block growing moves nothing above it.)
 */
const UNDRAWN_BLOCK = ".entry-thought.streaming .md-stable > p.cut, .entry-thought.streaming .segs";

/**
 * Centres a range in each scroll box around it, innermost first (a thought's own box, then the
 * transcript); a streaming thought's block around it is drawn for good first (UNDRAWN_BLOCK).
 */
function centre(range: Range, root: HTMLElement): void {
  const block = range.startContainer.parentElement?.closest<HTMLElement>(UNDRAWN_BLOCK);
  if (block) block.style.contentVisibility = "visible";
  const boxes: HTMLElement[] = [];
  for (let el = range.startContainer.parentElement; el && el !== root; el = el.parentElement) if (scrolls(el)) boxes.push(el);
  boxes.push(root);
  for (const box of boxes) {
    const r = range.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    box.scrollTop += r.top - b.top - (box.clientHeight - r.height) / 2;
    if (box !== root && box.scrollWidth > box.clientWidth) box.scrollLeft += r.left - b.left - (box.clientWidth - r.width) / 2;
  }
}

/** True when a range's box can be seen: not empty, and inside every scroll box around it. */
function inView(range: Range, root: HTMLElement): boolean {
  const r = range.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return false;
  for (let el = range.startContainer.parentElement; el; el = el.parentElement) {
    if (el !== root && !scrolls(el)) continue;
    const b = el.getBoundingClientRect();
    if (r.bottom <= b.top || r.top >= b.bottom || r.right <= b.left || r.left >= b.right) return false;
    if (el === root) return true;
  }
  return true;
}

export class Finder {
  private readonly all: Highlight | undefined;
  private readonly cur: Highlight | undefined;
  private readonly observer: MutationObserver;
  /** Sites within a screen of the transcript's view. */
  private readonly nearby: IntersectionObserver;
  private readonly near = new Set<Element>();
  private repaintFrame = 0;
  private q = "";
  private sessionId: string | undefined;
  private session: SessionView | undefined;
  /** Sites in transcript order, per group (what is above the turns, then each turn). */
  private groups: Site[][] = [];
  private built: { turns: readonly TurnView[] | undefined; pre: readonly Entry[] | undefined; version: number } = { turns: undefined, pre: undefined, version: -1 };
  private readonly turnSites = new WeakMap<TurnView, { version: number; sites: Site[] }>();
  private keyMap: Map<string, Site> | undefined;
  private readonly dom = new Map<string, DomSite>();
  private readonly model = new Map<string, { of: Entry | string; n: number }>();
  private readonly dirty = new Set<Element>();
  /** Drawn sites whose scan ran out of time (a long thought): scanned on in the next slices. */
  private readonly scanning = new Set<string>();
  private requery = true;
  /** Whether every site not on the page is counted (see `counted` for all of them). */
  private complete = true;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private current: { key: string; k: number } | undefined;
  /**
   * What to do once every site is counted: step, go to the match nearest the view ("near", as the
   * reader types), or only make it current ("here": a search restored after a reload, another session).
   */
  private want: 1 | -1 | "near" | "here" | undefined;
  /**
   * The frame that reset the search has not ended: a "here" waits for the next one, because the
   * place a picked session (or a reload) opens at is only restored at that frame's end.
   */
  private fresh = false;
  /** A step replaced a "near" still waiting for the count: it steps from the match nearest the view. */
  private stepFromNear = false;
  /** The match to scroll to at the end of this frame. */
  private scrollTo: { key: string; k: number } | undefined;
  private announce = false;
  /** Where going to a match left the transcript's scroll position (it stays until the reader moves). */
  private hold: number | undefined;
  status: FindStatus = { active: false, pending: false, index: -1, total: 0 };

  constructor(private readonly root: HTMLElement, private readonly transcript: Transcript, private readonly hooks: FinderHooks, keepHoldIn: readonly HTMLElement[]) {
    if (HAS_HIGHLIGHTS) {
      this.all = new Highlight();
      this.cur = new Highlight();
      this.cur.priority = 1;
    }
    this.observer = new MutationObserver((records) => {
      if (!this.q) return;
      this.syncDom(records, sliceDue());
      this.publish();
    });
    this.nearby = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting) this.near.add(e.target);
        else this.near.delete(e.target);
      }
      this.repaint();
    }, { root, rootMargin: "100% 0px" });
    // Scrolling the transcript, or a thought's own box, moves the stretch of a long site to highlight.
    root.addEventListener("scroll", () => {
      if (!this.q || this.repaintFrame) return;
      this.repaintFrame = requestAnimationFrame(() => {
        this.repaintFrame = 0;
        this.repaint();
      });
    }, { capture: true, passive: true });
    // Typing a prompt or working elsewhere in the panel lets the transcript follow again.
    document.addEventListener("focusin", (e) => {
      const t = e.target;
      if (!(t instanceof Node) || (!root.contains(t) && !keepHoldIn.some((el) => el.contains(t)))) this.hold = undefined;
    });
  }

  /** After the DOM writes of a frame: brings matches and highlights up to date, and prepares going to one. */
  render(session: SessionView | undefined, ctx: RenderCtx | undefined): void {
    const q = ctx?.ui.query ?? "";
    if (q !== this.q || session?.sessionId !== this.sessionId) this.reset(q, session?.sessionId);
    if (!q || !session || !ctx) {
      this.publish();
      return;
    }
    this.session = session;
    this.buildSites(session, ctx);
    const deadline = performance.now() + BUDGET_MS;
    const due = sliceDue(deadline);
    this.syncDom(this.observer.takeRecords(), due);
    this.scanOn(due);
    this.countModel(deadline);
    this.navigate(session, ctx);
    this.fresh = false;
    this.publish();
  }

  /** After layout work of a frame: scrolls to the match gone to, if any. */
  reveal(): void {
    const target = this.scrollTo;
    if (!target) return;
    this.scrollTo = undefined;
    const d = this.dom.get(target.key);
    if (!d) return;
    this.hooks.release();
    const range = this.liveRange(d, target.k);
    if (range) centre(range, this.root);
    else d.el.scrollIntoView({ block: "center" });
    this.hold = this.root.scrollTop;
    this.publish();
  }

  /** True while the transcript is where going to a match left it (so it must not follow the bottom). */
  holding(): boolean {
    if (this.hold !== undefined && Math.abs(this.root.scrollTop - this.hold) > 2) this.hold = undefined;
    return this.hold !== undefined;
  }

  /** Something must be seen at the bottom (a new prompt, a question): the view may follow again. */
  letGo(): void {
    this.hold = undefined;
  }

  /** Next (1) or previous (-1) match. */
  step(dir: 1 | -1): void {
    // Stepped before the count was done that was to go to the match nearest the view: step from that one.
    if (this.want === "near") this.stepFromNear = true;
    this.want = dir;
    this.hooks.invalidate();
  }

  private reset(q: string, sessionId: string | undefined): void {
    // The reader typed: go to the nearest match. Otherwise leave the view where it is.
    const typed = q !== this.q && this.sessionId === sessionId;
    // Where going to a match left the view is a place in this session's text: with another
    // session shown, or find closed, it holds nothing (a stale one would stop the view following
    // whenever the transcript happened to be scrolled to the same offset).
    if (!q || this.sessionId !== sessionId) this.hold = undefined;
    this.q = q;
    this.sessionId = sessionId;
    for (const d of this.dom.values()) this.dropRanges(d);
    this.dom.clear();
    this.model.clear();
    this.dirty.clear();
    this.scanning.clear();
    this.all?.clear();
    this.cur?.clear();
    this.nearby.disconnect();
    this.near.clear();
    this.groups = [];
    this.keyMap = undefined;
    this.built = { turns: undefined, pre: undefined, version: -1 };
    this.requery = true;
    this.current = undefined;
    this.scrollTo = undefined;
    this.want = !q ? undefined : typed ? "near" : "here";
    this.fresh = true;
    this.stepFromNear = false;
    this.complete = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.observer.disconnect();
    if (q) {
      this.observer.observe(this.root, { subtree: true, childList: true, characterData: true });
      if (this.all && this.cur) {
        CSS.highlights.set("find-match", this.all);
        CSS.highlights.set("find-current", this.cur);
      }
    } else if (HAS_HIGHLIGHTS) {
      CSS.highlights.delete("find-match");
      CSS.highlights.delete("find-current");
    }
    this.announce = true;
  }

  private buildSites(session: SessionView, ctx: RenderCtx): void {
    const pre = this.transcript.preEntries;
    const b = this.built;
    if (b.turns === session.turns && b.pre === pre && b.version === ctx.version) return;
    if (b.version !== ctx.version) this.requery = true;
    this.built = { turns: session.turns, pre, version: ctx.version };
    const visible = (e: Entry): boolean => !ctx.matcher || ctx.matcher(e);
    const groups: Site[][] = [pre.filter(visible).map((e) => ({ key: `e:${e.id}`, turn: -1, entry: e, prompt: "" }))];
    session.turns.forEach((t, i) => {
      let cached = this.turnSites.get(t);
      if (cached?.version !== ctx.version || cached.sites[0]?.turn !== i) {
        const sites: Site[] = [{ key: `p:${t.turnId}`, turn: i, entry: undefined, prompt: t.prompt }];
        for (const e of t.entries) if (visible(e)) sites.push({ key: `e:${e.id}`, turn: i, entry: e, prompt: "" });
        cached = { version: ctx.version, sites };
        this.turnSites.set(t, cached);
      }
      groups.push(cached.sites);
    });
    this.groups = groups;
    this.keyMap = undefined;
  }

  private site(key: string): Site | undefined {
    if (!this.keyMap) {
      this.keyMap = new Map();
      for (const g of this.groups) for (const s of g) this.keyMap.set(s.key, s);
    }
    return this.keyMap.get(key);
  }

  /** Matches at a site: from the page when drawn, else from its text; undefined when not counted yet. */
  private countOf(s: Site): number | undefined {
    const d = this.dom.get(s.key);
    if (d) return d.owed ? undefined : d.scan.count + d.extra;
    const m = this.model.get(s.key);
    return m && m.of === (s.entry ?? s.prompt) ? m.n : undefined;
  }

  /** Counts the sites not on the page from their text until `deadline`; true when all are counted. */
  private countModel(deadline: number): boolean {
    const cwd = this.session?.cwd ?? "";
    for (const g of this.groups) {
      for (const s of g) {
        if (this.countOf(s) !== undefined) continue;
        if (performance.now() > deadline) {
          this.complete = false;
          this.countLater();
          return false;
        }
        const d = this.dom.get(s.key);
        if (d) {
          this.countUndrawn(s.key, d);
          continue;
        }
        const text = s.entry ? searchableText(s.entry, cwd) : foldCase(shownPrompt(s.prompt));
        this.model.set(s.key, { of: s.entry ?? s.prompt, n: countIn(text, this.q) });
      }
    }
    this.complete = true;
    return true;
  }

  private countMore(): void {
    this.timer = undefined;
    if (!this.q) return;
    const deadline = performance.now() + BUDGET_MS;
    this.scanOn(sliceDue(deadline));
    if (this.countModel(deadline) && this.counted()) this.hooks.invalidate();
    this.publish();
  }

  /** Whether every site is counted: those on the page scanned to their end, the others from their text. */
  private counted(): boolean {
    return this.complete && this.scanning.size === 0;
  }

  /** Goes on with the scans that ran out of time, until `due`; what is left goes on in the next slice. */
  private scanOn(due: () => boolean): void {
    // Every recorded change was rescanned from where it changed (render takes the records before
    // this; a timer's slice runs after the observer's callback had them), so the rest goes on from
    // where it stopped, its pieces as they were (see `resumed` for a change no record told of).
    for (const key of [...this.scanning]) {
      const d = this.dom.get(key);
      if (!d) this.scanning.delete(key);
      else if (!due()) this.rescan(key, d, due, true);
    }
    if (this.scanning.size > 0) this.countLater();
  }

  /** Counting and scanning go on in the next task (once, however many ask). */
  private countLater(): void {
    this.timer ??= setTimeout(() => this.countMore(), 0);
  }

  /**
   * Rescans the drawn sites that changed (or all after a structural change), and drops the ones
   * gone; a scan still going when `due` says so goes on in the next slice (`scanOn`).
   */
  private syncDom(all: readonly MutationRecord[], due?: () => boolean): void {
    // The session shown before leaving the page (and its parts disposed, off the page) changes nothing found here.
    const records = all.filter((r) => this.root.contains(r.target) && !leavingOnly(r));
    for (const r of records) {
      const t = r.target;
      const site = (t instanceof Element ? t : t.parentElement)?.closest(SITE_SELECTOR);
      if (site) this.dirty.add(site);
    }
    if (records.length === 0 && !this.requery) return;
    this.requery = false;
    const seen = new Set<string>();
    for (const el of this.root.querySelectorAll<HTMLElement>(SITE_SELECTOR)) {
      // A folded turn's prompt, a turn the filter hides: counted from the model; the session shown before: not this one's.
      if (el.closest(`[hidden], .${LEAVING}`)) continue;
      const key = keyOf(el);
      if (!key) continue;
      seen.add(key);
      let d = this.dom.get(key);
      if (d && d.el !== el) {
        this.dropRanges(d);
        d = undefined;
      }
      if (!d) {
        d = { el, scan: new PieceScan<Node>(), lo: 0, ranges: [], paintedOf: 0, extra: 0, extraOf: undefined, owed: false };
        this.dom.set(key, d);
        this.nearby.observe(el);
        this.rescan(key, d, due);
      } else if (this.dirty.has(el)) this.rescan(key, d, due);
      this.countUndrawn(key, d, due);
    }
    let left = false;
    for (const [key, d] of this.dom) {
      if (seen.has(key)) continue;
      this.dropRanges(d);
      this.nearby.unobserve(d.el);
      this.near.delete(d.el);
      this.dom.delete(key);
      this.scanning.delete(key);
      left = true;
    }
    this.dirty.clear();
    // Sites that left the page (a window moved to a match far up its turn) were counted from it:
    // counted from their text now, or the total would leave their matches out until something redraws.
    if (left && this.q) this.complete = false;
    if (this.scanning.size > 0 || !this.complete) this.countLater();
  }

  /**
   * A scan going on over the pieces it measured: its count, or undefined when a piece is shorter
   * than measured (a change no record told of, such as a site taken off the page, changed and put
   * back): then it is scanned again from its change.
   */
  private resumed(d: DomSite, due?: () => boolean): number | undefined {
    try {
      return d.scan.resume(READ, this.q, due);
    } catch {
      return undefined;
    }
  }

  /** `resume`: the site's text is as its last scan saw it (no change recorded since); its scan goes on. */
  private rescan(key: string, d: DomSite, due?: () => boolean, resume = false): void {
    const type = d.el.dataset.entryType as Entry["type"] | undefined;
    const selector = type ? REGIONS[type] : PROMPT_REGION;
    if (!selector) return;
    const wasScanning = this.scanning.has(key);
    const kept = (resume ? this.resumed(d, due) : undefined) ?? d.scan.update(piecesOf(d.el, selector), READ, this.q, due);
    if (d.scan.done) this.scanning.delete(key);
    else this.scanning.add(key);
    // Highlights of matches from `kept` on may point at text that is gone.
    if (d.lo + d.ranges.length > kept) {
      for (const r of d.ranges.splice(Math.max(0, kept - d.lo))) this.all?.delete(r);
    }
    // A scan going on slice by slice is not text growing at its end: its highlights are those
    // around the view (measured again as it goes, and once it is done), not those it found last.
    this.paint(d, wasScanning || !d.scan.done);
    if (this.current?.key === key) this.paintCurrent();
  }

  /**
   * What a drawn entry keeps off the page is counted from the entry: a closed tool card's body (not
   * built), a thought never opened or a long message not yet near the view (`data-body="later"`,
   * its text not drawn). Once `due` says the
   * frame's time is up, a site not counted before is owed instead, and counted in a later slice
   * (countModel): a session of a hundred folded thoughts is a couple of megabytes of text to count.
   * One counted before (a folded thought streaming) is counted again at once, so that its count
   * does not go back to pending every frame.
   */
  private countUndrawn(key: string, d: DomSite, due?: () => boolean): void {
    const e = this.site(key)?.entry;
    d.owed = false;
    if (e?.type !== "tool" && e?.type !== "thought" && e?.type !== "message") return;
    const built = e.type === "tool" ? d.el.querySelector(":scope > .tool-body") !== null : d.el.dataset.body !== "later";
    if (d.extraOf?.[0] === e && d.extraOf[1] === built) return;
    if (!built && d.extraOf === undefined && due?.()) {
      d.owed = true;
      this.complete = false;
      return;
    }
    d.extraOf = [e, built];
    const cwd = this.session?.cwd ?? "";
    d.extra = built ? 0 : countIn(e.type === "tool" ? foldFields(toolBodyFields(e, cwd)) : searchableText(e, cwd), this.q);
  }

  private dropRanges(d: DomSite): void {
    for (const r of d.ranges) this.all?.delete(r);
    d.ranges = [];
    d.lo = 0;
  }

  /** Highlights the stretch of each site near the view (after a scroll or a site coming near). */
  private repaint(): void {
    if (!this.q) return;
    for (const d of this.dom.values()) this.paint(d, true);
  }

  /**
   * Brings a site's highlights to the stretch near the view: all of a small site's matches; of a
   * long one, those around the view when `measure` (found by their boxes), else the same stretch
   * as before, following the end while the site grows there.
   */
  private paint(d: DomSite, measure: boolean): void {
    const n = d.scan.count;
    let lo = 0;
    let hi = 0;
    if (this.all && n > 0 && this.near.has(d.el)) {
      if (n <= SMALL_SITE) hi = n;
      else if (measure) [lo, hi] = this.around(d);
      else {
        lo = d.lo;
        hi = Math.min(n, d.lo + d.ranges.length);
        if (hi >= d.paintedOf) {
          hi = n;
          lo = Math.max(lo, hi - SITE_PAINT);
        }
      }
    }
    d.paintedOf = n;
    const old = d.ranges;
    if (lo === d.lo && hi - lo === old.length) return;
    const next: StaticRange[] = [];
    for (let i = lo; i < hi; i++) {
      const reuse = i >= d.lo && i < d.lo + old.length ? old[i - d.lo] : undefined;
      const r = reuse ?? this.staticRange(d, i);
      if (!r) break;
      if (!reuse) this.all?.add(r);
      next.push(r);
    }
    for (let i = 0; i < old.length; i++) {
      const at = d.lo + i;
      if (at < lo || at >= lo + next.length) this.all?.delete(old[i] as StaticRange);
    }
    d.lo = lo;
    d.ranges = next;
  }

  /** The matches of a long site whose boxes lie within a screen of what can be seen of it. */
  private around(d: DomSite): [number, number] {
    const view = this.root.getBoundingClientRect();
    let top = view.top;
    let bottom = view.bottom;
    // A thought scrolls in its own box: what shows of it is what shows of that box.
    const box = d.el.querySelector<HTMLElement>(":scope > .thought-text");
    if (box && box.scrollHeight > box.clientHeight) {
      const b = box.getBoundingClientRect();
      top = Math.max(top, b.top);
      bottom = Math.min(bottom, b.bottom);
    }
    if (bottom <= top) return [0, 0];
    const margin = bottom - top;
    top -= margin;
    bottom += margin;
    const n = d.scan.count;
    const first = (test: (r: DOMRect) => boolean): number => {
      let a = 0;
      let b = n;
      while (a < b) {
        const mid = (a + b) >> 1;
        const r = this.matchBox(d, mid, top, bottom);
        if (r === "below" || (r !== "above" && r !== undefined && test(r))) b = mid;
        else a = mid + 1;
      }
      return a;
    };
    const lo = first((r) => r.height > 0 && r.bottom >= top);
    const hi = first((r) => r.height > 0 && r.top > bottom);
    return [lo, Math.max(lo, Math.min(hi, lo + SITE_PAINT))];
  }

  /**
   * Where match `k` of a site lies: "above" `top` or "below" `bottom` when the whole group of
   * blocks it is in (a long thought's `.segs`) lies there, else its own box. A group away from the
   * view is one the browser skips laying out (content-visibility: auto): measuring a range inside
   * it would make the browser lay the group out first (24 ms of a 63 ms task when counting 200,000
   * matches in a 5 MB thought), where the group's own box is known without.
   */
  private matchBox(d: DomSite, k: number, top: number, bottom: number): DOMRect | "above" | "below" | undefined {
    const b = this.bounds(d, k);
    if (!b) return undefined;
    const startGroup = b[0].parentElement?.closest(".segs");
    const endGroup = b[2].parentElement?.closest(".segs");
    if (endGroup) {
      const g = endGroup.getBoundingClientRect();
      if (g.height > 0 && g.bottom < top) return "above";
    }
    if (startGroup) {
      const g = startGroup.getBoundingClientRect();
      if (g.height > 0 && g.top > bottom) return "below";
    }
    return rangeOf(b)?.getBoundingClientRect();
  }

  private bounds(d: DomSite, k: number): [Node, number, Node, number] | undefined {
    const s = d.scan.locate(d.scan.starts[k] ?? -1, false);
    const e = d.scan.locate(d.scan.ends[k] ?? -1, true);
    if (!s || !e || s[0].nodeType !== Node.TEXT_NODE || e[0].nodeType !== Node.TEXT_NODE) return undefined;
    return [s[0], s[1], e[0], e[1]];
  }

  private staticRange(d: DomSite, k: number): StaticRange | undefined {
    const b = this.bounds(d, k);
    return b && new StaticRange({ startContainer: b[0], startOffset: b[1], endContainer: b[2], endOffset: b[3] });
  }

  /** A live range for measuring (made on demand, never kept: live ranges slow every DOM change down). */
  private liveRange(d: DomSite, k: number): Range | undefined {
    const b = this.bounds(d, k);
    return b && rangeOf(b);
  }

  private paintCurrent(): void {
    if (!this.cur) return;
    this.cur.clear();
    const c = this.current;
    const d = c && this.dom.get(c.key);
    const r = d && c.k < d.scan.count ? this.staticRange(d, c.k) : undefined;
    if (r) this.cur.add(r);
  }

  /** Every site in order with its count (only once all are counted). */
  private flat(): { sites: Site[]; counts: number[] } {
    const sites: Site[] = [];
    const counts: number[] = [];
    for (const g of this.groups) {
      for (const s of g) {
        sites.push(s);
        counts.push(this.countOf(s) ?? 0);
      }
    }
    return { sites, counts };
  }

  private navigate(session: SessionView, ctx: RenderCtx): void {
    if (!this.counted() || this.want === undefined) return;
    if (this.want === "here" && this.fresh) {
      this.hooks.invalidate();
      return;
    }
    const want = this.want;
    const fromNear = this.stepFromNear;
    this.want = undefined;
    this.stepFromNear = false;
    this.announce = want !== "here";
    const { sites, counts } = this.flat();
    const total = counts.reduce((a, b) => a + b, 0);
    if (total === 0) {
      this.current = undefined;
      this.paintCurrent();
      return;
    }
    let target: { key: string; k: number } | undefined;
    if (want === "near" || want === "here") {
      target = this.nearest(sites, counts);
      // Already in sight: no scrolling while the reader types.
      const d = target && this.dom.get(target.key);
      const range = d && target && this.liveRange(d, target.k);
      if (want === "here" || (target && range && inView(range, this.root))) {
        this.current = target;
        this.paintCurrent();
        return;
      }
    } else {
      if (fromNear) this.current = this.nearest(sites, counts);
      const at = this.indexOf(sites, counts, want);
      const pos = siteOf(counts, stepIndex(at, total, want));
      const s = pos && sites[pos.site];
      target = s && pos ? { key: s.key, k: pos.k } : undefined;
    }
    if (target) this.goTo(target, session, ctx);
  }

  /**
   * The current match's index among all, -1 when there is none. When its site lost its matches,
   * the index one step before where it was in the direction of `dir`, so the step lands beside it.
   */
  private indexOf(sites: readonly Site[], counts: readonly number[], dir: 1 | -1): number {
    const c = this.current;
    if (!c) return -1;
    let before = 0;
    for (let i = 0; i < sites.length; i++) {
      const n = counts[i] ?? 0;
      if (sites[i]?.key === c.key) return n > 0 ? before + Math.min(c.k, n - 1) : dir === 1 ? before - 1 : before;
      before += n;
    }
    return -1;
  }

  /** The first match at or below the top of the transcript's view, else the first of all. */
  private nearest(sites: readonly Site[], counts: readonly number[]): { key: string; k: number } | undefined {
    const top = this.root.getBoundingClientRect().top;
    let first: { key: string; k: number } | undefined;
    for (let i = 0; i < sites.length; i++) {
      const s = sites[i];
      const n = counts[i] ?? 0;
      if (!s || n === 0) continue;
      first ??= { key: s.key, k: 0 };
      const d = this.dom.get(s.key);
      if (!d) continue;
      const box = d.el.getBoundingClientRect();
      if (box.height === 0 || box.bottom < top) continue;
      for (let k = 0; k < Math.min(d.scan.count, NEAR_SCAN); k++) {
        const r = this.matchBox(d, k, top, Infinity);
        if (r !== "above" && r !== "below" && r && r.height > 0 && r.bottom >= top) return { key: s.key, k };
      }
      return { key: s.key, k: 0 };
    }
    return first;
  }

  /** Makes a match drawn and visible: unfolds its turn, opens its thought or card; scrolls at the end of the frame. */
  private goTo(target: { key: string; k: number }, session: SessionView, ctx: RenderCtx): void {
    const site = this.site(target.key);
    if (!site) return;
    this.current = target;
    if (!this.dom.has(target.key)) {
      if (site.turn < 0 || !this.transcript.prepareTurn(session, ctx, site.turn, site.entry)) return;
      this.transcript.render(session, ctx, session.agentName);
      this.syncDom(this.observer.takeRecords());
    }
    const d = this.dom.get(target.key);
    const e = site.entry;
    if (d && e && (e.type === "thought" || e.type === "tool")) {
      const inBody = e.type === "thought" || target.k >= d.scan.count || this.bounds(d, target.k)?.[0].parentElement?.closest(".tool-body") != null;
      if (inBody) {
        // It stays open when the thought ends or the call completes.
        ctx.ui.entryOpen.set(entryKey(ctx, e.id), true);
        const head = d.el.querySelector<HTMLElement>(e.type === "thought" ? ":scope > .thought-head" : ":scope > .tool-head .tool-toggle");
        if (head?.getAttribute("aria-expanded") === "false") {
          head.click();
          this.syncDom(this.observer.takeRecords());
        }
      }
    }
    // Its text put off until it is near the view (an open thought, a long message): drawn now.
    const body = d && (e?.type === "thought" || e?.type === "message") ? d.el.querySelector(e.type === "thought" ? ":scope > .thought-text" : ":scope > .message-body") : null;
    if (body && ctx.nearby.has(body)) {
      ctx.nearby.now(body);
      this.syncDom(this.observer.takeRecords());
    }
    // The view jumps there: what waits to be drawn around it is looked at when the frame ends.
    ctx.nearby.refreshAll();
    const now = this.dom.get(target.key);
    if (now && target.k >= now.scan.count && now.scan.count > 0) this.current = { key: target.key, k: now.scan.count - 1 };
    this.paintCurrent();
    this.scrollTo = this.current;
  }

  private publish(): void {
    let index = -1;
    let total = 0;
    const pending = this.q !== "" && !this.counted();
    if (this.q && !pending) {
      const c = this.current;
      for (const g of this.groups) {
        for (const s of g) {
          const n = this.countOf(s) ?? 0;
          if (c && n > 0 && s.key === c.key) index = total + Math.min(c.k, n - 1);
          total += n;
        }
      }
    }
    const s = this.status;
    const next: FindStatus = { active: this.q !== "", pending, index, total };
    const announce = this.announce && !pending;
    if (announce) this.announce = false;
    if (!announce && s.active === next.active && s.pending === next.pending && s.index === next.index && s.total === next.total) return;
    this.status = next;
    this.hooks.status(next, announce);
  }
}
