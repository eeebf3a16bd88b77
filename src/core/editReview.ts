/**
 * Review of agent edits, as pure data and functions: for every file an agent changed we keep a
 * *baseline* — the text the user has accepted (at first, the file before the agent touched it) —
 * and derive the pending hunks as the difference between that baseline and the file as it is now.
 *
 * - Keep a hunk: the baseline takes the hunk's new text (it is no longer a change).
 * - Undo a hunk: the file takes the baseline's text for that hunk, exactly, leaving the others.
 * - Keep all / undo all: baseline := current, or current := baseline.
 *
 * Only the agent's text is pending: an edit by anyone else (the user typing, format on save,
 * another extension, a git checkout) is *rebased* into the baseline (`rebaseUserChanges`), so it
 * never shows as an agent change and no Undo removes it. Where the user's edit lands inside an
 * agent hunk it cannot move into the baseline without deciding the hunk for the user; there the
 * text the user typed is remembered as `userEdits` (spans of the current text), and undoing a hunk
 * that holds some asks first and names it. Closing a diff tab never decides anything.
 */
import { diffLines } from "diff";
import type { FileReviewState, TrackedFile } from "./editLedger";

/** One pending change: char offsets into the baseline and the current text, plus line numbers for display. */
export interface Hunk {
  index: number;
  baseStart: number;
  baseEnd: number;
  curStart: number;
  curEnd: number;
  baseText: string;
  curText: string;
  /** 0-based first line of the hunk in the current text (where a CodeLens goes). */
  curLine: number;
  /** 0-based first line in the baseline. */
  baseLine: number;
  added: number;
  removed: number;
}

/** The pending hunks between the baseline and the current text, in order. */
export function computeHunks(base: string, current: string): Hunk[] {
  if (base === current) return [];
  const hunks: Hunk[] = [];
  let baseOff = 0;
  let curOff = 0;
  let baseLine = 0;
  let curLine = 0;
  let open: Hunk | undefined;
  const close = (): void => {
    if (open) hunks.push(open);
    open = undefined;
  };
  for (const part of diffLines(base, current)) {
    const lines = part.count;
    if (!part.added && !part.removed) {
      close();
      baseOff += part.value.length;
      curOff += part.value.length;
      baseLine += lines;
      curLine += lines;
      continue;
    }
    open ??= { index: hunks.length, baseStart: baseOff, baseEnd: baseOff, curStart: curOff, curEnd: curOff, baseText: "", curText: "", curLine, baseLine, added: 0, removed: 0 };
    if (part.removed) {
      open.baseText += part.value;
      open.baseEnd += part.value.length;
      open.removed += lines;
      baseOff += part.value.length;
      baseLine += lines;
    } else {
      open.curText += part.value;
      open.curEnd += part.value.length;
      open.added += lines;
      curOff += part.value.length;
      curLine += lines;
    }
  }
  close();
  return hunks;
}

/** The baseline after keeping `hunk`. */
export function keepHunk(base: string, hunk: Hunk): string {
  return base.slice(0, hunk.baseStart) + hunk.curText + base.slice(hunk.baseEnd);
}

/** The current text after undoing `hunk` (its baseline text restored exactly). */
export function undoHunk(current: string, hunk: Hunk): string {
  return current.slice(0, hunk.curStart) + hunk.baseText + current.slice(hunk.curEnd);
}

/** Counts for a file, from its baseline and current text (current null = file missing). */
export function summarize(file: TrackedFile, current: string | null): { added: number; removed: number; hunks: number; state: FileReviewState } {
  const hunks = computeHunks(file.base ?? "", current ?? "");
  const added = hunks.reduce((n, h) => n + h.added, 0);
  const removed = hunks.reduce((n, h) => n + h.removed, 0);
  const state: FileReviewState = hunks.length > 0 ? "pending" : file.decided ?? "kept";
  return { added, removed, hunks: hunks.length, state };
}

/**
 * The text before an edit the agent made on its own, from the file now and the diff it reported:
 * whole-file diffs give it directly; fragment diffs (old/new snippet) are reversed in place.
 */
export function reconstructBefore(now: string | null, oldText: string | null, newText: string): string | null {
  if (now === null) return oldText;
  if (now === newText) return oldText;
  if (oldText !== null && newText && now.includes(newText)) {
    const at = now.indexOf(newText);
    return now.slice(0, at) + oldText + now.slice(at + newText.length);
  }
  return oldText ?? null;
}

/**
 * The file as an edit the agent proposes would leave it, from the file now and the diff: a
 * fragment diff (old/new snippet found in the file) is applied in place, so the proposal shows in
 * context; otherwise the diff's new text is the whole file.
 */
export function proposedText(now: string | null, oldText: string | null, newText: string): string {
  if (now === null || oldText === null || oldText === "" || oldText === now || !now.includes(oldText)) return newText;
  const at = now.indexOf(oldText);
  return now.slice(0, at) + newText + now.slice(at + oldText.length);
}

