/**
 * Review of agent edits, as pure data and functions: for every file an agent changed we keep a
 * *baseline* — the text the user has accepted (at first, the file before the agent touched it) —
 * and derive the pending hunks as the difference between that baseline and the file as it is now.
 *
 * - Keep a hunk: the baseline takes the hunk's new text (it is no longer a change).
 * - Undo a hunk: the file takes the baseline's text for that hunk, exactly, leaving the others.
 * - Keep all / undo all: baseline := current, or current := baseline.
 * Because hunks are always derived, edits by the agent (through us or on its own) and by the user
 * are handled the same way, and closing a diff tab never decides anything.
 */
import { diffLines } from "diff";

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

export type FileReviewState = "pending" | "kept" | "undone";

/** What we remember about one changed file (persisted across reloads). */
export interface TrackedFile {
  path: string;
  /** The accepted text; null while the file did not exist before the agent created it. */
  base: string | null;
  /** Sessions and tool calls that changed it, oldest first ("why this change?"). */
  origins: { sessionId: string; toolCallId?: string; at: number }[];
  /** Set once the user decided everything (kept or undone); cleared by a new agent edit. */
  decided?: Exclude<FileReviewState, "pending">;
  /**
   * The baseline was rebuilt from the agent's own report of the edit, because we never saw the
   * file before it changed: `whole` when it is the diff's old text alone, `fragment` when the
   * agent's old snippet was put back into the file as it is. Undo then asks first where it would
   * write text only the agent vouches for (see AgentChanges.mayUndo).
   */
  baseReported?: "whole" | "fragment";
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
 * All files under review, keyed by path. Pure bookkeeping: the editor adapter reads files and
 * applies edits; this decides what the baselines are.
 */
export class EditLedger {
  private readonly files = new Map<string, TrackedFile>();

  constructor(initial: readonly TrackedFile[] = []) {
    for (const f of initial) this.files.set(f.path, { ...f, origins: [...f.origins] });
  }

  get(path: string): TrackedFile | undefined {
    return this.files.get(path);
  }

  all(): TrackedFile[] {
    return [...this.files.values()];
  }

  /**
   * An agent edit to `path`. `before` is the text before this edit (null: the file did not exist);
   * the first edit of a file fixes its baseline, later ones only add an origin.
   */
  recordEdit(path: string, before: string | null, origin: { sessionId: string; toolCallId?: string; at: number }, baseReported?: "whole" | "fragment"): TrackedFile {
    const existing = this.files.get(path);
    if (existing && existing.decided === undefined) {
      existing.origins.push(origin);
      return existing;
    }
    // New, or decided earlier: what is on disk now is what the user accepted, so it is the baseline.
    const file: TrackedFile = { path, base: before, origins: [...(existing?.origins ?? []), origin], ...(baseReported ? { baseReported } : {}) };
    this.files.set(path, file);
    return file;
  }

  /** Sets the baseline (after keeping hunks). */
  setBase(path: string, base: string | null): void {
    const f = this.files.get(path);
    if (f) f.base = base;
  }

  /** Marks a file decided; it stays listed (as kept or undone) until forgotten. */
  decide(path: string, state: Exclude<FileReviewState, "pending">): void {
    const f = this.files.get(path);
    if (f) f.decided = state;
  }

  /** Clears `decided` when a file has pending hunks again. */
  reopen(path: string): void {
    const f = this.files.get(path);
    if (f) delete f.decided;
  }

  forget(path: string): void {
    this.files.delete(path);
  }

  /** Serialisable form for workspace storage. */
  toJSON(): TrackedFile[] {
    return this.all();
  }
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
