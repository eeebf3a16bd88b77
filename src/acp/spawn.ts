/**
 * How every agent and every command an agent runs is started and how its process tree is ended,
 * on every OS. The one place that calls a spawner:
 * - POSIX: Node's `spawn`, `detached`, so the child leads a process group of its own that
 *   `ProcessGroup` signals as a whole (`kill(-pgid)`).
 * - Windows: `cross-spawn`. Since Node 20.12 `spawn` refuses `.cmd` and `.bat` files without a
 *   shell (CVE-2024-27980), and `npx`, `npm` and most agents installed by npm are `.cmd` shims.
 *   cross-spawn runs such a script through `cmd.exe` with every argument escaped for cmd's own
 *   parser, which is subtle enough (`^` escapes, doubled for `node_modules\.bin` shims, verbatim
 *   arguments) that a maintained library is safer than our own quoting. An `.exe` starts
 *   directly. There are no process groups: trees are ended with `tree-kill` (`taskkill /T /F`).
 *
 * Which file a command names is decided here (`resolveCommand`, `planSpawn`; `findCommand`, the
 * same without blocking, for Add Agent's detection), purely from the platform, PATH, PATHEXT and
 * the working directory, so the Windows and macOS rules are testable anywhere. A bare name is
 * looked up on PATH only — never in the working directory (the workspace) first, as Windows,
 * cross-spawn and `which` would — with each PATHEXT extension on Windows (a name that has one of
 * them is also tried as is), as `execvp` does on POSIX.
 * On Windows the file found is what cross-spawn is given, so the file logged is the file that runs.
 */
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { readFileSync, statSync, writeFileSync, type Stats } from "node:fs";
import { constants as osConstants, getPriority, setPriority } from "node:os";
import { stat } from "node:fs/promises";
import * as nodePath from "node:path";
import crossSpawn from "cross-spawn";
import treeKill from "tree-kill";

/** What decides how a command is found: injected so Windows and macOS can be tested anywhere. */
export interface CommandHost {
  platform: NodeJS.Platform;
  /** The child's environment (PATH, PATHEXT). */
  env: NodeJS.ProcessEnv;
  /** Whether `file` (absolute) is a file that can be run (POSIX: has an execute bit). */
  isExecutable(file: string): boolean;
}

/** PATHEXT when the environment has none (the value `which` and cross-spawn fall back to). */
const DEFAULT_PATHEXT = ".EXE;.CMD;.BAT;.COM";

/** Files Windows starts directly; anything else found on PATH (`.cmd`, `.bat`) needs cmd.exe. */
const WINDOWS_EXECUTABLE = /\.(?:com|exe)$/i;

/** The value of `name` in `env`: Windows variable names ignore case (`Path` is PATH). */
export function envValue(env: NodeJS.ProcessEnv, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== "win32") return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

/**
 * The files `command` may name, in the order they are tried. A command with a directory part
 * (`./bin/agent`, `C:\Tools\agent`, `/opt/My Agent/agent`) is taken relative to `cwd`; a bare
 * name is looked up on PATH only — never in `cwd` first, as Windows' own search would: the
 * working folder is the workspace, and a repository holding `npx.cmd` or `gemini.cmd` must not
 * become the agent (as with NoDefaultCurrentDirectoryInExePath) — with each PATHEXT extension
 * appended on Windows (`npx` finds `npx.cmd`).
 */
export function commandCandidates(command: string, cwd: string, host: Pick<CommandHost, "platform" | "env">): string[] {
  const win = host.platform === "win32";
  const api = win ? nodePath.win32 : nodePath.posix;
  if (command === "") return [];
  const hasDir = win ? /[\\/]|^[a-z]:/i.test(command) : command.includes("/");
  const pathDirs = (envValue(host.env, "PATH", host.platform) ?? "")
    .split(api.delimiter)
    .map((d) => (win && /^".*"$/.test(d) ? d.slice(1, -1) : d))
    .filter((d) => d !== "");
  const dirs = hasDir ? [""] : pathDirs;
  const exts = win
    ? (envValue(host.env, "PATHEXT", host.platform) || DEFAULT_PATHEXT).split(";").filter((e) => e !== "")
    : [];
  const hasKnownExt = exts.some((e) => command.toLowerCase().endsWith(e.toLowerCase()));
  return dirs.flatMap((dir) => {
    const base = api.resolve(cwd, dir, command);
    return win ? [...(hasKnownExt ? [base] : []), ...exts.map((e) => base + e)] : [base];
  });
}

