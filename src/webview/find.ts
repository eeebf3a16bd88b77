/**
 * Find in the transcript, the pure part: case folding that keeps offsets, the matches of a query
 * in a text that arrives in pieces (text nodes) and grows (rescanned only from where it changed),
 * and stepping through matches counted per site. No DOM here; `render/find.ts` draws it.
 */

/**
 * Lower-cases without changing the length, so an offset in the folded text is the same offset in
 * the text. Final sigma folds like sigma, so a slice folds as it does inside the whole text.
 */
export function foldCase(s: string): string {
  let low = s.toLowerCase();
  if (low.length !== s.length) {
    // A few characters lower-case to more (İ → i̇): keep those as they are. By character, so a
    // capital outside the basic plane (two UTF-16 units) still folds.
    const out: string[] = [];
    for (const c of s) {
      const l = c.toLowerCase();
      out.push(l.length === c.length ? l : c);
    }
    low = out.join("");
  }
  return low.includes("ς") ? low.replace(/ς/g, "σ") : low;
}

/** The query as matched: folded; empty when it is only white space (nothing to find). */
export function foldQuery(q: string): string {
  return q.trim() === "" ? "" : foldCase(q);
}

/** How many non-overlapping times `q` occurs in `folded` (both folded with `foldCase`). */
export function countIn(folded: string, q: string): number {
  if (!q) return 0;
  let n = 0;
  for (let i = folded.indexOf(q); i >= 0; i = folded.indexOf(q, i + q.length)) n++;
  return n;
}

/** Reads a piece of text (a text node) without copying more of it than asked. */
export interface PieceReader<P> {
  length(p: P): number;
  slice(p: P, from: number, to: number): string;
}

/** How much of a piece's end is kept to tell "grew" from "was rewritten". */
const SEAM = 32;

/**
 * The non-overlapping matches of a query in the concatenation of pieces. `update` is handed the
 * pieces again after a change and rescans only from the first piece that changed — a piece that
 * only grew (a streaming thought's text node) rescans from its old end, so streaming costs what
 * streamed, not the whole text. Pieces are compared by identity and length, and by their last few
 * characters so a piece rewritten in place is not taken for one that grew.
 */
export class PieceScan<P> {
  /** Matches as offsets into the concatenated text: [starts[i], ends[i]). */
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  private pieces: P[] = [];
  private lens: number[] = [];
  private seams: string[] = [];
  /** Offset of each piece in the concatenated text. */
  private offsets: number[] = [];
  private q = "";
  /** How far into the text the matches are all found: a scan its time ran out on goes on from here. */
  private scannedTo = 0;

  get count(): number {
    return this.starts.length;
  }

  /** Whether every match is found (false after a scan `due` cut short, until an update finishes it). */
  get done(): boolean {
    return this.scannedTo >= this.length;
  }

  /** The length of the whole text, as last measured. */
  private get length(): number {
    const last = this.offsets.length - 1;
    return last < 0 ? 0 : (this.offsets[last] ?? 0) + (this.lens[last] ?? 0);
  }

  /**
   * Rescans after a change, or goes on with a scan cut short; returns how many of the earlier
   * matches still stand (first in order). `due` ends the scan early (after a piece): `done` says
   * whether it got to the end.
   */
  update(pieces: readonly P[], read: PieceReader<P>, q: string, due?: () => boolean): number {
    let same = 0;
    let keep = 0;
    if (q === this.q && q) {
      const n = Math.min(pieces.length, this.pieces.length);
      for (; same < n; same++) {
        const p = pieces[same] as P;
        const old = this.lens[same] ?? 0;
        if (p !== this.pieces[same]) break;
        const len = read.length(p);
        if (len < old || read.slice(p, Math.max(0, old - SEAM), old) !== this.seams[same]) break;
        keep = (this.offsets[same] ?? 0) + old;
        if (len > old) break;
      }
      if (same === pieces.length && same === this.pieces.length && this.done) return this.count;
      // What a scan cut short did not reach is not known yet, changed or not.
      keep = Math.min(keep, this.scannedTo);
    } else {
      this.q = q;
    }
    let kept = 0;
    while (kept < this.ends.length && (this.ends[kept] ?? 0) <= keep) kept++;
    this.starts.length = kept;
    this.ends.length = kept;
    // Everything from the first changed piece is measured again.
    const from = Math.min(same, pieces.length);
    this.pieces = pieces.slice();
    this.lens.length = from;
    this.seams.length = from;
    this.offsets.length = from;
    let at = from > 0 ? (this.offsets[from - 1] ?? 0) + (this.lens[from - 1] ?? 0) : 0;
    for (let i = from; i < pieces.length; i++) {
      const p = pieces[i] as P;
      const len = read.length(p);
      this.offsets.push(at);
      this.lens.push(len);
      this.seams.push(read.slice(p, Math.max(0, len - SEAM), len));
      at += len;
    }
    if (!q) {
      this.scannedTo = at;
      return 0;
    }
    const lastEnd = kept > 0 ? (this.ends[kept - 1] ?? 0) : 0;
    this.scan(Math.max(lastEnd, keep - q.length + 1, 0), read, q, due);
    return kept;
  }

