/** A sleep that an `AbortSignal` cuts short (resolves early, never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** The longest stretch of work done in slices (reading transcripts back) before the extension host gets a turn. */
export const HOST_SLICE_MS = 8;

/**
 * Long work in slices: `due()` says (cheaply) whether the slice is used up, `pause()` then gives
 * the extension host one setImmediate turn of its event loop and starts the next slice.
 */
export class TimeSlice {
  private deadline = performance.now() + HOST_SLICE_MS;

  due(): boolean {
    return performance.now() > this.deadline;
  }

  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.deadline = performance.now() + HOST_SLICE_MS;
  }
}