// ——— telling the agent's text from the user's ———

/** A half-open range of character offsets. */
export interface Span { start: number; end: number }

/** One replacement: `[start, end)` of the text before the change becomes `text`. */
export interface TextChange { start: number; end: number; text: string }

/** Sorted, non-overlapping, non-empty spans with touching ones merged. */
function normalizeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** Changes sorted by start; throws when two overlap (they must all be offsets of the same text). */
function sortedChanges(changes: readonly TextChange[]): TextChange[] {
  const sorted = [...changes].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.start < sorted[i - 1]!.end) throw new Error("overlapping changes");
  return sorted;
}

/** The text after applying `changes` (offsets into `text`). */
export function applyChanges(text: string, changes: readonly TextChange[]): string {
  let out = text;
  for (const c of sortedChanges(changes).reverse()) out = out.slice(0, c.start) + c.text + out.slice(c.end);
  return out;
}

/**
 * The changes that turn `before` into `after`, line by line (the granularity of hunks): what a
 * disk change or a whole-document replacement amounts to.
 */
export function changesBetween(before: string, after: string, offset = 0): TextChange[] {
  if (before === after) return [];
  const out: TextChange[] = [];
  let pos = offset;
  let open: TextChange | undefined;
  for (const part of diffLines(before, after)) {
    if (!part.added && !part.removed) {
      if (open) out.push(open);
      open = undefined;
      pos += part.value.length;
      continue;
    }
    open ??= { start: pos, end: pos, text: "" };
    if (part.removed) {
      open.end += part.value.length;
      pos += part.value.length;
    } else open.text += part.value;
  }
  if (open) out.push(open);
  return out;
}

/**
 * Finer changes for one replacement: a replacement spanning lines (another extension replacing
 * the whole document, a reload) becomes the lines that really differ; pressing Enter at the end of
 * a line counts as a new line after it, not an edit of that line.
 */
export function refineChange(before: string, c: TextChange): TextChange[] {
  const old = before.slice(c.start, c.end);
  if (old === c.text) return [];
  for (const eol of ["\r\n", "\n"]) {
    if (old === "" && c.text.startsWith(eol) && before.startsWith(eol, c.start)) {
      // "\nX" inserted before a line's end is the same text as "X\n" inserted after it.
      return [{ start: c.start + eol.length, end: c.start + eol.length, text: c.text.slice(eol.length) + eol }];
    }
  }
  if (old !== "" && c.text !== "" && (old.includes("\n") || c.text.includes("\n"))) return changesBetween(old, c.text, c.start);
  return [{ ...c }];
}

/** Where offset `pos` of the text before `changes` ends up after them; `right`: after text inserted exactly there. */
export function mapOffset(pos: number, changes: readonly TextChange[], right: boolean): number {
  let shift = 0;
  for (const c of sortedChanges(changes)) {
    if (c.start > pos || (c.start === pos && c.end === pos && !right)) break;
    if (c.end <= pos) {
      shift += c.text.length - (c.end - c.start);
      continue;
    }
    // Inside a replaced range: to its start, or past its new text.
    return c.start + shift + (right ? c.text.length : 0);
  }
  return pos + shift;
}

/** Spans carried through changes made by someone else (the agent, or our own undo): text replaced under them drops out. */
export function mapSpans(spans: readonly Span[], changes: readonly TextChange[]): Span[] {
  if (changes.length === 0) return normalizeSpans(spans);
  const cs = sortedChanges(changes);
  const out: Span[] = [];
  for (const s of spans) {
    // Split the span around every change it overlaps; the replaced parts are gone.
    let start = s.start;
    for (const c of cs) {
      if (c.end <= start || c.start >= s.end) continue;
      if (c.start > start) out.push({ start: mapOffset(start, cs, true), end: mapOffset(c.start, cs, false) });
      start = Math.max(start, c.end);
    }
    if (start < s.end) out.push({ start: mapOffset(start, cs, true), end: mapOffset(s.end, cs, false) });
  }
  return normalizeSpans(out);
}

/** Whether a change reaches into an agent hunk (rather than only the unchanged text around it). */
function touches(h: Hunk, c: TextChange): boolean {
  if (h.curStart === h.curEnd) return c.start < h.curStart && c.end > h.curStart; // lines the agent deleted: only a change across them
  if (c.start === c.end) return c.start > h.curStart && c.start < h.curEnd; // typing at a hunk's first or after its last line is outside it
  return c.start < h.curEnd && c.end > h.curStart;
}

/**
 * Offset in the baseline of `pos`, an offset of the current text outside every hunk. At the place
 * of lines the agent deleted, `atEnd` (the end of a replaced range) stays before them.
 */
