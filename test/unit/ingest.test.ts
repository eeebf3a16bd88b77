/** Agent output in time-budgeted slices shared by all agents, with the agent's stdout paused while its lines wait. */
import * as assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { HURRY_CHUNKS, IngestScheduler, type IngestSource } from "../../src/acp/ingest";
import { ndJsonStream } from "../../src/acp/ndjson";

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A source whose every line costs `cost` ms of a fake clock; records what it handled and its pauses. */
function source(name: string, count: number, clock: { t: number }, cost: number, log: string[]): IngestSource & { paused: boolean; handled: number } {
  let left = count;
  const s = {
    paused: false,
    handled: 0,
    get waiting() { return left > 0; },
    next() {
      if (left === 0) return false;
      left--;
      s.handled++;
      clock.t += cost;
      log.push(`${name}${s.handled}`);
      return true;
    },
    pause() { s.paused = true; },
    resume() { s.paused = false; },
  };
  return s;
}

type Source = ReturnType<typeof source>;

/** Three sources of 12 lines at 2 ms each, with data in the same turn: a takes the slice, b and c wait untouched. */
function threeWaiting(scheduler: IngestScheduler, clock: { t: number }, log: string[]): [Source, Source, Source] {
  const all: [Source, Source, Source] = [source("a", 12, clock, 2, log), source("b", 12, clock, 2, log), source("c", 12, clock, 2, log)];
  for (const s of all) scheduler.run(s);
  return all;
}

describe("agent output in slices (ingest)", () => {
  it("handles lines while the turn's slice lasts, pauses the source, and finishes over the next turns in order", async () => {
    const clock = { t: 0 };
    const log: string[] = [];
    const scheduler = new IngestScheduler(8, () => clock.t);
    const a = source("a", 30, clock, 1, log);
    scheduler.run(a);
    // 8 ms of budget, 1 ms a line: 8 lines now, the rest later.
    assert.equal(a.handled, 8);
    assert.equal(a.paused, true, "its stdout is paused while its lines wait");
    const perTurn: number[] = [];
    while (a.waiting) {
      const before = a.handled;
      await turn();
      perTurn.push(a.handled - before);
    }
    assert.deepEqual(perTurn, [8, 8, 6]);
    assert.equal(a.paused, false, "read again once its lines are handled");
    assert.deepEqual(log, Array.from({ length: 30 }, (_, i) => `a${i + 1}`));
  });

  it("one budget per turn for all agents, shared round-robin", async () => {
    const clock = { t: 0 };
    const log: string[] = [];
    const scheduler = new IngestScheduler(8, () => clock.t);
    const [a, b, c] = threeWaiting(scheduler, clock, log);
    assert.deepEqual([a.handled, b.handled, c.handled], [4, 0, 0]);
    assert.ok(a.paused && b.paused && c.paused);
    // Then one source a turn, in the order they waited, the one just served going to the back.
    await turn();
    assert.deepEqual([a.handled, b.handled, c.handled], [8, 0, 0]);
    await turn();
    assert.deepEqual([a.handled, b.handled, c.handled], [8, 4, 0]);
    await turn();
    assert.deepEqual([a.handled, b.handled, c.handled], [8, 4, 4]);
    await turn();
    assert.deepEqual([a.handled, b.handled, c.handled], [12, 4, 4]);
    while (a.waiting || b.waiting || c.waiting) await turn();
    assert.ok(!a.paused && !b.paused && !c.paused);
    for (const name of ["a", "b", "c"]) assert.deepEqual(log.filter((l) => l.startsWith(name)), Array.from({ length: 12 }, (_, i) => `${name}${i + 1}`));
  });

  it("a source whose agent was sent a Stop goes first, and its stdout is read on for a bounded number of chunks while its lines wait", async () => {
    const clock = { t: 0 };
    const log: string[] = [];
    const scheduler = new IngestScheduler(8, () => clock.t);
    const [a, b, c] = threeWaiting(scheduler, clock, log);
    assert.ok(a.paused && b.paused && c.paused);
    // Stop sent to c's agent: read again at once (the write it is blocked in completes)...
    scheduler.hurry(c);
    assert.equal(c.paused, false, "the hurried agent's stdout is read again");
    // ...for HURRY_CHUNKS more chunks (each arrives as a run) while its lines still wait, then paused again.
    for (let i = 1; i < HURRY_CHUNKS; i++) scheduler.run(c);
    assert.equal(c.paused, false, `still read after ${HURRY_CHUNKS - 1} more chunks`);
    scheduler.run(c);
    assert.equal(c.paused, true, `paused again after ${HURRY_CHUNKS}: an agent that writes on regardless is held to a bound`);
    // Its lines go first next turn.
    await turn();
    assert.deepEqual([a.handled, b.handled, c.handled], [4, 0, 4]);
    while (a.waiting || b.waiting || c.waiting) await turn();
    assert.ok(!a.paused && !b.paused && !c.paused);
    // An agent whose output is not waiting is not touched.
    const d = source("d", 0, clock, 2, log);
    scheduler.hurry(d);
    assert.equal(d.paused, false);
    for (const name of ["a", "b", "c"]) assert.deepEqual(log.filter((l) => l.startsWith(name)), Array.from({ length: 12 }, (_, i) => `${name}${i + 1}`));
  });

  it("ndjson: a flood is parsed over several turns, in order, with the stdout paused (the writer sees backpressure), and the stream closes after its last line", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough({ highWaterMark: 1024 });
    const incoming: AnyMessage[] = [];
    // Each message costs 1 ms of a fake clock: an 8 ms slice takes 8 of them.
    const clock = { t: 0 };
    const scheduler = new IngestScheduler(8, () => clock.t);
    const stream = ndJsonStream(stdin, stdout, { incoming: (m) => { clock.t += 1; incoming.push(m); }, outgoing: () => undefined, noise: () => undefined }, undefined, scheduler);
    const reader = stream.readable.getReader();
    const line = (n: number): string => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { n } }) + "\n";
    let text = "";
    for (let n = 0; n < 100; n++) text += line(n);
    stdout.write(text);
    assert.equal(incoming.length, 8, "one slice now");
    assert.equal(stdout.isPaused(), true);
    let more = "";
    for (let n = 100; n < 150; n++) more += line(n);
    assert.equal(stdout.write(more + JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x", params: {} }) + "\n"), false, "the writer is told to wait");
    stdout.end();
    const last = await reader.read();
    assert.deepEqual(last.value, { jsonrpc: "2.0", id: 1, method: "x", params: {} });
    assert.deepEqual(incoming.slice(0, 150).map((m) => (m as { params: { n: number } }).params.n), Array.from({ length: 150 }, (_, n) => n));
    assert.equal((await reader.read()).done, true, "closed after the last line");
  });
});