/** The absolute file that `command` names (see `commandCandidates`), or undefined when there is none. */
export function resolveCommand(command: string, cwd: string, host: CommandHost): string | undefined {
  return commandCandidates(command, cwd, host).find((c) => host.isExecutable(c));
}

/**
 * `resolveCommand` without blocking: the same rules, the files looked at with asynchronous
 * `stat`s, so a slow PATH entry (a network share) never freezes the extension host.
 */
export async function findCommand(command: string, cwd: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const candidates = commandCandidates(command, cwd, { platform, env });
  const ok = await Promise.all(candidates.map(async (file) => {
    try {
      return runnable(await stat(file), platform);
    } catch {
      return false;
    }
  }));
  const i = ok.indexOf(true);
  return i < 0 ? undefined : candidates[i];
}

/** How a process will be started (see the file comment). */
export interface SpawnPlan {
  /**
   * `direct`: the file itself, its arguments passed as a list (no shell sees them);
   * `cmdScript`: a Windows `.cmd`/`.bat` file, run by cross-spawn through `cmd.exe /d /s /c` with
   * every argument escaped; `shell`: a command line for the shell (an agent's terminal command
   * given without arguments, which it means as a shell line).
   */
  via: "direct" | "cmdScript" | "shell";
  /** The file found, or undefined (for `shell`, or when nothing was found: the spawn reports ENOENT). */
  file: string | undefined;
  spawner: "cross-spawn" | "node";
  /** POSIX: the child leads its own process group, which is how its descendants are ended. */
  detached: boolean;
}

/** How `command` will be started on `host.platform`; `args` undefined means a shell command line. */
export function planSpawn(command: string, args: readonly string[] | undefined, cwd: string, host: CommandHost): SpawnPlan {
  const win = host.platform === "win32";
  const detached = !win;
  // Node's own shell handling (`cmd.exe /d /s /c` on Windows): cross-spawn would report every
  // shell line that exits with 1 as a missing command.
  if (args === undefined) return { via: "shell", file: undefined, spawner: "node", detached };
  const file = resolveCommand(command, cwd, host);
  if (!win || file === undefined) {
    // Nothing found on Windows: Node's spawn reports ENOENT at once, where cmd.exe would start
    // and only its exit code would say so.
    return { via: "direct", file, spawner: "node", detached };
  }
  return { via: WINDOWS_EXECUTABLE.test(file) ? "direct" : "cmdScript", file, spawner: "cross-spawn", detached };
}

/** Whether a file can be run: a file, with an execute bit on POSIX. */
function runnable(st: Stats, platform: NodeJS.Platform): boolean {
  return st.isFile() && (platform === "win32" || (st.mode & 0o111) !== 0);
}

/** The host this process runs on. */
export function currentHost(env: NodeJS.ProcessEnv): CommandHost {
  const platform = process.platform;
  return {
    platform,
    env,
    isExecutable(file) {
      try {
        return runnable(statSync(file), platform);
      } catch {
        return false;
      }
    },
  };
}

export interface StartOptions {
  cwd: string;
  /** Defaults to this process's platform. */
  platform?: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  stdio: SpawnOptions["stdio"];
  /** `low`: the process (and what it starts) runs below the editor's CPU priority (`LowShare`). */
  priority?: ProcessPriority;
}

/** An agent's CPU priority: `low` yields the CPU to the editor when both want it; `normal` is the OS default. */
export type ProcessPriority = "low" | "normal";

/**
 * Puts process `pid` below the editor's CPU priority: nice 10 (Windows: below normal), or the
 * editor's own if that is lower still; what it starts inherits it. Throws what the OS refuses.
 */
export function belowEditor(pid: number): void {
  setPriority(pid, Math.max(osConstants.priority.PRIORITY_BELOW_NORMAL, getPriority()));
}

