/**
 * The review commands: Keep / Undo a hunk, a file or everything, open a change and say why it was
 * made (from CodeLens, the Agent Changes tree, a diff editor's title or context menu, or the
 * palette), and Allow / Reject in the title of an edit the agent proposes.
 */
import * as vscode from "vscode";
import type { PermissionOption } from "../shared/events";
import { plainText } from "../core/plainText";
import type { AgentChanges } from "./agentChanges";
import { PROPOSAL_SCHEME } from "./diffDocuments";
import type { Modal } from "./modal";
import type { PermissionBroker } from "./permissionBroker";
import { count } from "../core/words";

/**
 * Allow / Reject in the title of a proposed-edit diff: answers the permission request that showed
 * it with its allow-once (or reject-once) option — never an "always" rule from a diff title.
 */
export function registerProposalCommands(changes: AgentChanges, broker: PermissionBroker): vscode.Disposable[] {
  const answer = (arg: unknown, kinds: readonly PermissionOption["kind"][]): void => {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    const requestId = uri?.scheme === PROPOSAL_SCHEME ? changes.proposalRequest(uri.path) : undefined;
    const result = requestId === undefined ? "not open" : broker.answerWith(requestId, kinds);
    if (result === "not open") void vscode.window.showInformationMessage("This proposed edit is no longer waiting for an answer.");
    else if (result === "no such option") void vscode.window.showInformationMessage("The agent offered no such answer; use Agent Thoughts: Respond to Permission Request.");
  };
  return [
    vscode.commands.registerCommand("agentThoughts.allowProposal", (arg: unknown) => answer(arg, ["allow_once"])),
    vscode.commands.registerCommand("agentThoughts.rejectProposal", (arg: unknown) => answer(arg, ["reject_once", "reject_always"])),
  ];
}

/** Keep / Undo commands: arguments come from CodeLens (path, hunk index), tree items, or the palette (pick a file). */
export function registerReviewCommands(changes: AgentChanges, modal: Modal, revealTool: (sessionId: string, toolCallId: string) => Promise<void>): vscode.Disposable[] {
  const fileOf = (arg: unknown): string | undefined => {
    if (typeof arg === "string") return arg;
    const node = arg as { file?: { path?: unknown } } | undefined;
    if (typeof node?.file?.path === "string") return node.file.path;
    if (arg instanceof vscode.Uri) return arg.scheme === "file" ? arg.fsPath : arg.path;
    const active = vscode.window.activeTextEditor?.document.uri;
    return active?.scheme === "file" ? active.fsPath : undefined;
  };
  const hunkOf = (arg: unknown, index: unknown): [string, number] | undefined => {
    const node = arg as { hunk?: { index?: unknown }; file?: { path?: unknown } } | undefined;
    if (typeof node?.hunk?.index === "number" && typeof node.file?.path === "string") return [node.file.path, node.hunk.index];
    if (typeof index !== "number") return undefined;
    const file = fileOf(arg);
    return file !== undefined ? [file, index] : undefined;
  };
  // From a diff editor's context menu (VS Code hides CodeLens in diff editors): the hunk under the cursor.
  const atCursor = async (): Promise<[string, number] | undefined> => {
    const hit = await changes.hunkAtCursor(vscode.window.activeTextEditor);
    if (!hit) void vscode.window.showInformationMessage("Put the cursor in an agent change first.");
    return hit ? [hit.file, hit.index] : undefined;
  };
  const pickFile = async (arg: unknown): Promise<string | undefined> => {
    const file = arg === undefined ? undefined : fileOf(arg);
    if (file) return file;
    const pending = changes.pendingFiles();
    if (pending.length === 0) {
      void vscode.window.showInformationMessage("No agent changes are waiting for review.");
      return undefined;
    }
    if (pending.length === 1) return pending[0]!.path;
    return (await vscode.window.showQuickPick(pending.map((f) => ({ label: plainText(vscode.workspace.asRelativePath(f.path)), path: f.path })), { title: "Which file?" }))?.path;
  };
  return [
    vscode.commands.registerCommand("agentThoughts.keepHunk", async (a: unknown, i: unknown) => {
      const h = hunkOf(a, i) ?? await atCursor();
      if (h) await changes.keepHunkAt(...h);
    }),
    vscode.commands.registerCommand("agentThoughts.undoHunk", async (a: unknown, i: unknown) => {
      const h = hunkOf(a, i) ?? await atCursor();
      if (h) await changes.undoHunkAt(...h);
    }),
    vscode.commands.registerCommand("agentThoughts.keepFile", async (a: unknown) => { const f = await pickFile(a); if (f) await changes.keepFile(f); }),
    vscode.commands.registerCommand("agentThoughts.undoFile", async (a: unknown) => { const f = await pickFile(a); if (f) await changes.undoFile(f); }),
    vscode.commands.registerCommand("agentThoughts.keepAll", () => changes.keepAll()),
    vscode.commands.registerCommand("agentThoughts.restoreFile", async (a: unknown) => { const f = fileOf(a); if (f) await changes.restoreFile(f); }),
    vscode.commands.registerCommand("agentThoughts.undoAll", async () => {
      const n = changes.pendingFiles().length;
      if (n === 0) return;
      const ok = await modal.ask(`Undo the agent's changes in ${count(n, "file")}?`, "Each file goes back to its text before the agent changed it; files the agent created are deleted.", "Undo All");
      if (ok === "Undo All") await changes.undoAll();
    }),
    vscode.commands.registerCommand("agentThoughts.reviewChanges", async () => {
      const first = changes.pendingFiles()[0];
      if (!first) {
        void vscode.window.showInformationMessage("No agent changes are waiting for review.");
        return;
      }
      await vscode.commands.executeCommand("agentThoughts.changes.focus");
      await changes.openDiff(first.path, false);
    }),
    vscode.commands.registerCommand("agentThoughts.openChange", async (a: unknown) => { const f = await pickFile(a); if (f) await changes.openDiff(f, true); }),
    vscode.commands.registerCommand("agentThoughts.whyChange", async (a: unknown) => {
      const f = await pickFile(a);
      const origin = f ? changes.why(f) : undefined;
      if (origin) await revealTool(origin.sessionId, origin.toolCallId);
    }),
  ];
}
