/**
 * How agents and their commands are started on Windows, macOS and Linux, tested on any machine:
 * which file a command names (PATH, PATHEXT, the working directory, paths with spaces), which
 * spawner runs it, and — under a simulated Windows — that cross-spawn turns a `.cmd` shim into a
 * `cmd.exe` call whose arguments are all escaped, so none reaches cmd's parser as written.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { currentHost, findCommand, planSpawn, resolveCommand, spawnCall, type CommandHost } from "../../src/acp/spawn";

/** A machine with exactly `files` on it (Windows: names ignore case, like NTFS). */
function host(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, files: string[]): CommandHost {
  const fold = (p: string): string => (platform === "win32" ? p.toLowerCase() : p);
  const have = new Set(files.map(fold));
  return { platform, env, isExecutable: (f) => have.has(fold(f)) };
}

const WIN_PATHEXT = ".COM;.EXE;.BAT;.CMD;.VBS;.JS";
const NODEJS = "C:\\Program Files\\nodejs";

describe("Starting processes on Windows", () => {
  const win = (files: string[], env: NodeJS.ProcessEnv = { Path: `${NODEJS};C:\\Windows\\system32`, PATHEXT: WIN_PATHEXT }): CommandHost => host("win32", env, files);

  it("npx (the presets' command) is npx.cmd on PATH, run by cross-spawn through cmd.exe, in no process group", () => {
    const h = win([`${NODEJS}\\npx.cmd`, `${NODEJS}\\npx`, `${NODEJS}\\node.exe`]);
    assert.deepEqual(planSpawn("npx", ["-y", "@agentclientprotocol/claude-agent-acp"], "C:\\work", h), {
      via: "cmdScript", file: `${NODEJS}\\npx.CMD`, spawner: "cross-spawn", detached: false,
    }, "the extensionless npx (a shell script for Git Bash) is not what Windows runs");
  });

  it("an .exe on PATH starts directly; PATH order beats PATHEXT order; PATHEXT order within a folder", () => {
    assert.deepEqual(planSpawn("node", [], "C:\\work", win([`${NODEJS}\\node.exe`])), { via: "direct", file: `${NODEJS}\\node.EXE`, spawner: "cross-spawn", detached: false });
    const both = win([`${NODEJS}\\tool.cmd`, "C:\\Windows\\system32\\tool.exe"]);
    assert.equal(resolveCommand("tool", "C:\\work", both), `${NODEJS}\\tool.CMD`, "the first PATH folder that has it");
    const oneFolder = win([`${NODEJS}\\tool.cmd`, `${NODEJS}\\tool.exe`]);
    assert.equal(resolveCommand("tool", "C:\\work", oneFolder), `${NODEJS}\\tool.EXE`, ".EXE comes before .CMD in PATHEXT");
  });

  it("a name with its extension is taken as is (.bat and .cmd still go through cmd.exe); an extension PATHEXT lacks is never run", () => {
    const h = win([`${NODEJS}\\build.bat`, `${NODEJS}\\notes.txt`]);
    assert.deepEqual(planSpawn("build.bat", ["x"], "C:\\work", h), { via: "cmdScript", file: `${NODEJS}\\build.bat`, spawner: "cross-spawn", detached: false });
    assert.equal(resolveCommand("notes.txt", "C:\\work", h), undefined);
  });

  it("PATH is found in any case (Windows spells it Path), quoted entries are unquoted, missing PATHEXT falls back to the usual list", () => {
    const quoted = host("win32", { pAtH: `"C:\\Program Files\\Git\\cmd";${NODEJS}` }, ["C:\\Program Files\\Git\\cmd\\git.exe", `${NODEJS}\\npx.cmd`]);
    assert.equal(resolveCommand("git", "C:\\work", quoted), "C:\\Program Files\\Git\\cmd\\git.EXE");
    assert.equal(resolveCommand("npx", "C:\\work", quoted), `${NODEJS}\\npx.CMD`, "no PATHEXT: .EXE;.CMD;.BAT;.COM");
    assert.equal(resolveCommand("npx", "C:\\work", host("win32", { PATH: "C:\\a:C:\\b" }, ["C:\\b\\npx.cmd"])), undefined, "':' is not a PATH separator on Windows");
  });

  it("the working folder (the workspace) is never searched for a bare name: a repository's npx.cmd does not become the agent", () => {
    const h = win([`${NODEJS}\\npx.cmd`, "C:\\work\\npx.cmd", "C:\\work\\gemini.cmd"]);
    assert.equal(resolveCommand("npx", "C:\\work", h), `${NODEJS}\\npx.CMD`);
    assert.equal(resolveCommand("gemini", "C:\\work", h), undefined, "found only in the workspace: not found");
    assert.equal(resolveCommand(".\\gemini", "C:\\work", h), "C:\\work\\gemini.CMD", "asked for by its path, it is used");
    // Not found: Node's spawn must not get the bare name (libuv would look in the workspace first).
    const [file] = spawnCall(planSpawn("gemini", ["--acp"], "C:\\work", h), "gemini", ["--acp"], { cwd: "C:\\work", env: h.env, stdio: "pipe", platform: "win32" });
    assert.match(file, /[\\/]agent-thoughts-command-not-found\\gemini$/);
    assert.ok(!file.toLowerCase().startsWith("c:\\work"), file);
  });

  it("paths, absolute or relative, with spaces or forward slashes, are not looked up on PATH", () => {
    const h = win(["C:\\Program Files\\My Agent\\agent.exe", "C:\\Tools\\agent.cmd", "C:\\work\\bin\\run.bat", `${NODEJS}\\agent.exe`]);
    assert.deepEqual(planSpawn("C:\\Program Files\\My Agent\\agent.exe", ["--acp"], "C:\\work", h), { via: "direct", file: "C:\\Program Files\\My Agent\\agent.exe", spawner: "cross-spawn", detached: false });
    assert.deepEqual(planSpawn("C:/Tools/agent", [], "C:\\work", h), { via: "cmdScript", file: "C:\\Tools\\agent.CMD", spawner: "cross-spawn", detached: false });
    assert.equal(resolveCommand(".\\bin\\run", "C:\\work", h), "C:\\work\\bin\\run.BAT");
    assert.equal(resolveCommand("bin/run.bat", "C:\\work", h), "C:\\work\\bin\\run.bat");
    assert.equal(resolveCommand("D:\\agent", "C:\\work", h), undefined, "another drive is not PATH");
  });

  it("a command found nowhere goes to Node's spawn (which reports ENOENT); a shell line goes to Node's shell", () => {
    assert.deepEqual(planSpawn("claude-agent-acp", [], "C:\\work", win([])), { via: "direct", file: undefined, spawner: "node", detached: false });
    assert.deepEqual(planSpawn("npm test && echo ok", undefined, "C:\\work", win([`${NODEJS}\\npm.cmd`])), { via: "shell", file: undefined, spawner: "node", detached: false });
  });

  it("cross-spawn is given the file found, the arguments as a list, no shell, a hidden window", () => {
    const h = win([`${NODEJS}\\npx.cmd`]);
    const args = ["-y", "@zed-industries/codex-acp"];
    const plan = planSpawn("npx", args, "C:\\work", h);
    const [file, argv, options] = spawnCall(plan, "npx", args, { cwd: "C:\\work", env: h.env, stdio: "pipe" });
    assert.equal(file, `${NODEJS}\\npx.CMD`);
    assert.deepEqual(argv, args);
    assert.equal(options.shell, false, "cross-spawn escapes the arguments only when it is not told to use a shell");
    assert.equal(options.detached, false);
    assert.equal(options.windowsHide, true);
  });
});

