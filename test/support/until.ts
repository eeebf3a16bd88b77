/** Waiting for facts, shared by the unit, protocol and integration tests (plain Node, no `vscode`). */

/** Polls `fn` until it returns something truthy; throws "timed out waiting for <what>" after `timeoutMs`. */
export async function until<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 10_000, pollMs = 20): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
