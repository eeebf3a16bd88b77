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

/** Lets the extension host's other work run: one setImmediate turn of its event loop (for work done in slices). */
export function yieldToHost(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
