/**
 * Added/removed line counts for a tool call's diff summary ("+12 −3"): exact (jsdiff's Myers
 * diff over the lines left after trimming the common head and tail) while the edit is short
 * enough to find cheaply, otherwise approximated by pairing equal lines in any order. Results are
 * cached per diff object, which the reducer keeps stable.
 */
import { diffArrays } from "diff";

export interface LineDiffStats {
  added: number;
  removed: number;
  /** True when the counts come from the cheap approximation. */
  approximate: boolean;
}

/**
 * The exact diff costs about (edit length)² plus (changed lines) × (edit length) steps, and runs
 * on the panel's thread: beyond this edit length, or this many steps, it gives up (a large
 * rewrite) and the counts are approximated. Bounds the worst case to some 20 ms.
 */
const MAX_EDIT_LINES = 400;
const DIFF_WORK = 4_000_000;

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
  const changedA = a.slice(start, endA);
  const changedB = b.slice(start, endB);
  // Lines the two sides share, in any order: at least as many as the diff keeps, so the edit is at least this long.
  const common = commonLines(changedA, changedB);
  if (common === 0) return { added: m, removed: n, approximate: false };
  const maxEditLength = Math.max(1, Math.min(MAX_EDIT_LINES, Math.floor(DIFF_WORK / (n + m))));
  const parts = n + m - 2 * common <= maxEditLength ? diffArrays(changedA, changedB, { maxEditLength }) : undefined;
  if (!parts) return { added: m - common, removed: n - common, approximate: true };
  let added = 0;
  let removed = 0;
  for (const p of parts) {
    if (p.added) added += p.count;
    else if (p.removed) removed += p.count;
  }
  return { added, removed, approximate: false };
}

/** How many lines of `a` can be paired with an equal line of `b`, ignoring order. */
function commonLines(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let common = 0;
  for (const line of b) {
    const c = counts.get(line);
    if (c) {
      counts.set(line, c - 1);
      common++;
    }
  }
  return common;
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
