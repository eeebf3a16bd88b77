/**
 * Bottom-sticking for the transcript, without reading layout as text streams in.
 *
 * Following: the transcript carries `following`, which takes its content out of scroll anchoring
 * and leaves a 1 px sentinel below it as the only anchor; as text grows above the sentinel the
 * browser keeps it where it is, so the view follows with no script (panel.css). An
 * IntersectionObserver says when the sentinel comes within 40 px of the view or leaves it; leaving
 * it while following means the reader scrolled up: they stop being followed, the content anchors
 * as usual (what they read stays put), and "Jump to latest" (`#jump-latest`) shows in a row of its
 * own below the transcript, covering nothing. Browsers do not anchor a view at its very top, so
 * when content first outgrows the box, and when the box is resized (the sidebar dragged, the
 * window resized, the question or the plan taking room), a ResizeObserver takes the view to the
 * bottom once. The scroll position is read only for saving, a moment after the reader stops, and
 * as the page goes away; it is kept as the session, the entry at the top of the view and its
 * offset: pixels land elsewhere once what is drawn above differs (a window, a folded turn, the
 * sidebar's width). It is also read as the reader picks another session: each session they left
 * away from its latest opens where they left it when picked again (the others at their latest).
 * "Jump to latest" also shows while the last turn's newest entries are hidden below a window
 * around something far above them (find took the reader there): the bottom is not the latest then,
 * and reaching it does not follow (what "Show N later" adds there must not push the view past it).
 */
import { button, h, toggleHidden } from "../dom";
import type { ScrollAnchor, UiState } from "../uiState";
import { entryElement, LEAVING } from "./entryBase";

const STICK_PX = 40;
/** The position is saved this long after the last scroll. */
const SAVE_MS = 300;

export class ScrollKeeper {
  readonly jump: HTMLButtonElement;
  stick: boolean;
  private restored = false;
  /** The session shown (with turns), as the last frame said. */
  private sessionId: string | undefined;
  /** Whether the sentinel was within 40 px of the view when last told. */
  private atBottom = true;
  /** The heights of the box and of its content, as the resize observer last reported them. */
  private boxHeight = 0;
  private contentHeight = 0;
  private overflowed = false;
  /** The last turn's newest entries are not drawn (see Transcript.hidesLatest). */
  private latestHidden = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** The session just picked: its place is restored at the end of the first frame that draws its turns. */
  private picked: string | undefined;
  /** The session the panel draws (with turns or not), as the last frame said. */
  private drawn: string | undefined;
  private readonly sentinel: HTMLElement;
  private readonly seen: IntersectionObserver;
  private readonly resized: ResizeObserver;

  /** `showLatest`: draws the last turn's newest entries again, when a window hid them. */
  constructor(private readonly el: HTMLElement, private readonly ui: UiState, private readonly requestFrame: () => void, private readonly showLatest: () => void) {
    this.stick = ui.stick;
    this.jump = button({ class: "jump-latest", icon: "arrow-down", label: "Jump to latest", id: "jump-latest" });
    this.jump.hidden = true;
    this.jump.addEventListener("click", () => {
      // Drawn in the next frame, above the sentinel the view then follows.
      if (this.latestHidden) this.showLatest();
      this.stick = true;
      this.toBottom();
      this.sync();
      this.persist();
    });
    this.sentinel = h("div", { class: "scroll-sentinel", attrs: { "aria-hidden": "true" } });
    el.append(this.sentinel);
    this.seen = new IntersectionObserver((entries) => {
      const entry = entries[entries.length - 1];
      if (entry) this.onSentinel(entry.isIntersecting);
    }, { root: el, rootMargin: `0px 0px ${STICK_PX}px 0px` });
    this.seen.observe(this.sentinel);
    // Its box resized (sidebar or window, question or plan shown), or its content first outgrowing
    // it while the view is at the very top, where browsers do not anchor: go to the bottom. The
    // sizes come with the observer's report, so nothing is read.
    this.resized = new ResizeObserver((entries) => {
      let boxChanged = false;
      for (const e of entries) {
        const height = e.contentBoxSize[0]?.blockSize ?? e.contentRect.height;
        if (e.target === el) {
          boxChanged = height !== this.boxHeight;
          this.boxHeight = height;
        } else this.contentHeight = height;
      }
      const overflows = this.contentHeight > this.boxHeight + 1;
      const outgrew = overflows && !this.overflowed;
      this.overflowed = overflows;
      if (this.stick && (boxChanged || outgrew)) this.toBottom();
    });
    this.resized.observe(el);
    if (el.firstElementChild) this.resized.observe(el.firstElementChild);
    el.addEventListener("scroll", () => {
      // Back at the bottom (within 40 px) without the sentinel ever leaving it: follow again.
      if (!this.stick && this.atBottom && !this.latestHidden) {
        // Shown at the frame's end (settle), after the panel had its say (going to a match holds the view).
        this.stick = true;
        this.requestFrame();
      }
      clearTimeout(this.saveTimer);
      this.saveTimer = setTimeout(() => this.persist(), SAVE_MS);
    }, { passive: true });
    for (const type of ["wheel", "pointerdown", "keydown"] as const) el.addEventListener(type, () => this.takeOver(), { passive: true });
    // A reload within SAVE_MS of the last scroll keeps it too; a page that never showed content keeps what was saved.
    window.addEventListener("pagehide", () => this.persist(true));
  }