describe("Starting processes on macOS and Linux", () => {
  const mac = (files: string[], env: NodeJS.ProcessEnv = { PATH: "/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin" }): CommandHost => host("darwin", env, files);

  it("npx is the first executable on PATH, started directly by Node in a process group of its own", () => {
    const h = mac(["/usr/local/bin/npx", "/opt/homebrew/bin/npx"]);
    assert.deepEqual(planSpawn("npx", ["-y", "x"], "/Users/me/proj", h), { via: "direct", file: "/opt/homebrew/bin/npx", spawner: "node", detached: true });
  });

  it("no PATHEXT, no working-folder lookup, PATH is spelled PATH", () => {
    assert.equal(resolveCommand("npx", "/Users/me/proj", mac(["/usr/bin/npx.cmd"], { PATH: "/usr/bin", PATHEXT: ".CMD" })), undefined);
    assert.equal(resolveCommand("npx", "/Users/me/proj", mac(["/Users/me/proj/npx"])), undefined);
    assert.equal(resolveCommand("npx", "/Users/me/proj", mac(["/usr/bin/npx"], { Path: "/usr/bin" })), undefined);
    assert.equal(resolveCommand("npx", "/Users/me/proj", mac(["/usr/bin/npx"], { PATH: "C:\\x;/usr/bin" })), undefined, "';' is not a PATH separator here");
  });

  it("an app bundle path with spaces is one file, relative paths are taken from the working folder", () => {
    const agent = "/Applications/My Agent.app/Contents/MacOS/agent";
    const h = mac([agent, "/Users/me/proj/bin/agent"]);
    assert.deepEqual(planSpawn(agent, ["--acp"], "/Users/me/proj", h), { via: "direct", file: agent, spawner: "node", detached: true });
    assert.equal(resolveCommand("./bin/agent", "/Users/me/proj", h), "/Users/me/proj/bin/agent");
    assert.equal(resolveCommand("bin\\agent", "/Users/me/proj", h), undefined, "a backslash is part of a file name here");
  });

  it("Node gets the command as written (execvp finds the same file) and the group flag; a shell line keeps its shell", () => {
    const h = mac(["/opt/homebrew/bin/npx"]);
    const [file, argv, options] = spawnCall(planSpawn("npx", ["-y", "a b"], "/p", h), "npx", ["-y", "a b"], { cwd: "/p", env: h.env, stdio: "pipe" });
    assert.deepEqual([file, argv, options.shell, options.detached], ["npx", ["-y", "a b"], false, true]);
    const [line, none, shellOptions] = spawnCall(planSpawn("ls | wc -l", undefined, "/p", h), "ls | wc -l", undefined, { cwd: "/p", env: h.env, stdio: "pipe" });
    assert.deepEqual([line, none, shellOptions.shell, shellOptions.detached], ["ls | wc -l", [], true, true]);
  });
});

