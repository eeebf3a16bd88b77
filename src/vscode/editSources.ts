/**
 * Where agent edits come from, and when a change is the agent's. Four sources put a file under
 * review: the agent writing through `fs/write_text_file` (1), tool-call diff content after the
 * agent wrote the file itself (2), diffs in permission requests, snapshotted before anything is
 * written and shown as a proposal (3), and files a turn's checkpoint saw changed by a command (4).
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import { proposedText, reconstructBefore } from "../core/editReview";
import type { EditLedger } from "../core/editLedger";
import type { ThoughtEvent, ToolContent } from "../shared/events";
import { type DiffDocuments, PROPOSAL_SCHEME } from "./diffDocuments";
import { diskFile, readCurrent } from "./documents";

/**
 * A disk change of a file under review this soon after an agent's turn ended is still the agent's
 * (file watchers report late); later ones, with no turn running, are the user's (a git checkout).
 */
const AGENT_DISK_GRACE_MS = 2000;

/** What the sources do to the review besides recording edits in its ledger. */
export interface ReviewOfEdits {
  /** `text` is the file as accounted for: the "before" of its next change. */
  accountFor(file: string, text: string | null): void;
  persistAndRefresh(): Promise<void>;
  openDiff(file: string, preserveFocus: boolean): Promise<void>;
}

export class EditSources {
  /** Text of files when a diff for them was first seen (before the agent may have written). */
  private readonly preEdit = new Map<string, string | null>();
  /** Folders missing when a file was first seen missing (the agent's write will create them). */
  private readonly preEditDirs = new Map<string, string[]>();
  /** Latest diff content per tool call, recorded when the call completes. */
  private readonly toolDiffs = new Map<string, { sessionId: string; diffs: Extract<ToolContent, { type: "diff" }>[] }>();
  /** Permission request → files whose proposed edit was opened for it. */
  private readonly proposalFiles = new Map<string, string[]>();
  /** Files the agent is writing through us right now (fs/write_text_file): their changes are the agent's. */
  private readonly agentWriting = new Map<string, number>();
  /** Sessions with a turn running, and when the last one ended: disk changes then are the agent's. */
  private readonly runningTurns = new Set<string>();
  private lastTurnEnd = 0;

  constructor(
    private readonly ledger: EditLedger,
    private readonly review: ReviewOfEdits,
    /** Where proposed edits are shown from. */
    private readonly documents: DiffDocuments,
    private readonly logger: Logger,
  ) {}

  /** Whether the agent is writing `file` through us right now. */
  isAgentWriting(file: string): boolean {
    return this.agentWriting.has(file);
  }

  /** Whether a change that came from the disk now is the agent's: a turn is running, or just ended, or it writes through us. */
  agentBusy(file: string): boolean {
    return this.agentWriting.has(file) || this.runningTurns.size > 0 || Date.now() - this.lastTurnEnd < AGENT_DISK_GRACE_MS;
  }

  /** Source 1: the agent writes through `fs/write_text_file`; called just before the write. */
  async beforeAgentWrite(file: string, sessionId: string, toolCallId?: string): Promise<void> {
    this.agentWriting.set(file, (this.agentWriting.get(file) ?? 0) + 1);
    const before = await readCurrent(file);
    const preEdit = this.preEdit.get(file);
    const tracked = this.ledger.recordEdit(file, preEdit === undefined ? before : preEdit, { sessionId, ...(toolCallId ? { toolCallId } : {}), at: Date.now() });
    this.ledger.reopen(file);
    this.preEdit.delete(file);
    this.review.accountFor(file, before);
    if (tracked.base === null && before === null && tracked.createdDirs === undefined) tracked.createdDirs = await missingFolders(file);
  }

  /** Called after a write through us so the review and the auto-opened diff show it. */
  async afterAgentWrite(file: string): Promise<void> {
    const n = (this.agentWriting.get(file) ?? 1) - 1;
    if (n > 0) this.agentWriting.set(file, n);
    else this.agentWriting.delete(file);
    await this.review.persistAndRefresh();
    await this.maybeOpen(file);
  }

  /**
   * Source 4: a file a turn changed that no write through us and no tool diff reported — a command
   * the agent ran (`sed -i`, a generator), seen by the turn's checkpoint snapshots. `before` is the
   * snapshot's text (null: it did not exist), so the baseline is ours, never the agent's word.
   */
  async recordTurnChange(file: string, before: string | null, sessionId: string, turnStartedAt: number): Promise<void> {
    const tracked = this.ledger.get(file);
    // Already reviewed through a known source during this turn (pending, or decided since).
    if (tracked && (tracked.decided === undefined || tracked.origins.some((o) => o.at >= turnStartedAt))) return;
    const now = await readCurrent(file);
    if (now === before) return;
    this.ledger.recordEdit(file, before, { sessionId, at: Date.now(), by: "command" });
    this.ledger.reopen(file);
    this.review.accountFor(file, now);
    await this.review.persistAndRefresh();
  }