  private onSentinel(visible: boolean): void {
    this.atBottom = visible;
    // A new page's empty transcript has the sentinel in view: that is not the reader coming back
    // to the bottom, and must not overwrite the place saved before the reload.
    if (!this.restored) return;
    if (visible) {
      if (this.stick || this.latestHidden) return;
      this.stick = true; // shown at the frame's end, as above
    } else {
      if (!this.stick) return;
      this.stick = false;
      this.sync();
    }
    this.persist(true);
    this.requestFrame();
  }

  /**
   * The entry to draw for the place saved before a reload (the panel widens the windows around
   * it), until that place is restored; none when it follows the bottom or is of another session.
   */
  restoreTarget(sessionId: string): string | undefined {
    if (this.picked === sessionId) return this.ui.placeOf(sessionId)?.id;
    const a = this.ui.anchor;
    return !this.restored && !this.ui.stick && a?.session === sessionId ? a.id : undefined;
  }

  /**
   * Before a frame draws `next` (the session to show): when it is another session than the one
   * drawn, where the reader is in that one is kept (its DOM is still there), and `next`'s own
   * place is restored at the frame's end: where they left it, or its latest, followed.
   */
  switching(next: string | undefined): void {
    const from = this.drawn;
    if (next === from) return;
    // A hidden panel (the sidebar keeps its page) has no place to read or restore: the switch is
    // taken when it shows again (what it kept for the old session stands).
    if (from !== undefined && this.el.clientHeight === 0) return;
    this.drawn = next;
    // (None drawn in between, as when the host names a new session a moment before its state comes, is a switch too.)
    if (from !== undefined) {
      if (!this.restored) {
        // Picked before the place saved before a reload was restored: that place stays the old session's.
        const a = this.ui.anchor;
        if (!this.ui.stick && a?.session === from) this.ui.keepPlace(a);
        this.restored = true;
      } else if (from === this.sessionId && !this.placePending) {
        // (A session whose kept place is still to be restored, in turns still loading, keeps it.)
        const place = this.stick ? undefined : this.anchorNow();
        if (place) this.ui.keepPlace(place);
        else if (this.stick) this.ui.dropPlace(from);
      }
    }
    if (this.restored) this.picked = next;
  }

  /** The shown session was just picked and its kept place is still to be restored (see settle). */
  private get placePending(): boolean {
    return this.picked !== undefined && this.picked === this.sessionId;
  }

  /** A tool call or entry is revealed in the frame that switches to its session: that is the place, not the one kept. */
  revealed(): void {
    this.picked = undefined;
    this.release();
  }