function toBase(hunks: readonly Hunk[], pos: number, atEnd = false): number {
  let last: Hunk | undefined;
  for (const h of hunks) {
    const before = h.curEnd < pos || (h.curEnd === pos && (h.curStart < h.curEnd || !atEnd));
    if (!before) break;
    last = h;
  }
  return last ? pos - last.curEnd + last.baseEnd : pos;
}

/**
 * An edit by someone other than the agent (the user typing or pasting, format on save, another
 * extension, a git checkout) to a file under review, as changes to `before` (the text just before
 * it). What it does to the review:
 * - a change in the unchanged text between hunks moves into the baseline at the same place, so it
 *   is never an agent change and Undo never removes it;
 * - a change that reaches into an agent hunk leaves the hunk pending (the user has not said the
 *   agent's text is right): the unchanged text it deleted around the hunk is deleted from the
 *   baseline too, and the text it typed is remembered in `userEdits`, so that undoing the hunk
 *   asks first instead of silently deleting it;
 * - in a file the agent created (`base` null) all of it is the agent's hunk: everything typed is
 *   remembered, so undoing the file asks before deleting it.
 */
export function rebaseUserChanges(base: string, before: string, changes: readonly TextChange[], userEdits?: readonly Span[]): { base: string; current: string; userEdits: Span[] };
export function rebaseUserChanges(base: string | null, before: string, changes: readonly TextChange[], userEdits?: readonly Span[]): { base: string | null; current: string; userEdits: Span[] };
export function rebaseUserChanges(base: string | null, before: string, changes: readonly TextChange[], userEdits: readonly Span[] = []): { base: string | null; current: string; userEdits: Span[] } {
  const cs = sortedChanges(changes.flatMap((c) => refineChange(before, c)));
  if (base === null) {
    // A file the agent created is the agent's as a whole: what the user types in it is remembered, the baseline stays "no file".
    let shift = 0;
    const typed: Span[] = [];
    for (const c of cs) {
      if (c.text) typed.push({ start: c.start + shift, end: c.start + shift + c.text.length });
      shift += c.text.length - (c.end - c.start);
    }
    const current = applyChanges(before, cs);
    return { base, current, userEdits: spansInHunks("", current, [...mapSpans(userEdits, cs), ...typed]) };
  }
  const hunks = computeHunks(base, before);
  const baseEdits: TextChange[] = [];
  const typed: Span[] = [];
  let delta = 0;
  for (const c of cs) {
    const hit = hunks.filter((h) => touches(h, c));
    if (hit.length === 0) {
      baseEdits.push({ start: toBase(hunks, c.start), end: toBase(hunks, c.end, c.end > c.start), text: c.text });
    } else {
      // The parts of the replaced range outside hunks were unchanged text: gone from the baseline too.
      let at = c.start;
      for (const h of hit) {
        if (h.curStart > at) baseEdits.push({ start: toBase(hunks, at), end: toBase(hunks, h.curStart, true), text: "" });
        at = Math.max(at, h.curEnd);
      }
      if (c.end > at) baseEdits.push({ start: toBase(hunks, at), end: toBase(hunks, c.end, true), text: "" });
      if (c.text) typed.push({ start: c.start + delta, end: c.start + delta + c.text.length });
    }
    delta += c.text.length - (c.end - c.start);
  }
  const current = applyChanges(before, cs);
  const newBase = applyChanges(base, baseEdits.filter((e) => e.end > e.start || e.text));
  const spans = normalizeSpans([...mapSpans(userEdits, cs), ...typed]);
  return { base: newBase, current, userEdits: spansInHunks(newBase, current, spans) };
}

/** Only the spans that are (partly) inside a pending hunk; the rest is accepted text now. */
export function spansInHunks(base: string, current: string, spans: readonly Span[]): Span[] {
  if (spans.length === 0) return [];
  const hunks = computeHunks(base, current);
  return normalizeSpans(spans.filter((s) => s.end <= current.length))
    .filter((s) => hunks.some((h) => s.start < h.curEnd && s.end > h.curStart));
}

/** The text the user typed inside `hunk`, piece by piece. */
export function userTextIn(hunk: Hunk, current: string, spans: readonly Span[] | undefined): string[] {
  return (spans ?? [])
    .filter((s) => s.start < hunk.curEnd && s.end > hunk.curStart)
    .map((s) => current.slice(Math.max(s.start, hunk.curStart), Math.min(s.end, hunk.curEnd)))
    .filter((t) => t !== "");
}

/**
 * Undo that keeps what the user typed: the hunk's original text, then the user's pieces (each on
 * its own line). What "undo only the agent's part" means for a hunk that holds user text.
 */
export function undoKeepingUserText(hunk: Hunk, current: string, spans: readonly Span[] | undefined): string {
  const pieces = userTextIn(hunk, current, spans).map((t) => t.replace(/^\n+/, "").replace(/\n*$/, "\n")).filter((t) => t !== "\n");
  return hunk.baseText + pieces.join("");
}
