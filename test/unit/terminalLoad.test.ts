/**
 * Client terminals under load, in plain Node: a command printing 100 MB against a small
 * outputByteLimit (the agent gets the real tail, flagged truncated, and memory stays bounded), and
 * 100 terminals at once (all run and exit; release leaves no process behind).
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as v8 from "node:v8";
import * as vm from "node:vm";
import { NodeTerminals } from "../../src/acp/nodeTerminals";
import { alive } from "../support/processes";

const MB = 1024 * 1024;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A real full collection: `--expose-gc` when given, else switched on at run time (V8 allows it). */
function collector(): () => void {
  const g = globalThis as { gc?: () => void };
  if (g.gc) return g.gc;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}

/** What the process holds: JS heap plus Buffers (arrayBuffers: Node's Buffer memory). */
function held(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}


async function untilGone(pids: number[], ms = 5000): Promise<number[]> {
  const end = Date.now() + ms;
  let left = pids.filter(alive);
  while (left.length && Date.now() < end) {
    await sleep(50);
    left = left.filter(alive);
  }
  return left;
}

describe("terminals under load", function () {
  this.timeout(120_000);
  let dir = "";
  beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), "terminal-load-")); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a command printing 100 MB: output() keeps ≤ outputByteLimit, flagged truncated, ending with the real tail; memory stays bounded", async () => {
    const gc = collector();
    // Buffer memory is returned by V8's array-buffer sweeper after a collection; the next collection
    // finishes that sweep, so two in a row (nothing runs between) leave only what is live.
    const live = (): void => { gc(); gc(); };
    const limit = 64 * 1024;
    let streamed = 0;
    const t = new NodeTerminals(() => dir, { output: (_id, text) => { streamed += text.length; } });
    // Warm up first, so lazily loaded code and first-use allocations do not count as growth.
    await t.waitForExit("s", await t.create({ sessionId: "s", command: "head -c 1048576 /dev/zero | tr '\\0' 'x'", outputByteLimit: limit }));
    streamed = 0;
    live();
    const base = held();
    const baseHeap = process.memoryUsage().heapUsed;
    let peakHeap = 0;
    let peakRetained = 0;
    let peakRaw = 0;
    let samples = 0;
    let sampling = true;
    // Retained memory (after a full collection) while the output streams: garbage does not count, leaks do.
    const sampler = (async () => {
      while (sampling) {
        peakRaw = Math.max(peakRaw, held() - base);
        live();
        peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed - baseHeap);
        peakRetained = Math.max(peakRetained, held() - base);
        samples++;
        await sleep(50);
      }
    })();
    const started = Date.now();
    const id = await t.create({ sessionId: "s", command: "head -c 104857600 /dev/zero | tr '\\0' 'x'; printf '\\nthe real last line 7f3a\\n'", outputByteLimit: limit });
    const exit = await t.waitForExit("s", id);
    const elapsed = Date.now() - started;
    sampling = false;
    await sampler;
    const out = await t.output("s", id);
    await t.release("s", id);
    t.dispose();
    live();
    const after = held() - base;
    console.log(`      100 MB through a ${limit / 1024} KB terminal: ${(elapsed / 1000).toFixed(1)} s; memory growth (heap + buffers) live peak ${(peakRetained / MB).toFixed(1)} MB (JS heap ${(peakHeap / MB).toFixed(1)} MB), garbage included ${(peakRaw / MB).toFixed(1)} MB, over ${samples} samples, after release ${(after / MB).toFixed(1)} MB`);

    assert.equal(exit.exitCode, 0);
    assert.ok(streamed >= 100 * MB, `the listener saw all ${streamed} characters`);
    assert.ok(Buffer.byteLength(out.output) <= limit, `${Buffer.byteLength(out.output)} bytes ≤ ${limit}`);
    assert.ok(Buffer.byteLength(out.output) > limit - 4, "as much of the tail as the limit allows");
    assert.equal(out.truncated, true);
    assert.ok(out.output.endsWith("xxxx\nthe real last line 7f3a\n"), JSON.stringify(out.output.slice(-60)));
    assert.ok(samples >= 3, `memory was sampled while the command ran (${samples} samples)`);
    // 100 MB went through; what stays live is a few times the limit (chunks are compacted at twice it).
    assert.ok(peakRetained < 4 * MB, `live heap + buffers grew ${(peakRetained / MB).toFixed(1)} MB`);
    assert.ok(after < 2 * MB, `live heap + buffers after release grew ${(after / MB).toFixed(1)} MB`);
  });

  it("100 terminals at once all run and exit with the right output; releasing leaves no process", async () => {
    const t = new NodeTerminals(() => dir);
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      t.create({ sessionId: "s", command: `echo $$ > pid-${i}; sleep 0.2 & echo $! > child-${i}; wait; echo result-${i}` })));
    assert.equal(new Set(ids).size, 100);
    const exits = await Promise.all(ids.map((id) => t.waitForExit("s", id)));
    assert.deepEqual(exits.map((e) => e.exitCode), Array(100).fill(0));
    const outputs = await Promise.all(ids.map((id) => t.output("s", id)));
    outputs.forEach((o, i) => assert.equal(o.output, `result-${i}\n`));
    const pids = ids.flatMap((_, i) => [`pid-${i}`, `child-${i}`].map((f) => Number(readFileSync(path.join(dir, f), "utf8"))));
    assert.ok(pids.every((p) => p > 0));
    await Promise.all(ids.map((id) => t.release("s", id)));
    for (const id of ids) await assert.rejects(t.output("s", id), /not found/i);
    assert.deepEqual(await untilGone(pids), [], "no shell and no child outlives its terminal");
    t.dispose();
  });

  it("100 long-running terminals at once: releasing them stops every shell and its children", async () => {
    const t = new NodeTerminals(() => dir);
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      t.create({ sessionId: "s", command: `echo $$ > pid-${i}; sleep 60 & echo $! > child-${i}; echo started-${i}; wait` })));
    const end = Date.now() + 20_000;
    for (const [i, id] of ids.entries()) {
      while (!(await t.output("s", id)).output.includes(`started-${i}`)) {
        assert.ok(Date.now() < end, `terminal ${i} started`);
        await sleep(20);
      }
    }
    const pids = ids.flatMap((_, i) => [`pid-${i}`, `child-${i}`].map((f) => Number(readFileSync(path.join(dir, f), "utf8"))));
    assert.equal(pids.filter(alive).length, 200, "all 100 shells and their children run");
    const started = Date.now();
    // Half released outright, half killed first (the terminal stays valid after kill), then released.
    await Promise.all(ids.map(async (id, i) => {
      if (i % 2) {
        await t.kill("s", id);
        const exit = await t.waitForExit("s", id);
        assert.ok(exit.signal !== null || exit.exitCode !== 0, JSON.stringify(exit));
      }
      await t.release("s", id);
    }));
    assert.deepEqual(await untilGone(pids), [], "nothing outlives release");
    console.log(`      100 running terminals released; all 200 processes gone after ${Date.now() - started} ms`);
    t.dispose();
  });
});
