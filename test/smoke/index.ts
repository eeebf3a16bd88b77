// Smoke test of the PACKAGED extension: runTests.mjs installs dist-vsix/agent-thoughts.vsix into a
// fresh extensions dir and runs this WITHOUT extensionDevelopmentPath, so the installed copy runs.
import * as assert from "node:assert/strict";
import { format } from "node:util";
import * as vscode from "vscode";

const EXTENSION_ID = "agent-thoughts.agent-thoughts";

/** Tagged so test/host/runTests.mjs prints it as test output (see test/integration/index.ts). */
function log(...args: unknown[]): void {
  console.log("\u200b" + format(...args));
}

async function check(title: string, body: () => Promise<string | void> | string | void): Promise<void> {
  try {
    const note = await body();
    log(`  ✔ ${title}${note ? ` (${note})` : ""}`);
  } catch (e) {
    log(`  ✘ ${title}`);
    throw e;
  }
}

export async function run(): Promise<void> {
  log("[agent-thoughts-tests] start smoke");
  log("smoke: installed vsix");
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  await check(`VS Code ${vscode.version} runs ${EXTENSION_ID}`, () => {
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    return `version ${String((ext.packageJSON as { version?: unknown }).version)}`;
  });
  await check("it is the installed copy, not the repo", () => {
    const path = ext!.extensionUri.fsPath;
    const repo = process.env.AGENT_THOUGHTS_REPO;
    assert.ok(!repo || !path.startsWith(repo), `loaded from ${path}`);
    return path;
  });
  await check("it activates", async () => {
    const wasActive = ext!.isActive;
    const started = performance.now();
    await ext!.activate();
    const ms = performance.now() - started;
    assert.equal(ext!.isActive, true);
    return wasActive ? "was already active at startup" : `activation took ${ms.toFixed(0)} ms`;
  });
  await check("its API has no test hooks (an installed copy runs in production mode)", async () => {
    const exported: unknown = await ext!.activate();
    assert.ok(exported && typeof exported === "object" && "apiVersion" in exported, "the public API is exported");
    assert.equal("_test" in exported, false, "no _test on the API");
  });
  await check("its commands are registered", async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.ok(registered.has("agentThoughts.ask"), "agentThoughts.ask is registered");
    const contributed = ((ext!.packageJSON as { contributes?: { commands?: { command: string }[] } })
      .contributes?.commands ?? []).map((c) => c.command);
    const missing = contributed.filter((c) => !registered.has(c));
    if (missing.length) log(`    note: contributed but not registered: ${missing.join(", ")}`);
    return `${contributed.length - missing.length}/${contributed.length} contributed commands`;
  });
  log("smoke: passed");
}
