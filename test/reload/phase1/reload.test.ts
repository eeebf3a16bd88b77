// Phase 1 of the reload test: an agent edits a file; the edit is left pending review.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { api, EDITED, EXTENSION_ID, file, ORIGINAL } from "../shared";

describe("window reload, phase 1", function () {
  this.timeout(60_000);
  it("leaves an agent edit pending review", async () => {
    fs.writeFileSync(file(), ORIGINAL);
    const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      { name: "Editor", command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify({ turns: [[{ thought: "a thought worth keeping" }, { writeFile: { path: file(), content: EDITED } }, { message: "REMEMBER-ME-42" }]] }), ELECTRON_RUN_AS_NODE: "1" } },
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    await a.stream("edit", { agent: "Editor" }).result;
    assert.equal(fs.readFileSync(file(), "utf8"), EDITED);
    assert.ok(a._test.changes.pendingFiles().some((f) => f.path === file()));
  });
});
