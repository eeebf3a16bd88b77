/**
 * The review ledger: every file under review, with its baseline and where its changes came from,
 * as plain data that persists in workspace storage. What is read back from storage is validated
 * (`parseStoredLedger`): a malformed entry is dropped with a reason, never thrown.
 */
import { z } from "zod";
import { parseList } from "../shared/validation";
import type { Span } from "./editReview";

export type FileReviewState = "pending" | "kept" | "undone";

/** Who changed a file: a session, the tool call when one is known, and `command` when only the turn's snapshots saw it (a command the agent ran). */
export interface EditOrigin { sessionId: string; toolCallId?: string; at: number; by?: "command" }

/** What we remember about one changed file (persisted across reloads). */
export interface TrackedFile {
  path: string;
  /** The accepted text; null while the file did not exist before the agent created it. */
  base: string | null;
  /** Sessions and tool calls that changed it, oldest first ("why this change?"). */
  origins: EditOrigin[];
  /** Set once the user decided everything (kept or undone); cleared by a new agent edit. */
  decided?: Exclude<FileReviewState, "pending">;
  /**
   * The baseline was rebuilt from the agent's own report of the edit, because we never saw the
   * file before it changed: `whole` when it is the diff's old text alone, `fragment` when the
   * agent's old snippet was put back into the file as it is. Undo then asks first where it would
   * write text only the agent vouches for (see AgentChanges.mayUndo).
   */
  baseReported?: "whole" | "fragment";
  /**
   * Text the user typed inside agent hunks, as spans of the current text (kept in step with every
   * edit). Undoing a hunk that holds some asks first. Absent in ledgers stored before it existed.
   */
  userEdits?: Span[];
  /** Folders that did not exist before the agent created this file (deepest last); undoing the file removes those left empty. */
  createdDirs?: string[];
  /** The text of a file the agent created when an undo deleted it (to restore it). */
  deletedText?: string;
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
  recordEdit(path: string, before: string | null, origin: EditOrigin, baseReported?: "whole" | "fragment"): TrackedFile {
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

  /** Marks a file decided; it stays listed (as kept or undone). */
  decide(path: string, state: Exclude<FileReviewState, "pending">): void {
    const f = this.files.get(path);
    if (f) f.decided = state;
  }

  /** Clears `decided` when a file has pending hunks again. */
  reopen(path: string): void {
    const f = this.files.get(path);
    if (f) delete f.decided;
  }

  /** Drops a file from the review (the user deleted it). */
  forget(path: string): void {
    this.files.delete(path);
  }

  /** Serialisable form for workspace storage. */
  toJSON(): TrackedFile[] {
    return this.all();
  }
}

const span = z.object({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() }).refine((s) => s.end >= s.start, "a span ends before it starts");
const origin = z.object({
  sessionId: z.string(),
  toolCallId: z.string().optional(),
  at: z.number(),
  by: z.literal("command").optional(),
});
const trackedFileSchema = z.object({
  path: z.string().min(1),
  base: z.string().nullable(),
  origins: z.array(origin),
  decided: z.enum(["kept", "undone"]).optional(),
  baseReported: z.enum(["whole", "fragment"]).optional(),
  userEdits: z.array(span).optional(),
  createdDirs: z.array(z.string()).optional(),
  deletedText: z.string().optional(),
});

/**
 * The files of a ledger read back from storage (undefined: nothing stored). Entries that do not
 * match `TrackedFile` are left out, each with a reason; a value that is not a list at all gives
 * no files.
 */
export function parseStoredLedger(raw: unknown): { files: TrackedFile[]; problems: string[] } {
  const { items, problems } = parseList(trackedFileSchema, raw, "the stored ledger");
  return { files: items, problems };
}