  /**
   * Goes on with a scan cut short, over the pieces of the last update, which the caller knows are
   * unchanged since (no DOM change was recorded): without measuring every piece again, which for a
   * thought of 2,400 text nodes was most of each slice. Returns how many matches stand (all).
   * A piece shorter than measured makes the reader throw (a DOM text node's substringData does).
   */
  resume(read: PieceReader<P>, q: string, due?: () => boolean): number {
    if (q !== this.q || !q || this.done) return this.count;
    const lastEnd = this.ends.length > 0 ? (this.ends[this.ends.length - 1] ?? 0) : 0;
    this.scan(Math.max(lastEnd, this.scannedTo - q.length + 1, 0), read, q, due);
    return this.count;
  }

  /**
   * Finds the matches from offset `from` on, a piece at a time with the end of the one before (so
   * a match across a seam is found): no copy of the whole text, which for a 5 MB thought was two
   * strings of 5 MB (joined, then folded) for the garbage collector on each new query. Stops
   * after a piece once `due` says so, where the next update goes on.
   */
  private scan(from: number, read: PieceReader<P>, q: string, due: (() => boolean) | undefined): void {
    let carry = "";
    // Where `carry` starts in the whole text, and where the next match may start (matches do not overlap).
    let carryAt = from;
    let next = from;
    for (let i = 0; i < this.pieces.length; i++) {
      const o = this.offsets[i] ?? 0;
      const len = this.lens[i] ?? 0;
      if (o + len <= from) continue;
      const lo = Math.max(0, from - o);
      const text = carry + foldCase(read.slice(this.pieces[i] as P, lo, len));
      for (let k = text.indexOf(q, Math.max(0, next - carryAt)); k >= 0; k = text.indexOf(q, k + q.length)) {
        this.starts.push(carryAt + k);
        this.ends.push(carryAt + k + q.length);
        next = carryAt + k + q.length;
      }
      // The last q.length - 1 characters may begin a match that ends in the next piece.
      const keepChars = Math.min(text.length, q.length - 1);
      carry = text.slice(text.length - keepChars);
      carryAt = o + len - keepChars;
      // Past where it went on from (it starts q.length - 1 back, for a match across that seam).
      if (i < this.pieces.length - 1 && o + len >= from + q.length && due?.()) {
        // Matches are all found up to this piece's end (one across the seam is found on going on).
        this.scannedTo = o + len;
        return;
      }
    }
    this.scannedTo = this.length;
  }

  /** The piece holding an offset and the offset inside it; `end` picks the earlier piece at a boundary. */
  locate(offset: number, end: boolean): [P, number] | undefined {
    const offs = this.offsets;
    let lo = 0;
    let hi = offs.length - 1;
    if (hi < 0) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const o = offs[mid] ?? 0;
      if (o < offset || (!end && o === offset)) lo = mid;
      else hi = mid - 1;
    }
    // Skip empty pieces so a start lands at the beginning of real text.
    while (!end && lo < offs.length - 1 && (offs[lo] ?? 0) + (this.lens[lo] ?? 0) <= offset) lo++;
    const p = this.pieces[lo];
    return p === undefined ? undefined : [p, offset - (offs[lo] ?? 0)];
  }
}

/** The index one step from `index` among `total` matches, wrapping; -1 when there are none. */
export function stepIndex(index: number, total: number, dir: 1 | -1): number {
  if (total <= 0) return -1;
  if (index < 0 || index >= total) return dir === 1 ? 0 : total - 1;
  return (index + dir + total) % total;
}

/** Which site holds the `index`-th match, and which of its matches it is, given each site's count. */
export function siteOf(counts: readonly number[], index: number): { site: number; k: number } | undefined {
  if (index < 0) return undefined;
  let rest = index;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i] ?? 0;
    if (rest < n) return { site: i, k: rest };
    rest -= n;
  }
  return undefined;
}
