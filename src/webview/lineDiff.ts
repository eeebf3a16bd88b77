/**
 * Added/removed line counts for a tool call's diff summary ("+12 −3"). Exact (LCS over the lines
 * left after trimming the common head and tail) when that is cheap, otherwise a multiset
 * approximation. Results are cached per diff object, which the reducer keeps stable.
 */

export interface LineDiffStats {
  added: number;
  removed: number;
  /** True when the counts come from the cheap approximation. */
  approximate: boolean;
}

/** Above this many cells (old × new changed lines) the LCS table is skipped. */
const LCS_LIMIT = 1_000_000;

const cache = new WeakMap<object, LineDiffStats>();

function lines(text: string): string[] {
  if (text === "") return [];
  const out = text.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

export function lineDiffStats(oldText: string | null, newText: string): LineDiffStats {
  const a = lines(oldText ?? "");
  const b = lines(newText);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  if (n === 0 || m === 0) return { added: m, removed: n, approximate: false };
  if (n * m <= LCS_LIMIT) {
    // Rolling-row LCS length.
    let prev = new Uint32Array(m + 1);
    let cur = new Uint32Array(m + 1);
    for (let i = 1; i <= n; i++) {
      const ai = a[start + i - 1];
      for (let j = 1; j <= m; j++) {
        cur[j] = ai === b[start + j - 1] ? (prev[j - 1] ?? 0) + 1 : Math.max(prev[j] ?? 0, cur[j - 1] ?? 0);
      }
      [prev, cur] = [cur, prev];
    }
    const common = prev[m] ?? 0;
    return { added: m - common, removed: n - common, approximate: false };
  }
  const counts = new Map<string, number>();
  for (let i = start; i < endA; i++) {
    const line = a[i] ?? "";
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  let common = 0;
  for (let j = start; j < endB; j++) {
    const line = b[j] ?? "";
    const c = counts.get(line);
    if (c) {
      counts.set(line, c - 1);
      common++;
    }
  }
  return { added: m - common, removed: n - common, approximate: true };
}

/** `lineDiffStats` cached by the diff object's identity. */
export function cachedLineDiffStats(key: object, oldText: string | null, newText: string): LineDiffStats {
  let stats = cache.get(key);
  if (!stats) {
    stats = lineDiffStats(oldText, newText);
    cache.set(key, stats);
  }
  return stats;
}
