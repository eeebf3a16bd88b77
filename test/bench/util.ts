// Helpers shared by the benchmark scenarios (test/bench/index.ts, test/bench/load.ts).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import * as v8 from "node:v8";
import * as vm from "node:vm";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Scenario } from "../fixtures/agents/scenario";
import { harnessRequest, log } from "../integration/index";
import { evaluate } from "../integration/webview";
import { percentile } from "./stats";

export const EXTENSION_ID = "agent-thoughts.agent-thoughts";

export async function api(): Promise<AgentThoughtsInternalApi> {
  const ext = vscode.extensions.getExtension<AgentThoughtsInternalApi>(EXTENSION_ID);
  if (!ext) throw new Error("extension missing");
  const a = await ext.activate();
  if (!a._test) throw new Error("no test hooks (_test): the bench needs VS Code to run the extension in test mode");
  return a;
}

interface AgentSetting { name: string; command: string; args: string[]; env: Record<string, string> }

/** A scripted agent named `name` that plays `scenario` (written to `file`). */
export function scriptedAgent(name: string, scenario: Scenario, file: string): AgentSetting {
  const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  fs.writeFileSync(file, JSON.stringify(scenario));
  return { name, command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: file, ELECTRON_RUN_AS_NODE: "1" } };
}

/** Replaces `agentThoughts.agents` with these agents. */
export async function setAgents(agents: AgentSetting[]): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", agents, vscode.ConfigurationTarget.Global);
}

let filesDir: string | undefined;

/** A file in a folder of this bench run's own (agents' scripts, write times), which `removeBenchFiles` removes. */
export function benchFile(name: string): string {
  filesDir ??= fs.mkdtempSync(path.join(os.tmpdir(), "at-bench-"));
  return path.join(filesDir, name);
}

/** Removes the run's files (each run left some 100 KB to 1 MB of them in the temp folder). */
export function removeBenchFiles(): void {
  if (filesDir) fs.rmSync(filesDir, { recursive: true, force: true });
  filesDir = undefined;
}

/** Makes `name` the only configured agent, playing `scenario`. */
export async function useScenario(name: string, scenario: Scenario): Promise<void> {
  await setAgents([scriptedAgent(name, scenario, benchFile(`${name}.json`))]);
}

export { percentile };

export const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
export const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;
export const num = (n: number): string => Math.round(n).toLocaleString("en");

/** "p50 …, p95 …, max …" of a list of milliseconds (the values themselves when there are only a few). */
export function spread(values: readonly number[]): string {
  const s = [...values].sort((x, y) => x - y);
  if (s.length === 0) return "none";
  if (s.length <= 5) return `${s.map(fmt).join(", ")} (n=${s.length})`;
  return `p50 ${fmt(percentile(s, 50))}, p95 ${fmt(percentile(s, 95))}, max ${fmt(s[s.length - 1]!)} (n=${s.length})`;
}

/** Least-squares slope of y over x. */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx === 0 ? NaN : sxy / sxx;
}

let gcFn: (() => void) | null | undefined;
/**
 * A full garbage collection of the extension host, when V8 lets us have one: `--expose-gc` set at
 * run time makes `gc` available in new contexts (the host itself was not started with the flag).
 */
export function collectGarbage(): boolean {
  if (gcFn === undefined) {
    gcFn = null;
    try {
      const existing = (globalThis as { gc?: unknown }).gc;
      if (typeof existing === "function") gcFn = () => { (existing as () => void)(); };
      else {
        v8.setFlagsFromString("--expose-gc");
        const fresh: unknown = vm.runInNewContext("gc");
        if (typeof fresh === "function") gcFn = () => { (fresh as () => void)(); };
      }
    } catch {
      gcFn = null;
    }
  }
  if (!gcFn) return false;
  gcFn();
  return true;
}

/** Extension host heap after a full GC (if available). */
export function hostHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

