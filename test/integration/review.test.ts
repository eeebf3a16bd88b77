// Reviewing agent edits in a real VS Code: all three sources of edits (fs/write_text_file, tool-call
// diffs after the agent wrote on its own, diffs in permission requests), the native diff editor's
// two sides, per-hunk undo restoring exactly the original hunk, keep/undo all, the editor's own undo
// after an agent write, a refused write outside the workspace, and persisted baselines.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { summarize } from "../../src/core/editReview";
import { EditLedger, type TrackedFile } from "../../src/core/editLedger";
import { STORAGE_KEY, type AgentChanges } from "../../src/vscode/agentChanges";
import type { Scenario } from "../fixtures/agents/scenario";
import { screenshot } from "./index";
import { waitFor } from "./webview";
import { api, quickPickRows, scriptedAgent, until } from "./helpers";

const ORIGINAL = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", ""].join("\n");
const EDITED = ["alpha", "BETA (agent)", "gamma", "delta", "new line 1", "new line 2", "epsilon", "zeta", "theta", ""].join("\n");


function ws(...p: string[]): string {
  return path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ...p);
}

async function run(name: string, scenario: Scenario): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
    scriptedAgent(name, scenario),
  ], vscode.ConfigurationTarget.Global);
  await (await api()).stream("edit", { agent: name, newSession: true }).result;
}


function diffTab(file: string): vscode.TabInputTextDiff | undefined {
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.fsPath === file) return tab.input;
    }
  }
  return undefined;
}

