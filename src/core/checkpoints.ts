/**
 * Checkpoints: for every prompt turn, a snapshot of the workspace taken just before the agent
 * starts and one when the turn ends (commits of a shadow repository, see vscode/shadowGit.ts).
 * Restoring turn N returns every file changed since N's start to its state then; the files the
 * user changed between turns (after one turn ended, before the next began) are named, since a
 * restore would take those edits back too. Pure bookkeeping: the adapter snapshots and writes.
 */
import { z } from "zod";
import { parseList } from "../shared/validation";

/** A checkpoint as stored in workspace state. */
const zCheckpoint = z.object({
  sessionId: z.string(),
  turnId: z.number(),
  /** The prompt (for the list), shortened. */
  prompt: z.string(),
  at: z.number(),
  /** Workspace folder → snapshot commit before the turn. */
  before: z.record(z.string(), z.string().regex(/^[0-9a-f]{40,64}$/)),
  /** Workspace folder → snapshot commit when the turn ended (absent while it runs). */
  after: z.record(z.string(), z.string().regex(/^[0-9a-f]{40,64}$/)).optional(),
});
export type Checkpoint = z.infer<typeof zCheckpoint>;

/** The stored checkpoints that are well-formed (a damaged entry is dropped, and counted). */
export function parseCheckpoints(stored: unknown): { checkpoints: Checkpoint[]; dropped: number } {
  const { items, problems } = parseList(zCheckpoint, stored, "the stored checkpoint list");
  return { checkpoints: items, dropped: problems.length };
}

const MAX_CHECKPOINTS = 500;

export class CheckpointIndex {
  private readonly list: Checkpoint[];

  constructor(initial: readonly Checkpoint[] = []) {
    this.list = initial.map((c) => ({ ...c, before: { ...c.before }, ...(c.after ? { after: { ...c.after } } : {}) }));
  }

  add(c: Checkpoint): void {
    this.list.push(c);
    this.list.splice(0, Math.max(0, this.list.length - MAX_CHECKPOINTS));
  }

  get(sessionId: string, turnId: number): Checkpoint | undefined {
    return this.list.find((c) => c.sessionId === sessionId && c.turnId === turnId);
  }

  /** The newest checkpoint of a session whose turn has not ended. */
  open(sessionId: string): Checkpoint | undefined {
    return this.list.findLast((c) => c.sessionId === sessionId && !c.after);
  }

  all(): readonly Checkpoint[] {
    return this.list;
  }

  /** Checkpoints of the same session from `c` on, oldest first (the turns a restore rolls back). */
  from(c: Checkpoint): Checkpoint[] {
    return this.list.filter((x) => x.sessionId === c.sessionId && x.turnId >= c.turnId).sort((a, b) => a.turnId - b.turnId);
  }

  /** Turns with checkpoints, per session (for the panel's buttons). */
  turnsBySession(): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const c of this.list) (out[c.sessionId] ??= []).push(c.turnId);
    return out;
  }

  toJSON(): Checkpoint[] {
    return this.list;
  }
}

/**
 * The gaps between consecutive turns of the rolled-back range (after turn k ended, before turn
 * k+1 began) per folder, and between the last turn's end and now: where changes are the user's.
 */
export function userGaps(turns: readonly Checkpoint[], folder: string, now: string): { from: string; to: string }[] {
  const gaps: { from: string; to: string }[] = [];
  for (let i = 0; i < turns.length; i++) {
    const end = turns[i]!.after?.[folder];
    if (!end) continue;
    const next = i + 1 < turns.length ? turns[i + 1]!.before[folder] : now;
    if (next && next !== end) gaps.push({ from: end, to: next });
  }
  return gaps;
}