type MemoryPerformance = Performance & { memory?: { usedJSHeapSize: number } };

/** `performance.memory.usedJSHeapSize` in the sidebar webview (-1 where Chromium does not report it). */
export function webviewHeap(): Promise<number> {
  return evaluate(() => (performance as MemoryPerformance).memory?.usedJSHeapSize ?? -1, undefined, "sidebar");
}

/** The same figure read in the workbench page: equal to `webviewHeap()` when both share one renderer. */
export async function workbenchHeap(): Promise<number> {
  const reply = await harnessRequest<{ value: number }>({ op: "workbench", fn: (() => (performance as MemoryPerformance).memory?.usedJSHeapSize ?? -1).toString() });
  return reply?.value ?? -1;
}

/** The file name `TranscriptStore` (src/vscode/transcripts.ts) gives a session's transcript. */
export function transcriptName(sessionId: string): string {
  return `${sessionId.replace(/[^\w.-]+/g, "_")}.jsonl`;
}

/**
 * The extension's transcript folder (`<storageUri>/transcripts`). The test host runs code-server
 * with a fresh user-data dir in the temp folder, so the workspace storage is
 * `<tmp>/agent-thoughts-host-XXXXXX/user-data/User/workspaceStorage/<workspace id>/<extension id>/`;
 * the folder is the one holding this session's file (session ids are unique per extension host).
 */
export function findTranscriptDir(sessionId: string): string | undefined {
  const name = transcriptName(sessionId);
  const tmp = os.tmpdir();
  for (const host of fs.readdirSync(tmp)) {
    if (!host.startsWith("agent-thoughts-host-")) continue;
    const storage = path.join(tmp, host, "user-data", "User", "workspaceStorage");
    if (!fs.existsSync(storage)) continue;
    for (const ws of fs.readdirSync(storage)) {
      const dir = path.join(storage, ws, EXTENSION_ID, "transcripts");
      if (fs.existsSync(path.join(dir, name))) return dir;
    }
  }
  return undefined;
}

/** A transcript's lines once it holds `lines` of them (its writes are batched every 200 ms). */
export async function readTranscript(file: string, lastSeq: number, timeoutMs = 20_000): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = fs.existsSync(file) ? await fs.promises.readFile(file, "utf8") : "";
    const got = text.split("\n").filter((l) => l.trim() !== "");
    const last = got.length ? (JSON.parse(got[got.length - 1]!) as { seq?: unknown }).seq : undefined;
    if (last === lastSeq || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * An inspector profile of the extension host from `begin` until `stop()`, written as
 * `<dir>/<file>` (the `profile` the `end` method answers); without `dir`, `stop()` does nothing.
 */
async function hostProfile(dir: string | undefined, file: string, begin: [string, object][], end: string): Promise<{ stop(): Promise<string | undefined> }> {
  if (!dir) return { stop: () => Promise.resolve(undefined) };
  const inspector = await import("node:inspector");
  const session = new inspector.Session();
  session.connect();
  const post = <R>(method: string, params: object = {}): Promise<R> =>
    new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as R))));
  for (const [method, params] of begin) await post(method, params);
  return {
    async stop() {
      const { profile } = await post<{ profile: unknown }>(end);
      session.disconnect();
      fs.mkdirSync(dir, { recursive: true });
      const out = path.resolve(dir, file);
      fs.writeFileSync(out, JSON.stringify(profile));
      return out;
    },
  };
}

/**
 * With `AGENT_THOUGHTS_BENCH_PROFILE=<folder>`, a CPU profile of the extension host (inspector,
 * 0.5 ms sampling) from now until `stop()`, written as `<folder>/<name>.cpuprofile` (open it in
 * Chrome DevTools or VS Code). Without the variable, `stop()` does nothing.
 */
