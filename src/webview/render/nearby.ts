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
 */
/** At most this many new waiting elements in a frame are drawn without looking where they are. */
const FEW = 4;

export class Nearby {
  private readonly waiting = new Map<Element, () => void>();
  /** Waiting since the last `check`. */
  private readonly fresh = new Set<Element>();
  private readonly observer: IntersectionObserver;

  /** `root`: the scroll box the elements are in. */
  constructor(private readonly root: HTMLElement) {
    this.observer = new IntersectionObserver((records) => {
      for (const r of records) if (r.isIntersecting) this.now(r.target);
    }, { root, rootMargin: "100% 0px" });
  }

  /** `draw` runs once, when `el` is near the view (or is asked for with `now`). */
  whenNear(el: Element, draw: () => void): void {
    this.waiting.set(el, draw);
    this.fresh.add(el);
    this.observer.observe(el);
  }

  /** Whether `el` waits to be drawn. */
  has(el: Element): boolean {
    return this.waiting.has(el);
  }

  /** `el`, if it waits, is drawn now, wherever it is (it came near, the reader opened it, or find goes to a match in it). */
  now(el: Element): void {
    const draw = this.waiting.get(el);
    if (!draw) return;
    this.cancel(el);
    draw();
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
   * thought shorter than its box in a wide panel).
   */
  check(): void {
    if (this.fresh.size === 0) return;
    let els = [...this.fresh];
    this.fresh.clear();
    if (els.length <= FEW) {
      for (const el of els) this.now(el);
      return;
    }
    // Each round draws at least one or ends.
    while (els.length > 0) {
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
