/**
 * The process groups of everything we spawn (agents, the commands they run in terminals), and how
 * they end: SIGTERM to the whole group, SIGKILL to whatever is left after a grace period, and a
 * check that nothing of the group runs any more — also when the group's leader (the agent, or the
 * shell of a command) has already exited and only its children (`cmd &`, an agent's helpers) remain.
 *
 * On POSIX every child is spawned `detached`, so it leads a process group of its own that its
 * children inherit. Not covered: a process that leaves the group (setsid, daemonising) is not
 * found. On Windows there are no groups: the leader's tree is ended with `taskkill /T /F` while the
 * leader runs; children whose parent already exited cannot be found there.
 *
 * Every group is tracked from spawn until it is seen empty, so `terminateAllGroups` (extension
 * shutdown) can end whatever is still running. A group seen empty is never signalled again, so a
 * recycled process id is never hit.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** How long a group gets to exit after SIGTERM before SIGKILL. */
export const DEFAULT_GRACE_MS = 1500;
/** How long to wait for the kernel to finish a SIGKILLed group. */
const KILL_WAIT_MS = 1000;
const POLL_MS = 25;

const tracked = new Set<ProcessGroup>();

/** Whether a non-zombie process of group `pgid` exists (Linux: zombies wait for their reaper and run nothing). */
function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  let pids: string[];
  try {
    pids = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
  }
  return false;
}

export class ProcessGroup {
  private done: boolean;
  private ending: Promise<void> | undefined;
  private killNow: (() => void) | undefined;

  constructor(private readonly proc: ChildProcess) {
    this.done = proc.pid === undefined;
    if (!this.done) tracked.add(this);
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  private get leaderRuns(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Whether any process of the group still runs (the leader, or what it left behind). */
  get running(): boolean {
    if (this.done) return false;
    const runs = process.platform === "win32" ? this.leaderRuns : this.leaderRuns || groupRuns(this.proc.pid!);
    if (!runs) {
      this.done = true;
      tracked.delete(this);
    }
    return runs;
  }

  /** Sends `signal` to every process of the group (Windows: ends the leader's tree). */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    const pid = this.proc.pid!;
    if (process.platform === "win32") {
      // No process groups: taskkill walks the tree from the leader (there is no gentle signal).
      try {
        const t = spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
        t.on("error", () => { try { this.proc.kill(signal); } catch { /* already gone */ } });
      } catch {
        try { this.proc.kill(signal); } catch { /* already gone */ }
      }
      return;
    }
    try {
      process.kill(-pid, signal);
    } catch {
      try { this.proc.kill(signal); } catch { /* already gone */ }
    }
  }

  /**
   * Ends the group: SIGTERM, then SIGKILL to what is left after `graceMs`. Resolves once nothing
   * of it runs (or a second after SIGKILL, whatever is left then is beyond our reach). Calling it
   * again returns the same promise; `graceMs` 0 (or `kill()`) skips what is left of the grace.
   */
  terminate(graceMs = DEFAULT_GRACE_MS): Promise<void> {
    if (this.ending) {
      if (graceMs <= 0) this.killNow?.();
      return this.ending;
    }
    this.ending = (async () => {
      if (!this.running) return;
      if (graceMs > 0) {
        this.signal("SIGTERM");
        await this.gone(graceMs);
        if (!this.running) return;
      }
      this.signal("SIGKILL");
      await this.gone(KILL_WAIT_MS);
    })();
    return this.ending;
  }

  /** SIGKILL to the whole group now. */
  kill(): Promise<void> {
    return this.terminate(0);
  }

  /** Waits until the group is gone or `ms` passed (cut short by `kill()`). */
  private gone(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const end = Date.now() + ms;
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        clearTimeout(timer);
        this.killNow = undefined;
        resolve();
      };
      this.killNow = finish;
      const poll = (): void => {
        if (!this.running || Date.now() >= end) finish();
        else timer = setTimeout(poll, POLL_MS);
      };
      poll();
    });
  }
}

/**
 * Ends every group still tracked (extension shutdown): SIGTERM, SIGKILL after `graceMs`, and
 * resolves when they are all gone (or given up on).
 */
export async function terminateAllGroups(graceMs = DEFAULT_GRACE_MS): Promise<void> {
  await Promise.all([...tracked].map((g) => g.terminate(graceMs)));
}

/** Groups still tracked (for tests and the log). */
export function trackedGroupCount(): number {
  return [...tracked].filter((g) => g.running).length;
}
