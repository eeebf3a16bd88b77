// `npm run bench` scenario `terminals`: client terminals (src/acp/nodeTerminals.ts) under load, in
// the extension host's Node. The figures the unit suite used to assert as budgets:
// - 100 MB through a 64 KB outputByteLimit: time, and memory growth (live after a full collection,
//   and with garbage) sampled while it streams and after release (unit budget was: live < 4 MB,
//   < 2 MB after release);
// - 100 long-running terminals released at once: time until all 200 processes are gone;
// - kill of a running command: time until its exit is reported (was: < 3 s);
// - a process group whose member ignores SIGTERM: time until terminateAllGroups(300 ms) has it gone (was: < 2.5 s).
// The functional checks (right output, tail, flags, nothing left behind) stay in test/unit.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as NodeTerminalsModule from "../../src/acp/nodeTerminals";
import { ProcessGroup, terminateAllGroups } from "../../src/acp/processGroups";
import { log } from "../integration/index";
import { alive } from "../support/processes";
import { until } from "../support/until";
import { collectGarbage, fmt, mb } from "./util";

/**
 * The extension's client terminals, loaded when this scenario runs: imported at the top, the ACP
 * SDK's schemas they bring would be built in the extension host as the bench loads, and be in the
 * memory figures of every scenario before this one.
 */
const nodeTerminals = (): Promise<typeof NodeTerminalsModule> => import("../../src/acp/nodeTerminals");

const held = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
/** Two collections in a row: the second finishes the array-buffer sweep the first started. */
const live = (): void => { collectGarbage(); collectGarbage(); };

async function hundredMegabytes(dir: string): Promise<void> {
  const limit = 64 * 1024;
  const t = new (await nodeTerminals()).NodeTerminals();
  await t.waitForExit("s", await t.create({ sessionId: "s", sessionCwd: dir, command: "head -c 1048576 /dev/zero | tr '\\0' 'x'", outputByteLimit: limit }));
  live();
  const base = held();
  let peakLive = 0;
  let peakRaw = 0;
  let samples = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakRaw = Math.max(peakRaw, held() - base);
      live();
      peakLive = Math.max(peakLive, held() - base);
      samples++;
      await new Promise((r) => setTimeout(r, 50)); // the sampling period
    }
  })();
  const started = Date.now();
  const id = await t.create({ sessionId: "s", sessionCwd: dir, command: "head -c 104857600 /dev/zero | tr '\\0' 'x'", outputByteLimit: limit });
  await t.waitForExit("s", id);
  const elapsed = Date.now() - started;
  sampling = false;
  await sampler;
  const out = await t.output("s", id);
  await t.release("s", id);
  t.dispose();
  live();
  log(`  100 MB through a ${limit / 1024} KB client terminal: ${fmt(elapsed)}; kept ${Buffer.byteLength(out.output).toLocaleString("en")} bytes (truncated: ${out.truncated})`);
  log(`    memory growth (heap + buffers): live peak ${mb(peakLive)} (unit budget was 4 MB), garbage included ${mb(peakRaw)}, over ${samples} samples; after release ${mb(held() - base)} (was 2 MB)`);
}

async function hundredReleased(dir: string): Promise<void> {
  const t = new (await nodeTerminals()).NodeTerminals();
  // Four sessions of 25: a session may hold MAX_SESSION_TERMINALS (32) unreleased at once.
  const session = (i: number): string => `s${i % 4}`;
  const ids = await Promise.all(Array.from({ length: 100 }, (_, i) =>
    t.create({ sessionId: session(i), sessionCwd: dir, outputByteLimit: 4096, command: `echo $$ > pid-${i}; sleep 60 & echo $! > child-${i}; echo started-${i}; wait` })));
  for (const [i, id] of ids.entries()) await until(async () => (await t.output(session(i), id)).output.includes(`started-${i}`), `terminal ${i} to start`, 20_000);
  const pids = ids.flatMap((_, i) => [`pid-${i}`, `child-${i}`].map((f) => Number(readFileSync(path.join(dir, f), "utf8"))));
  const started = Date.now();
  await Promise.all(ids.map((id, i) => t.release(session(i), id)));
  await until(() => !pids.some(alive), "every shell and child to be gone", 20_000);
  log(`  100 running terminals (four sessions of 25) released at once: all ${pids.length} processes gone after ${fmt(Date.now() - started)}`);
  t.dispose();
}

async function killLatency(dir: string): Promise<void> {
  const t = new (await nodeTerminals()).NodeTerminals();
  const id = await t.create({ sessionId: "s", sessionCwd: dir, command: "echo started; sleep 30 & wait" });
  await until(async () => (await t.output("s", id)).output.includes("started"), "the command to start");
  const started = Date.now();
  await t.kill("s", id);
  await t.waitForExit("s", id);
  log(`  kill of a running command: exit reported after ${fmt(Date.now() - started)} (unit budget was 3 s)`);
  await t.release("s", id);
  t.dispose();
}

async function groupEscalation(dir: string): Promise<void> {
  const ready = path.join(dir, "ready.pid");
  const leader = spawn("/bin/sh", ["-c", `sh -c 'trap "" TERM; echo $$ > ${ready}; exec sleep 300' >/dev/null 2>&1 &`], { detached: true, stdio: "ignore" });
  const group = new ProcessGroup(leader);
  await new Promise((r) => leader.on("exit", r));
  const member = await until(() => { try { return Number(readFileSync(ready, "utf8")) || undefined; } catch { return undefined; } }, "the member's pid");
  const started = Date.now();
  await terminateAllGroups(300);
  log(`  terminateAllGroups(300 ms) on a member ignoring SIGTERM: done after ${fmt(Date.now() - started)} (unit budget was 2.5 s), member ${alive(member) ? "STILL RUNNING" : "gone"}, group ${group.running ? "STILL RUNNING" : "gone"}`);
}

export async function terminalLoad(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "at-bench-terminals-"));
  try {
    log("Client terminals under load (plain Node, in the extension host)");
    await hundredMegabytes(dir);
    await hundredReleased(dir);
    await killLatency(dir);
    await groupEscalation(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
