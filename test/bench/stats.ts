// Statistics the bench prints, kept apart from the scenarios (which run in the extension host) so
// unit tests can check them.

/**
 * The p-th percentile (p a whole percent) of `sorted` (ascending), by nearest rank: the smallest
 * value with at least p % of the values at or below it. Of 20 values p95 is the 19th and p100 the 20th; of 5,000,
 * p95 is the 4,750th. NaN when there are none.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  // With p a whole percent, p·n is exact and so is its hundredth where it is whole (95 % of 20 is 19, not a hair above it).
  const rank = Math.ceil((p * sorted.length) / 100);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}