  /** Sources 2 and 3: diff content in tool calls and permission requests, from the thought stream. */
  onEvent(e: ThoughtEvent): void {
    if (e.kind === "turn_start") this.runningTurns.add(e.sessionId);
    else if (e.kind === "turn_end" || (e.kind === "error" && e.fatal)) {
      if (this.runningTurns.delete(e.sessionId)) this.lastTurnEnd = Date.now();
    }
    if (e.kind === "tool_start" || e.kind === "tool_update") {
      const diffs = (e.content ?? []).filter((c): c is Extract<ToolContent, { type: "diff" }> => c.type === "diff");
      if (diffs.length === 0) return;
      this.toolDiffs.set(e.toolCallId, { sessionId: e.sessionId, diffs });
      // Recorded on tool_done: the mapper emits it right after any update that completes the call.
      for (const d of diffs) void this.snapshotBeforeEdit(d.path);
    } else if (e.kind === "permission_request") {
      for (const c of e.toolCall.content ?? []) {
        if (c.type !== "diff") continue;
        void this.snapshotBeforeEdit(c.path);
        // A write to a file that configures tools always shows its diff, whatever the setting.
        if (e.guard || vscode.workspace.getConfiguration("agentThoughts").get<string>("review.openDiffs") === "auto") {
          this.proposalFiles.set(e.requestId, [...(this.proposalFiles.get(e.requestId) ?? []), c.path]);
          this.openProposal(c.path, c.oldText, c.newText).catch((err: unknown) => this.logger.warn(`Could not show the proposed edit of ${c.path}: ${String(err)}`));
        }
      }
    } else if (e.kind === "permission_outcome") {
      // Decided: the proposal's tab has served its purpose (the real edit, if any, gets its own review tab).
      const files = this.proposalFiles.get(e.requestId);
      this.proposalFiles.delete(e.requestId);
      if (files) void this.closeProposals(files);
    } else if (e.kind === "tool_done") {
      if (e.outcome === "completed") void this.recordToolDiffs(e.toolCallId);
      else this.toolDiffs.delete(e.toolCallId);
    }
  }

  private async snapshotBeforeEdit(file: string): Promise<void> {
    if (!path.isAbsolute(file) || this.preEdit.has(file)) return;
    const tracked = this.ledger.get(file);
    if (tracked && tracked.decided === undefined) return; // already under review: its baseline stands
    const before = await readCurrent(file);
    this.preEdit.set(file, before);
    if (before === null) this.preEditDirs.set(file, await missingFolders(file));
  }

  private async recordToolDiffs(toolCallId: string): Promise<void> {
    const entry = this.toolDiffs.get(toolCallId);
    if (!entry) return;
    this.toolDiffs.delete(toolCallId);
    for (const d of entry.diffs) {
      if (!path.isAbsolute(d.path)) continue;
      const now = await readCurrent(d.path);
      const tracked = this.ledger.get(d.path);
      if (tracked && tracked.decided === undefined) {
        if (!tracked.origins.some((o) => o.toolCallId === toolCallId)) tracked.origins.push({ sessionId: entry.sessionId, toolCallId, at: Date.now() });
        continue;
      }
      let before = this.preEdit.get(d.path);
      this.preEdit.delete(d.path);
      let reported: "whole" | "fragment" | undefined;
      if (before === undefined || before === now) {
        // First seen after the write: rebuild the text before it from the diff (whole file or a fragment).
        before = reconstructBefore(now, d.oldText, d.newText);
        if (now !== null) reported = before === d.oldText ? "whole" : "fragment";
      }
      if (before === now) continue; // nothing actually changed (e.g. the write was refused)
      const recorded = this.ledger.recordEdit(d.path, before, { sessionId: entry.sessionId, toolCallId, at: Date.now() }, reported);
      const dirs = this.preEditDirs.get(d.path);
      this.preEditDirs.delete(d.path);
      if (recorded.base === null && dirs?.length) recorded.createdDirs = dirs;
      this.ledger.reopen(d.path);
      await this.review.persistAndRefresh();
      await this.maybeOpen(d.path);
    }
  }

  private async maybeOpen(file: string): Promise<void> {
    if (vscode.workspace.getConfiguration("agentThoughts").get<string>("review.openDiffs") === "auto") await this.review.openDiff(file, true);
  }

  /** Shows an edit the agent asks permission for: the file now (left) and the file as it would be (right). */
  private async openProposal(file: string, oldText: string | null, newText: string): Promise<void> {
    if (!path.isAbsolute(file)) return;
    const now = await readCurrent(file);
    const after = proposedText(now, oldText, newText);
    const left = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file, query: "now" });
    const right = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file, query: "proposed" });
    this.documents.set(left, now ?? "");
    this.documents.set(right, after);
    await vscode.commands.executeCommand("vscode.diff", left, right, `${path.basename(file)} (proposed by the agent, awaiting your permission)`, { preview: true, preserveFocus: true });
  }

  /** The permission request whose proposed edit of `file` is showing (the newest), for Allow / Reject in the diff's title. */
  proposalRequest(file: string): string | undefined {
    return [...this.proposalFiles.entries()].reverse().find(([, files]) => files.includes(file))?.[0];
  }

  private async closeProposals(files: readonly string[]): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) =>
      t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME && files.includes(t.input.modified.path));
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }
}

/** The folders above `file` that do not exist yet, outermost first (a write there creates them). */
async function missingFolders(file: string): Promise<string[]> {
  const out: string[] = [];
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if ((await diskFile(dir)).kind !== "missing") break;
    out.unshift(dir);
  }
  return out;
}
