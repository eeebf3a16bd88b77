/**
 * Tells the host which open questions are in front of the user (`questionSeen`): once each, while
 * at least half of the pinned element is inside the view and the document is visible. The host
 * sends a notification for a question nobody reported within a short wait (QuestionSight).
 */
import type { WebviewMessage } from "../../shared/protocol";

export class SeenReporter {
  /** At least half of the element is inside the view (IntersectionObserver). */
  private inView = false;
  /** The session's open requests the element shows now, and those already reported. */
  private standsFor: { sessionId: string; requestIds: readonly string[] } | undefined;
  private readonly reported = new Set<string>();

  constructor(el: HTMLElement, private readonly post: (m: WebviewMessage) => void) {
    new IntersectionObserver((records) => {
      for (const r of records) this.inView = r.isIntersecting && r.intersectionRatio >= 0.5;
      this.report();
    }, { threshold: [0, 0.5, 1] }).observe(el);
    document.addEventListener("visibilitychange", () => this.report());
  }

  /** What the element shows now (undefined: nothing). */
  shows(standsFor: { sessionId: string; requestIds: readonly string[] } | undefined): void {
    this.standsFor = standsFor;
    this.report();
  }

  private report(): void {
    const s = this.standsFor;
    if (!s || !this.inView || document.visibilityState !== "visible") return;
    const fresh = s.requestIds.filter((r) => !this.reported.has(r));
    if (fresh.length === 0) return;
    for (const r of fresh) this.reported.add(r);
    if (this.reported.size > 2000) for (const r of [...this.reported].slice(0, 1000)) this.reported.delete(r);
    this.post({ type: "questionSeen", sessionId: s.sessionId, requestIds: fresh.slice(0, 1000) });
  }
}
