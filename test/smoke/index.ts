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
  await check("its icon is a square PNG of 128 or 256 px in the package (the Marketplace takes no SVG)", async () => {
    const icon = (ext!.packageJSON as { icon?: unknown }).icon;
    assert.equal(typeof icon, "string", "package.json names an icon");
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(ext!.extensionUri, icon as string));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG signature");
    const [width, height] = [view.getUint32(16), view.getUint32(20)];
    assert.ok(width === height && (width === 128 || width === 256), `${width}×${height}`);
    return `${String(icon)}, ${width}×${height}`;
  });
  await check("its README can show on VS Code's extension page: images embedded or https, no link into a repository it lacks", async () => {
    const entries = await vscode.workspace.fs.readDirectory(ext!.extensionUri);
    const name = entries.map(([n]) => n).find((n) => n.toLowerCase() === "readme.md");
    assert.ok(name, "the package has a README");
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(ext!.extensionUri, name)));
    // The page's CSP loads only https: and data: images; a relative link has nothing to resolve against.
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    const relative = targets.filter((t) => !/^(https?:|mailto:|#|data:image\/(png|jpeg|gif|webp);base64,)/.test(t));
    assert.deepEqual(relative, []);
    const images = targets.filter((t) => t.startsWith("data:image/")).length;
    assert.ok(images > 0, "the screenshots are embedded");
    return `${images} embedded images, ${Math.round(text.length / 1024)} KB`;
  });
  log("smoke: passed");
}
