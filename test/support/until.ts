/** Waiting for facts, shared by the unit, protocol, integration and reload tests (plain Node, no `vscode`). */

/** Polls `fn` until it returns something truthy; throws "timed out waiting for <what>" after `timeoutMs`. */
export async function until<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 10_000, pollMs = 20): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

/**
 * Pacing only: spacing out what a test produces (e.g. chunks written 1 ms apart). Never use it to
 * wait for something to happen; wait for the fact with `until` instead.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