describe("cross-spawn under a simulated Windows", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "at-spawn-"));
    writeFileSync(path.join(dir, "npx.cmd"), "@echo off\r\n");
    writeFileSync(path.join(dir, "agent.exe"), "");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * What cross-spawn hands to Node's spawn for our call, computed in a Node whose platform says
   * win32 from the start (cross-spawn and `which` read it when loaded).
   */
  function crossSpawnParse(call: ReturnType<typeof spawnCall>): { command: string; args: string[]; options: { shell?: unknown; windowsVerbatimArguments?: boolean } } {
    const script = `
      Object.defineProperty(process, "platform", { value: "win32" });
      const parse = require(require.resolve("cross-spawn", { paths: [process.cwd()] }))._parse;
      const [file, args, options] = JSON.parse(process.argv[1]);
      const p = parse(file, args, options);
      process.stdout.write(JSON.stringify({ command: p.command, args: p.args, options: p.options }));`;
    const env: NodeJS.ProcessEnv = { ...process.env, PATHEXT: ".COM;.EXE;.BAT;.CMD" };
    delete env.ComSpec;
    delete env.comspec;
    const out = execFileSync(process.execPath, ["-e", script, JSON.stringify(call)], { cwd: path.resolve(__dirname, "../.."), env, encoding: "utf8" });
    return JSON.parse(out) as ReturnType<typeof crossSpawnParse>;
  }

  /** Our plan on a Windows machine, with the file moved to where this simulated one has it. */
  const planHere = (command: string, args: string[], file: string): ReturnType<typeof planSpawn> => {
    const plan = planSpawn(command, args, "C:\\work", host("win32", { PATH: NODEJS }, [`${NODEJS}\\npx.cmd`, `${NODEJS}\\agent.exe`]));
    assert.equal(plan.spawner, "cross-spawn");
    return { ...plan, file: path.join(dir, file) };
  };

  it("a .cmd shim runs as cmd.exe /d /s /c with every argument quoted and cmd's metacharacters escaped", () => {
    const args = ["-y", "@scope/agent", "a&calc", "x|y", "\"quoted\"", "100%"];
    const plan = planHere("npx", args, "npx.cmd");
    assert.equal(plan.via, "cmdScript");
    const p = crossSpawnParse(spawnCall(plan, "npx", args, { cwd: dir, env: { PATH: dir }, stdio: "pipe" }));
    assert.equal(p.command, "cmd.exe");
    assert.deepEqual(p.args.slice(0, 3), ["/d", "/s", "/c"]);
    assert.equal(p.options.windowsVerbatimArguments, true, "Node must not quote the line a second time");
    const line = p.args[3]!;
    assert.ok(line.includes(`${path.join(dir, "npx.cmd")}`.replace(/([()\][%!^"`<>&|;, *?])/g, "^$1")), line);
    for (const [raw, escaped] of [["a&calc", '^"a^&calc^"'], ["x|y", '^"x^|y^"'], ['"quoted"', '^"\\^"quoted\\^"^"'], ["100%", '^"100^%^"']] as const) {
      assert.ok(line.includes(escaped), `${raw} reaches cmd.exe as ${escaped}: ${line}`);
    }
    assert.ok(!/(^|[^^])&/.test(line) && !/(^|[^^])\|/.test(line), `no unescaped & or | in ${line}`);
  });

  it("an .exe is started as itself with the arguments untouched", () => {
    const args = ["--acp", "a&b"];
    const plan = planHere("agent", args, "agent.exe");
    assert.equal(plan.via, "direct");
    const p = crossSpawnParse(spawnCall(plan, "agent", args, { cwd: dir, env: { PATH: dir }, stdio: "pipe" }));
    assert.equal(p.command, path.join(dir, "agent.exe"));
    assert.deepEqual(p.args, args);
    assert.equal(p.options.windowsVerbatimArguments, undefined);
  });
});

describe("Looking for a command without blocking (Add Agent's detection)", function () {
  if (process.platform === "win32") return;
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "find-command-"));
    for (const sub of ["a", "b"]) mkdirSync(path.join(dir, sub));
    const put = (file: string, mode: number): void => { writeFileSync(path.join(dir, file), "#!/bin/sh\n"); chmodSync(path.join(dir, file), mode); };
    put("a/agent", 0o644); // not executable: skipped, as execvp skips it
    put("b/agent", 0o755);
    put("b/other", 0o755);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the same file as the spawn will run: the first executable on PATH", async () => {
    const env = { PATH: [path.join(dir, "a"), path.join(dir, "b")].join(path.delimiter) };
    assert.equal(await findCommand("agent", dir, env), path.join(dir, "b", "agent"));
    assert.equal(await findCommand("agent", dir, env), resolveCommand("agent", dir, currentHost(env)));
    assert.equal(await findCommand("missing", dir, env), undefined);
    assert.equal(await findCommand("./b/other", dir, { PATH: "" }), path.join(dir, "b", "other"), "a relative path is taken from the folder the agent starts in");
    assert.equal(await findCommand("", dir, env), undefined);
  });
});
