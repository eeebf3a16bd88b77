// Restore checkpoint in a real VS Code: two turns of edits across three files — one written
// through fs/write_text_file, one changed by a command the agent ran, one written by the agent on
// its own — roll back to before the first turn from the panel's button, and the restore is undone.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { harnessRequest, log, screenshot } from "./index";
import { api, quickPickRows, scriptedAgent, until } from "./helpers";
import { click, waitFor } from "./webview";

const ws = (...p: string[]): string => path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ...p);

describe("checkpoints", function () {
  this.timeout(90_000);
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    for (const f of ["cp-a.txt", "cp-b.txt", "cp-c.txt"]) fs.rmSync(ws("src", f), { force: true });
  });

  it("Restore checkpoint rolls two turns back across three files, including one a command changed, and Undo Restore brings them back", async () => {
    const a = ws("src", "cp-a.txt");
    const b = ws("src", "cp-b.txt");
    const c = ws("src", "cp-c.txt");
    fs.writeFileSync(a, "a0\n");
    fs.writeFileSync(b, "b0\n");
    fs.rmSync(c, { force: true });
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [scriptedAgent("Rollback", { turns: [
      [
        { writeFile: { path: a, content: "a1\n" } },
        { terminal: { command: "sh", args: ["-c", "printf 'b1\\n' > src/cp-b.txt"] } },
        { message: "turn one done" },
      ],
      [
        { writeFile: { path: c, content: "c2\n" } },
        { diskWrite: { path: a, content: "a2\n" } },
        { message: "turn two done" },
      ],
    ] })], vscode.ConfigurationTarget.Global);
    const x = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const first = await x.stream("one", { agent: "Rollback", newSession: true }).result;
    assert.equal(fs.readFileSync(b, "utf8"), "b1\n", "the command changed cp-b.txt");
    await x.stream("two", { sessionId: first.sessionId }).result;
    assert.deepEqual([fs.readFileSync(a, "utf8"), fs.readFileSync(b, "utf8"), fs.readFileSync(c, "utf8")], ["a2\n", "b1\n", "c2\n"]);
    // The file the command changed is reviewable too, against the snapshot before the turn, and says how it changed.
    const byCommand = await until(() => x._test.changes.pendingFiles().find((f) => f.path === b), "cp-b.txt (changed by a command) in Agent Changes", 20_000);
    assert.equal(byCommand.base, "b0\n");
    assert.equal(byCommand.origins[byCommand.origins.length - 1]?.by, "command");
    const timings = x._test.checkpoints.timings;
    log(`      checkpoint before each turn: ${timings.slice(-2).join(" ms, ")} ms (this small workspace)`);

    // The panel offers Restore checkpoint on each prompt; the user clicks the first turn's.
    await waitFor(() => document.querySelectorAll('[data-turn-id="1"] .restore-checkpoint').length > 0, undefined, { view: "sidebar", what: "turn 1's Restore checkpoint button", timeoutMs: 20_000 });
    await click('[data-turn-id="1"] .restore-checkpoint', "sidebar");
    const rows = await until(async () => { const r = await quickPickRows(); return r.length >= 3 ? r : undefined; }, "the list of files to restore", 20_000);
    for (const name of ["cp-a.txt", "cp-b.txt", "cp-c.txt"]) assert.ok(rows.some((r) => r.includes(name)), `${name} is listed (${rows.join(" | ")})`);
    assert.ok(rows.some((r) => r.includes("cp-c.txt") && r.includes("will be deleted")), "the file created since is to be deleted");
    for (const [name, theme, cls] of [["light", "Default Light Modern", "vscode-light"], ["dark", "Default Dark Modern", "vscode-dark"]] as const) {
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      await waitFor((c: string) => document.body.classList.contains(c), cls, { view: "sidebar", what: `the ${name} theme` });
      await screenshot(`test-results/checkpoint-restore-${name}.png`);
    }
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    assert.ok((await quickPickRows()).length >= 3, "the list is still open");
    await harnessRequest({ op: "keyboard", key: "Enter" });
    await until(() => fs.readFileSync(a, "utf8") === "a0\n" && fs.readFileSync(b, "utf8") === "b0\n" && !fs.existsSync(c), "the files to be as before turn 1", 20_000);
    // Review agrees: the agent's changes to cp-a.txt are gone, not folded into its baseline as if the user made them.
    await until(() => !x._test.changes.pendingFiles().some((f) => f.path === a), "cp-a.txt to have nothing pending");
    assert.equal(x._test.changes.files().find((f) => f.path === a)?.base, "a0\n", "the baseline is still the text before the agent");

    // The notification that says what happened offers Undo Restore; the user clicks it.
    const clicked = await until(async () => (await harnessRequest<{ value: boolean }>({ op: "workbench", fn: (() => {
      const toast = [...document.querySelectorAll(".notification-toast")].find((t) => (t.textContent ?? "").includes("Restored 3 files to before turn 1"));
      const button = toast && [...toast.querySelectorAll<HTMLElement>(".monaco-button")].find((el) => el.textContent?.trim() === "Undo Restore");
      button?.click();
      return !!button;
    }).toString() }))?.value, "the Restored notification with Undo Restore", 20_000);
    assert.ok(clicked);
    await until(() => fs.existsSync(c) && fs.readFileSync(c, "utf8") === "c2\n" && fs.readFileSync(a, "utf8") === "a2\n" && fs.readFileSync(b, "utf8") === "b1\n", "the restore to be undone", 20_000);
    await until(() => x._test.changes.pendingFiles().some((f) => f.path === a), "the agent's change to cp-a.txt to be pending again");
  });
});
