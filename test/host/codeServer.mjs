// Installs (once) and starts code-server — real VS Code 1.100.3 (server + web workbench) whose
// extension host is a normal Node.js process — for the integration/smoke/bench harness and
// for `npm start` (which installs through ensureCodeServerQuietly: npm's output in a log file, the
// steps for the person watching). See test/host/README.md.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import {
  closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync,
  writeFileSync, writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { REQUIRED_NODE_MAJOR, checkMachine, probeMachine, requirementsReport } from "./requirements.mjs";

export const CODE_SERVER_VERSION = "4.100.3";
export const VSCODE_VERSION = "1.100.3";
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const RIPGREP_ASSET = "ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz";
const RIPGREP_CACHE = join(tmpdir(), "vscode-ripgrep-cache-1.15.11");

function log(msg) {
  console.log(`[host] ${msg}`);
}

/** Folder that holds node_modules/code-server (gitignored; override with AGENT_THOUGHTS_CODE_SERVER_DIR). */
export function installDir() {
  return process.env.AGENT_THOUGHTS_CODE_SERVER_DIR
    ? resolve(process.env.AGENT_THOUGHTS_CODE_SERVER_DIR)
    : join(repoRoot, ".vscode-test", "code-server");
}

function packageDir() {
  return join(installDir(), "node_modules", "code-server");
}

/** Written after a complete install, so an interrupted `npm install` is retried next time. */
function markerFile() {
  return join(installDir(), `.installed-${CODE_SERVER_VERSION}`);
}

