/** The webview's replica: a snapshot replaces it, a patch applies only at its own version, a gap asks for a snapshot. */
import * as assert from "node:assert/strict";
import { packEvent, unpackEvent, type ThoughtEvent, type ThoughtEventBody } from "../../src/shared/events";
import type { HostInfo } from "../../src/shared/protocol";
import { apply, EMPTY_REPLICA, type Replica } from "../../src/shared/replica";
import { EMPTY_STATE, prependTurns, putSessions, reduce, savedView } from "../../src/shared/viewModel";
import { nextPatch, patchQueue } from "../../src/core/panelPatches";

/** Events as the panel queues them for its next patch. */
function queued(events: ThoughtEvent[]): ReturnType<typeof patchQueue> {
  const q = patchQueue();
  for (const e of events) q.push(e);
  return q;
}

let seq = 0;
function ev(body: ThoughtEventBody, turnId?: number): ThoughtEvent {
  seq++;
  return { ...body, seq, at: 1000 + seq, sessionId: "s1", ...(turnId !== undefined ? { turnId } : {}) };
}
const host: HostInfo = { agents: ["Demo"], defaultAgent: "Demo", thinkingDisplay: "auto" };

describe("webview replica", () => {
  beforeEach(() => { seq = 0; });

  const start = (): { state: ReturnType<typeof reduce>; events: ThoughtEvent[] } => {
    const events = [ev({ kind: "session_start", agentName: "Demo", cwd: "/w" }), ev({ kind: "turn_start", turnId: 1, prompt: [{ type: "text", text: "hi" }] }, 1)];
    return { state: reduce(EMPTY_STATE, events), events };
  };

  it("ignores patches before the first snapshot (the snapshot will include them)", () => {
    const r = apply(EMPTY_REPLICA, { type: "patch", from: 0, to: 2, events: start().events });
    assert.equal(r.outcome, "ignored");
    assert.equal(r.replica, EMPTY_REPLICA);
  });

  it("takes a snapshot whole, whatever it had", () => {
    const { state } = start();
    const r = apply({ ...EMPTY_REPLICA, version: 99, synced: true }, { type: "snapshot", version: state.version, state, host });
    assert.equal(r.outcome, "replaced");
    assert.deepEqual(r.replica, { state, host, version: state.version, synced: true });
  });

  it("folds a patch that starts at its version, as the host did", () => {
    const { state } = start();
    let replica: Replica = apply(EMPTY_REPLICA, { type: "snapshot", version: state.version, state, host }).replica;
    const next = nextPatch(state, queued([ev({ kind: "thought", text: "a", content: { type: "text", text: "a" } }, 1), ev({ kind: "thought", text: "b", content: { type: "text", text: "b" } }, 1)]))!;
    const r = apply(replica, next.patch);
    assert.equal(r.outcome, "applied");
    // The patch carries the joined text once; the replica's events have their text block back.
    assert.deepEqual(next.patch.events.map((e) => ("content" in e ? "content" : e.kind)), ["thought"]);
    assert.ok(r.outcome === "applied");
    assert.deepEqual(r.events.map((e) => e.kind === "thought" && e.content), [{ type: "text", text: "ab" }]);
    replica = r.replica;
    assert.equal(replica.version, next.state.version);
    assert.deepEqual(replica.state, next.state);
  });

  it("packs only a text block that repeats the event's text: everything else travels whole", () => {
    const plain = ev({ kind: "message", text: "hi", content: { type: "text", text: "hi" }, messageId: "m" }, 1);
    assert.equal(JSON.stringify(packEvent(plain)).split("hi").length - 1, 1, "the text once");
    const whole: ThoughtEvent[] = [
      ev({ kind: "thought", text: "shown", content: { type: "text", text: "other" } }, 1),
      ev({ kind: "user_message", text: "[image image/png]", content: { type: "image", mimeType: "image/png", data: "iVBO" } }, 1),
      ev({ kind: "tool_update", toolCallId: "t", content: [{ type: "content", content: { type: "text", text: "x" } }] }, 1),
    ];
    for (const e of whole) assert.equal(packEvent(e), e);
    for (const e of [plain, ...whole]) assert.deepEqual(unpackEvent(JSON.parse(JSON.stringify(packEvent(e))) as ReturnType<typeof packEvent>), e);
  });

  it("a patch from another version is a gap: nothing changes and a snapshot is needed", () => {
    const { state } = start();
    const replica = apply(EMPTY_REPLICA, { type: "snapshot", version: state.version, state, host }).replica;
    for (const from of [state.version + 1, state.version - 1]) {
      const r = apply(replica, { type: "patch", from, to: from + 1, events: [ev({ kind: "thought", text: "x", content: { type: "text", text: "x" } }, 1)] });
      assert.equal(r.outcome, "resync");
      assert.equal(r.replica, replica);
    }
  });

  it("whole session views (a saved session read back) apply at their version, in order with the patches; at another, a gap", () => {
    const { state } = start();
    let replica: Replica = apply(EMPTY_REPLICA, { type: "snapshot", version: state.version, state, host }).replica;
    const stub = savedView({ sessionId: "old", agentName: "Claude", cwd: "/w", startedAt: 1, lastAt: 2, bytes: 25_000_000, turns: 48 });
    const order = ["old", "s1"];
    const hostSide = putSessions(state, [stub], order);
    assert.equal(hostSide.version, state.version + 1);
    assert.equal(apply(EMPTY_REPLICA, { type: "sessions", from: 0, to: 1, sessions: [stub], order }).outcome, "ignored", "before the first snapshot");
    const gap = apply(replica, { type: "sessions", from: state.version - 1, to: state.version, sessions: [stub], order });
    assert.equal(gap.outcome, "resync");
    const r = apply(replica, { type: "sessions", from: state.version, to: hostSide.version, sessions: [stub], order });
    assert.equal(r.outcome, "sessions");
    replica = r.replica;
    assert.deepEqual(replica.state, hostSide);
    assert.equal(replica.version, hostSide.version);
    assert.equal(replica.state.sessions.s1, state.sessions.s1, "the other sessions are untouched");
    // Earlier turns of a saved session, the same way.
    const earlier = apply(replica, { type: "turns", from: hostSide.version, to: hostSide.version + 1, sessionId: "s1", turns: [], done: true });
    assert.equal(earlier.outcome, "sessions");
    assert.equal(apply(replica, { type: "turns", from: hostSide.version + 1, to: hostSide.version + 2, sessionId: "s1", turns: [], done: true }).outcome, "resync");
    replica = earlier.replica;
    assert.equal(replica.version, hostSide.version + 1);
    // A patch after them starts where they left the version.
    const next = nextPatch(prependTurns(hostSide, "s1", [], true), queued([ev({ kind: "thought", text: "a", content: { type: "text", text: "a" } }, 1)]))!;
    assert.equal(apply(replica, next.patch).outcome, "applied");
  });

  it("new host facts replace the old ones and leave the state alone, synced or not", () => {
    const other: HostInfo = { ...host, activeSessionId: "s1" };
    const r = apply(EMPTY_REPLICA, { type: "host", host: other });
    assert.equal(r.outcome, "host");
    assert.deepEqual(r.replica, { ...EMPTY_REPLICA, host: other });
  });

  it("never changes the replica it is given", () => {
    const { state } = start();
    const replica = Object.freeze(apply(EMPTY_REPLICA, { type: "snapshot", version: state.version, state, host }).replica);
    const next = nextPatch(state, queued([ev({ kind: "thought", text: "a", content: { type: "text", text: "a" } }, 1)]))!;
    assert.doesNotThrow(() => apply(replica, next.patch));
    assert.equal(replica.version, state.version);
  });
});
