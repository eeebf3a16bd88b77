/**
 * One listener set for the event path: `fire` calls every listener in the order they subscribed,
 * and a listener that throws is reported (`onError`) without stopping the ones after it — so a
 * panel bug cannot keep an event from the transcript writer. No `vscode` import: core and acp use it.
 */

export interface Disposable { dispose(): void }

export type Listener<T> = (value: T) => void;

export class Emitter<T> {
  private readonly listeners = new Set<Listener<T>>();
  /** The listeners as a list, made again after a change (a fire is called per streamed chunk: no copy each time). */
  private snapshot: Listener<T>[] | undefined;

  constructor(
    /** Told about each listener that threw (default: `console.error`). */
    private readonly onError: (err: unknown) => void = (err) => console.error("Agent Thoughts: a listener failed:", err),
  ) {}

  /** Subscribes; the returned handle unsubscribes (idempotent). */
  readonly event = (listener: Listener<T>): Disposable => {
    // A wrapper per subscription, so the same function subscribed twice is called twice and
    // disposing one subscription leaves the other.
    const entry: Listener<T> = (v) => listener(v);
    this.listeners.add(entry);
    this.snapshot = undefined;
    return { dispose: () => { if (this.listeners.delete(entry)) this.snapshot = undefined; } };
  };

  get size(): number {
    return this.listeners.size;
  }

  /** Calls every listener subscribed now; a listener that subscribes meanwhile hears the next value. */
  fire(value: T): void {
    if (this.listeners.size === 0) return;
    this.snapshot ??= [...this.listeners];
    for (const l of this.snapshot) {
      // Disposed by an earlier listener during this fire: skip it.
      if (!this.listeners.has(l)) continue;
      try {
        l(value);
      } catch (err) {
        try {
          this.onError(err);
        } catch {
          // A failing reporter must not stop the remaining listeners either.
        }
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
    this.snapshot = undefined;
  }
}
