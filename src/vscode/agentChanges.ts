/**
 * Agent Changes: every file an agent changed in this workspace, reviewable in VS Code's native diff
 * editor against its pre-edit baseline, with Keep / Undo per hunk (CodeLens), per file and for
 * everything. Edits are noticed from all three sources — `fs/write_text_file`, tool-call diff
 * content after the agent wrote the file itself, and diffs in permission requests (snapshotted
 * before anything is written). Baselines persist in workspace storage, so a crash or a reload
 * loses no pending review.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { ThoughtEvent, ToolContent } from "../core/events";
import { computeHunks, EditLedger, keepHunk, reconstructBefore, summarize, undoHunk, type FileReviewState, type Hunk, type TrackedFile } from "../core/editReview";
import { openDocument, readRegularFile, writeWholeText } from "./documents";
import { realpathOrParentSync, type WorkspaceGuard } from "./guard";
import type { Modal } from "./modal";
import type { ChannelLogger } from "./logger";
import { plainText } from "../core/plainText";

export const BASE_SCHEME = "agent-thoughts-base";
/** Both sides of an edit proposed in a permission request, before anything is written. */
export const PROPOSAL_SCHEME = "agent-thoughts-proposal";
export const STORAGE_KEY = "agentThoughts.review.ledger.v1";
const MAX_REVIEW_BYTES = 5 * 1024 * 1024;

/** The file's text as the user sees it: the open document (unsaved edits included) or the disk; null when missing. */
export async function readCurrent(file: string): Promise<string | null> {
  const open = openDocument(file);
  if (open) return open.getText();
  const read = await readRegularFile(file, MAX_REVIEW_BYTES);
  return "bytes" in read ? new TextDecoder().decode(read.bytes) : null;
}

type Node = { kind: "file"; file: TrackedFile } | { kind: "hunk"; file: TrackedFile; hunk: Hunk };

