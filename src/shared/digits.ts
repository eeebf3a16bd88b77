/**
 * Whole numbers with their thousands grouped, "12,345", as `toLocaleString("en-US")` writes them
 * but without ICU: the first `toLocaleString` in a process loads its number formats, 20–60 ms of
 * the extension host's event loop (the status bar's first count, or the first cut of an oversized
 * event). Anything but a safe integer still goes to `toLocaleString`.
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}
