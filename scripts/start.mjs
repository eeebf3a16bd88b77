#!/usr/bin/env node
// `npm start`: try the extension from this repo (build it first: `npm start` does).
//   node scripts/start.mjs [folder] [--port N] [--web]
// With a desktop `code` on PATH: opens an Extension Development Host on a copy of the sample
// workspace (or on folder). Otherwise (or with --web): starts code-server (VS Code 1.100.3 in the
// browser; installed once into .vscode-test/) on 127.0.0.1 with the extension loaded from the repo,
// prints the URL to open, and runs until Ctrl+C. Settings persist in .vscode-test/start-user-data.
// Before installing code-server it checks the machine (test/host/requirements.mjs) and says what to
// install; while installing it shows the step and the time, with npm's own output in a log file.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  CODE_SERVER_VERSION, VSCODE_VERSION, copyWorkspace, ensureCodeServerQuietly, installDir, installLogFile,
  isInstalled, repoRoot, startCodeServer, workbenchUrl,
} from "../test/host/codeServer.mjs";
import {
  INITIAL_INSTALL_STATE, formatElapsed, failureExcerpt, progressText, readInstallLine, stepText,
} from "../test/host/installProgress.mjs";
import { checkMachine, probeMachine, requirementsReport } from "../test/host/requirements.mjs";

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, value] = args.splice(i, 2);
  return value;
};
const web = args.includes("--web") || Boolean(process.env.AGENT_THOUGHTS_WEB);
if (args.includes("--web")) args.splice(args.indexOf("--web"), 1);
const port = Number(flag("--port") ?? process.env.AGENT_THOUGHTS_PORT ?? 0);
const folder = args[0] ? resolve(args[0]) : undefined;
if (folder && !existsSync(folder)) {
  console.error(`no such folder: ${folder}`);
  process.exit(2);
}
if (!existsSync(join(repoRoot, "dist", "extension.js"))) {
  console.error("dist/extension.js is missing — run `node scripts/build.mjs` (or `npm start`) first");
  process.exit(2);
}

function hasDesktopCode() {
  const which = spawnSync("sh", ["-c", "command -v code"], { encoding: "utf8" });
  return which.status === 0 && which.stdout.trim() !== "";
}

if (!web && hasDesktopCode()) {
  const workspace = folder ?? copyWorkspace();
  console.log(`Opening an Extension Development Host on ${workspace}`);
  const r = spawnSync("code", [`--extensionDevelopmentPath=${repoRoot}`, workspace], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}

/**
 * Installs code-server (once) showing what it does: on a terminal one live line with the step and the
 * time, elsewhere a line per step and one every 30 s. npm's output goes to the log, shown on failure.
 */
async function installCodeServer() {
  const out = process.stdout;
  const started = Date.now();
  let state = INITIAL_INSTALL_STATE;
  let shownStep = -1;
  let lastLine = 0;
  let lastDraw = 0;
  let waiting = false;
  const draw = () => {
    const elapsed = Date.now() - started;
    if (out.isTTY) {
      if (state.step === shownStep && Date.now() - lastDraw < 100) return; // downloads come by the hundred
      out.write(`\r\x1b[2K${progressText(state, elapsed, (out.columns || 80) - 1)}`);
      lastDraw = Date.now();
    } else if (state.step !== shownStep || Date.now() - lastLine >= 30_000) {
      out.write(`${progressText({ ...state, detail: "" }, elapsed)}\n`);
      lastLine = Date.now();
    }
    shownStep = state.step;
  };
  const endLine = () => { if (out.isTTY) out.write("\r\x1b[2K"); };
  let timer;
  try {
    const installed = await ensureCodeServerQuietly({
      onWait: (owner) => {
        if (waiting) return;
        waiting = true;
        console.log(`Another process${owner > 0 ? ` (pid ${owner})` : ""} is installing VS Code for the browser; waiting for it…`);
      },
      onStart: () => {
        console.log(`Installing VS Code ${VSCODE_VERSION} for the browser (code-server ${CODE_SERVER_VERSION}, about 300 MB) `
          + `into ${installDir()}.\nThis happens once and takes a few minutes; npm's output goes to ${installLogFile()}.`);
        draw();
        timer = setInterval(draw, 1000);
      },
      onLine: (line) => {
        const next = readInstallLine(state, line);
        if (next !== state) {
          state = next;
          draw();
        }
      },
    });
    clearInterval(timer);
    endLine();
    if (installed) console.log(`Installed VS Code ${VSCODE_VERSION} for the browser in ${formatElapsed(Date.now() - started)}.`);
  } catch (e) {
    clearInterval(timer);
    endLine();
    const logFile = e.logFile;
    let tail = [];
    try {
      if (logFile) tail = failureExcerpt(readFileSync(logFile, "utf8"));
    } catch { /* no log */ }
    console.error(`Installing VS Code for the browser failed after ${formatElapsed(Date.now() - started)}, at ${stepText(state.step === 0 ? { ...state, detail: "" } : state)}.`);
    if (tail.length > 0) console.error(`\nWhat npm said:\n${tail.map((l) => `  ${l}`).join("\n")}`);
    console.error(`\n${e.message}`);
    if (logFile) console.error(`\nThe whole log: ${logFile}`);
    process.exit(1);
  }
}

const facts = probeMachine();
const check = checkMachine(facts, { installing: !isInstalled() });
if (!check.ok) {
  console.error(requirementsReport(check, facts, { codeServer: CODE_SERVER_VERSION, start: true }));
  process.exit(1);
}
await installCodeServer();
console.log("Starting VS Code…");
const userDataDir = join(repoRoot, ".vscode-test", "start-user-data");
mkdirSync(userDataDir, { recursive: true });
const server = await startCodeServer({
  folder, // default: a fresh copy of test/fixtures/workspace
  port,
  userDataDir,
  extensionsDir: join(repoRoot, ".vscode-test", "start-extensions"),
  quiet: true,
  env: { AGENT_THOUGHTS_REPO: repoRoot },
});
const url = workbenchUrl(server, { extensionDevelopmentPath: repoRoot });
console.log(`
Agent Thoughts is running in VS Code ${VSCODE_VERSION} (code-server) with the extension from
${repoRoot}
on the workspace ${server.folder}

Open this URL in a browser (same machine, or forward port ${server.port}):

  ${url}

Rebuild with \`npm run watch\` in another terminal and reload the window (Developer: Reload Window).
Settings (e.g. agentThoughts.agents) persist in ${userDataDir}.
Press Ctrl+C to stop.`);
// codeServer.mjs stops code-server on Ctrl+C / SIGTERM; stay alive until then or until it dies.
const timer = setInterval(() => {
  try {
    process.kill(server.pid, 0);
  } catch {
    console.error("code-server exited:\n" + server.output().split("\n").slice(-20).join("\n"));
    clearInterval(timer);
    process.exit(1);
  }
}, 1000);
