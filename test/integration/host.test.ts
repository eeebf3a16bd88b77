// Proves the harness: we run inside a real VS Code 1.100 extension host, with the sample workspace
// open and the extension (from the repo, as extensionDevelopmentPath) present and activatable.
import * as assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { screenshot } from "./index";

const EXTENSION_ID = "agent-thoughts.agent-thoughts";

describe("extension host", () => {
  it("is VS Code 1.100", () => {
    assert.match(vscode.version, /^1\.100\./);
  });

  it("has the sample workspace open", () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1);
    const root = folders[0]!.uri.fsPath;
    assert.equal(root, process.env.AGENT_THOUGHTS_WORKSPACE);
    assert.ok(existsSync(join(root, "README.md")), "README.md in the workspace");
    assert.ok(existsSync(join(root, "src", "hello.ts")), "src/hello.ts in the workspace");
  });

  it("inherits the harness environment", () => {
    const repo = process.env.AGENT_THOUGHTS_REPO;
    assert.ok(repo, "AGENT_THOUGHTS_REPO is set");
    assert.ok(existsSync(join(repo, "package.json")));
  });

  it("loads agent-thoughts from the repo and activates it", async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    assert.equal(ext.extensionUri.fsPath, process.env.AGENT_THOUGHTS_REPO, "the development copy is loaded");
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it("can ask the harness for a screenshot", async function () {
    const path = await screenshot("test-results/integration-host.png");
    if (path === undefined) this.skip();
    assert.ok(existsSync(path));
  });
});
