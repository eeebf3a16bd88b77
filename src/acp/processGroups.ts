/**
 * The process groups of everything we spawn (agents, the commands they run in terminals), and how
 * they end: SIGTERM to the whole group, SIGKILL to whatever is left after a grace period, and a
 * check that nothing of the group runs any more — also when the group's leader (the agent, or the
 * shell of a command) has already exited and only its children (`cmd &`, an agent's helpers) remain.
 *
 * On POSIX every child is spawned `detached`, so it leads a process group of its own that its
 * children inherit. On Linux, each time the group is signalled, descendants that left it (setsid,
 * `spawn(…, { detached: true })`) are found through /proc while their parent chain leads back
 * to the group, and their groups are ended with it. Not covered: a process that left the group
 * and whose parent already exited (a daemon's double fork, or `setsid cmd &` once its shell ended)
 * is reparented to init and cannot be told apart from anyone else's. On Windows there are no
 * groups: the leader's tree is ended with tree-kill (`taskkill /T /F`, see spawn.ts) while the
 * leader runs; children whose parent already exited cannot be found there.
 *
 * Every group is tracked from spawn until it is seen empty, so `terminateAllGroups` (extension
 * shutdown) can end whatever is still running. A group seen empty is never signalled again, so a
 * recycled process id is never hit.
 */
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { killProcessTree, type KillTree } from "./spawn";

/** How long a group gets to exit after SIGTERM before SIGKILL. */
export const DEFAULT_GRACE_MS = 1500;
/** How long to wait for the kernel to finish a SIGKILLed group. */
const KILL_WAIT_MS = 1000;
const POLL_MS = 25;

const tracked = new Set<ProcessGroup>();

interface ProcEntry { pid: number; ppid: number; pgrp: number; zombie: boolean }

/** Every process Linux shows in /proc (undefined elsewhere or when /proc cannot be read). */
function processTable(): ProcEntry[] | undefined {
  if (process.platform !== "linux") return undefined;
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const table: ProcEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    table.push({ pid: Number(name), ppid: Number(fields[1]), pgrp: Number(fields[2]), zombie: fields[0] === "Z" });
  }
  return table;
}

/** Whether a non-zombie process of group `pgid` exists (Linux: zombies wait for their reaper and run nothing). */
function groupRuns(pgid: number, table?: ProcEntry[]): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  const t = table ?? processTable();
  return t === undefined || t.some((p) => p.pgrp === pgid && !p.zombie);
}

/**
 * The groups that descendants of `pgids` have moved to (setsid, detached spawns), each led by one
 * of those descendants: a group led by anyone else is never ours to signal.
 */
function escapedGroups(pgids: ReadonlySet<number>, table: ProcEntry[]): number[] {
  const children = new Map<number, ProcEntry[]>();
  for (const p of table) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const seen = new Set<number>();
  const queue = table.filter((p) => pgids.has(p.pgrp) && !p.zombie);
  while (queue.length > 0) {
    const p = queue.pop()!;
    if (seen.has(p.pid)) continue;
    seen.add(p.pid);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return [...new Set(table.filter((p) => seen.has(p.pid) && !pgids.has(p.pgrp) && seen.has(p.pgrp)).map((p) => p.pgrp))];
}

export interface ProcessGroupOptions {
  /** Defaults to this process's; decides between process groups (POSIX) and tree-kill (Windows). */
  platform?: NodeJS.Platform;
  /** How a Windows tree is ended; defaults to tree-kill. */
  killTree?: KillTree;
}

export class ProcessGroup {
  private done: boolean;
  private readonly platform: NodeJS.Platform;
  private readonly killTree: KillTree;
  private ending: Promise<void> | undefined;
  private killNow: (() => void) | undefined;
  /** Groups that descendants moved to, found while signalling (Linux). */
  private readonly escaped = new Set<number>();

  constructor(private readonly proc: ChildProcess, options: ProcessGroupOptions = {}) {
    this.platform = options.platform ?? process.platform;
    this.killTree = options.killTree ?? killProcessTree;
    this.done = proc.pid === undefined;
    if (!this.done) tracked.add(this);
  }

  private get leaderRuns(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Whether any process of the group still runs (the leader, or what it left behind). */
  get running(): boolean {
    if (this.done) return false;
    let runs = this.leaderRuns;
    if (this.platform !== "win32") {
      const table = this.escaped.size > 0 || !runs ? processTable() : undefined;
      // An escaped group seen empty is forgotten, so its id is never signalled once recycled.
      for (const g of this.escaped) if (!groupRuns(g, table)) this.escaped.delete(g);
      runs ||= this.escaped.size > 0 || groupRuns(this.proc.pid!, table);
    }
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
    if (this.platform === "win32") {
      // No process groups: the tree is walked from the leader. If that fails, the leader at least.
      const fallback = (): void => { try { this.proc.kill(signal); } catch { /* already gone */ } };
      try {
        this.killTree(pid, signal, (err) => { if (err) fallback(); });
      } catch {
        fallback();
      }
      return;
    }
    const table = processTable();
    if (table) for (const g of escapedGroups(new Set([pid, ...this.escaped]), table)) this.escaped.add(g);
    try {
      process.kill(-pid, signal);
    } catch {
      try { this.proc.kill(signal); } catch { /* already gone */ }
    }
    for (const g of this.escaped) {
      try { process.kill(-g, signal); } catch { /* gone */ }
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
