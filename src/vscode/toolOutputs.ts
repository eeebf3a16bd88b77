/**
 * What a tool card's buttons open: diffs in VS Code's native diff editor (the original side from a
 * virtual document, no temp files; one tab per file, reused) and its command's pseudoterminal.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { findToolEntry, type ViewState } from "../shared/viewModel";
import type { TerminalMirrors } from "./terminalMirrors";
import { DIFF_SCHEME, DiffDocuments } from "./diffDocuments";

export class ToolOutputs implements vscode.Disposable {
  private readonly documents = new DiffDocuments([DIFF_SCHEME]);
  constructor(
    private readonly terminals: TerminalMirrors,
    /** Opens the review of a file under review; resolves false when the file is not tracked. */
    private readonly review: (file: string) => Promise<boolean>,
  ) {}

  async openDiff(state: ViewState, sessionId: string, toolCallId: string, index: number): Promise<void> {
    const tool = findToolEntry(state, sessionId, toolCallId);
    const content = tool?.content[index];
    if (!tool || content?.type !== "diff") throw new Error(`No diff for tool call ${toolCallId}`);
    // A file under review: the same reviewable diff as the Agent Changes view (Keep/Undo, and kept or undone once decided).
    if (await this.review(content.path)) return;
    const file = vscode.Uri.file(content.path);
    const name = path.basename(content.path);
    // One left document per file, so repeated opens reuse one diff tab.
    const left = vscode.Uri.from({ scheme: DIFF_SCHEME, path: content.path, query: "original" });
    this.documents.set(left, content.oldText ?? "");
    let right = file;
    try {
      const onDisk = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
      if (onDisk !== content.newText) throw new Error("differs");
    } catch {
      // The file is missing or has moved on since this edit: show the edit's own new text.
      right = vscode.Uri.from({ scheme: DIFF_SCHEME, path: content.path, query: "proposed" });
      this.documents.set(right, content.newText);
    }
    await vscode.commands.executeCommand("vscode.diff", left, right, `${name} (${content.oldText == null ? "new file" : "agent edit"}) — ${tool.title}`, { preview: true, preserveFocus: true });
  }

  revealTerminal(state: ViewState, sessionId: string, toolCallId: string): void {
    const tool = findToolEntry(state, sessionId, toolCallId);
    if (!tool) throw new Error(`No tool call ${toolCallId}`);
    this.terminals.reveal(tool, sessionId);
  }

  dispose(): void {
    this.documents.dispose();
  }
}