function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(packageDir(), "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

export function isInstalled() {
  return installedVersion() === CODE_SERVER_VERSION && existsSync(markerFile())
    // the postinstall step (VS Code's own node_modules) ran:
    && existsSync(join(packageDir(), "lib", "vscode", "node_modules"));
}

/**
 * VS Code's @vscode/ripgrep postinstall downloads rg from GitHub unless it finds this cached asset;
 * a tarball holding the system `rg` satisfies it (offline machines).
 */
function ensureRipgrepCache(say) {
  const asset = join(RIPGREP_CACHE, RIPGREP_ASSET);
  if (existsSync(asset)) return;
  const rg = ["/usr/bin/rg", "/usr/local/bin/rg"].find((p) => existsSync(p))
    ?? spawnSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).stdout.trim();
  if (!rg) {
    say("warning: no `rg` on PATH (apt-get install ripgrep); @vscode/ripgrep will try to download it");
    return;
  }
  const stage = mkdtempSync(join(tmpdir(), "rg-stage-"));
  try {
    cpSync(rg, join(stage, "rg"));
    mkdirSync(RIPGREP_CACHE, { recursive: true });
    execFileSync("tar", ["-czf", asset, "-C", stage, "rg"]);
    say(`created ripgrep cache ${asset} from ${rg}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Where the install lock lives (a directory: mkdir is atomic) with the installer's pid inside. */
function lockDir() {
  return `${installDir()}.lock`;
}

/**
 * Takes the install lock: 0 when taken, else the pid of the process that holds it (-1 if unknown).
 * A stale lock (its installer died, or it is over 15 min old) is removed and taken.
 */
function tryLock() {
  const lock = lockDir();
  mkdirSync(dirname(lock), { recursive: true });
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, "pid"), String(process.pid));
    return 0;
  } catch (e) {
    if (e.code !== "EEXIST") throw e;
  }
  let owner = 0;
  let age = 0;
  try {
    age = Date.now() - statSync(lock).mtimeMs;
    owner = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch { /* being created or removed */ }
  if ((owner && !alive(owner)) || age > 15 * 60_000) {
    rmSync(lock, { recursive: true, force: true });
    return tryLock();
  }
  return owner || -1;
}

function unlock() {
  rmSync(lockDir(), { recursive: true, force: true });
}

/** Installs code-server@CODE_SERVER_VERSION into installDir() unless that exact version is already there. */
export function ensureCodeServer() {
  if (isInstalled()) return packageDir();
  // Parallel runs (several terminals, CI steps) must not run two `npm install`s into one folder.
  const waitStarted = Date.now();
  while (tryLock() !== 0) {
    if (Date.now() - waitStarted < 1000) log("another process is installing code-server; waiting…");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
  try {
    if (!isInstalled()) install();
  } finally {
    unlock();
  }
  return packageDir();
}

/** npm's whole output of the last install by ensureCodeServerQuietly (`npm start`). */
export function installLogFile() {
  return join(installDir(), "install.log");
}

/**
 * ensureCodeServer for a person watching (`npm start`): npm's output (warnings, compilers, downloads)
 * goes to installLogFile() instead of the terminal, each of its lines to onLine (installProgress.mjs
 * reads the step from them). onWait hears that another process holds the install lock (each second),
 * onStart that the install begins. Resolves whether it installed anything; rejects with an Error
 * carrying `logFile` when npm fails.
 * @param {{ onStart?: () => void, onLine?: (line: string) => void, onWait?: (ownerPid: number) => void }} [o]
 * @returns {Promise<boolean>}
 */
export async function ensureCodeServerQuietly({ onStart = () => {}, onLine = () => {}, onWait = () => {} } = {}) {
  if (isInstalled()) return false;
  for (let owner = tryLock(); owner !== 0; owner = tryLock()) {
    onWait(owner);
    await sleep(1000);
  }
  try {
    if (isInstalled()) return false; // the other process installed it
    onStart();
    mkdirSync(installDir(), { recursive: true });
    const logFile = installLogFile();
    const fd = openSync(logFile, "w");
    try {
      const say = (msg) => writeSync(fd, `[host] ${msg}\n`);
      const npm = prepareInstall(say);
      // Scripts in the foreground: their output (the native builds) in order, in the log; http: downloads too.
      const child = spawn(npm.command, [...npm.args, "--foreground-scripts", "--loglevel=http"], {
        cwd: npm.cwd, env: npm.env, stdio: ["ignore", "pipe", "pipe"],
      });
      let partial = "";
      const onData = (chunk) => {
        writeSync(fd, chunk);
        const lines = (partial + chunk.toString()).split(/\r?\n|\r/);
        partial = lines.pop() ?? "";
        for (const line of lines) onLine(line);
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      const status = await new Promise((resolve, reject) => {
        child.on("error", reject);
        child.on("close", (code, signal) => resolve(code ?? signal));
      });
      if (partial) onLine(partial);
      try {
        finishInstall(status);
      } catch (e) {
        throw Object.assign(e, { logFile });
      }
      say(`installed code-server ${CODE_SERVER_VERSION}`);
    } finally {
      closeSync(fd);
    }
    return true;
  } finally {
    unlock();
  }
}

/**
 * Makes installDir() ready for a fresh `npm install` and returns the command: a ripgrep cache for
 * offline machines, no half-installed node_modules, and an environment npm's scripts can build in.
 * @param {(msg: string) => void} say
 */
function prepareInstall(say) {
  const dir = installDir();
  ensureRipgrepCache(say);
  mkdirSync(dir, { recursive: true });
  rmSync(markerFile(), { force: true });
  // No marker: an interrupted or other-version install; npm would not re-run the postinstall.
  rmSync(join(dir, "node_modules"), { recursive: true, force: true });
  rmSync(join(dir, "package-lock.json"), { force: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "cs", private: true }, null, 2) + "\n");
  // Started from an npm script, the outer npm exports its whole config (prefixes, allow-scripts, …)
  // as npm_* variables; keep only user-level settings (registry, proxy, certificates, cache).
  const keep = /^npm_config_(registry|cache|cafile|ca|nodedir|proxy|https_proxy|noproxy|strict_ssl|userconfig|globalconfig|offline|prefer_offline|fetch_.*)$/i;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.test(k)));
  Object.assign(env, {
    // node-pty's postinstall runs `npx node-gyp`, which would otherwise wait for a prompt.
    npm_config_yes: "true",
    // code-server's postinstall refuses to run as root without it.
    npm_config_unsafe_perm: "true",
  });
  // node-gyp downloads Node headers unless nodedir points at installed ones (offline machines).
  const nodePrefix = dirname(dirname(process.execPath));
  if (!env.npm_config_nodedir && existsSync(join(nodePrefix, "include", "node", "common.gypi"))) {
    env.npm_config_nodedir = nodePrefix;
  }
  return {
    command: process.platform === "win32" ? "npm.cmd" : "npm",
    args: [
      "install", `code-server@${CODE_SERVER_VERSION}`, "--save-exact", "--no-audit", "--no-fund",
      // npm 11 blocks dependency install scripts by default; code-server's postinstall is required.
      "--dangerously-allow-all-scripts",
    ],
    cwd: dir,
    env,
  };
}

/** Throws unless the install that ended with `status` left a complete code-server; else writes the marker. */
function finishInstall(status) {
  if (status !== 0 || installedVersion() !== CODE_SERVER_VERSION) {
    const facts = probeMachine();
    const check = checkMachine(facts, { installing: true });
    const hint = check.ok ? "" : `\n${requirementsReport(check, facts, { codeServer: CODE_SERVER_VERSION })}`;
    throw new Error(`npm install code-server@${CODE_SERVER_VERSION} failed (exit ${status})${hint}`);
  }
  if (!existsSync(join(packageDir(), "lib", "vscode", "node_modules"))) {
    throw new Error("code-server's postinstall did not run (lib/vscode/node_modules is missing)");
  }
  writeFileSync(markerFile(), new Date().toISOString() + "\n");
}

function install() {
  const started = Date.now();
  log(`installing code-server@${CODE_SERVER_VERSION} into ${installDir()} (once; ~2 min)…`);
  if (Number(process.versions.node.split(".")[0]) !== REQUIRED_NODE_MAJOR) {
    log(`warning: code-server ${CODE_SERVER_VERSION} requires Node ${REQUIRED_NODE_MAJOR}, this is ${process.version}`);
  }
  const npm = prepareInstall(log);
  const result = spawnSync(npm.command, npm.args, { cwd: npm.cwd, env: npm.env, stdio: "inherit" });
  finishInstall(result.status);
  log(`installed code-server in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function entryPoint() {
  return join(packageDir(), "out", "node", "entry.js");
}

/** Runs the code-server CLI synchronously (e.g. --install-extension). */
export function codeServerCli(args, options = {}) {
  ensureCodeServer();
  const result = spawnSync(process.execPath, [entryPoint(), ...args], { encoding: "utf8", ...options });
  if (result.status !== 0) {
    throw new Error(`code-server ${args.join(" ")} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/** A fresh copy of test/fixtures/workspace in a temp dir, so tests can write files freely. */
export function copyWorkspace(parent = tmpdir()) {
  const dir = mkdtempSync(join(parent, "agent-thoughts-ws-"));
  const src = join(repoRoot, "test", "fixtures", "workspace");
  if (existsSync(src)) cpSync(src, dir, { recursive: true });
  return dir;
}

/** Pids of every descendant of pid (Linux /proc, else `ps`). */
function descendants(pid) {
  const children = new Map();
  try {
    if (existsSync("/proc/self/stat")) {
      for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
          const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
          if (!children.has(ppid)) children.set(ppid, []);
          children.get(ppid).push(Number(entry));
        } catch { /* exited meanwhile */ }
      }
    } else {
      const out = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" });
      for (const line of out.trim().split("\n")) {
        const [p, pp] = line.trim().split(/\s+/).map(Number);
        if (!children.has(pp)) children.set(pp, []);
        children.get(pp).push(p);
      }
    }
  } catch { /* best effort */ }
  const out = [];
  const stack = [pid];
  while (stack.length) {
    for (const c of children.get(stack.pop()) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/** Kills the process group of pid and every descendant (terminals/agents may have left the group). */
function killTree(pid, signal) {
  const pids = descendants(pid);
  try { process.kill(-pid, signal); } catch { /* gone */ }
  for (const p of [pid, ...pids]) {
    try { process.kill(p, signal); } catch { /* gone */ }
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const running = new Set();
let hooksInstalled = false;
function installExitHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", () => {
    for (const server of running) killTree(server.pid, "SIGKILL");
  });
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]]) {
    process.on(signal, () => {
      Promise.all([...running].map((s) => s.stop())).finally(() => process.exit(code));
    });
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts code-server on 127.0.0.1 (a free port unless `port` is given) and waits until it serves.
 * @param {object} o
 * @param {string} [o.folder] the folder the workbench opens (default: a fresh copy of the sample workspace)
 * @param {Record<string, unknown>} [o.settings] extra user settings
 * @param {string} [o.extensionsDir] default: a fresh empty temp dir
 * @param {string} [o.userDataDir] default: a fresh temp dir (a given one keeps its settings.json, plus ours)
 * @param {Record<string,string>} [o.env] extra environment (the extension host inherits code-server's env)
 * @param {number} [o.port]
 * @param {boolean} [o.keepTemp] keep the temp dirs after stop() (default: false; AGENT_THOUGHTS_KEEP_TEMP=1)
 * @param {boolean} [o.quiet] do not echo code-server's output (it is still kept for error reports)
 * @returns {Promise<{url: string, port: number, folder: string, userDataDir: string, extensionsDir: string,
 *   pid: number, output: () => string, stop: () => Promise<void>}>}
 */
export async function startCodeServer(o = {}) {
  ensureCodeServer();
  installExitHooks();
  const temp = mkdtempSync(join(tmpdir(), "agent-thoughts-host-"));
  const folder = o.folder ?? copyWorkspace(temp);
  const userDataDir = o.userDataDir ?? join(temp, "user-data");
  const extensionsDir = o.extensionsDir ?? join(temp, "extensions");
  mkdirSync(join(userDataDir, "User"), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const settingsFile = join(userDataDir, "User", "settings.json");
  let existing = {};
  let writeSettings = true;
  if (existsSync(settingsFile)) {
    try {
      existing = JSON.parse(readFileSync(settingsFile, "utf8"));
    } catch {
      writeSettings = false; // has comments (JSONC): leave the user's file alone
    }
  }
  if (writeSettings) {
    writeFileSync(settingsFile, JSON.stringify({
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.enableExperiments": false,
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "extensions.ignoreRecommendations": true,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "window.restoreWindows": "none",
      // code-server's extension host is a remote one: to find ports to forward it runs `ps` and
      // `ls /proc/*/fd` through a shell every 15 s, spawned from its main thread (which waits for
      // each to start). Desktop VS Code's local extension host does not; with ports found only in
      // terminal output, neither does this one (autoForwardPorts false alone still scans).
      "remote.autoForwardPorts": false,
      "remote.autoForwardPortsSource": "output",
      ...existing,
      // Otherwise a trust dialog blocks and extensions stay in restricted mode.
      "security.workspace.trust.enabled": false,
      ...o.settings,
    }, null, 2));
  }
  const configFile = join(temp, "config.yaml");
  writeFileSync(configFile, "auth: none\ncert: false\n");

  const args = [
    entryPoint(),
    "--auth", "none",
    "--bind-addr", `127.0.0.1:${o.port ?? 0}`,
    "--config", configFile,
    "--user-data-dir", userDataDir,
    "--extensions-dir", extensionsDir,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--disable-getting-started-override",
    "--ignore-last-opened",
    folder,
  ];
  const env = { ...process.env, ...o.env };
  // Our own npm-script context must not leak into the extension host / agents it spawns.
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k];
  const child = spawn(process.execPath, args, {
    cwd: folder, env, detached: true, stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let resolvePort;
  const portFound = new Promise((r) => { resolvePort = r; });
  const onData = (chunk) => {
    const text = chunk.toString();
    output += text;
    if (!o.quiet || process.env.AGENT_THOUGHTS_HOST_VERBOSE) process.stdout.write(text.replace(/^(?=.)/gm, "[code-server] "));
    const m = /HTTP server listening on https?:\/\/[^:]+:(\d+)/.exec(output);
    if (m) resolvePort(Number(m[1]));
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));

  let stopped;
  const server = {
    pid: child.pid,
    folder, userDataDir, extensionsDir,
    output: () => output,
    stop() {
      stopped ??= (async () => {
        running.delete(server);
        if (alive(child.pid)) {
          killTree(child.pid, "SIGTERM");
          const t = Date.now();
          while (Date.now() - t < 3000 && descendants(child.pid).concat(child.pid).some(alive)) await sleep(100);
          killTree(child.pid, "SIGKILL");
        }
        if (!(o.keepTemp || process.env.AGENT_THOUGHTS_KEEP_TEMP)) {
          rmSync(temp, { recursive: true, force: true, maxRetries: 3 });
        }
      })();
      return stopped;
    },
  };
  running.add(server);

  const timeoutMs = 60_000;
  const port = await Promise.race([
    portFound,
    exited.then(({ code, signal }) => { throw new Error(`code-server exited early (${code ?? signal}):\n${output}`); }),
    sleep(timeoutMs).then(() => { throw new Error(`code-server did not start within ${timeoutMs / 1000} s:\n${output}`); }),
  ]).catch(async (e) => { await server.stop(); throw e; });

  const url = `http://127.0.0.1:${port}/`;
  // Wait until it actually serves (healthz, then the workbench page).
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}healthz`);
      if (res.ok) break;
    } catch { /* not yet */ }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`code-server on ${url} did not answer /healthz:\n${output}`);
    }
    await sleep(100);
  }
  return Object.assign(server, { url, port });
}

/** vscode-remote URI for an absolute server-side path (how the web workbench names server files). */
export function remoteUri(port, absPath) {
  return `vscode-remote://127.0.0.1:${port}${encodeURI(absPath.split("\\").join("/"))}`;
}

/**
 * Workbench URL that opens folder and, via the `payload` query, loads a development extension
 * and/or runs extension tests (the same payload keys VS Code's own web tests use).
 */
export function workbenchUrl(server, { folder = server.folder, extensionDevelopmentPath, extensionTestsPath } = {}) {
  const payload = [];
  if (extensionDevelopmentPath) payload.push(["extensionDevelopmentPath", remoteUri(server.port, extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(["extensionTestsPath", remoteUri(server.port, extensionTestsPath)]);
  // AGENT_THOUGHTS_RPC_LOG (runTests.mjs): the workbench logs each message to and from the extension host.
  if (process.env.AGENT_THOUGHTS_RPC_LOG) payload.push(["logExtensionHostCommunication", "true"]);
  let url = `${server.url}?folder=${encodeURIComponent(folder)}`;
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}
