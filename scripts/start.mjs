#!/usr/bin/env node
// `npm start`: try the extension from this repo (build it first: `npm start` does).
//   node scripts/start.mjs [folder] [--port N] [--web]
// With a desktop `code` on PATH: opens an Extension Development Host on a copy of the sample
// workspace (or on folder). Otherwise (or with --web): starts code-server (VS Code 1.100.3 in the
// browser; installed once into .vscode-test/) on 127.0.0.1 with the extension loaded from the repo,
// prints the URL to open, and runs until Ctrl+C. Settings persist in .vscode-test/start-user-data.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  VSCODE_VERSION, copyWorkspace, ensureCodeServer, repoRoot, startCodeServer, workbenchUrl,
} from "../test/host/codeServer.mjs";

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

ensureCodeServer();
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
