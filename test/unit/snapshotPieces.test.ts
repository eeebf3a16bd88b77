/** A large snapshot in pieces: the newest turns first, then the rest, and what the webview puts together is the host's state. */
import * as assert from "node:assert/strict";
import type { ThoughtEvent, ThoughtEventBody } from "../../src/shared/events";
import type { HostInfo } from "../../src/shared/protocol";
import { apply, EMPTY_REPLICA, type Replica } from "../../src/shared/replica";
import { awaitsTurns, EMPTY_STATE, reduce, sessionFacts, type ViewState } from "../../src/shared/viewModel";
import { jsonLengthPast, planSnapshot } from "../../src/core/snapshotPieces";
import { nextPatch, patchQueue } from "../../src/core/panelPatches";

let seq = 0;
function ev(sessionId: string, body: ThoughtEventBody, turnId?: number): ThoughtEvent {
  seq++;
  return { ...body, seq, at: 1000 + seq, sessionId, ...(turnId !== undefined ? { turnId } : {}) };
}
const host: HostInfo = { agents: ["Demo"], defaultAgent: "Demo", thinkingDisplay: "auto" };

/** A session of `turns` turns, each a thought of `chars` characters and a tool call. */
function session(id: string, turns: number, chars: number): ThoughtEvent[] {
  const events = [ev(id, { kind: "session_start", agentName: "Demo", cwd: "/w" })];
  for (let t = 1; t <= turns; t++) {
    events.push(
      ev(id, { kind: "turn_start", turnId: t, prompt: [{ type: "text", text: `prompt ${t} of ${id}` }] }, t),
      ev(id, { kind: "user_message", text: `prompt ${t} of ${id}`, content: { type: "text", text: `prompt ${t} of ${id}` } }, t),
      ev(id, { kind: "thought", text: `${t}`.padEnd(chars, "x"), content: { type: "text", text: `${t}`.padEnd(chars, "x") } }, t),
      ev(id, { kind: "tool_start", toolCallId: `${id}-tool-${t}`, announced: true, title: `Read ${t}`, toolKind: "read", status: "in_progress" }, t),
      ev(id, { kind: "turn_end", turnId: t, stopReason: "end_turn" }, t),
    );
  }
  return events;
}

function replicaOf(state: ViewState): Replica {
  return apply(EMPTY_REPLICA, { type: "snapshot", version: state.version, state, host }).replica;
}