/**
 * The CPU share of a process started below the editor's priority. Starting, it goes below normal
 * (nice 10, or the editor's own if that is lower still; Windows: below normal), which what it
 * starts inherits. On Linux a process that leads a session of its own (ours are `detached`) is
 * also an autogroup of its own, which the scheduler weighs like the editor's whole session
 * whatever its nice value: its autogroup gets AUTOGROUP_NICE. Best effort: what the OS refuses is
 * reported (`refused`), the process runs anyway.
 *
 * While it stops (the user pressed Stop: `stopping()`), and for a moment after the user answered
 * its permission request or question (`answered()`), its autogroup has the editor's share
 * instead: an agent that keeps a CPU busy at the lowest share read the cancel only when the
 * editor left it a core (13-295 ms with ten agents streaming). Linux lets a user raise an
 * autogroup back up to nice 0 (unlike a process's nice value), so this needs no privilege. Each
 * stop ends by STOP_SHARE_MS at the latest, so an agent that ignores the cancel keeps the
 * editor's share no longer. Elsewhere stopping changes nothing (a process's priority cannot be
 * raised back there without privilege; Windows could, untested).
 */
export class LowShare {
  readonly refused: string[] = [];
  private raises = 0;
  private retry: NodeJS.Timeout | undefined;
  private triesLeft = AUTOGROUP_TRIES;

  constructor(private readonly pid: number, private readonly alive: () => boolean = () => true) {
    try {
      belowEditor(pid);
    } catch (err) {
      this.refused.push(`priority: ${err instanceof Error ? err.message : String(err)}`);
    }
    const problem = this.applyAutogroup();
    if (problem) this.refused.push(problem);
  }

  /** A stop begins: the editor's share until the returned `end` (or STOP_SHARE_MS). */
  stopping(): () => void {
    return this.raise(STOP_SHARE_MS);
  }

  /**
   * The user answered the agent's permission request or question: the editor's share for
   * ANSWER_SHARE_MS, so an agent waiting at the lowest share reads the answer when it comes, not
   * when the editor leaves it a core.
   */
  answered(): void {
    this.raise(ANSWER_SHARE_MS);
  }