export function profileHost(name: string): Promise<{ stop(): Promise<string | undefined> }> {
  return hostProfile(process.env.AGENT_THOUGHTS_BENCH_PROFILE, `${name}.cpuprofile`, [["Profiler.enable", {}], ["Profiler.setSamplingInterval", { interval: 500 }], ["Profiler.start", {}]], "Profiler.stop");
}

/**
 * With `AGENT_THOUGHTS_BENCH_HEAP=<folder>`, V8's sampling heap profile of the extension host
 * from now until `stop()`, counting what was collected too (what a flood allocates, by function),
 * written as `<folder>/<name>.heapprofile` (open it in Chrome DevTools' Memory tab). Without the
 * variable, `stop()` does nothing.
 */
export function sampleHostAllocations(name: string): Promise<{ stop(): Promise<string | undefined> }> {
  return hostProfile(process.env.AGENT_THOUGHTS_BENCH_HEAP, `${name}.heapprofile`, [["HeapProfiler.startSampling", { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }]], "HeapProfiler.stopSampling");
}

/**
 * AGENT_THOUGHTS_BENCH_PROFILE=<dir> / AGENT_THOUGHTS_BENCH_TRACE=<dir>: starts the panel renderer's
 * CPU profile or performance trace (style, layout, paint); the function returned stops it and
 * writes <dir>/<name>.cpuprofile or <dir>/<name>.trace.json (open either in Chrome DevTools).
 */
