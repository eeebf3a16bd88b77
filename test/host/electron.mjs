#!/usr/bin/env node
// `npm run test:electron`: the same integration suite (out/integration, then the reload phases)
// in desktop VS Code through @vscode/test-electron, as the design card names it. VS Code is
//   1. AGENT_THOUGHTS_VSCODE_EXECUTABLE (the Electron binary, e.g. /usr/share/code/code), else
//   2. the desktop VS Code behind a `code` on PATH (its Electron binary, not the CLI script), else
//   3. downloaded by test-electron (AGENT_THOUGHTS_VSCODE_VERSION, default 1.100.3) into .vscode-test/.
// Offline with no desktop VS Code, the download fails: that is said in one line and the exit is 0.
// The tests that drive the workbench or webview DOM need the browser harness of
// `npm run test:integration` (test/host/runTests.mjs); here each of them is skipped with a line
// saying so. Exit code: 0 = passed (or nothing to run here), 1 = tests failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { copyWorkspace, repoRoot } from "./codeServer.mjs";

const log = (msg) => console.log(`[electron] ${msg}`);

/** The Electron binary of the desktop VS Code whose `code` CLI is on PATH, if any. */
function desktopVsCode() {
  const which = spawnSync("sh", ["-c", "command -v code"], { encoding: "utf8" });
  if (which.status !== 0 || !which.stdout.trim()) return undefined;
  let cli;
  try {
    cli = realpathSync(which.stdout.trim());
  } catch {
    return undefined;
  }
  const bin = dirname(cli); // <install>/bin (Linux, Windows) or …/Contents/Resources/app/bin (macOS)
  const candidates = [
    join(dirname(bin), "code"), // Linux: VSCode-linux-x64/code, /usr/share/code/code
    join(dirname(bin), "Code.exe"), // Windows
    join(bin, "..", "..", "..", "MacOS", "Electron"), // macOS
    join(bin, "..", "..", "..", "MacOS", "Code"),
  ];
  return candidates.find((c) => existsSync(c) && c !== cli);
}

async function vscodeExecutable() {
  const given = process.env.AGENT_THOUGHTS_VSCODE_EXECUTABLE;
  if (given) {
    if (!existsSync(given)) throw new Error(`AGENT_THOUGHTS_VSCODE_EXECUTABLE=${given} does not exist`);
    return { path: given, how: "AGENT_THOUGHTS_VSCODE_EXECUTABLE" };
  }
  const desktop = desktopVsCode();
  if (desktop) return { path: desktop, how: "the desktop VS Code on PATH" };
  const version = process.env.AGENT_THOUGHTS_VSCODE_VERSION || "1.100.3";
  const { downloadAndUnzipVSCode } = await import("@vscode/test-electron");
  try {
    return { path: await downloadAndUnzipVSCode({ version, cachePath: join(repoRoot, ".vscode-test"), timeout: 15_000 }), how: `VS Code ${version} from .vscode-test` };
  } catch (err) {
    return { error: `${err instanceof Error ? err.message : String(err)}`.split("\n")[0], version };
  }
}

const exe = await vscodeExecutable();
if (exe.error) {
  log(`cannot download VS Code ${exe.version} here (${exe.error}) and there is no desktop VS Code (set AGENT_THOUGHTS_VSCODE_EXECUTABLE); skipping. npm run test:integration runs the suite in code-server.`);
  process.exit(0);
}
for (const suite of ["integration", "reload/phase1"]) {
  if (!existsSync(join(repoRoot, "out", suite, "index.js"))) {
    console.error(`[electron] out/${suite}/index.js is missing: build first (npm run test:electron builds)`);
    process.exit(2);
  }
}
log(`running the integration suite in ${exe.how}: ${exe.path}`);

const { runTests } = await import("@vscode/test-electron");
const temp = mkdtempSync(join(tmpdir(), "agent-thoughts-electron-"));
const folder = copyWorkspace(temp);
const userDataDir = join(temp, "user-data");
mkdirSync(join(userDataDir, "User"), { recursive: true });
writeFileSync(join(userDataDir, "User", "settings.json"), JSON.stringify({
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "window.restoreWindows": "none",
  "security.workspace.trust.enabled": false,
}, null, 2));

/** One suite in a fresh VS Code window on the same workspace and window storage (reload phases share them). */
async function run(suite, mode) {
  return runTests({
    vscodeExecutablePath: exe.path,
    extensionDevelopmentPath: repoRoot,
    extensionTestsPath: join(repoRoot, "out", suite),
    launchArgs: [folder, `--user-data-dir=${userDataDir}`, `--extensions-dir=${join(temp, "extensions")}`],
    // No AGENT_THOUGHTS_SCREENSHOT_REQUESTS: no browser harness, so DOM-driving tests skip themselves.
    extensionTestsEnv: { AGENT_THOUGHTS_REPO: repoRoot, AGENT_THOUGHTS_WORKSPACE: folder, AGENT_THOUGHTS_TEST_MODE: mode },
  });
}

let code;
try {
  code = await run("integration", "integration");
  if (code === 0) code = await run("reload/phase1", "reload");
  if (code === 0) code = await run("reload/phase2", "reload");
} catch (err) {
  console.error(`[electron] ${err instanceof Error ? err.message : String(err)}`);
  code = 1;
} finally {
  if (!process.env.AGENT_THOUGHTS_KEEP_TEMP) rmSync(temp, { recursive: true, force: true });
}
log(`exit code ${code}`);
process.exit(code === 0 ? 0 : 1);