describe("reviewing agent edits", function () {
  this.timeout(60_000);
  let changes: AgentChanges;

  before(async () => {
    changes = (await api())._test.changes;
    await vscode.workspace.getConfiguration("agentThoughts").update("review.openDiffs", "auto", vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("review.openDiffs", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("review.layout", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("diffEditor").update("renderSideBySide", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("fs/write_text_file: the diff opens with the original left and the file right; undoing one hunk restores exactly that hunk", async () => {
    const file = ws("src", "greek.txt");
    fs.writeFileSync(file, ORIGINAL);
    await vscode.workspace.getConfiguration("agentThoughts").update("review.layout", "inline", vscode.ConfigurationTarget.Global);
    await run("Writer", { turns: [[{ writeFile: { path: file, content: EDITED }, report: true }]] });
    assert.equal(fs.readFileSync(file, "utf8"), EDITED, "the write went through");
    const tab = await until(() => diffTab(file), "the diff tab to open by itself (review.openDiffs = auto)");
    const left = await vscode.workspace.openTextDocument(tab.original);
    const right = await vscode.workspace.openTextDocument(tab.modified);
    assert.equal(left.getText(), ORIGINAL, "left: the text before the agent's edit");
    assert.equal(right.getText(), EDITED, "right: the file");
    const { hunks } = await changes.hunksOf(file);
    assert.equal(hunks.length, 3);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", vscode.Uri.file(file));
    assert.ok(lenses.filter((l) => l.command?.command === "agentThoughts.undoHunk").length === 3, "a Keep/Undo CodeLens on every hunk");
    await screenshot("test-results/review-inline.png");
    assert.equal(vscode.workspace.getConfiguration("diffEditor").get("renderSideBySide"), false, "review.layout = inline shows the diff inline");
    // In the diff editor (where VS Code hides CodeLens) Keep/Undo act on the hunk under the cursor, on either side.
    const baseEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === "agent-thoughts-base" && e.document.uri.path === file);
    const fileEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === "file" && e.document.uri.fsPath === file);
    assert.ok(baseEditor && fileEditor, "both sides of the diff are visible editors");
    baseEditor.selection = new vscode.Selection(6, 0, 6, 0); // "eta", deleted by the agent
    assert.deepEqual(await changes.hunkAtCursor(baseEditor), { file, index: 2 });
    fileEditor.selection = new vscode.Selection(5, 2, 5, 2); // "new line 2"
    assert.deepEqual(await changes.hunkAtCursor(fileEditor), { file, index: 1 });
    await vscode.commands.executeCommand("agentThoughts.undoHunk", file, 1);
    const afterUndo = await until(() => { const t = fs.readFileSync(file, "utf8"); return t !== EDITED && t; }, "the undo to reach the disk");
    assert.equal(afterUndo, ["alpha", "BETA (agent)", "gamma", "delta", "epsilon", "zeta", "theta", ""].join("\n"), "only the middle hunk was restored");
    await vscode.commands.executeCommand("agentThoughts.keepHunk", file, 0);
    const left2 = await changes.hunksOf(file);
    assert.equal(left2.hunks.length, 1, "kept hunk is no longer pending");
    assert.equal(left2.tracked.base, ["alpha", "BETA (agent)", "gamma", "delta", "epsilon", "zeta", "eta", "theta", ""].join("\n"));
    await vscode.commands.executeCommand("agentThoughts.undoHunk", file, 0);
    assert.equal(fs.readFileSync(file, "utf8"), ["alpha", "BETA (agent)", "gamma", "delta", "epsilon", "zeta", "eta", "theta", ""].join("\n"));
    assert.equal(changes.files().find((f) => f.path === file)?.decided, "undone");
  });

  it("the editor's own undo reverts an agent write made through fs/write_text_file", async () => {
    const file = ws("src", "undoable.txt");
    fs.writeFileSync(file, "before\n");
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    await run("Writer2", { turns: [[{ writeFile: { path: file, content: "after the agent\n" }, report: true }]] });
    assert.equal(doc.getText(), "after the agent\n");
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand("undo");
    assert.equal(doc.getText(), "before\n");
    await vscode.commands.executeCommand("workbench.action.files.revert");
  });

  it("an agent that writes on its own and reports a tool-call diff (a fragment) is reviewable against the real original", async () => {
    const file = ws("src", "self.ts");
    const before = "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n";
    const after = "export const a = 1;\nexport const b = 20;\nexport const c = 3;\n";
    fs.writeFileSync(file, before);
    await run("SelfWriter", {
      turns: [[
        { diskWrite: { path: file, content: after } },
        // Like Claude's Edit tool: only the changed snippet as old/new text.
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "edit-1", title: "Edit self.ts", kind: "edit", status: "completed", content: [{ type: "diff", path: file, oldText: "export const b = 2;", newText: "export const b = 20;" }] } },
      ]],
    });
    const tracked = await until(() => changes.files().find((f) => f.path === file), "the change to be tracked");
    assert.equal(tracked.base, before, "baseline rebuilt from the fragment");
    // Why this change? The panel shows the tool call that made it.
    await vscode.commands.executeCommand("agentThoughts.whyChange", file);
    await waitFor(() => document.querySelector(".flash")?.closest("[data-tool-call-id]")?.getAttribute("data-tool-call-id") ?? document.querySelector(".flash")?.getAttribute("data-tool-call-id"), undefined, { view: "sidebar", what: "the revealed tool call" })
      .then((id) => assert.equal(id, "edit-1"));
    const { hunks } = await changes.hunksOf(file);
    assert.equal(hunks.length, 1);
    await vscode.commands.executeCommand("agentThoughts.undoFile", file);
    assert.equal(fs.readFileSync(file, "utf8"), before);
  });

  it("a permission request with a diff: the original is snapshotted before the agent writes, then reviewable", async () => {
    const file = ws("src", "asked.md");
    const before = "# Notes\n\nold paragraph\n";
    fs.writeFileSync(file, before);
    const a = await api();
    // The user answers from the palette as soon as the request is open.
    const answering = (async () => {
      await until(() => a._test.broker.open().length > 0, "the permission request", 20_000);
      // Before deciding, the proposed edit is already showing in a diff (nothing written yet).
      const proposal = await until(() => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.input).find((i): i is vscode.TabInputTextDiff => i instanceof vscode.TabInputTextDiff && i.modified.scheme === "agent-thoughts-proposal" && i.modified.path === file), "the proposed diff");
      assert.equal((await vscode.workspace.openTextDocument(proposal.modified)).getText(), "# Notes\n\nnew paragraph\n");
      assert.equal(fs.readFileSync(file, "utf8"), before, "nothing written before permission");
      void vscode.commands.executeCommand("agentThoughts.respondToPermission");
      await until(async () => (await quickPickRows("asks permission")).length > 0, "the permission quick pick's options");
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    })();
    await run("Asker", {
      turns: [[{
        permission: { toolCall: { toolCallId: "w1", title: "Rewrite asked.md", kind: "edit", status: "pending", content: [{ type: "diff", path: file, oldText: before, newText: "# Notes\n\nnew paragraph\n" }] }, options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }] },
        onSelected: { ok: [
          { diskWrite: { path: file, content: "# Notes\n\nnew paragraph\n" } },
          { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" } },
        ] },
      }]],
    });
    await answering;
    const tracked = await until(() => changes.files().find((f) => f.path === file), "the allowed edit to be tracked");
    await until(() => !vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === "agent-thoughts-proposal"), "the proposal tab to close once answered");
    assert.equal(tracked.base, before);
    assert.equal(fs.readFileSync(file, "utf8"), "# Notes\n\nnew paragraph\n");
  });

  it("keep all and undo all", async () => {
    const f1 = ws("src", "k1.txt");
    const f2 = ws("src", "k2.txt");
    const created = ws("src", "created-by-agent.txt");
    fs.writeFileSync(f1, "one\n");
    fs.writeFileSync(f2, "two\n");
    if (fs.existsSync(created)) fs.rmSync(created);
    await run("Multi", { turns: [[
      { writeFile: { path: f1, content: "ONE\n" } },
      { writeFile: { path: f2, content: "TWO\n" } },
      { writeFile: { path: created, content: "hello\n" } },
    ]] });
    await until(() => changes.pendingFiles().length >= 3, "three pending files");
    await changes.undoAll();
    assert.equal(fs.readFileSync(f1, "utf8"), "one\n");
    assert.equal(fs.readFileSync(f2, "utf8"), "two\n");
    assert.ok(!fs.existsSync(created), "a file the agent created is deleted by undo");
    await run("Multi2", { turns: [[{ writeFile: { path: f1, content: "ONE again\n" } }, { writeFile: { path: f2, content: "TWO again\n" } }]] });
    await until(() => changes.pendingFiles().length >= 2, "two pending files");
    await vscode.commands.executeCommand("agentThoughts.keepAll");
    // Nothing is pending after Keep All: earlier test files' files too (the fault matrix deletes
    // its folder of reviewed files, which once left them pending as deletions).
    assert.deepEqual(changes.pendingFiles().map((f) => `${f.path} ${JSON.stringify(f.origins)}`), []);
    assert.equal(fs.readFileSync(f1, "utf8"), "ONE again\n");
  });

  it("refuses a write outside the workspace (the user says no) with a clear error to the agent", async () => {
    const outside = path.join(os.tmpdir(), `agent-thoughts-outside-${process.pid}.txt`);
    if (fs.existsSync(outside)) fs.rmSync(outside);
    const a = await api();
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Escaper", { turns: [[{ writeFile: { path: outside, content: "nope" }, report: true }]] }),
    ], vscode.ConfigurationTarget.Global);
    const r = await a.stream("escape", { agent: "Escaper", newSession: true }).result;
    // The user was asked; VS Code refuses dialogs in extension tests, which is the user's "no".
    const question = [...a._test.modal.asked].reverse().find((q) => q.message.includes("outside the workspace") && q.message.includes(path.basename(outside)));
    assert.ok(question, "the user was asked about the write outside the workspace");
    assert.equal(question.answer, undefined);
    assert.ok(!fs.existsSync(outside), "nothing was written outside the workspace");
    assert.match(r.text, /writeError:.*outside the workspace/);
  });

  it("pending changes survive a reload: baselines are persisted in workspace storage", async () => {
    const file = ws("src", "persist.txt");
    fs.writeFileSync(file, "kept across reloads\n");
    await run("Persist", { turns: [[{ writeFile: { path: file, content: "changed\n" } }]] });
    await until(() => changes.pendingFiles().some((f) => f.path === file), "the pending change");
    // What the extension reads from workspace storage after a reload.
    const memento = (changes as unknown as { state: vscode.Memento }).state;
    const ledger = new EditLedger(memento.get<TrackedFile[]>(STORAGE_KEY, []));
    const f = ledger.get(file);
    assert.ok(f, "the file is in the persisted ledger");
    assert.equal(f.base, "kept across reloads\n");
    assert.equal(summarize(f, fs.readFileSync(file, "utf8")).state, "pending");
  });
});