  /**
   * End of a frame (`shown`: the session shown, when it has turns): restores the saved place once
   * after a reload; shows the state. `waiting`: the place is in turns still to come (a saved
   * session loads its last turn first): the latest shows meanwhile, and nothing is saved.
   */
  settle(shown: string | undefined, waiting = false): void {
    this.sessionId = shown;
    if (this.picked !== undefined && this.picked === shown) {
      const place = this.ui.placeOf(shown);
      if (place && waiting) {
        // Its place is in turns still to come (a saved session loads its last turn first): the
        // latest shows meanwhile, and the place waits for them, kept (persist saves nothing).
        if (!this.stick) {
          this.stick = true;
          this.toBottom();
        }
        this.sync();
        return;
      }
      this.picked = undefined;
      if (place) this.restore(shown, place);
      else if (!this.stick) {
        this.stick = true;
        this.toBottom();
      } else {
        // Following already: the sentinel, the only anchor, keeps the new content's bottom in view (nothing read).
        this.sync();
        return;
      }
      this.sync();
      this.persist();
      return;
    }
    if (!this.restored && shown !== undefined) {
      if (waiting) {
        this.stick = true;
        this.toBottom();
      } else {
        this.restored = true;
        this.stick = this.ui.stick;
        if (this.stick) this.toBottom();
        else this.restore(shown, this.ui.anchor);
      }
    }
    this.sync();
  }

  /** The reader scrolls before the saved place could be restored (or a picked session's kept one): theirs is the place now. */
  private takeOver(): void {
    if (this.placePending) this.picked = undefined;
    if (this.restored || this.sessionId === undefined) return;
    this.restored = true;
  }

  /**
   * Back where the reader was: the saved entry at its offset from the view's top. A place that is
   * not drawn (another session shows, its turn did not load) gives the latest, followed.
   */
  private restore(sessionId: string, a: ScrollAnchor | undefined): void {
    const entry = a?.session === sessionId ? entryElement(this.el, a.id) : null;
    if (!a || !entry) {
      this.stick = true;
      this.toBottom();
      return;
    }
    this.stick = false;
    this.el.scrollTop += entry.getBoundingClientRect().top - this.el.getBoundingClientRect().top - a.offset;
    // What the sentinel last said was of the empty page; a place at the bottom (it all fits, say) follows it.
    this.atBottom = this.el.scrollTop + this.el.clientHeight >= this.el.scrollHeight - STICK_PX;
    if (this.atBottom && !this.latestHidden) this.stick = true;
  }

  /** Whether the last turn's newest entries are hidden (told each frame). */
  setLatestHidden(hidden: boolean): void {
    if (hidden === this.latestHidden) return;
    this.latestHidden = hidden;
    this.sync();
  }

  /** Something the reader must see arrived at the bottom (their new prompt, a question): follow again. */
  follow(): void {
    if (this.latestHidden) this.showLatest();
    if (this.stick) return;
    this.stick = true;
    this.toBottom();
    this.sync();
    this.persist();
  }

  /** The reader asked to see something specific: stop following. */
  release(): void {
    // (A picked session's kept place still to come is given up: the reader went somewhere.)
    if (this.placePending) this.picked = undefined;
    if (!this.stick) return;
    this.stick = false;
    this.sync();
    this.persist();
  }

  private toBottom(): void {
    this.el.scrollTop = this.el.scrollHeight;
  }

  private sync(): void {
    this.el.classList.toggle("following", this.stick);
    toggleHidden(this.jump, this.stick && !this.latestHidden);
  }

  /** Saves the place; `now`: at once rather than with the next coalesced save (the reader started or stopped following: a reload may come next). */
  private persist(now = false): void {
    // Nothing the reader did yet on this page, or nothing to read it from (hidden, going away): the place saved before stands.
    // A picked session's kept place still to come (see settle) is not overwritten by the latest shown meanwhile.
    if (!this.restored || this.el.clientHeight === 0 || this.placePending) return;
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.ui.stick = this.stick;
    this.ui.anchor = this.stick ? undefined : this.anchorNow();
    // Following a session's latest again: it opens there when picked, not at a place kept before.
    if (this.stick && this.sessionId !== undefined) this.ui.dropPlace(this.sessionId);
    if (now) this.ui.flush();
    else this.ui.save();
  }

  /**
   * The first entry drawn at or below the view's top, and where it starts against it. Entries are
   * in the order they are drawn; one filtered out (no box) is passed over.
   */
  private anchorNow(): ScrollAnchor | undefined {
    const session = this.sessionId;
    if (session === undefined) return undefined;
    const top = this.el.getBoundingClientRect().top;
    for (const e of this.el.querySelectorAll<HTMLElement>(`.entry[data-entry-id]:not(.${LEAVING} *)`)) {
      const r = e.getBoundingClientRect();
      if (r.height === 0 || r.bottom <= top) continue;
      const id = e.dataset.entryId;
      return id === undefined ? undefined : { session, id, offset: r.top - top };
    }
    return undefined;
  }
}