describe("snapshot in pieces", () => {
  beforeEach(() => { seq = 0; });

  it("sends a state that fits in one piece as it is", () => {
    const state = reduce(EMPTY_STATE, [...session("a", 3, 1_000), ...session("b", 2, 1_000)]);
    const plan = planSnapshot(state, "a", 64 * 1024);
    assert.equal(plan.head, state);
    assert.deepEqual([...plan.pieces], []);
  });

  it("sends the shown session's newest turns first, the rest newest first, and the webview ends with the host's state", () => {
    const state = reduce(EMPTY_STATE, [...session("a", 12, 10_000), ...session("b", 5, 10_000), ...session("c", 1, 100)]);
    const plan = planSnapshot(state, "a", 32 * 1024);
    const a = plan.head.sessions.a!;
    // The shown one: what fits in a piece (three turns of ~10 KB), numbered and titled as the whole.
    assert.deepEqual(a.turns.map((t) => t.turnId), [10, 11, 12]);
    assert.deepEqual(a.earlier, { turns: 9, prompt: "prompt 1 of a", lastAt: state.sessions.a!.turns[11]!.endedAt });
    assert.ok(awaitsTurns(a));
    assert.deepEqual(sessionFacts(a), sessionFacts(state.sessions.a!));
    assert.deepEqual(Object.keys(a.toolIndex), ["a-tool-10", "a-tool-11", "a-tool-12"]);
    // The others: what fits in a sixteenth of a piece (none of b's, all of c).
    assert.deepEqual(plan.head.sessions.b!.turns, []);
    assert.deepEqual(sessionFacts(plan.head.sessions.b!), sessionFacts(state.sessions.b!));
    assert.equal(plan.head.sessions.c, state.sessions.c);
    assert.equal(JSON.stringify(plan.head).length < 40 * 1024, true, `first message ${JSON.stringify(plan.head).length} characters`);
    const pieces = [...plan.pieces];
    assert.deepEqual(pieces.map((p) => [p.sessionId, p.turns.map((t) => t.turnId), p.done]), [
      ["a", [7, 8, 9], false], ["a", [4, 5, 6], false], ["a", [1, 2, 3], true],
      ["b", [3, 4, 5], false], ["b", [1, 2], true],
    ]);
    // The webview: the head, then each piece at the snapshot's version (no step of it), then a patch as usual.
    let replica = replicaOf(plan.head);
    for (const p of pieces) {
      const r = apply(replica, { type: "turns", from: state.version, to: state.version, sessionId: p.sessionId, turns: p.turns, done: p.done });
      assert.equal(r.outcome, "sessions");
      replica = r.replica;
    }
    assert.equal(replica.version, state.version);
    for (const id of ["a", "b", "c"]) {
      const got = replica.state.sessions[id]!;
      assert.equal(got.earlier, undefined, `${id} is whole`);
      assert.deepEqual(got.turns, state.sessions[id]!.turns);
      assert.deepEqual({ ...got.toolIndex, ...got.newTools }, { ...state.sessions[id]!.toolIndex, ...state.sessions[id]!.newTools });
    }
    // A later patch that touches a tool call of the first turn lands where the host's does.
    const q = patchQueue();
    q.push(ev("a", { kind: "tool_done", toolCallId: "a-tool-1", outcome: "completed" }, 12));
    const next = nextPatch(state, q)!;
    const r = apply(replica, next.patch);
    assert.equal(r.outcome, "applied");
    assert.deepEqual(r.replica.state.sessions.a!.turns, next.state.sessions.a!.turns);
  });

  it("always sends the shown session's last turn first, however large, and a piece is a whole turn", () => {
    const state = reduce(EMPTY_STATE, session("a", 3, 100_000));
    const plan = planSnapshot(state, "a", 32 * 1024);
    assert.deepEqual(plan.head.sessions.a!.turns.map((t) => t.turnId), [3]);
    assert.deepEqual([...plan.pieces].map((p) => p.turns.map((t) => t.turnId)), [[2], [1]]);
  });

  it("a saved session still being read stays so when its pieces are in", () => {
    const read = reduce(EMPTY_STATE, session("a", 6, 10_000));
    const saved = { bytes: 1, turns: 40, startedAt: 1, lastAt: 2, loaded: "tail" as const };
    const state: ViewState = { ...read, sessions: { a: { ...read.sessions.a!, restored: true, saved } } };
    const plan = planSnapshot(state, "a", 32 * 1024);
    let replica = replicaOf(plan.head);
    for (const p of plan.pieces) replica = apply(replica, { type: "turns", from: state.version, to: state.version, sessionId: p.sessionId, turns: p.turns, done: p.done }).replica;
    assert.deepEqual(replica.state.sessions.a!.saved, saved);
    assert.equal(replica.state.sessions.a!.turns.length, 6);
    assert.ok(awaitsTurns(replica.state.sessions.a), "the rest of the saved session is still to be read");
  });

  it("measures JSON about as JSON.stringify does, and no further than asked", () => {
    const state = reduce(EMPTY_STATE, session("a", 4, 5_000));
    const turn = state.sessions.a!.turns[1];
    const exact = JSON.stringify(turn).length;
    const est = jsonLengthPast(turn, Infinity);
    assert.ok(Math.abs(est - exact) / exact < 0.1, `estimate ${est} for ${exact}`);
    const huge = { items: Array.from({ length: 1_000 }, (_, i) => ({ text: "y".repeat(1_000), i })) };
    // It stops counting a little past the limit: about one more item, not the megabyte.
    const past = jsonLengthPast(huge, 10_000);
    assert.ok(past > 10_000 && past < 13_000, `${past}`);
  });
});