export class AgentChanges implements vscode.TreeDataProvider<Node>, vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly ledger: EditLedger;
  private readonly treeChanged = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.treeChanged.event;
  private readonly baseChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.baseChanged.event;
  private readonly lensChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensChanged.event;
  /** Text of files when a diff for them was first seen (before the agent may have written). */
  private readonly preEdit = new Map<string, string | null>();
  /** Latest diff content per tool call, recorded when the call completes. */
  private readonly toolDiffs = new Map<string, { sessionId: string; diffs: Extract<ToolContent, { type: "diff" }>[] }>();
  private readonly current = new Map<string, string | null>();
  private readonly proposals = new Map<string, string>();
  /** Permission request → files whose proposed edit was opened for it. */
  private readonly proposalFiles = new Map<string, string[]>();
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly edited = new Set<string>();
  private view: vscode.TreeView<Node> | undefined;

  constructor(
    private readonly state: vscode.Memento,
    private readonly logger: ChannelLogger,
    private readonly reveal: (sessionId: string, toolCallId: string) => Promise<void>,
    /** Whether a file (symlinks resolved) is inside the workspace, or configures tools: undoing there asks first. */
    private readonly guard: Pick<WorkspaceGuard, "inWorkspace" | "reasonForPath">,
    private readonly modal: Modal,
  ) {
    this.ledger = new EditLedger(state.get<TrackedFile[]>(STORAGE_KEY, []));
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, this),
      vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, { provideTextDocumentContent: (uri) => this.proposals.get(uri.toString()) ?? "", onDidChange: this.baseChanged.event }),
      vscode.languages.registerCodeLensProvider({ scheme: "file" }, this),
      vscode.workspace.onDidChangeTextDocument((e) => { if (e.document.uri.scheme === "file" && this.ledger.get(e.document.uri.fsPath)) this.scheduleRefresh(e.document.uri.fsPath); }),
      vscode.workspace.onDidSaveTextDocument((d) => { if (d.uri.scheme === "file" && this.ledger.get(d.uri.fsPath)) this.scheduleRefresh(d.uri.fsPath); }),
    );
    void this.refresh();
  }

  attachView(view: vscode.TreeView<Node>): void {
    this.view = view;
    this.updateBadge();
  }

  // ——— where edits come from ———

  /** Source 1: the agent writes through `fs/write_text_file`; called just before the write. */
  async beforeAgentWrite(file: string, sessionId: string, toolCallId?: string): Promise<void> {
    const before = await readCurrent(file);
    this.ledger.recordEdit(file, this.preEdit.get(file) ?? before, { sessionId, ...(toolCallId ? { toolCallId } : {}), at: Date.now() });
    this.ledger.reopen(file);
    this.preEdit.delete(file);
  }

  /** Called after a write through us so the review and the auto-opened diff show it. */
  async afterAgentWrite(file: string): Promise<void> {
    await this.persistAndRefresh();
    await this.maybeOpen(file);
  }

  /** Sources 2 and 3: diff content in tool calls and permission requests, from the thought stream. */
  onEvent(e: ThoughtEvent): void {
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
    this.preEdit.set(file, await readCurrent(file));
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
      this.ledger.recordEdit(d.path, before, { sessionId: entry.sessionId, toolCallId, at: Date.now() }, reported);
      this.ledger.reopen(d.path);
      await this.persistAndRefresh();
      await this.maybeOpen(d.path);
    }
  }

  private async maybeOpen(file: string): Promise<void> {
    if (vscode.workspace.getConfiguration("agentThoughts").get<string>("review.openDiffs") === "auto") await this.openDiff(file, true);
  }

  // ——— the native diff editor ———

  baseUri(file: string): vscode.Uri {
    return vscode.Uri.from({ scheme: BASE_SCHEME, path: file });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.ledger.get(uri.fsPath)?.base ?? this.ledger.get(uri.path)?.base ?? "";
  }

  /** Opens (or re-focuses) the one diff tab of a file: baseline left, the real file right. */
  async openDiff(file: string, preserveFocus = true): Promise<void> {
    const tracked = this.ledger.get(file);
    if (!tracked) throw new Error(`${file} has no agent changes`);
    const right = vscode.Uri.file(file);
    const exists = (await readCurrent(file)) !== null;
    // Inline vs side by side is the diff editor's own setting; we set it only when the user chose a layout for us.
    const chosen = vscode.workspace.getConfiguration("agentThoughts").inspect<string>("review.layout");
    const layout = chosen?.workspaceFolderValue ?? chosen?.workspaceValue ?? chosen?.globalValue;
    if (layout && (layout === "inline") === vscode.workspace.getConfiguration("diffEditor").get<boolean>("renderSideBySide", true)) {
      await vscode.workspace.getConfiguration("diffEditor").update("renderSideBySide", layout !== "inline", vscode.ConfigurationTarget.Global);
    }
    const title = `${path.basename(file)} (Agent Changes${tracked.base === null ? ", new file" : ""})`;
    await vscode.commands.executeCommand("vscode.diff", this.baseUri(file), exists ? right : this.baseUri(file), title, { preview: false, preserveFocus });
  }

  /** Shows an edit the agent asks permission for: the file now (left) and the file as it would be (right). */
  async openProposal(file: string, oldText: string | null, newText: string): Promise<void> {
    if (!path.isAbsolute(file)) return;
    const now = await readCurrent(file);
    let after = newText;
    if (now !== null && oldText !== null && oldText !== now && oldText && now.includes(oldText)) {
      // A fragment edit: apply it to the whole file so the diff shows it in context.
      const at = now.indexOf(oldText);
      after = now.slice(0, at) + newText + now.slice(at + oldText.length);
    }
    const left = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file, query: "now" });
    const right = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file, query: "proposed" });
    this.proposals.set(left.toString(), now ?? "");
    this.proposals.set(right.toString(), after);
    this.baseChanged.fire(left);
    this.baseChanged.fire(right);
    await vscode.commands.executeCommand("vscode.diff", left, right, `${path.basename(file)} (proposed by the agent, awaiting your permission)`, { preview: true, preserveFocus: true });
  }

  private async closeProposals(files: readonly string[]): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) =>
      t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME && files.includes(t.input.modified.path));
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }

  // ——— keep and undo ———

  async hunksOf(file: string): Promise<{ tracked: TrackedFile; current: string | null; hunks: Hunk[] }> {
    const tracked = this.ledger.get(file);
    if (!tracked) throw new Error(`${file} has no agent changes`);
    const current = await readCurrent(file);
    return { tracked, current, hunks: computeHunks(tracked.base ?? "", current ?? "") };
  }

  async keepHunkAt(file: string, index: number): Promise<void> {
    const { tracked, hunks } = await this.hunksOf(file);
    const hunk = hunks[index];
    if (!hunk) return;
    this.ledger.setBase(file, keepHunk(tracked.base ?? "", hunk));
    if (hunks.length === 1) this.ledger.decide(file, "kept");
    await this.persistAndRefresh();
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

  async undoHunkAt(file: string, index: number): Promise<void> {
    const { tracked, current, hunks } = await this.hunksOf(file);
    const hunk = hunks[index];
    if (!hunk || !(await this.mayUndo(tracked))) return;
    await writeWholeText(file, undoHunk(current ?? "", hunk));
    if (hunks.length === 1) await this.finishUndo(file);
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
    this.ledger.decide(file, "kept");
    await this.persistAndRefresh();
  }

  async undoFile(file: string): Promise<void> {
    const tracked = this.ledger.get(file);
    if (!tracked || !(await this.mayUndo(tracked))) return;
    if (tracked.base === null) {
      // The agent created it: undoing removes it (to the trash where the platform has one).
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(vscode.Uri.file(file), { ignoreIfNotExists: true });
      await vscode.workspace.applyEdit(edit);
    } else {
      await writeWholeText(file, tracked.base);
    }
    this.ledger.decide(file, "undone");
    await this.persistAndRefresh();
  }

  private async finishUndo(file: string): Promise<void> {
    const tracked = this.ledger.get(file);
    if (tracked?.base === null && (await readCurrent(file)) === "") {
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(vscode.Uri.file(file), { ignoreIfNotExists: true });
      await vscode.workspace.applyEdit(edit);
    }
    this.ledger.decide(file, "undone");
  }

  async keepAll(): Promise<void> {
    for (const f of this.pendingFiles()) await this.keepFile(f.path);
  }

  async undoAll(): Promise<void> {
    for (const f of this.pendingFiles()) await this.undoFile(f.path);
  }

  /** Files with pending hunks (from the last refresh). */
  pendingFiles(): TrackedFile[] {
    return this.ledger.all().filter((f) => this.stateOf(f) === "pending");
  }

  files(): TrackedFile[] {
    return this.ledger.all();
  }

  stateOf(f: TrackedFile): FileReviewState {
    return summarize(f, this.current.get(f.path) ?? null).state;
  }

  /** "Why this change?": the panel reveals the tool call (and the thought before it) that made it. */
  async why(file: string): Promise<void> {
    const origin = this.ledger.get(file)?.origins.findLast((o) => o.toolCallId);
    if (!origin?.toolCallId) {
      void vscode.window.showInformationMessage(plainText(`No tool call is recorded for ${path.basename(file)}.`));
      return;
    }
    await this.reveal(origin.sessionId, origin.toolCallId);
  }

  // ——— tree view, CodeLens, refresh ———

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "file") {
      const f = node.file;
      const s = summarize(f, this.current.get(f.path) ?? null);
      const item = new vscode.TreeItem(vscode.Uri.file(f.path), s.hunks > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(f.path));
      item.description = `${folder ? path.dirname(path.relative(folder.uri.fsPath, f.path)).replace(/^\.$/, "") : path.dirname(f.path)}  +${s.added} −${s.removed} · ${s.state === "pending" ? "pending review" : s.state}`;
      item.tooltip = `${f.path}\n${s.hunks} pending hunk(s), +${s.added} −${s.removed}${f.base === null ? "\nCreated by the agent" : ""}`;
      item.contextValue = `agentChange.file.${s.state}`;
      item.command = { command: "agentThoughts.openChange", title: "Open Diff", arguments: [f.path] };
      item.id = f.path;
      return item;
    }
    const h = node.hunk;
    const item = new vscode.TreeItem(`Lines ${h.curLine + 1}–${h.curLine + Math.max(1, h.added)}`, vscode.TreeItemCollapsibleState.None);
    item.description = `+${h.added} −${h.removed}`;
    item.tooltip = new vscode.MarkdownString().appendCodeblock(`${h.baseText.split("\n").map((l) => (l ? `- ${l}` : "")).join("\n")}${h.curText.split("\n").map((l) => (l ? `+ ${l}` : "")).join("\n")}`.slice(0, 4000), "diff");
    item.contextValue = "agentChange.hunk";
    item.iconPath = new vscode.ThemeIcon("diff");
    item.command = { command: "agentThoughts.openChange", title: "Open Diff", arguments: [node.file.path] };
    item.id = `${node.file.path}#${h.index}:${h.curStart}`;
    return item;
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) return this.ledger.all().sort((a, b) => a.path.localeCompare(b.path)).map((file) => ({ kind: "file", file }));
    if (node.kind === "hunk") return [];
    const { hunks } = await this.hunksOf(node.file.path);
    return hunks.map((hunk) => ({ kind: "hunk", file: node.file, hunk }));
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const tracked = this.ledger.get(doc.uri.fsPath);
    if (!tracked) return [];
    const hunks = computeHunks(tracked.base ?? "", doc.getText());
    await Promise.resolve();
    return hunks.flatMap((h) => {
      const range = new vscode.Range(Math.min(h.curLine, Math.max(0, doc.lineCount - 1)), 0, Math.min(h.curLine, Math.max(0, doc.lineCount - 1)), 0);
      const args = [doc.uri.fsPath, h.index];
      return [
        new vscode.CodeLens(range, { title: "$(check) Keep", command: "agentThoughts.keepHunk", arguments: args, tooltip: "Keep this agent change" }),
        new vscode.CodeLens(range, { title: "$(discard) Undo", command: "agentThoughts.undoHunk", arguments: args, tooltip: "Restore the original text of this change" }),
        new vscode.CodeLens(range, { title: `+${h.added} −${h.removed} · Why this change?`, command: "agentThoughts.whyChange", arguments: [doc.uri.fsPath], tooltip: "Show the tool call that made it in the thought panel" }),
      ];
    });
  }

  /** Typing in a reviewed file: re-read just the files edited since the last refresh (baselines are unchanged). */
  private scheduleRefresh(file: string): void {
    this.edited.add(file);
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      const files = [...this.edited];
      this.edited.clear();
      void this.refresh(files);
    }, 150);
  }

  private async persistAndRefresh(): Promise<void> {
    await this.state.update(STORAGE_KEY, this.ledger.toJSON());
    await this.refresh();
  }

  /** Re-reads the current text of `only` these files (default: all, and their baselines may have changed too). */
  async refresh(only?: readonly string[]): Promise<void> {
    const files = only ? only.flatMap((p) => this.ledger.get(p) ?? []) : this.ledger.all();
    for (const f of files) this.current.set(f.path, await readCurrent(f.path));
    if (!only) for (const f of files) this.baseChanged.fire(this.baseUri(f.path));
    this.treeChanged.fire(undefined);
    this.lensChanged.fire();
    this.updateBadge();
    await vscode.commands.executeCommand("setContext", "agentThoughts.hasPendingChanges", this.pendingFiles().length > 0);
  }

  private updateBadge(): void {
    if (!this.view) return;
    const n = this.pendingFiles().length;
    this.view.badge = n ? { value: n, tooltip: `${n} file(s) with agent changes to review` } : undefined;
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
    this.treeChanged.dispose();
    this.baseChanged.dispose();
    this.lensChanged.dispose();
    this.logger.debug("Agent Changes disposed");
  }
}
