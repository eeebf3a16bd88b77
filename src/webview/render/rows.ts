/**
 * Entries that are one row — a folded thought's header, a closed tool card's — are not styled,
 * laid out or painted away from the view (panel.css: `content-visibility: auto` on `.row`), so
 * picking a session draws what is in view rather than its whole window. An entry never drawn
 * then counts as a guessed height; the guess here is exact: the height a drawn entry of the same
 * kind has, measured (by a ResizeObserver, no layout read) from one sample per kind that is
 * always drawn. So the page is as high as with everything drawn, and scrolling up through entries
 * never drawn moves the view by what was scrolled and no more. Until a kind's height is known its
 * entries are drawn as usual.
 */
import { LEAVING } from "./entryBase";

export type RowKind = "thought" | "tool";

const KINDS: readonly RowKind[] = ["thought", "tool"];

export class Rows {
  private readonly heights = new Map<RowKind, number>();
  private readonly samples = new Map<RowKind, Element>();
  /** Samples measured at least once: one of them no longer on the page is gone for good (another session shown). */
  private readonly measuredOnce = new WeakSet<Element>();
  private readonly observer: ResizeObserver;

  /** `root`: where the measured heights are set (as `--row-<kind>`, and `data-rows` naming the kinds known). */
  constructor(private readonly root: HTMLElement) {
    this.observer = new ResizeObserver((records) => {
      for (const r of records) this.measured(r);
    });
  }

  /** `el`, an entry of `kind`, is one row now (`row`) or not. */
  mark(el: HTMLElement, kind: RowKind, row: boolean): void {
    const sample = this.samples.get(kind);
    if (sample === el) {
      if (row) return;
      this.observer.unobserve(el);
      this.samples.delete(kind);
    } else if (row && (!sample || ((!sample.isConnected || sample.closest(`.${LEAVING}`) !== null) && this.measuredOnce.has(sample)))) {
      // (An entry being built is not on the page yet either: it is not taken for a sample gone.)
      if (sample) this.observer.unobserve(sample);
      // The sample stays drawn (never `.row`), so what it reports is a drawn row's height.
      this.samples.set(kind, el);
      this.observer.observe(el);
      el.classList.remove("row");
      return;
    }
    el.classList.toggle("row", row);
  }

  private measured(r: ResizeObserverEntry): void {
    const kind = KINDS.find((k) => this.samples.get(k) === r.target);
    if (!kind) return;
    const height = r.contentBoxSize[0]?.blockSize ?? 0;
    if (height <= 0 || !r.target.isConnected) {
      // Gone from the page (another session shown) or hidden: the next entry to be a row is the sample.
      this.observer.unobserve(r.target);
      this.samples.delete(kind);
      return;
    }
    this.measuredOnce.add(r.target);
    if (Math.abs((this.heights.get(kind) ?? -1) - height) < 0.01) return;
    this.heights.set(kind, height);
    this.root.style.setProperty(`--row-${kind}`, `${height}px`);
    this.root.dataset.rows = KINDS.filter((k) => this.heights.has(k)).join(" ");
  }
}
