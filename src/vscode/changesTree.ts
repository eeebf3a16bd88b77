/**
 * The Agent Changes view: a tree of the files under review (with their counts and state) and, below
 * each, its pending hunks; clicking opens the review diff. Its badge counts files waiting for review.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { summarize, type Hunk } from "../core/editReview";
import type { TrackedFile } from "../core/editLedger";
import { count } from "../core/words";

export type ChangeNode = { kind: "file"; file: TrackedFile } | { kind: "hunk"; file: TrackedFile; hunk: Hunk };

/** What the tree shows, from the review. */
export interface ChangesSource {
  files(): TrackedFile[];
  /** The file's text as last read (null: missing). */
  currentText(file: string): string | null;
  hunksOf(file: string): Promise<{ hunks: Hunk[] }>;
}

export class ChangesTree implements vscode.TreeDataProvider<ChangeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ChangeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The `agentThoughts.changes` view this tree fills. */
  private readonly view: vscode.TreeView<ChangeNode>;
  private pending = 0;

  constructor(private readonly source: ChangesSource) {
    this.view = vscode.window.createTreeView("agentThoughts.changes", { treeDataProvider: this, showCollapseAll: true });
  }

  /** The review changed: every item is read again, and the badge shows `pending` files. */
  refresh(pending: number): void {
    this.pending = pending;
    this.changed.fire(undefined);
    this.updateBadge();
  }

  private updateBadge(): void {
    const n = this.pending;
    this.view.badge = n ? { value: n, tooltip: `${count(n, "file")} with agent changes to review` } : undefined;
  }

  getTreeItem(node: ChangeNode): vscode.TreeItem {
    if (node.kind === "file") {
      const f = node.file;
      const s = summarize(f, this.source.currentText(f.path));
      const item = new vscode.TreeItem(vscode.Uri.file(f.path), s.hunks > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(f.path));
      item.description = `${folder ? path.dirname(path.relative(folder.uri.fsPath, f.path)).replace(/^\.$/, "") : path.dirname(f.path)}  +${s.added} −${s.removed} · ${s.state === "pending" ? "pending review" : s.state}`;
      const byCommand = f.origins[f.origins.length - 1]?.by === "command";
      if (byCommand) item.description += " · by a command";
      item.tooltip = `${f.path}\n${count(s.hunks, "pending hunk")}, +${s.added} −${s.removed}${f.base === null ? "\nCreated by the agent" : ""}${byCommand ? "\nChanged while the agent's turn ran, by a command it ran (or another program): seen by the turn's checkpoint" : ""}`;
      item.contextValue = `agentChange.file.${s.state}${s.state === "undone" && f.base === null && f.deletedText !== undefined ? ".restorable" : ""}`;
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

  async getChildren(node?: ChangeNode): Promise<ChangeNode[]> {
    if (!node) return this.source.files().sort((a, b) => a.path.localeCompare(b.path)).map((file) => ({ kind: "file", file }));
    if (node.kind === "hunk") return [];
    const { hunks } = await this.source.hunksOf(node.file.path);
    return hunks.map((hunk) => ({ kind: "hunk", file: node.file, hunk }));
  }

  dispose(): void {
    this.view.dispose();
    this.changed.dispose();
  }
}
