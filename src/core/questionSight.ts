/**
 * Which open permission requests a visible panel has put in front of the user. The panel reports a
 * question once it is on screen (pinned, in a visible view, at least half of it inside the view);
 * a request nobody reported within a short wait gets a notification instead (a hidden or collapsed
 * panel, a panel showing another session, a view too short to show the question).
 */
const REMEMBERED = 1000;

export class QuestionSight {
  /** Reported request ids, oldest first (bounded: ids of long-answered requests drop out). */
  private readonly seen = new Set<string>();
  private readonly waiters = new Map<string, Set<(seen: boolean) => void>>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** The panel showed these requests. */
  markSeen(requestIds: readonly string[]): void {
    for (const id of requestIds) {
      this.seen.delete(id);
      this.seen.add(id);
      const waiting = this.waiters.get(id);
      this.waiters.delete(id);
      for (const w of waiting ?? []) w(true);
    }
    for (const id of this.seen) {
      if (this.seen.size <= REMEMBERED) break;
      this.seen.delete(id);
    }
  }

  /** True once the request is reported seen; false when `ms` pass first. */
  whenSeen(requestId: string, ms: number): Promise<boolean> {
    if (this.seen.has(requestId)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const set = this.waiters.get(requestId) ?? new Set();
      this.waiters.set(requestId, set);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(requestId) === set) this.waiters.delete(requestId);
        resolve(false);
      }, ms);
      this.timers.add(timer);
      const done = (seen: boolean): void => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve(seen);
      };
      set.add(done);
    });
  }

  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const set of this.waiters.values()) for (const w of set) w(false);
    this.waiters.clear();
  }
}
