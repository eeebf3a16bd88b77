/**
 * Bottom-sticking for the transcript: follows new content only while the reader is at the bottom
 * (within 40 px); otherwise leaves what they see in place (Chromium's scroll anchoring keeps it
 * there when content above changes) and shows "Jump to latest" (`#jump-latest`). Scroll events
 * only mark the position dirty; it is measured at the start of the next frame, and the frame ends
 * with at most one scroll write. A resize (the sidebar dragged, the window resized, the question
 * or the plan above and below taking room) keeps following: the scroll it causes is not the
 * reader's. The pill has a row of its own below the transcript, so it never covers text or buttons.
 */
import { button, toggleHidden } from "../dom";
import type { UiState } from "../uiState";

const STICK_PX = 40;

export class ScrollKeeper {
  readonly jump: HTMLButtonElement;
  stick: boolean;
  private dirty = false;
  private restored = false;
  /** A resize happened since the last frame: the scroll position it moved is not the reader's choice. */
  private resized = false;
  private readonly observer: ResizeObserver;

  constructor(private readonly el: HTMLElement, private readonly ui: UiState, requestFrame: () => void) {
    this.stick = ui.stick;
    this.jump = button({ class: "jump-latest", icon: "arrow-down", label: "Jump to latest", id: "jump-latest" });
    this.jump.hidden = true;
    this.jump.addEventListener("click", () => {
      this.stick = true;
      this.el.scrollTop = this.el.scrollHeight;
      this.jump.hidden = true;
      this.persist();
    });
    el.addEventListener("scroll", () => {
      this.dirty = true;
      requestFrame();
    }, { passive: true });
    // The transcript's box (sidebar or window resized, question or plan shown) and its content's width.
    this.observer = new ResizeObserver(() => {
      this.resized = true;
      requestFrame();
    });
    this.observer.observe(el);
  }

  /** Start of a frame: reads where the reader is (before any DOM write). */
  measure(): void {
    const resized = this.resized;
    this.resized = false;
    if (!this.dirty) return;
    this.dirty = false;
    if (resized && this.stick) return; // the resize moved it, not the reader: keep following
    const el = this.el;
    this.stick = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX;
    this.persist();
  }

  /** End of a frame: follows the bottom if sticking; restores the saved position once after a reload. */
  settle(hasContent: boolean): void {
    const el = this.el;
    if (!this.restored && hasContent) {
      this.restored = true;
      if (!this.ui.stick) {
        el.scrollTop = this.ui.scrollTop;
        this.stick = false;
      }
    }
    if (this.stick) {
      const bottom = el.scrollHeight - el.clientHeight;
      if (el.scrollTop < bottom - 1) el.scrollTop = bottom;
    }
    toggleHidden(this.jump, this.stick);
  }

  /** Something the reader must see arrived at the bottom (their new prompt, a question): follow again. */
  follow(): void {
    if (this.stick) return;
    this.stick = true;
    this.persist();
  }

  /** The reader asked to see something specific: stop following. */
  release(): void {
    this.stick = false;
    this.persist();
  }

  private persist(): void {
    this.ui.stick = this.stick;
    this.ui.scrollTop = this.el.scrollTop;
    this.ui.save();
  }
}
