// Edit review you can trust: only the agent's text is pending. Lines the user types in a file under
// review survive Undo and Undo All (in a file the agent changed, and — after a question — in one it
// created); undo is a range edit that Ctrl+Z brings back; pending hunks are marked in the editor;
// a file the agent created opens as itself and an undo deletes it with the folders it made.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentChanges } from "../../src/vscode/agentChanges";
import type { Modal } from "../../src/vscode/modal";
import type { Scenario } from "../fixtures/agents/scenario";
import { harnessRequest, screenshot } from "./index";
import { api, scriptedAgent, until } from "./helpers";
import { click, evaluate, waitFor } from "./webview";

const ORIGINAL = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", ""].join("\n");
const EDITED = ["alpha", "BETA (agent)", "gamma", "delta", "new line 1", "new line 2", "epsilon", "zeta", "theta", ""].join("\n");

function ws(...p: string[]): string {
  return path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ...p);
}

async function run(name: string, scenario: Scenario): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [scriptedAgent(name, scenario)], vscode.ConfigurationTarget.Global);
  await (await api()).stream("edit", { agent: name, newSession: true }).result;
}

/** Types `text` at the start of 0-based `line`, as the user does (the editor's own `type` command). */
async function typeAt(file: string, line: number, text: string): Promise<vscode.TextEditor> {
  const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false, preserveFocus: false });
  editor.selection = new vscode.Selection(line, 0, line, 0);
  await vscode.commands.executeCommand("type", { text });
  return editor;
}

function tabsOf(file: string): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) =>
    (t.input instanceof vscode.TabInputTextDiff && t.input.modified.fsPath === file) || (t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file));
}

