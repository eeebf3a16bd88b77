/**
 * Agent Changes: every file an agent changed in this workspace, reviewable in VS Code's native diff
 * editor against its baseline, with Keep / Undo per hunk, per file and for everything. This file
 * owns the review's state and actions: the ledger (persisted in workspace storage, so a crash or a
 * reload loses no pending review), who made each change to a file under review (the agent, the
 * review's own undo, or the user, whose edits move into the baseline), the review diff, and keep,
 * undo and restore. Where edits come from is `EditSources`; the view is `ChangesTree`; the editor
 * marks and lenses are `ReviewDecorations`; the virtual documents are `DiffDocuments`.
 */
import { readFileSync, statSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import type { ThoughtEvent } from "../shared/events";
import { applyChanges, changesBetween, computeHunks, keepHunk, mapSpans, rebaseUserChanges, refineChange, spansInHunks, summarize, undoKeepingUserText, userTextIn, type Hunk, type Span, type TextChange } from "../core/editReview";
import { EditLedger, parseStoredLedger, type FileReviewState, type TrackedFile } from "../core/editLedger";
import { diskFile, liveDocument, openDocument, readCurrent, regularDocument, replaceRanges } from "./documents";
import { realpathOrParentSync, type WorkspaceGuard } from "./guard";
import type { Modal } from "./modal";
import type { Logger } from "../acp/ports";
import { plainText } from "../core/plainText";
import { isInside } from "../core/paths";
import { BASE_SCHEME, DiffDocuments, PROPOSAL_SCHEME } from "./diffDocuments";
import { ChangesTree } from "./changesTree";
import { EditSources } from "./editSources";
import { ReviewDecorations } from "./reviewDecorations";

export const STORAGE_KEY = "agentThoughts.review.ledger.v1";
/** Review edits remembered per file, so Ctrl+Z / redo of one restores the review state with the text. */
const REVIEW_EDIT_HISTORY = 20;

/** Who made a change to a file under review. */
type Author = "agent" | "review" | "user";

/** The review state of a file around one of our edits (undo), to restore on Ctrl+Z / redo. */
interface ReviewSnapshot { base: string | null; userEdits: Span[]; decided: TrackedFile["decided"] }
interface ReviewEdit { before: string; after: string; pre: ReviewSnapshot; post?: ReviewSnapshot }

/** Short quotes of what the user typed, for a question. */
function quote(pieces: readonly string[]): string {
  const shown = pieces.slice(0, 3).map((p) => `"${p.trim().replace(/\s+/g, " ").slice(0, 80)}${p.trim().length > 80 ? "…" : ""}"`);
  return shown.join(", ") + (pieces.length > 3 ? ` and ${pieces.length - 3} more` : "");
}

export class AgentChanges implements vscode.Disposable {
  private readonly ledger: EditLedger;
  /** The Agent Changes view. */
  readonly tree: ChangesTree;
  /** Pending lines and Keep / Undo lenses in the editors of files under review. */
  private readonly decorations: ReviewDecorations;
  /** Review baselines (read live from the ledger) and proposed edits. */
  private readonly documents: DiffDocuments;
  /** Where edits come from, and whether a change now is the agent's. */
  private readonly sources: EditSources;
  private readonly current = new Map<string, string | null>();
  /**
   * The text of each file under review as last accounted for (every change since was attributed
   * to the agent, the user or the review): the "before" of the next change.
   */
  private readonly known = new Map<string, string | null>();
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly edited = new Set<string>();
  /** Files we are editing for the review (undo): their changes are neither the agent's nor the user's. */
  private readonly reviewEditing = new Set<string>();
  private readonly reviewEdits = new Map<string, ReviewEdit[]>();

  constructor(
    /** Where the gutter icons are (media/). */
    extensionUri: vscode.Uri,
    private readonly state: vscode.Memento,
    private readonly logger: Logger,
    /** Whether a file (symlinks resolved) is inside the workspace, or configures tools: undoing there asks first. */
    private readonly guard: Pick<WorkspaceGuard, "inWorkspace" | "reasonForPath">,
    private readonly modal: Modal,
  ) {
    const stored = parseStoredLedger(state.get<unknown>(STORAGE_KEY));
    for (const problem of stored.problems) logger.warn(`Agent Changes: ignored part of the stored review (${problem})`);
    this.ledger = new EditLedger(stored.files);
    this.tree = new ChangesTree({ files: () => this.ledger.all(), currentText: (file) => this.current.get(file) ?? null, hunksOf: (file) => this.hunksOf(file) });
    this.decorations = new ReviewDecorations(extensionUri, (file) => { const tracked = this.ledger.get(file); return tracked ? tracked.base ?? "" : undefined; });
    this.documents = new DiffDocuments([BASE_SCHEME, PROPOSAL_SCHEME], (uri) => uri.scheme === BASE_SCHEME ? this.ledger.get(uri.fsPath)?.base ?? this.ledger.get(uri.path)?.base ?? "" : undefined);
    this.sources = new EditSources(this.ledger, {
      accountFor: (file, text) => this.known.set(file, text),
      persistAndRefresh: () => this.persistAndRefresh(),
      openDiff: (file, preserveFocus) => this.openDiff(file, preserveFocus),
    }, this.documents, logger);
    const watcher = vscode.workspace.createFileSystemWatcher("**/*");
    this.disposables.push(
      this.documents,
      this.tree,
      this.decorations,
      vscode.workspace.onDidChangeTextDocument((e) => this.documentChanged(e)),
      vscode.workspace.onDidSaveTextDocument((d) => { if (d.uri.scheme === "file" && this.ledger.get(d.uri.fsPath)) this.scheduleRefresh(d.uri.fsPath); }),
      // Closed without saving: what counts from now on is the disk (a file gone is the deletion's
      // event to account for: the document may close just after its file was deleted).
      vscode.workspace.onDidCloseTextDocument((d) => {
        const file = d.uri.fsPath;
        if (d.uri.scheme !== "file" || !this.ledger.get(file)) return;
        void readCurrent(file).then((t) => {
          if (openDocument(file)) return;
          if (t !== null || typeof this.known.get(file) !== "string") this.known.set(file, t);
          // Its file was deleted while it had unsaved text (which kept it under review), and that text is now let go.
          if (t === null) void this.diskDeleted(vscode.Uri.file(file));
        });
      }),
      watcher,
      watcher.onDidChange((uri) => void this.diskChanged(uri)),
      watcher.onDidCreate((uri) => void this.diskChanged(uri)),
      watcher.onDidDelete((uri) => void this.diskDeleted(uri)),
    );
    void this.refresh();
  }

  // ——— who changed what ———

  /** Whether a change that came from the disk now is the agent's: a turn is running, or just ended, or it writes through us. */
  agentBusy(file: string): boolean {
    return this.sources.agentBusy(file);
  }

  /**
   * Every change to an open file under review. Ours (an undo) and the agent's (a write through us,
   * or the document reloading from disk while the agent works) leave the baseline alone; anyone
   * else's is rebased into it (see `rebaseUserChanges`). Ctrl+Z / redo of one of our undos restores
   * the review state that went with the text.
   */
  private documentChanged(e: vscode.TextDocumentChangeEvent): void {
    const doc = e.document;
    if (doc.uri.scheme !== "file") return;
    const file = doc.uri.fsPath;
    const tracked = this.ledger.get(file);
    if (!tracked) return;
    if (e.contentChanges.length === 0) {
      // Its unsaved text discarded (reverted, closed without saving): a file deleted meanwhile,
      // which that text kept under review, is judged as a deletion now.
      if (!doc.isDirty) void diskFile(file).then((d) => { if (d.kind === "missing") void this.diskDeleted(doc.uri); });
      return;
    }
    const after = doc.getText();
    const before = this.known.get(file);
    this.known.set(file, after);
    this.current.set(file, after);
    if (typeof before === "string" && before !== after) {
      const author: Author = this.sources.isAgentWriting(file) ? "agent"
        : this.reviewEditing.has(file) ? "review"
        // While the agent works, a document that now reads as the disk does was reloaded: the agent wrote the file on its own.
        : e.reason === undefined && this.agentBusy(file) && matchesDisk(file, after) ? "agent"
        : "user";
      const restored = e.reason !== undefined && author === "user" && this.restoreReviewEdit(tracked, before, after, e.reason);
      if (!restored) this.applyChange(tracked, before, after, this.changesOf(before, after, e.contentChanges), author);
    }
    this.scheduleRefresh(file);
  }

  /** A file under review that is not open changed on disk (a git checkout, a tool, the agent on its own). */
  private async diskChanged(uri: vscode.Uri): Promise<void> {
    if (uri.scheme !== "file") return;
    const file = uri.fsPath;
    const tracked = this.ledger.get(file);
    if (!tracked || openDocument(file)) return;
    const author: Author = this.reviewEditing.has(file) ? "review" : this.agentBusy(file) ? "agent" : "user";
    const after = await readCurrent(file);
    if (openDocument(file) || this.ledger.get(file) !== tracked) return;
    const before = this.known.get(file);
    // Gone: the text last accounted for stays (the deletion's event decides what a deletion means).
    if (after !== null) this.known.set(file, after);
    this.current.set(file, after);
    if (typeof before === "string" && typeof after === "string" && before !== after) this.applyChange(tracked, before, after, changesBetween(before, after), author);
    this.scheduleRefresh(file);
  }

  /**
   * A file or folder was deleted on disk. A file under review in it that is gone shows as a pending
   * deletion (Undo brings back its baseline) when an agent is working (a turn is running or just
   * ended), or when it still had pending agent changes: the text from before the agent is kept,
   * whoever deleted it (an agent's leftover process can delete files between turns too). A file
   * whose review was settled (kept or undone) and is deleted while no agent works was deleted by
   * the user (Explorer, a shell, a branch switch): its review ends, so the user's own deletion is
   * never offered as an agent change. An editor still showing the file with unsaved text keeps it
   * under review (that text is still the user's to save).
   */
  private async diskDeleted(uri: vscode.Uri): Promise<void> {
    if (uri.scheme !== "file") return;
    const gone = uri.fsPath;
    const files = this.ledger.all().filter((f) => isInside(f.path, gone));
    let forgot = false;
    for (const tracked of files) {
      const file = tracked.path;
      const before = this.known.get(file);
      const doc = openDocument(file);
      // Whether it had pending agent changes is judged on its text from before the deletion: the
      // last accounted for, and the last read unless that read already found it gone (a refresh,
      // after any Keep or Undo, may run between the deletion and its event).
      const read = this.current.get(file);
      const hadPending = summarize(tracked, before ?? null).state === "pending" || (typeof read === "string" && summarize(tracked, read).state === "pending");
      if (typeof before !== "string" || doc?.isDirty || this.reviewEditing.has(file) || this.agentBusy(file) || hadPending) {
        // Stays under review: seen as gone (a file in a deleted folder gets no event of its own;
        // an open document does not change when its file goes, so its file is read again).
        if (doc) this.scheduleRefresh(file);
        else await this.diskChanged(vscode.Uri.file(file));
        continue;
      }
      if ((await diskFile(file)).kind !== "missing" || this.ledger.get(file) !== tracked) continue;
      this.ledger.forget(file);
      this.known.delete(file);
      this.current.delete(file);
      this.reviewEdits.delete(file);
      this.logger.info(`Agent Changes: ${file}, reviewed, was deleted while no agent was working; its review ended`);
      forgot = true;
    }
    if (forgot) await this.persistAndRefresh();
  }

  /** The document's reported changes as offsets into `before`, or the line diff when they do not add up. */
  private changesOf(before: string, after: string, reported: readonly vscode.TextDocumentContentChangeEvent[]): TextChange[] {
    const changes = reported.map((c) => ({ start: c.rangeOffset, end: c.rangeOffset + c.rangeLength, text: c.text }));
    // VS Code reports several changes last-first, each an offset into the text before the event.
    const ordered = changes.every((c, i) => i === 0 || c.end <= changes[i - 1]!.start);
    try {
      if (ordered && applyChanges(before, changes) === after) return changes;
    } catch {
      // overlapping: fall through
    }
    return changesBetween(before, after);
  }

  private applyChange(tracked: TrackedFile, before: string, after: string, changes: readonly TextChange[], author: Author): void {
    if (author !== "user") {
      // The agent's text (or our undo of it): the baseline stands; what the user typed moves with the text around it.
      if (tracked.userEdits?.length) tracked.userEdits = mapSpans(tracked.userEdits, changes.flatMap((c) => refineChange(before, c)));
      return;
    }
    const r = rebaseUserChanges(tracked.base, before, changes, tracked.userEdits ?? []);
    if (r.current !== after) {
      this.logger.warn(`Review of ${tracked.path}: could not follow an edit; its baseline is unchanged`);
      return;
    }
    if (r.base !== tracked.base) this.baseMoved(tracked.path);
    tracked.base = r.base;
    if (r.userEdits.length) tracked.userEdits = r.userEdits;
    else delete tracked.userEdits;
  }

  private snapshot(tracked: TrackedFile): ReviewSnapshot {
    return { base: tracked.base, userEdits: [...(tracked.userEdits ?? [])], decided: tracked.decided };
  }

  private restore(tracked: TrackedFile, s: ReviewSnapshot): void {
    tracked.base = s.base;
    if (s.userEdits.length) tracked.userEdits = [...s.userEdits];
    else delete tracked.userEdits;
    if (s.decided) tracked.decided = s.decided;
    else delete tracked.decided;
    this.baseMoved(tracked.path);
  }

  /** Ctrl+Z of one of our undos brings the agent's hunk back as pending (and redo undoes it again). */
  private restoreReviewEdit(tracked: TrackedFile, before: string, after: string, reason: vscode.TextDocumentChangeReason): boolean {
    const history = this.reviewEdits.get(tracked.path) ?? [];
    for (let i = history.length - 1; i >= 0; i--) {
      const h = history[i]!;
      if (reason === vscode.TextDocumentChangeReason.Undo && h.after === before && h.before === after) {
        this.restore(tracked, h.pre);
        return true;
      }
      if (reason === vscode.TextDocumentChangeReason.Redo && h.before === before && h.after === after && h.post) {
        this.restore(tracked, h.post);
        return true;
      }
    }
    return false;
  }

  /**
   * A write that is neither the agent's nor the user's (a checkpoint restore putting files back):
   * the review keeps its baselines, and the hunks follow the text.
   */
  async outsideWrite<T>(file: string, write: () => Promise<T>): Promise<T> {
    this.reviewEditing.add(file);
    try {
      return await write();
    } finally {
      this.reviewEditing.delete(file);
    }
  }

  /** One of our review edits to a file: its changes are not the user's, and Ctrl+Z of it restores the review state. */
  private async reviewEdit(tracked: TrackedFile, doc: vscode.TextDocument, changes: readonly TextChange[], then: () => void): Promise<void> {
    const before = doc.getText();
    const entry: ReviewEdit = { before, after: applyChanges(before, changes), pre: this.snapshot(tracked) };
    this.reviewEditing.add(tracked.path);
    try {
      await replaceRanges(doc, changes);
    } finally {
      this.reviewEditing.delete(tracked.path);
    }
    then();
    entry.post = this.snapshot(tracked);
    const history = [...(this.reviewEdits.get(tracked.path) ?? []), entry].slice(-REVIEW_EDIT_HISTORY);
    this.reviewEdits.set(tracked.path, history);
  }

  // ——— where edits come from (see EditSources) ———

  /** Source 1: the agent writes through `fs/write_text_file`; called just before the write. */
  beforeAgentWrite(file: string, sessionId: string, toolCallId?: string): Promise<void> {
    return this.sources.beforeAgentWrite(file, sessionId, toolCallId);
  }

  /** Called after a write through us so the review and the auto-opened diff show it. */
  afterAgentWrite(file: string): Promise<void> {
    return this.sources.afterAgentWrite(file);
  }

  /** Source 4: a file a turn changed that only the turn's checkpoint saw (a command the agent ran). */
  recordTurnChange(file: string, before: string | null, sessionId: string, turnStartedAt: number): Promise<void> {
    return this.sources.recordTurnChange(file, before, sessionId, turnStartedAt);
  }

  /** Sources 2 and 3 (diffs in tool calls and permission requests), and turns starting and ending. */
  onEvent(e: ThoughtEvent): void {
    this.sources.onEvent(e);
  }

  /** The permission request whose proposed edit of `file` is showing (the newest), for Allow / Reject in the diff's title. */
  proposalRequest(file: string): string | undefined {
    return this.sources.proposalRequest(file);
  }

  // ——— the native diff editor ———

  private baseUri(file: string): vscode.Uri {
    return vscode.Uri.from({ scheme: BASE_SCHEME, path: file });
  }

  /** Tells an open baseline document (the left side of a review diff) that its text changed. */
  private baseMoved(file: string): void {
    this.documents.liveChanged(this.baseUri(file));
  }

  /**
   * Opens (or re-focuses) the one review tab of a file: baseline left, the real file right. A file
   * the agent created opens as itself (a diff would have an empty left half), its lines marked as
   * the agent's. Once decided, the title says kept or undone.
   */
  async openDiff(file: string, preserveFocus = true): Promise<void> {
    const tracked = this.ledger.get(file);
    if (!tracked) throw new Error(`${file} has no agent changes`);
    const right = vscode.Uri.file(file);
    const exists = (await readCurrent(file)) !== null;
    const state = this.stateOf(tracked);
    if (tracked.base === null && exists && state === "pending") {
      await vscode.window.showTextDocument(right, { preview: false, preserveFocus });
      return;
    }
    // Inline vs side by side is the diff editor's own setting; we set it only when the user chose a layout for us.
    const chosen = vscode.workspace.getConfiguration("agentThoughts").inspect<string>("review.layout");
    const layout = chosen?.workspaceFolderValue ?? chosen?.workspaceValue ?? chosen?.globalValue;
    if ((layout === "inline" || layout === "sideBySide") && (layout === "inline") === vscode.workspace.getConfiguration("diffEditor").get<boolean>("renderSideBySide", true)) {
      await vscode.workspace.getConfiguration("diffEditor").update("renderSideBySide", layout !== "inline", vscode.ConfigurationTarget.Global);
    }
    const title = `${path.basename(file)} (Agent Changes${tracked.base === null ? ", new file" : ""}${state === "pending" ? "" : ` — ${state}`})`;
    await vscode.commands.executeCommand("vscode.diff", this.baseUri(file), exists ? right : this.baseUri(file), title, { preview: false, preserveFocus });
  }

  /** The review of `file` if an agent change to it is tracked (a tool card's Open diff shows the same review). */
  async openReview(file: string): Promise<boolean> {
    if (!this.ledger.get(file)) return false;
    await this.refresh([file]);
    await this.openDiff(file, true);
    return true;
  }

  // ——— keep and undo ———

  async hunksOf(file: string): Promise<{ tracked: TrackedFile; current: string | null; hunks: Hunk[] }> {
    const tracked = this.ledger.get(file);
    if (!tracked) throw new Error(`${file} has no agent changes`);
    const current = await readCurrent(file);
    return { tracked, current, hunks: computeHunks(tracked.base ?? "", current ?? "") };
  }

  async keepHunkAt(file: string, index: number): Promise<void> {
    const { tracked, current, hunks } = await this.hunksOf(file);
    const hunk = hunks[index];
    if (!hunk) return;
    this.ledger.setBase(file, keepHunk(tracked.base ?? "", hunk));
    this.pruneUserEdits(tracked, current);
    if (hunks.length === 1) this.ledger.decide(file, "kept");
    await this.persistAndRefresh();
  }

  /** Drops remembered user text that is no longer inside a pending hunk. */
  private pruneUserEdits(tracked: TrackedFile, current: string | null): void {
    const spans = current === null ? [] : spansInHunks(tracked.base ?? "", current, tracked.userEdits ?? []);
    if (spans.length) tracked.userEdits = spans;
    else delete tracked.userEdits;
  }

  /**
   * Undo writes to disk: where the file is outside the workspace, or its original text is only
   * what the agent reported, the user confirms first (as for any agent access outside the workspace).
   */
  private async mayUndo(tracked: TrackedFile): Promise<boolean> {
    const real = realpathOrParentSync(tracked.path);
    const outside = !this.guard.inWorkspace(real);
    const configures = tracked.baseReported ? this.guard.reasonForPath(real) : undefined;
    const reported = (tracked.baseReported === "whole" || configures !== undefined) && (await readCurrent(tracked.path)) !== null;
    if (!outside && !reported) return true;
    const why = [
      ...(outside ? [`${tracked.path} is outside the workspace.`] : []),
      ...(reported ? [`Its original text comes only from the agent's own report of the change: Agent Thoughts did not see the file before it changed, so undoing writes text the agent chose${configures ? `, into a file that ${configures.replace(/^.*? configures/, "configures")}` : ""}.`] : []),
    ].join(" ");
    const choice = await this.modal.ask(`Undo the agent's change to ${path.basename(tracked.path)}?`, why, "Undo Anyway");
    if (choice !== "Undo Anyway") this.logger.warn(`Undo of ${tracked.path} not confirmed: ${why}`);
    return choice === "Undo Anyway";
  }

  /**
   * Undoing hunks that hold text the user typed asks first and names it. Resolves what to do with
   * those hunks: undo them anyway, keep the user's text (the original text, then theirs), or
   * nothing at all (the question was dismissed).
   */
  private async mayDeleteUserText(tracked: TrackedFile, current: string, hunks: readonly Hunk[], what: string): Promise<"undo" | "keepTheirs" | "cancel"> {
    const typed = hunks.flatMap((h) => userTextIn(h, current, tracked.userEdits));
    if (typed.length === 0) return "undo";
    const name = path.basename(tracked.path);
    const choice = await this.modal.ask(
      `${what} You typed text inside the agent's change to ${name}.`,
      `Your edits: ${quote(typed)}. "Undo Anyway" deletes them with the agent's text; "Keep My Text" puts back the original text and keeps what you typed.`,
      "Keep My Text",
      "Undo Anyway",
    );
    if (choice === "Undo Anyway") return "undo";
    if (choice === "Keep My Text") return "keepTheirs";
    this.logger.info(`Undo in ${tracked.path} cancelled: it would delete text the user typed`);
    return "cancel";
  }

  /** The document to edit for an undo, and the hunks of its text now. */
  private async undoTarget(file: string): Promise<{ tracked: TrackedFile; doc: vscode.TextDocument; current: string; hunks: Hunk[] } | undefined> {
    const tracked = this.ledger.get(file);
    if (!tracked) throw new Error(`${file} has no agent changes`);
    if (!(await liveDocument(file)) && (await diskFile(file)).kind === "missing") return undefined;
    const doc = await regularDocument(file);
    const current = doc.getText();
    this.known.set(file, current);
    this.current.set(file, current);
    return { tracked, doc, current, hunks: computeHunks(tracked.base ?? "", current) };
  }

  /**
   * Undo of hunks as range edits on the document (one WorkspaceEdit: one Ctrl+Z brings them back).
   * `theirs`: hunks whose user text is kept (the original, then what the user typed); the baseline
   * takes that text, so it is not pending.
   */
  private async undoHunks(t: { tracked: TrackedFile; doc: vscode.TextDocument; current: string }, hunks: readonly Hunk[], theirs: boolean): Promise<void> {
    const { tracked, doc, current } = t;
    const changes = hunks.map((h) => ({ start: h.curStart, end: h.curEnd, text: theirs ? undoKeepingUserText(h, current, tracked.userEdits) : h.baseText }));
    const baseChanges = hunks.map((h, i) => ({ start: h.baseStart, end: h.baseEnd, text: changes[i]!.text }));
    await this.reviewEdit(tracked, doc, changes, () => {
      if (theirs && tracked.base !== null) tracked.base = applyChanges(tracked.base, baseChanges);
      this.known.set(tracked.path, doc.getText());
      this.current.set(tracked.path, doc.getText());
      this.pruneUserEdits(tracked, doc.getText());
    });
  }

  async undoHunkAt(file: string, index: number): Promise<void> {
    const tracked = this.ledger.get(file);
    if (!tracked || !(await this.mayUndo(tracked))) return;
    const t = await this.undoTarget(file);
    const hunk = t?.hunks[index];
    if (!t || !hunk) return;
    if (tracked.base === null && t.hunks.length === 1 && hunk.baseText === "") {
      // All of a file the agent created: undoing it is undoing the file.
      await this.undoFile(file, true);
      return;
    }
    const how = await this.mayDeleteUserText(tracked, t.current, [hunk], "Undo this change?");
    if (how === "cancel") return;
    await this.undoHunks(t, [hunk], how === "keepTheirs");
    if (computeHunks(tracked.base ?? "", t.doc.getText()).length === 0) this.ledger.decide(file, "undone");
    await this.persistAndRefresh();
  }

  /** The hunk under the cursor of an editor showing either side of a file's review diff. */
  async hunkAtCursor(editor: vscode.TextEditor | undefined): Promise<{ file: string; index: number } | undefined> {
    if (!editor) return undefined;
    const uri = editor.document.uri;
    const file = uri.scheme === BASE_SCHEME ? uri.path : uri.scheme === "file" ? uri.fsPath : undefined;
    if (!file || !this.ledger.get(file)) return undefined;
    const line = editor.selection.active.line;
    const { hunks } = await this.hunksOf(file);
    const onBase = uri.scheme === BASE_SCHEME;
    const hit = hunks.find((h) => {
      const start = onBase ? h.baseLine : h.curLine;
      const size = Math.max(1, onBase ? h.removed : h.added);
      return line >= start && line < start + size;
    }) ?? hunks.find((h) => (onBase ? h.baseLine : h.curLine) >= line);
    return hit ? { file, index: hit.index } : undefined;
  }

  async keepFile(file: string): Promise<void> {
    const current = await readCurrent(file);
    this.ledger.setBase(file, current);
    const tracked = this.ledger.get(file);
    if (tracked) delete tracked.userEdits;
    this.ledger.decide(file, "kept");
    await this.persistAndRefresh();
  }

  /** Undoes every pending change of a file; resolves false when nothing was undone (a question said no). */
  async undoFile(file: string, confirmed = false): Promise<boolean> {
    const tracked = this.ledger.get(file);
    if (!tracked || (!confirmed && !(await this.mayUndo(tracked)))) return false;
    const t = await this.undoTarget(file);
    if (!t) {
      // Gone (deleted by the agent, or by anyone while its changes were undecided): Undo brings it
      // back as it was before the agent (one WorkspaceEdit: Ctrl+Z in the Explorer deletes it again).
      if (tracked.base !== null) await this.recreate(tracked, tracked.base);
      this.ledger.decide(file, "undone");
      await this.persistAndRefresh();
      return true;
    }
    const how = await this.mayDeleteUserText(tracked, t.current, t.hunks, tracked.base === null ? `Delete ${path.basename(file)}, which the agent created?` : "Undo the agent's changes?");
    if (how === "cancel") return false;
    if (tracked.base === null && how === "undo") {
      await this.deleteCreated(tracked, t.current);
    } else {
      await this.undoHunks(t, t.hunks, how === "keepTheirs");
      // A created file keeps only what the user typed: from now on that is its accepted text.
      if (tracked.base === null) tracked.base = t.doc.getText();
    }
    this.ledger.decide(file, "undone");
    await this.persistAndRefresh();
    return true;
  }

  /** Creates a file under review that is gone, with `text` (its folders too). */
  private async recreate(tracked: TrackedFile, text: string): Promise<void> {
    this.known.set(tracked.path, text);
    this.current.set(tracked.path, text);
    const edit = new vscode.WorkspaceEdit();
    edit.createFile(vscode.Uri.file(tracked.path), { ignoreIfExists: true, contents: new TextEncoder().encode(text) });
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not restore ${tracked.path}`);
  }

  /** Deletes a file the agent created (undoable from the Agent Changes view), and the folders it created that are now empty. */
  private async deleteCreated(tracked: TrackedFile, text: string): Promise<void> {
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(vscode.Uri.file(tracked.path), { ignoreIfNotExists: true });
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not delete ${tracked.path}`);
    // Kept to restore it from the Agent Changes view (not for huge files: workspace storage is no place for them).
    if (text.length <= 1_000_000) tracked.deletedText = text;
    this.known.set(tracked.path, null);
    this.current.set(tracked.path, null);
    for (const dir of [...(tracked.createdDirs ?? [])].reverse()) {
      try {
        if ((await fs.readdir(dir)).length > 0) break;
        await fs.rmdir(dir);
      } catch {
        break;
      }
    }
  }

  /** Brings back a file the agent created and an undo deleted, as it was, pending review again. */
  async restoreFile(file: string): Promise<void> {
    const tracked = this.ledger.get(file);
    if (!tracked || tracked.base !== null || tracked.deletedText === undefined || (await diskFile(file)).kind !== "missing") return;
    const edit = new vscode.WorkspaceEdit();
    edit.createFile(vscode.Uri.file(file), { ignoreIfExists: true, contents: new TextEncoder().encode(tracked.deletedText) });
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not restore ${file}`);
    this.known.set(file, tracked.deletedText);
    delete tracked.deletedText;
    this.ledger.reopen(file);
    await this.persistAndRefresh();
  }

  async keepAll(): Promise<void> {
    for (const f of this.pendingFiles()) await this.keepFile(f.path);
    await this.closeSettledTabs();
  }

  async undoAll(): Promise<void> {
    for (const f of this.pendingFiles()) await this.undoFile(f.path);
    await this.closeSettledTabs();
  }

  /** Review tabs that show no difference any more (after Keep All / Undo All) close. */
  private async closeSettledTabs(): Promise<void> {
    const tabs: vscode.Tab[] = [];
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      if (!(tab.input instanceof vscode.TabInputTextDiff) || tab.input.original.scheme !== BASE_SCHEME) continue;
      const tracked = this.ledger.get(tab.input.original.path);
      if (!tracked) continue;
      const current = await readCurrent(tracked.path);
      if (current === null || computeHunks(tracked.base ?? "", current).length === 0) tabs.push(tab);
    }
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }

  /** Files with pending hunks (from the last refresh). */
  pendingFiles(): TrackedFile[] {
    return this.ledger.all().filter((f) => this.stateOf(f) === "pending");
  }

  files(): TrackedFile[] {
    return this.ledger.all();
  }

  private stateOf(f: TrackedFile): FileReviewState {
    return summarize(f, this.current.get(f.path) ?? null).state;
  }

  /** "Why this change?": the tool call that made the file's latest change (the panel reveals it, and the thought before it). */
  why(file: string): { sessionId: string; toolCallId: string } | undefined {
    const origin = this.ledger.get(file)?.origins.findLast((o) => o.toolCallId);
    if (!origin?.toolCallId) {
      void vscode.window.showInformationMessage(plainText(`No tool call is recorded for ${path.basename(file)}.`));
      return undefined;
    }
    return { sessionId: origin.sessionId, toolCallId: origin.toolCallId };
  }

  // ——— refresh ———

  /** Typing in a reviewed file: re-read just the files edited since the last refresh (baselines are unchanged). */
  private scheduleRefresh(file: string): void {
    this.edited.add(file);
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      const files = [...this.edited];
      this.edited.clear();
      // User edits move baselines: persisted with the refresh.
      void this.state.update(STORAGE_KEY, this.ledger.toJSON()).then(() => this.refresh(files));
    }, 150);
  }

  /** What the editors of a file show as pending agent lines (for tests): added, modified, and where lines were deleted. */
  decorationsOf(file: string): ReturnType<ReviewDecorations["decorationsOf"]> {
    return this.decorations.decorationsOf(file);
  }

  private async persistAndRefresh(): Promise<void> {
    await this.state.update(STORAGE_KEY, this.ledger.toJSON());
    await this.refresh();
  }

  /** Re-reads the current text of `only` these files (default: all, and their baselines may have changed too). */
  async refresh(only?: readonly string[]): Promise<void> {
    const files = only ? only.flatMap((p) => this.ledger.get(p) ?? []) : this.ledger.all();
    for (const f of files) {
      const text = await readCurrent(f.path);
      this.current.set(f.path, text);
      // Open documents report every change as it happens; a closed file's changes are accounted for
      // by the watcher, and so is a deletion (an open document whose file is gone reads as null
      // here, and the deletion's event decides what that means for the review).
      if ((openDocument(f.path) && text !== null) || typeof this.known.get(f.path) !== "string") this.known.set(f.path, text);
    }
    if (!only) for (const f of files) this.baseMoved(f.path);
    const pending = this.pendingFiles().length;
    this.tree.refresh(pending);
    this.decorations.refresh();
    await vscode.commands.executeCommand("setContext", "agentThoughts.hasPendingChanges", pending > 0);
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
    this.logger.debug("Agent Changes disposed");
  }
}

/**
 * Whether the file on disk holds exactly `text` (a document reloaded from disk does; one the user
 * is typing in does not). Synchronous, so the change is attributed before the next one arrives;
 * only asked while an agent is working.
 */
function matchesDisk(file: string, text: string): boolean {
  try {
    const s = statSync(file);
    if (!s.isFile() || s.size !== Buffer.byteLength(text)) return false;
    return readFileSync(file, "utf8") === text;
  } catch {
    return false;
  }
}
