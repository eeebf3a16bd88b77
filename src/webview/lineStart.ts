/**
 * Where the browser broke a text into lines, read from its layout. A streaming text is cut into
 * blocks so each frame lays out a small one; cut where a drawn line starts, the cut is not seen:
 * the lines before it stay as they were (browsers break lines greedily, each from its start), and
 * the block after it starts at the left edge, where that line started anyway.
 */
import { pairSafeEnd } from "../shared/utf16";

/** The box of the characters `from`..`to` of `node` as laid out; undefined when it has none (not laid out: hidden, folded, or a collapsed space). */
function box(range: Range, node: Text, from: number, to: number): DOMRect | undefined {
  range.setStart(node, from);
  range.setEnd(node, to);
  const rects = range.getClientRects();
  const r = rects[rects.length - 1];
  return r && r.height > 0 ? r : undefined;
}

/** The characters of `s` at `i`: two for a surrogate pair (an emoji, a rare CJK character), else one. */
function unitEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? i + 2 : i + 1;
}

/**
 * The offset in `node` where its last drawn line starts, if past `min`: the text before it is whole
 * lines. Undefined when the text is not laid out, or its last line starts before `min`. A line
 * break or spaces at its end belong to the line they end. Reads layout (about a dozen boxes): for a
 * cut, once in a while, before the frame writes (the text drawn in the last frame is laid out).
 */
export function lastLineStart(node: Text, min: number): number | undefined {
  const s = node.data;
  let end = s.length;
  while (end > min && /\s/.test(s.charAt(end - 1))) end--;
  if (end <= min + 1) return undefined;
  const range = document.createRange();
  const boxAt = (i: number): DOMRect | undefined => box(range, node, i, unitEnd(s, i));
  const at = (i: number): number | undefined => {
    const r = boxAt(i);
    return r && r.top + r.height / 2;
  };
  const lastBox = boxAt(end - 1) ?? boxAt(end - 2);
  const first = at(min) ?? at(min + 1);
  if (lastBox === undefined || first === undefined) return undefined;
  const last = lastBox.top + lastBox.height / 2;
  // On the last line: a middle less than half a line above its last character's (the fonts of one
  // line, Latin and CJK, differ by far less). Lines go down as the text goes on.
  const half = lastBox.height / 2;
  if (last - first < half) return undefined;
  let lo = min;
  let hi = end - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    // A space that collapsed has no box (a run of them, none but the first): the line of the
    // nearest character with one is its own.
    let y = at(mid);
    for (let d = 1; y === undefined && d <= 8; d++) y = (mid + d < end ? at(mid + d) : undefined) ?? (mid - d > lo ? at(mid - d) : undefined);
    if (y === undefined) return undefined;
    if (last - y < half) hi = mid;
    else lo = mid;
  }
  // `hi` is the first character of the last line; spaces there (a collapsed one taken for the
  // next line's) end the line above, but not after a line break, where they indent this one.
  let start = hi;
  if (s.charCodeAt(start - 1) !== 10) while (start < end && (s.charCodeAt(start) === 32 || s.charCodeAt(start) === 9)) start++;
  // Never inside a surrogate pair; never after a soft hyphen (it shows only where a line breaks).
  start = pairSafeEnd(s, start);
  if (s.charCodeAt(start - 1) === 0xad) return undefined;
  return start > min && start < end ? start : undefined;
}