  /** The editor's share until the returned `end`, or `ms` at the latest. */
  private raise(ms: number): () => void {
    if (process.platform !== "linux") return () => undefined;
    this.raises++;
    if (this.raises === 1) this.reapply();
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.raises--;
      if (this.raises === 0) this.reapply();
    };
    const timer = setTimeout(end, ms);
    timer.unref();
    return end;
  }

  private reapply(): void {
    if (!this.alive()) return;
    this.triesLeft = AUTOGROUP_TRIES;
    this.applyAutogroup();
  }

  /**
   * Writes the autogroup nice wanted now. Linux refuses a user's autogroup nice more often than
   * every 100 ms, machine-wide (EAGAIN): tried again a little later with whatever is wanted then.
   */
  private applyAutogroup(): string | undefined {
    if (process.platform !== "linux" || this.retry) return undefined;
    try {
      // Only a session leader's autogroup is its own; anyone else's is the editor's.
      const stat = readFileSync(`/proc/${this.pid}/stat`, "utf8");
      const session = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
      if (session === this.pid) writeFileSync(`/proc/${this.pid}/autogroup`, String(this.raises > 0 ? editorAutogroupNice() : AUTOGROUP_NICE));
      return undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Going back down is retried for as long as it takes (else a stopped agent would keep the
      // editor's share); going up only a few times (a raise is over within STOP_SHARE_MS anyway).
      if (code === "EAGAIN" && (this.raises === 0 || this.triesLeft > 0)) {
        this.triesLeft--;
        this.retry = setTimeout(() => {
          this.retry = undefined;
          if (this.alive()) this.applyAutogroup();
        }, AUTOGROUP_RETRY_MS + Math.random() * AUTOGROUP_RETRY_MS);
        this.retry.unref();
        return undefined;
      }
      // No autogroups in this kernel (ENOENT), or gone already: the nice value is what counts there.
      return code === "ENOENT" || code === "ESRCH" ? undefined : `autogroup: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
}

/** The editor's own autogroup nice (the one this extension host runs in); 0 when unknown. */
function editorAutogroupNice(): number {
  try {
    const m = /nice\s+(-?\d+)/.exec(readFileSync("/proc/self/autogroup", "utf8"));
    return m ? Math.max(0, Number(m[1])) : 0;
  } catch {
    return 0;
  }
}

/** The longest a stopping agent keeps the editor's share (see LowShare). */
const STOP_SHARE_MS = 3_000;
/**
 * How long an agent keeps the editor's share once the user answered its question (see
 * LowShare.answered): long enough to be given a CPU and read the answer, short enough that what
 * it then does runs below the editor again.
 */
const ANSWER_SHARE_MS = 500;

/**
 * An agent's autogroup: the lowest share. The scheduler shares the CPU between autogroups by
 * weight, the editor's whole session (workbench, extension host) being one of nice 0 (1024): at
 * nice 10 (110) ten agents outweighed it; at 19 (15) they weigh 150 together. They still get every
 * core the editor leaves idle. With ten agents streaming on two cores, against nice 10 in
 * alternating runs: picks p95 56-94 ms (was 77-221), panel frames over 50 ms 3-13 (21-44). The
 * price: while the editor is busy too, an agent that keeps a CPU busy gets to its input later,
 * so a stopping agent gets the editor's share back (LowShare.stopping: Stop reached the flooding
 * bench agent in 6-130 ms, under 100 ms in 20 runs of 22; 78-261 ms, one run of five, without).
 */
const AUTOGROUP_NICE = 19;

/** Linux refuses a user's autogroup nice more often than every 100 ms (EAGAIN): tried again this long after, a few times. */
const AUTOGROUP_RETRY_MS = 110;
const AUTOGROUP_TRIES = 20;

/**
 * The arguments for the spawner `plan` names. POSIX gets the command as given (execvp finds it
 * the same way); Windows gets the file found, so cross-spawn runs exactly that file. `shell`
 * stays false unless the plan is a shell line, so cross-spawn escapes the arguments itself.
 */
export function spawnCall(plan: SpawnPlan, command: string, args: readonly string[] | undefined, options: StartOptions): [string, string[], SpawnOptions] {
  const spawnOptions: SpawnOptions = { cwd: options.cwd, env: options.env, stdio: options.stdio, detached: plan.detached, windowsHide: true, shell: plan.via === "shell" };
  if (plan.via === "shell") return [command, [], spawnOptions];
  if (plan.file === undefined && (options.platform ?? process.platform) === "win32" && !/[\\/:]/.test(command)) {
    // Found nowhere on PATH: Node's spawn (libuv) would look in `cwd` (the workspace) first for a
    // bare name; a path where nothing can be makes it report ENOENT without looking there.
    return [nodePath.win32.join(MISSING_COMMANDS_DIR, command), [...(args ?? [])], spawnOptions];
  }
  return [plan.spawner === "cross-spawn" && plan.file !== undefined ? plan.file : command, [...(args ?? [])], spawnOptions];
}

/** A folder that does not exist, beside the extension's own code (not in any workspace). */
const MISSING_COMMANDS_DIR = nodePath.join(__dirname, "agent-thoughts-command-not-found");

/**
 * Starts an agent or an agent's command (`args` undefined: `command` is a shell line). Errors
 * (ENOENT and the like) arrive as the child's `error` event, as with Node's `spawn`. `refused`:
 * what of a `low` priority the OS did not allow.
 */
export function startProcess(command: string, args: readonly string[] | undefined, options: StartOptions): { proc: ChildProcess; plan: SpawnPlan; refused: string[]; share?: LowShare } {
  const plan = planSpawn(command, args, options.cwd, currentHost(options.env));
  const [file, argv, spawnOptions] = spawnCall(plan, command, args, options);
  const proc = plan.spawner === "cross-spawn" ? crossSpawn(file, argv, spawnOptions) : nodeSpawn(file, argv, spawnOptions);
  if (options.priority !== "low" || proc.pid === undefined) return { proc, plan, refused: [] };
  const share = new LowShare(proc.pid, () => proc.exitCode === null && proc.signalCode === null);
  return { proc, plan, refused: share.refused, share };
}

/** Ends the process tree below and including `pid`; `done` hears whether that failed. */
export type KillTree = (pid: number, signal: NodeJS.Signals, done: (err?: Error) => void) => void;

/** Windows: `taskkill /pid … /T /F` through tree-kill (Windows has no gentle signal; `signal` is ignored there). */
export const killProcessTree: KillTree = (pid, signal, done) => treeKill(pid, signal, done);