export async function rendererCapture(name: string): Promise<() => Promise<void>> {
  const profileDir = process.env.AGENT_THOUGHTS_BENCH_PROFILE || undefined;
  const traceDir = process.env.AGENT_THOUGHTS_BENCH_TRACE || undefined;
  if (profileDir) await harnessRequest({ op: "profileStart" });
  if (traceDir) await harnessRequest({ op: "traceStart" });
  return async () => {
    for (const [dir, op, ext, what] of [[profileDir, "profileStop", "cpuprofile", "CPU profile"], [traceDir, "traceStop", "trace.json", "trace"]] as const) {
      if (!dir) continue;
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${name}.${ext}`);
      await harnessRequest({ op, path: file });
      log(`    renderer ${what}: ${file}`);
    }
  };
}

/** A gap of the host's event loop: [start, length, on a CPU, waiting for one, major page faults (in it, or up to 100 ms before)]. */
export type Gap = [number, number, number, number, number];

/**
 * The longest gaps (over `ms`) of a 1 ms timer chain, the longest eight: [start (performance.now()),
 * length, of it the main thread on a CPU, of it waiting for one, major page faults in it or in the
 * 100 ms before it]. The split is Linux's schedstat of the thread (read at each tick; NaN elsewhere): a gap the thread
 * spent waiting for a CPU is the machine's other processes (the browser, the agents), not work of
 * the host's; the rest of a gap it slept (on a lock, or on the disk: a major page fault reads a
 * page of memory back from disk).
 */
export function longBlocks(ms: number): { stop(): Gap[] } {
  const found: Gap[] = [];
  let fd: number | undefined;
  try {
    fd = fs.openSync("/proc/thread-self/schedstat", "r");
  } catch {
    fd = undefined;
  }
  const buf = Buffer.alloc(64);
  const sched = (): [number, number] => {
    if (fd === undefined) return [NaN, NaN];
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const [run, wait] = buf.toString("latin1", 0, n).split(" ").map(Number);
    return [run! / 1e6, wait! / 1e6];
  };
  let last = performance.now();
  let lastSched = sched();
  // Page faults are read at a gap's end and every FAULTS_MS otherwise, not at each tick (the
  // getrusage call a millisecond was a share of the host's CPU while ten agents streamed).
  const FAULTS_MS = 100;
  let lastFaults = process.resourceUsage().majorPageFault;
  let faultsAt = last;
  let timer: NodeJS.Timeout;
  const tick = (): void => {
    const s = sched();
    const now = performance.now();
    if (now - last > ms || now - faultsAt >= FAULTS_MS) {
      const faults = process.resourceUsage().majorPageFault;
      if (now - last > ms) found.push([last, now - last, s[0] - lastSched[0], s[1] - lastSched[1], faults - lastFaults]);
      lastFaults = faults;
      faultsAt = now;
    }
    last = now;
    lastSched = s;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    stop() {
      clearTimeout(timer);
      if (fd !== undefined) fs.closeSync(fd);
      return found.sort((x, y) => y[1] - x[1]).slice(0, 8);
    },
  };
}

/**
 * The gaps `longBlocks` found, as "length (on a CPU / waiting for one / in garbage collection)" in
 * ms, the collections among `gcEntries` that overlap each; `at` says where one began, if given.
 */
export function gapsText(gaps: readonly Gap[], gcEntries: readonly PerformanceEntry[], at?: (start: number) => string): string {
  const gcIn = (start: number, ms: number): number => gcEntries.filter((e) => e.startTime < start + ms && e.startTime + e.duration > start).reduce((n, e) => n + e.duration, 0);
  const ms1 = (v: number): string => (Number.isNaN(v) ? "?" : v.toFixed(1));
  return gaps.map(([start, ms, run, wait, faults]) => `${ms1(ms)}${at ? ` ${at(start)}` : ""} (${ms1(run)} / ${ms1(wait)} / ${ms1(gcIn(start, ms))}${faults > 0 ? `; ${faults} major page fault${faults === 1 ? "" : "s"}` : ""})`).join(", ");
}

/** The extension host's garbage-collection pauses from now until `stop`, summed up per kind (the longest of each); `entries` as they are. */
export function gcPauses(): { stop(): string; entries(): PerformanceEntry[] } {
  const entries: PerformanceEntry[] = [];
  const obs = new PerformanceObserver((list) => { entries.push(...list.getEntries()); });
  obs.observe({ entryTypes: ["gc"] });
  const kinds: [number, string][] = [
    [perfConstants.NODE_PERFORMANCE_GC_MAJOR, "mark-compact"], [perfConstants.NODE_PERFORMANCE_GC_MINOR, "scavenge"],
    [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental marking"], [perfConstants.NODE_PERFORMANCE_GC_WEAKCB, "weak callbacks"],
  ];
  return {
    entries() {
      // Kept here too: what is taken from the observer is not delivered to its callback any more.
      entries.push(...obs.takeRecords());
      return entries;
    },
    stop() {
      obs.disconnect();
      const kindOf = (e: PerformanceEntry): number => ((e as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind ?? 0;
      return kinds.map(([kind, name]) => {
        const ds = entries.filter((e) => kindOf(e) === kind).map((e) => e.duration);
        return ds.length ? `${name} ${num(ds.length)}× (longest ${fmt(Math.max(...ds))}, ${fmt(ds.reduce((x, y) => x + y, 0))} in all)` : "";
      }).filter(Boolean).join("; ") || "none seen";
    },
  };
}

/** One process's line of /proc/<pid>/stat: its parent, the CPU it used (user + system, clock ticks of 10 ms) and its major page faults (a page read from disk: the process sleeps meanwhile). */
function procStat(pid: number): { ppid: number; ticks: number; majflt: number } | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    // The fields after the command name, which is in parentheses and may hold spaces: state, ppid, … utime (14th), stime (15th).
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), majflt: Number(f[9]) };
  } catch {
    return undefined;
  }
}

function procText(pid: number, file: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "latin1");
  } catch {
    return "";
  }
}

/**
 * Where the machine's CPU went between now and `stop()`: the extension host, the processes it
 * started (the agents), code-server's other processes, and the browser's by kind (its renderers
 * one by one: the workbench's and each webview's), from /proc (Linux; "" elsewhere). With the
 * scheduler's autogroups (a session's processes share the CPU as one) of the host, code-server and
 * the browser: a host that waits for a CPU waits for the processes of its own autogroup first.
 */
export function cpuShares(): { stop(): string } {
  const pids = (): number[] => {
    try {
      return fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
    } catch {
      return [];
    }
  };
  const sample = (): Map<number, { ppid: number; ticks: number; majflt: number }> => new Map(pids().flatMap((p) => { const s = procStat(p); return s ? [[p, s] as const] : []; }));
  const before = sample();
  const started = performance.now();
  const usage0 = process.resourceUsage();
  return {
    stop() {
      const after = sample();
      const usage = process.resourceUsage();
      const seconds = (performance.now() - started) / 1000;
      if (after.size === 0) return "";
      const host = process.pid;
      const underHost = (p: number): boolean => {
        for (let q = after.get(p)?.ppid, n = 0; q !== undefined && q > 1 && n < 64; q = after.get(q)?.ppid, n++) if (q === host) return true;
        return false;
      };
      // Each process's command line, read once (for its kind, and to find the browser's main process).
      const cmds = new Map<number, string[]>();
      const cmdOf = (p: number): string[] => {
        let c = cmds.get(p);
        if (!c) cmds.set(p, (c = procText(p, "cmdline").split("\0")));
        return c;
      };
      const isBrowser = (c: string[]): boolean => /chrom|headless_shell/i.test(c[0] ?? "");
      const groups = new Map<string, number[]>();
      const add = (name: string, s: number): void => { groups.set(name, [...(groups.get(name) ?? []), s]); };
      let total = 0;
      let faults = 0;
      for (const [p, s] of after) {
        const used = (s.ticks - (before.get(p)?.ticks ?? 0)) / 100;
        total += used;
        faults += s.majflt - (before.get(p)?.majflt ?? 0);
        const cmd = cmdOf(p);
        if (used <= 0) continue;
        const kind = /--type=([\w-]+)/.exec(cmd.join(" "))?.[1];
        if (p === host) add("extension host", used);
        else if (underHost(p)) add("agents and what they started", used);
        else if (isBrowser(cmd)) add(kind === "renderer" ? "browser renderers" : `browser ${kind ?? "main"}`, used);
        else if (cmd.some((a) => /code-server|vscode/.test(a))) add("code-server's other processes", used);
        else add("other", used);
      }
      const cores = os.cpus().length;
      const list = [...groups].sort((x, y) => y[1].reduce((a, b) => a + b, 0) - x[1].reduce((a, b) => a + b, 0)).map(([name, xs]) => {
        const sum = xs.reduce((a, b) => a + b, 0);
        const each = name === "browser renderers" || name === "code-server's other processes" ? ` (${xs.sort((a, b) => b - a).slice(0, 4).map((x) => x.toFixed(1)).join(", ")})` : "";
        return `${name} ${sum.toFixed(1)} s${each}`;
      });
      const group = (p: number | undefined): string => (p === undefined ? "?" : procText(p, "autogroup").trim().replace(/^\/autogroup-/, "#") || "?");
      const chrome = [...cmds].find(([, c]) => isBrowser(c) && !c.some((a) => a.startsWith("--type=")))?.[0];
      const hostFaults = usage.majorPageFault - usage0.majorPageFault;
      const switches = `${num(usage.voluntaryContextSwitches - usage0.voluntaryContextSwitches)} voluntary, ${num(usage.involuntaryContextSwitches - usage0.involuntaryContextSwitches)} involuntary`;
      return `in ${seconds.toFixed(1)} s (${(seconds * cores).toFixed(1)} s on ${cores} cores, ${total.toFixed(1)} s used): ${list.join(", ")}; major page faults (a page read back from disk, the process sleeping meanwhile): the host ${num(hostFaults)}, all processes ${num(faults)}; the host's context switches ${switches}; autogroups (scheduler): the host ${group(host)}, code-server ${group(after.get(host)?.ppid)}, the browser ${group(chrome)}`;
    },
  };
}