describe("user edits in files under review", function () {
  this.timeout(60_000);
  let changes: AgentChanges;
  let modal: Modal;

  before(async () => {
    const a = await api();
    changes = a._test.changes;
    modal = a._test.modal;
    await vscode.workspace.getConfiguration("agentThoughts").update("review.openDiffs", "auto", vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("review.openDiffs", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("a line the user types in a file the agent changed is never pending and survives Undo, Ctrl+Z and Undo All", async () => {
    const file = ws("src", "typed-between.txt");
    fs.writeFileSync(file, ORIGINAL);
    await run("TypedBetween", { turns: [[{ writeFile: { path: file, content: EDITED } }]] });
    await until(async () => (await changes.hunksOf(file)).hunks.length === 3, "three pending hunks");
    const asked = modal.asked.length;
    // The user types a line between the agent's first and second hunk (before "delta").
    const editor = await typeAt(file, 3, "typed by me\n");
    assert.equal(editor.document.getText(), EDITED.replace("delta\n", "typed by me\ndelta\n"));
    await until(() => changes.files().find((f) => f.path === file)?.base?.includes("typed by me"), "the typed line to move into the baseline");
    const { hunks } = await changes.hunksOf(file);
    assert.deepEqual(hunks.map((h) => h.curText), ["BETA (agent)\n", "new line 1\nnew line 2\n", ""], "the typed line is no agent change");

    // Undo the first hunk: a range edit; the cursor stays on the user's line.
    editor.selection = new vscode.Selection(3, 5, 3, 5);
    await vscode.commands.executeCommand("agentThoughts.undoHunk", file, 0);
    assert.equal(editor.document.getText(), ["alpha", "beta", "gamma", "typed by me", "delta", "new line 1", "new line 2", "epsilon", "zeta", "theta", ""].join("\n"));
    assert.deepEqual([editor.selection.active.line, editor.selection.active.character], [3, 5], "the cursor did not move");
    assert.equal((await changes.hunksOf(file)).hunks.length, 2);

    // Ctrl+Z in the editor brings the undone hunk back, pending again.
    await vscode.window.showTextDocument(editor.document, { preview: false, preserveFocus: false });
    await vscode.commands.executeCommand("undo");
    assert.ok(editor.document.getText().includes("BETA (agent)"), "Ctrl+Z restored the agent's line");
    await until(async () => (await changes.hunksOf(file)).hunks.length === 3, "the restored hunk to be pending again");
    assert.ok(changes.pendingFiles().some((f) => f.path === file));

    // Undo All: every agent change goes, the user's line stays, and nothing needed asking.
    await changes.undoAll();
    // (The user's typing is unsaved, so the undo stays unsaved too.)
    assert.equal(editor.document.getText(), ORIGINAL.replace("delta\n", "typed by me\ndelta\n"));
    assert.equal(modal.asked.length, asked, "no question: no text the user typed was at stake");
    assert.equal(changes.files().find((f) => f.path === file)?.decided, "undone");
    await until(() => tabsOf(file).every((t) => !(t.input instanceof vscode.TabInputTextDiff)), "the review tab to close once nothing differs");
  });

  it("text typed inside an agent hunk is never deleted without asking; the question names it", async () => {
    const file = ws("src", "typed-inside.txt");
    fs.writeFileSync(file, ORIGINAL);
    await run("TypedInside", { turns: [[{ writeFile: { path: file, content: EDITED } }]] });
    await until(async () => (await changes.hunksOf(file)).hunks.length === 3, "three pending hunks");
    // Between the agent's two new lines.
    const { document } = await typeAt(file, 5, "my note\n");
    await until(() => changes.files().find((f) => f.path === file)?.userEdits?.length, "the typed text to be remembered as the user's");
    const asked = modal.asked.length;
    await vscode.commands.executeCommand("agentThoughts.undoHunk", file, 1);
    assert.equal(modal.asked.length, asked + 1, "undoing the hunk asked first");
    assert.match(modal.asked.at(-1)!.detail, /my note/, `the question names the user's text: ${JSON.stringify(modal.asked.at(-1))}`);
    assert.ok(document.getText().includes("new line 1\nmy note\nnew line 2"), "refused (tests cannot answer dialogs): the user's text is still there");
    await changes.undoAll();
    assert.ok(document.getText().includes("new line 1\nmy note\nnew line 2"), "Undo All asked too and left it");
    assert.equal(modal.asked.length, asked + 2);
    await changes.keepFile(file);
  });

  it("a file the agent created opens as itself; the user's lines in it survive Undo and Undo All, after a question", async () => {
    const file = ws("src", "agent-made.txt");
    if (fs.existsSync(file)) fs.rmSync(file);
    await run("Creator", { turns: [[{ writeFile: { path: file, content: "written by the agent\n" } }]] });
    // No diff against nothing: the file itself, its lines marked as the agent's.
    const tab = await until(() => tabsOf(file)[0], "the new file to open");
    assert.ok(tab.input instanceof vscode.TabInputText, "a normal editor, not a diff with an empty left half");
    await until(() => changes.decorationsOf(file)?.added.length, "the agent's lines marked");
    const { document } = await typeAt(file, 1, "my own line\n");
    const asked = modal.asked.length;
    await vscode.commands.executeCommand("agentThoughts.undoFile", file);
    assert.equal(modal.asked.length, asked + 1, "Undo asked before deleting a file the user typed in");
    assert.match(modal.asked.at(-1)!.message, /agent-made\.txt/);
    assert.match(modal.asked.at(-1)!.detail, /my own line/, `and named the user's edit: ${JSON.stringify(modal.asked.at(-1))}`);
    assert.equal(document.getText(), "written by the agent\nmy own line\n", "refused: nothing deleted");
    await changes.undoAll();
    assert.equal(modal.asked.length, asked + 2, "Undo All asked too");
    assert.ok(fs.existsSync(file), "and the file with the user's line survives");
    await changes.keepFile(file);
  });

  it("undoing a file the agent created deletes it and the folders it made; the Agent Changes view restores it", async () => {
    const dir = ws("src", "agent-dir");
    const file = path.join(dir, "deep", "made.txt");
    if (fs.existsSync(dir)) fs.rmSync(dir, { recursive: true });
    await run("DirCreator", { turns: [[{ writeFile: { path: file, content: "made\n" } }]] });
    await until(() => changes.pendingFiles().some((f) => f.path === file), "the created file to be pending");
    await vscode.commands.executeCommand("agentThoughts.undoFile", file);
    assert.ok(!fs.existsSync(file), "the file is gone");
    assert.ok(!fs.existsSync(dir), "and so are the folders the agent created for it");
    await vscode.commands.executeCommand("agentThoughts.restoreFile", file);
    assert.equal(fs.readFileSync(file, "utf8"), "made\n", "restored as it was");
    assert.ok(changes.pendingFiles().some((f) => f.path === file), "pending review again");
    await changes.keepFile(file);
  });

  it("a change from the disk when no agent is working (a git checkout) is the user's", async () => {
    const file = ws("src", "checked-out.txt");
    fs.writeFileSync(file, ORIGINAL);
    await run("DiskUser", { turns: [[{ writeFile: { path: file, content: EDITED } }]] });
    await until(async () => (await changes.hunksOf(file)).hunks.length === 3, "three pending hunks");
    await until(() => !changes.agentBusy(file), "no agent to be working");
    fs.writeFileSync(file, EDITED.replace("alpha\n", "alpha from the branch\n"));
    await until(() => changes.files().find((f) => f.path === file)?.base?.startsWith("alpha from the branch\n"), "the checkout to move into the baseline");
    assert.equal((await changes.hunksOf(file)).hunks.length, 3, "still only the agent's three hunks");
    await changes.keepFile(file);
  });

  it("a reviewed file the user deletes, or whose folder they delete, leaves the review; one still pending stays, and Undo brings back the text from before the agent", async () => {
    const dir = ws("src", "user-deletes");
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, "inner"), { recursive: true });
    const pending = path.join(dir, "pending.txt");
    const kept = path.join(dir, "inner", "kept.txt");
    const shown = path.join(dir, "inner", "shown.txt");
    const pendingInner = path.join(dir, "inner", "pending-inner.txt");
    for (const f of [pending, kept, shown, pendingInner]) fs.writeFileSync(f, ORIGINAL);
    await run("UserDeletes", { turns: [[
      { writeFile: { path: pending, content: EDITED } },
      { writeFile: { path: kept, content: EDITED } },
      { writeFile: { path: shown, content: EDITED } },
      { writeFile: { path: pendingInner, content: EDITED } },
    ]] });
    const mine = [pending, kept, shown, pendingInner];
    await until(() => mine.every((f) => changes.pendingFiles().some((p) => p.path === f)), "the three files pending");
    await changes.keepFile(kept);
    await changes.keepFile(shown);
    // shown.txt is open in an editor (not dirty) when its folder goes.
    await vscode.window.showTextDocument(vscode.Uri.file(shown), { preview: false });
    await until(() => !changes.agentBusy(pending), "no agent to be working");
    // The user deletes one file still pending: nothing is lost, its Undo brings back the original.
    fs.rmSync(pending);
    await until(async () => (await changes.hunksOf(pending)).current === null, "the deletion of the pending file to be seen");
    assert.ok(changes.pendingFiles().some((f) => f.path === pending), "a file with undecided agent changes stays pending");
    await vscode.commands.executeCommand("agentThoughts.undoFile", pending);
    assert.equal(fs.readFileSync(pending, "utf8"), ORIGINAL, "Undo brings back the text from before the agent");
    // Then the folder holding two kept ones (one open in an editor).
    fs.rmSync(path.join(dir, "inner"), { recursive: true });
    await until(() => !changes.files().some((f) => f.path === kept || f.path === shown), "the deleted folder's reviewed files to leave the review");
    // The one with undecided agent changes in it is seen as gone (the folder's deletion is its only event), and Undo brings it back.
    await until(async () => (await changes.hunksOf(pendingInner)).current === null, "the pending file in the folder to be seen as gone");
    assert.deepEqual(changes.pendingFiles().filter((f) => f.path.startsWith(dir)).map((f) => f.path), [pendingInner], "only it is pending");
    await vscode.commands.executeCommand("agentThoughts.undoFile", pendingInner);
    assert.equal(fs.readFileSync(pendingInner, "utf8"), ORIGINAL, "Undo brings back the file, and its folder, as they were before the agent");
    fs.rmSync(pendingInner);
    // A file the agent writes there later is reviewed afresh, as a file it created.
    await run("UserDeletes2", { turns: [[{ writeFile: { path: kept, content: "again\n" } }]] });
    await until(() => changes.pendingFiles().find((f) => f.path === kept)?.base === null, "the new file pending as the agent's creation");
    await changes.keepFile(kept);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a folder of kept files the user deletes leaves the review even when the review is read again before the deletion's event", async () => {
    // The user deletes a folder in the Explorer and at once keeps another file (any Keep, Undo or
    // save re-reads the review): that read sees the kept files gone before the watcher says so.
    const dir = ws("src", "user-deletes-then-keeps");
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const files = ["one.txt", "two.txt", "three.txt"].map((f) => path.join(dir, f));
    const other = ws("src", "kept-meanwhile.txt");
    for (const f of [...files, other]) fs.writeFileSync(f, ORIGINAL);
    await run("DeletesThenKeeps", { turns: [[...[...files, other].map((f) => ({ writeFile: { path: f, content: EDITED } }))]] });
    await until(() => [...files, other].every((f) => changes.pendingFiles().some((p) => p.path === f)), "four files pending");
    for (const f of files) await changes.keepFile(f);
    await vscode.window.showTextDocument(vscode.Uri.file(files[0]!), { preview: false });
    await until(() => !changes.agentBusy(other), "no agent to be working");
    // Their review diffs and an editor just closed (their documents close around the deletion).
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    fs.rmSync(dir, { recursive: true });
    await changes.keepFile(other);
    await until(() => !changes.files().some((f) => f.path.startsWith(dir + path.sep)), "the deleted folder's kept files to leave the review");
    assert.deepEqual(changes.pendingFiles().filter((f) => f.path.startsWith(dir + path.sep)).map((f) => f.path), [], "none of them pending as a deletion");
    // A kept file deleted while its editor has unsaved text stays (the text is the user's to save);
    // closed without saving, its review ends too, rather than turning into a pending deletion.
    await typeAt(other, 0, "typed, not saved\n");
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(other)), path.basename(other)));
    try {
      const deleted = new Promise<void>((resolve) => watcher.onDidDelete(() => resolve()));
      fs.rmSync(other);
      // The review hears of it in the same batch of the watcher's events.
      await deleted;
    } finally {
      watcher.dispose();
    }
    await until(async () => (await changes.hunksOf(other)).current?.startsWith("typed, not saved") || undefined, "the unsaved text read as the file's");
    assert.ok(changes.files().some((f) => f.path === other) && !changes.pendingFiles().some((f) => f.path === other), "under review, nothing pending");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
    await until(() => !changes.files().some((f) => f.path === other), "the file closed without saving to leave the review").catch(async (e: unknown) => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === other);
      throw new Error(`${String(e)}; document ${doc ? `open, dirty ${doc.isDirty}` : "closed"}; tabs ${tabsOf(other).length}; pending ${changes.pendingFiles().some((f) => f.path === other)}; current ${JSON.stringify((await changes.hunksOf(other)).current)}`, { cause: e });
    });
    assert.ok(!fs.existsSync(other), "not brought back");
  });

  it("a file the agent deletes while it works is pending as its deletion, and Undo brings it back", async () => {
    const file = ws("src", "agent-deletes.txt");
    fs.writeFileSync(file, ORIGINAL);
    await run("AgentDeletes", { turns: [[{ writeFile: { path: file, content: EDITED } }, { spawnChild: { command: `rm ${JSON.stringify(file)}`, pidFile: path.join(os.tmpdir(), `agent-deletes-${process.pid}.pid`) } }, { sleep: 600 }]] });
    await until(() => changes.pendingFiles().some((f) => f.path === file) && !fs.existsSync(file), "the deletion pending");
    await vscode.commands.executeCommand("agentThoughts.undoFile", file);
    assert.equal(fs.readFileSync(file, "utf8"), ORIGINAL, "Undo brings back the text from before the agent");
    fs.rmSync(path.join(os.tmpdir(), `agent-deletes-${process.pid}.pid`), { force: true });
  });

  it("a tool card's Open diff opens the same reviewable diff as Agent Changes, titled kept once decided", async () => {
    const file = ws("src", "card.ts");
    const before = "export const x = 1;\n";
    const after = "export const x = 2;\n";
    fs.writeFileSync(file, before);
    await run("CardWriter", { turns: [[
      { diskWrite: { path: file, content: after } },
      { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "card-1", title: "Edit card.ts", kind: "edit", status: "completed", content: [{ type: "diff", path: file, oldText: before, newText: after }] } },
    ]] });
    await until(() => changes.pendingFiles().some((f) => f.path === file), "the change to be pending");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    const openFromCard = async (): Promise<void> => {
      await vscode.commands.executeCommand("agentThoughts.panel.focus");
      await waitFor(() => document.querySelector('[data-tool-call-id="card-1"]') !== null, undefined, { view: "sidebar", what: "the tool card" });
      if (!(await evaluate(() => document.querySelector('[data-tool-call-id="card-1"] .diff-row button') !== null, undefined, "sidebar"))) await click('[data-tool-call-id="card-1"] .tool-toggle', "sidebar");
      await click('[data-tool-call-id="card-1"] .diff-row button', "sidebar");
    };
    await openFromCard();
    const reviewTab = (): vscode.Tab | undefined => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.fsPath === file);
    const tab = await until(reviewTab, "a diff tab from the card");
    assert.equal((tab.input as vscode.TabInputTextDiff).original.scheme, "agent-thoughts-base", "the review's diff (Keep/Undo work there), not a copy of the tool's old text");
    await changes.keepFile(file);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await openFromCard();
    const decided = await until(reviewTab, "the diff tab again");
    assert.match(decided.label, /kept/, "the title says the change was kept");
  });

  it("Allow and Reject in a proposed edit's diff title answer the permission request", async () => {
    const file = ws("src", "proposed.md");
    const before = "# Proposed\n\nold\n";
    const after = "# Proposed\n\nnew\n";
    fs.writeFileSync(file, before);
    const ask = (id: string): Scenario["turns"][number][number] => ({
      permission: { toolCall: { toolCallId: id, title: "Rewrite proposed.md", kind: "edit", status: "pending", content: [{ type: "diff", path: file, oldText: before, newText: after }] }, options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }] },
      onSelected: {
        ok: [{ diskWrite: { path: file, content: after } }, { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } }],
        no: [{ message: "rejected" }],
      },
    });
    const proposalTab = (): vscode.TabInputTextDiff | undefined => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.input)
      .find((i): i is vscode.TabInputTextDiff => i instanceof vscode.TabInputTextDiff && i.modified.scheme === "agent-thoughts-proposal" && i.modified.path === file);
    for (const [command, expected] of [["agentThoughts.rejectProposal", before], ["agentThoughts.allowProposal", after]] as const) {
      const answering = (async () => {
        const tab = await until(proposalTab, "the proposed diff", 20_000);
        // What the title button passes: the diff's (modified) resource.
        await vscode.commands.executeCommand(command, tab.modified);
      })();
      await run(command === "agentThoughts.allowProposal" ? "ProposalAllow" : "ProposalReject", { turns: [[ask(command)]] });
      await answering;
      assert.equal(fs.readFileSync(file, "utf8"), expected, `${command} answered the agent`);
      await until(() => !proposalTab(), "the proposal tab to close once answered");
    }
  });

  it("pending agent hunks are marked in the editor: gutter bar, line background, overview ruler (light and dark theme)", async () => {
    const file = ws("src", "marked.txt");
    fs.writeFileSync(file, ORIGINAL);
    await vscode.workspace.getConfiguration("agentThoughts").update("review.openDiffs", "manual", vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      await run("Marker", { turns: [[{ writeFile: { path: file, content: EDITED } }]] });
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
      const shown = await until(() => changes.decorationsOf(file), "decorations on the open editor");
      assert.deepEqual(shown.modified.map((r) => [r.start.line, r.end.line]), [[1, 1]], "the changed line");
      assert.deepEqual(shown.added.map((r) => [r.start.line, r.end.line]), [[4, 5]], "the two added lines");
      assert.deepEqual(shown.deleted.map((r) => r.start.line), [8], "where the agent deleted a line");
      const workbench = vscode.workspace.getConfiguration("workbench");
      for (const [name, theme, kind] of [["light", "Default Light Modern", vscode.ColorThemeKind.Light], ["dark", "Default Dark Modern", vscode.ColorThemeKind.Dark]] as const) {
        await workbench.update("colorTheme", theme, vscode.ConfigurationTarget.Global);
        await until(() => vscode.window.activeColorTheme.kind === kind, `the ${name} theme`);
        // What the page shows: the theme applied, the three CodeLens rows and the gutter marks drawn.
        await until(async () => (await harnessRequest<{ value: boolean }>({ op: "workbench", arg: name, fn: ((n: string) =>
          document.querySelector(".monaco-workbench")?.classList.contains(n === "dark" ? "vs-dark" : "vs") === true
          && document.querySelectorAll(".editor-instance .codelens-decoration").length >= 3
          && document.querySelectorAll(".editor-instance .cgmr").length >= 4).toString() }))?.value, `the ${name} editor with its marks and CodeLens`);
        await screenshot(`test-results/review-editor-${name}.png`); // copied to docs/screenshots/
      }
      await vscode.commands.executeCommand("agentThoughts.keepHunk", file, 0);
      await until(() => changes.decorationsOf(file)?.modified.length === 0, "a kept hunk to lose its mark");
      await changes.keepFile(file);
    } finally {
      await vscode.workspace.getConfiguration("agentThoughts").update("review.openDiffs", "auto", vscode.ConfigurationTarget.Global);
    }
  });
});
