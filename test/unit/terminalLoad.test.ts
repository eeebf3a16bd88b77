/**
 * Client terminals under load, in plain Node: a command printing 16 MB against a small
 * outputByteLimit (the agent gets the real tail, flagged truncated), and 100 terminals at once (all
 * run and exit; release leaves no process behind). Time and memory figures (100 MB, live heap
 * growth, release time) are in the bench: `AGENT_THOUGHTS_BENCH=terminals npm run bench`.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { NodeTerminals } from "../../src/acp/nodeTerminals";
import { alive } from "../support/processes";
import { until } from "../support/until";

const MB = 1024 * 1024;

async function untilGone(pids: number[], ms = 5000): Promise<number[]> {
  await until(() => !pids.some(alive), "the processes to be gone", ms).catch(() => undefined);
  return pids.filter(alive);
}

describe("terminals under load", function () {
  this.timeout(120_000);
  let dir = "";
  beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), "terminal-load-")); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a command printing 16 MB: output() keeps ≤ outputByteLimit, flagged truncated, ending with the real tail; the listener sees it all", async () => {
    const limit = 64 * 1024;
    let streamed = 0;
    const t = new NodeTerminals();
    t.listen({ output: (_id, text) => { streamed += text.length; } });
    const id = await t.create({ sessionId: "s", sessionCwd: dir, command: "head -c 16777216 /dev/zero | tr '\\0' 'x'; printf '\\nthe real last line 7f3a\\n'", outputByteLimit: limit });
    const exit = await t.waitForExit("s", id);
    const out = await t.output("s", id);
    await t.release("s", id);
    t.dispose();
    assert.equal(exit.exitCode, 0);
    assert.ok(streamed >= 16 * MB, `the listener saw all ${streamed} characters`);
    assert.ok(Buffer.byteLength(out.output) <= limit, `${Buffer.byteLength(out.output)} bytes ≤ ${limit}`);
    assert.ok(Buffer.byteLength(out.output) > limit - 4, "as much of the tail as the limit allows");
    assert.equal(out.truncated, true);
    assert.ok(out.output.endsWith("xxxx\nthe real last line 7f3a\n"), JSON.stringify(out.output.slice(-60)));
  });

  /** Four sessions of 25 terminals: a session holds at most 32 unreleased (NodeTerminals). */
  const sess = (i: number): string => `s${Math.floor(i / 25)}`;

  it("100 terminals at once all run and exit with the right output; releasing leaves no process", async () => {
    const t = new NodeTerminals();
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      t.create({ sessionId: sess(i), sessionCwd: dir, command: `echo $$ > pid-${i}; sleep 0.2 & echo $! > child-${i}; wait; echo result-${i}` })));
    assert.equal(new Set(ids).size, 100);
    const exits = await Promise.all(ids.map((id, i) => t.waitForExit(sess(i), id)));
    assert.deepEqual(exits.map((e) => e.exitCode), Array(100).fill(0));
    const outputs = await Promise.all(ids.map((id, i) => t.output(sess(i), id)));
    outputs.forEach((o, i) => assert.equal(o.output, `result-${i}\n`));
    const pids = ids.flatMap((_, i) => [`pid-${i}`, `child-${i}`].map((f) => Number(readFileSync(path.join(dir, f), "utf8"))));
    assert.ok(pids.every((p) => p > 0));
    await Promise.all(ids.map((id, i) => t.release(sess(i), id)));
    for (const [i, id] of ids.entries()) await assert.rejects(t.output(sess(i), id), /not found/i);
    assert.deepEqual(await untilGone(pids), [], "no shell and no child outlives its terminal");
    t.dispose();
  });

  it("100 long-running terminals at once: releasing them stops every shell and its children", async () => {
    const t = new NodeTerminals();
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      t.create({ sessionId: sess(i), sessionCwd: dir, command: `echo $$ > pid-${i}; sleep 60 & echo $! > child-${i}; echo started-${i}; wait` })));
    for (const [i, id] of ids.entries()) await until(async () => (await t.output(sess(i), id)).output.includes(`started-${i}`), `terminal ${i} to start`, 20_000);
    const pids = ids.flatMap((_, i) => [`pid-${i}`, `child-${i}`].map((f) => Number(readFileSync(path.join(dir, f), "utf8"))));
    assert.equal(pids.filter(alive).length, 200, "all 100 shells and their children run");
    // Half released outright, half killed first (the terminal stays valid after kill), then released.
    await Promise.all(ids.map(async (id, i) => {
      if (i % 2) {
        await t.kill(sess(i), id);
        const exit = await t.waitForExit(sess(i), id);
        assert.ok(exit.signal !== null || exit.exitCode !== 0, JSON.stringify(exit));
      }
      await t.release(sess(i), id);
    }));
    assert.deepEqual(await untilGone(pids), [], "nothing outlives release");
    t.dispose();
  });
});
