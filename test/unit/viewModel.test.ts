/** The panel's view model reducer: folding, purity (inputs never mutated), identity of untouched parts. */
import * as assert from "node:assert/strict";
import type { ThoughtEvent, ThoughtEventBody } from "../../src/shared/events";
import { appendedSince, EMPTY_STATE, trackTextGrowth, isLoading, markRestored, nextAgent, prependTurns, putSessions, reduce, savedView, sessionFacts, TERMINAL_VIEW_CHARS, toolEntryIn, withTurns, type Entry, type ViewState } from "../../src/shared/viewModel";

let seq = 0;
function ev(body: ThoughtEventBody, turnId?: number, sessionId = "s1"): ThoughtEvent {
  seq++;
  return { ...body, seq, at: 1000 + seq, sessionId, ...(turnId !== undefined ? { turnId } : {}) };
}
const text = (t: string): { text: string; content: { type: "text"; text: string } } => ({ text: t, content: { type: "text", text: t } });

function deepFreeze<T>(o: T): T {
  if (o && typeof o === "object" && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

describe("view model reducer", () => {
  beforeEach(() => { seq = 0; });

  function turnOne(): ViewState {
    return reduce(EMPTY_STATE, [
      ev({ kind: "session_start", agentName: "Demo", cwd: "/w", modes: { currentModeId: "code", availableModes: [{ id: "code", name: "Code" }] } }),
      ev({ kind: "turn_start", turnId: 1, prompt: [{ type: "text", text: "hi" }] }, 1),
      ev({ kind: "user_message", ...text("hi") }, 1),
      ev({ kind: "thought", ...text("Let me ") }, 1),
      ev({ kind: "thought", ...text("think.") }, 1),
      ev({ kind: "plan", entries: [{ content: "A", priority: "high", status: "in_progress" }] }, 1),
      ev({ kind: "tool_start", toolCallId: "t1", announced: true, title: "Read", toolKind: "read", status: "pending" }, 1),
      ev({ kind: "permission_request", requestId: "p1", toolCallId: "t1", title: "Read", options: [{ optionId: "r", name: "Reject", kind: "reject_once" }], toolCall: {} }, 1),
    ]);
  }

  it("the next prompt's agent is the shown session's, or the one selected since", () => {
    const s = turnOne().sessions.s1!;
    assert.deepEqual(nextAgent(s, "Demo"), { name: "Demo", switched: false });
    assert.deepEqual(nextAgent({ ...s, agentId: "Claude", agentName: "Claude Code" }, "Claude"), { name: "Claude Code", switched: false }, "the agent's own name for itself while it stays");
    assert.deepEqual(nextAgent({ ...s, agentId: "Claude", agentName: "Claude Code" }, "Gemini"), { name: "Gemini", switched: true });
    assert.deepEqual(nextAgent(undefined, "Gemini"), { name: "Gemini", switched: false });
  });

  it("a session read back after a reload mid-question has no question left to answer", () => {
    const s = markRestored(turnOne(), ["s1"]);
    const card = s.sessions.s1!.turns[0]!.entries.find((e) => e.type === "tool");
    assert.ok(card?.type === "tool");
    assert.equal(card.status, "canceled");
    assert.deepEqual(card.permission?.outcome, { outcome: "cancelled" });
    assert.deepEqual(s.sessions.s1!.pendingPermissions, {});
  });

  it("a call the user rejected, or whose permission the turn's cancel answered, stays rejected / canceled when the agent then reports it failed", () => {
    let s = turnOne();
    s = reduce(s, [
      ev({ kind: "permission_outcome", requestId: "p1", toolCallId: "t1", outcome: { outcome: "selected", optionId: "r" }, by: "user" }, 1),
      ev({ kind: "tool_update", toolCallId: "t1", status: "failed" }, 1),
      ev({ kind: "tool_done", toolCallId: "t1", outcome: "failed" }, 1),
      ev({ kind: "tool_start", toolCallId: "t2", announced: true, title: "Write", toolKind: "edit", status: "pending" }, 1),
      ev({ kind: "permission_request", requestId: "p2", toolCallId: "t2", title: "Write", options: [{ optionId: "a", name: "Allow", kind: "allow_once" }], toolCall: {} }, 1),
      ev({ kind: "permission_outcome", requestId: "p2", toolCallId: "t2", outcome: { outcome: "cancelled" }, by: "cancel" }, 1),
      ev({ kind: "tool_update", toolCallId: "t2", status: "failed" }, 1),
      ev({ kind: "tool_done", toolCallId: "t2", outcome: "failed" }, 1),
      ev({ kind: "tool_start", toolCallId: "t3", announced: true, title: "Run", toolKind: "execute", status: "in_progress" }, 1),
      ev({ kind: "tool_update", toolCallId: "t3", status: "failed" }, 1),
    ]);
    const status = (id: string): string | undefined => {
      for (const t of s.sessions.s1!.turns) for (const e of t.entries) if (e.type === "tool" && e.toolCallId === id) return e.status;
      return undefined;
    };
    assert.equal(status("t1"), "rejected");
    assert.equal(status("t2"), "canceled");
    assert.equal(status("t3"), "failed", "a call that really failed still shows failed");
  });

  it("keeps a bounded tail of a command's streamed _meta output (100 MB in, the real end kept)", () => {
    let s = turnOne();
    const chunk = "x".repeat(64 * 1024 - 1) + "\n";
    const batch: ThoughtEvent[] = [];
    for (let i = 0; i < 1600; i++) batch.push(ev({ kind: "tool_update", toolCallId: "t1", terminal: { output: chunk } }, 1));
    batch.push(ev({ kind: "tool_update", toolCallId: "t1", terminal: { output: "THE END\n", exit: { exitCode: 0 } } }, 1));
    s = reduce(s, batch);
    const card = s.sessions.s1!.turns[0]!.entries.find((e) => e.type === "tool");
    assert.ok(card?.type === "tool" && card.terminalOutput !== undefined);
    assert.ok(card.terminalOutput.length <= 2 * TERMINAL_VIEW_CHARS, `bounded (${card.terminalOutput.length} chars)`);
    assert.ok(card.terminalOutput.endsWith("THE END\n"));
    assert.deepEqual(card.terminalExit, { exitCode: 0 });
  });

  it("a restored turn that never ended says it was interrupted; its open tool calls are canceled", () => {
    const s = markRestored(turnOne(), ["s1"]);
    const v = s.sessions.s1!;
    assert.equal(v.status, "ended");
    assert.deepEqual(v.pendingPermissions, {});
    const t = v.turns[0]!;
    assert.match(t.failed ?? "", /^Interrupted: VS Code reloaded or closed while Demo was working/);
    assert.ok(t.endedAt !== undefined && t.endedAt >= t.startedAt);
    const tool = t.entries.find((e) => e.type === "tool");
    assert.equal(tool?.type === "tool" ? tool.status : undefined, "canceled");
    const thought = t.entries.find((e) => e.type === "thought");
    assert.ok(thought?.type === "thought" && thought.endedAt !== undefined, "the open thought is closed");
    // A finished turn is left as it was.
    const done = reduce(turnOne(), [ev({ kind: "turn_end", turnId: 1, stopReason: "end_turn" }, 1)]);
    assert.equal(markRestored(done, ["s1"]).sessions.s1!.turns[0], done.sessions.s1!.turns[0]);
  });

  it("folds a turn: prompt, merged thought chunks, plan, tool card awaiting permission", () => {
    const s = turnOne();
    const v = s.sessions.s1!;
    assert.equal(s.version, 8);
    assert.equal(v.agentName, "Demo");
    assert.equal(v.status, "awaiting_permission");
    const t = v.turns[0]!;
    assert.equal(t.prompt, "hi");
    assert.deepEqual(t.entries.map((e) => e.type), ["thought", "plan", "tool"]);
    const thought = t.entries[0]!;
    assert.ok(thought.type === "thought" && thought.text === "Let me think." && thought.endedAt !== undefined, "the thought closes when the next entry starts");
    const card = t.entries[2]!;
    assert.ok(card.type === "tool" && card.status === "awaiting_permission" && card.permission?.requestId === "p1");
  });

  it("never mutates its input and keeps untouched objects identical", () => {
    const s1 = deepFreeze(turnOne());
    const s2 = reduce(s1, [
      ev({ kind: "permission_outcome", requestId: "p1", toolCallId: "t1", outcome: { outcome: "selected", optionId: "r" }, by: "user" }, 1),
      ev({ kind: "message", ...text("Done") }, 1),
    ]);
    assert.notEqual(s2, s1);
    const [t1, t2] = [s1.sessions.s1!.turns[0]!, s2.sessions.s1!.turns[0]!];
    assert.equal(t2.entries[0], t1.entries[0], "the untouched thought keeps its identity");
    assert.equal(t2.entries[1], t1.entries[1], "the untouched plan keeps its identity");
    assert.notEqual(t2.entries[2], t1.entries[2]);
    const card = t2.entries[2]!;
    assert.ok(card.type === "tool" && card.status === "rejected");
    assert.equal(s2.sessions.s1!.status, "running");
    assert.equal(reduce(s2, []), s2, "an empty batch is a no-op returning the same object");
  });

  it("a tool first seen in an update, plan updated in place, turn end cancels nothing already final", () => {
    const s = reduce(turnOne(), [
      ev({ kind: "plan", entries: [{ content: "A", priority: "high", status: "completed" }] }, 1),
      ev({ kind: "tool_start", toolCallId: "g1", announced: false, title: "Tool call g1", status: "in_progress" }, 1),
      ev({ kind: "tool_update", toolCallId: "g1", title: "grep foo", content: [{ type: "content", content: { type: "text", text: "3 matches" } }] }, 1),
      ev({ kind: "tool_done", toolCallId: "g1", outcome: "completed" }, 1),
      ev({ kind: "tool_done", toolCallId: "t1", outcome: "canceled" }, 1),
      ev({ kind: "turn_end", turnId: 1, stopReason: "end_turn" }, 1),
    ]);
    const v = s.sessions.s1!;
    const t = v.turns[0]!;
    assert.equal(t.entries.filter((e) => e.type === "plan").length, 1);
    assert.deepEqual(v.plan, [{ content: "A", priority: "high", status: "completed" }]);
    const g = t.entries.find((e) => e.type === "tool" && e.toolCallId === "g1");
    assert.ok(g?.type === "tool" && g.title === "grep foo" && g.status === "completed" && g.content.length === 1);
    assert.equal(t.stopReason, "end_turn");
    assert.equal(v.status, "idle");
  });

  it("folds 100,000 chunks quickly and linearly (one batch per frame)", () => {
    let s = reduce(EMPTY_STATE, [ev({ kind: "turn_start", turnId: 1, prompt: [] }, 1)]);
    const started = process.hrtime.bigint();
    for (let b = 0; b < 100; b++) {
      const batch: ThoughtEvent[] = [];
      for (let i = 0; i < 1000; i++) batch.push(ev({ kind: "thought", ...text("x".repeat(24)) }, 1));
      s = reduce(s, batch);
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const thought = s.sessions.s1!.turns[0]!.entries[0]!;
    assert.ok(thought.type === "thought" && thought.text.length === 2_400_000);
    assert.ok(ms < 2000, `took ${ms} ms`);
  });

  it("errors end the turn; a fatal error ends the session; late notices go to banners", () => {
    const s = reduce(turnOne(), [
      ev({ kind: "error", message: "Agent crashed", fatal: true }, 1),
      ev({ kind: "notice", severity: "warning", title: "Outside a turn" }),
    ]);
    const v = s.sessions.s1!;
    assert.equal(v.status, "ended");
    assert.equal(v.fatalError, "Agent crashed");
    assert.equal(v.turns[0]!.failed, "Agent crashed");
    assert.deepEqual(v.banners.map((b) => b.type), ["notice"]);
  });
  it("a saved session not read yet stands in as ended history with what the index knows; lists show its title, turns, date and size", () => {
    const stub = savedView({ sessionId: "old", agentName: "Claude Code", agentId: "Claude", cwd: "/w", agentSessionId: "a-1", abilities: { load: true }, prompt: "fix the parser", startedAt: 1_000, lastAt: 9_000, bytes: 25_000_000, turns: 48 });
    assert.equal(stub.restored, true);
    assert.equal(stub.status, "ended");
    assert.deepEqual(stub.turns, []);
    assert.deepEqual(stub.saved, { bytes: 25_000_000, turns: 48, startedAt: 1_000, lastAt: 9_000, prompt: "fix the parser", loaded: "none" });
    assert.equal(stub.agentSessionId, "a-1");
    assert.ok(isLoading(stub));
    assert.deepEqual(sessionFacts(stub), { title: "fix the parser", turns: 48, lastAt: 9_000, bytes: 25_000_000 });
    assert.deepEqual(sessionFacts({ ...stub, title: "The agent's title" }).title, "The agent's title");
    assert.ok(!isLoading({ ...stub, saved: { ...stub.saved, loaded: "all" } }));
    const live = turnOne().sessions.s1!;
    assert.ok(!isLoading(live));
    assert.deepEqual(sessionFacts(live), { title: "hi", turns: 1, lastAt: live.turns[0]!.startedAt });
  });

  it("putSessions replaces whole views in the given order, one version step, the other sessions untouched", () => {
    const state = turnOne();
    const stub = savedView({ sessionId: "old", agentName: "A", cwd: "/w", startedAt: 1, lastAt: 2, bytes: 10, turns: 1 });
    const next = putSessions(state, [stub], ["old", "s1", "gone"]);
    assert.deepEqual(next.order, ["old", "s1"], "ids without a session are dropped");
    assert.equal(next.version, state.version + 1);
    assert.equal(next.sessions.s1, state.sessions.s1);
    assert.equal(next.sessions.old, stub);
    assert.equal(state.sessions.old, undefined, "the input is not changed");
  });
  it("tool calls stay found in a long session, whose tool index is not copied whole for every batch", () => {
    let state = deepFreeze(reduce(EMPTY_STATE, [ev({ kind: "session_start", agentName: "Demo", cwd: "/w" }), ev({ kind: "turn_start", turnId: 1, prompt: [] }, 1)]));
    let copies = 0;
    for (let i = 0; i < 300; i++) {
      const before = state.sessions.s1!.toolIndex;
      // Frozen inputs: the reducer changes nothing it is given.
      state = deepFreeze(reduce(state, [ev({ kind: "tool_start", toolCallId: `t${i}`, announced: true, title: `Tool ${i}`, status: "pending" }, 1)]));
      if (state.sessions.s1!.toolIndex !== before) copies++;
    }
    assert.ok(copies <= 300 / 64, `the whole index was copied ${copies} times for 300 tool calls`);
    state = reduce(state, [ev({ kind: "tool_start", toolCallId: "t7", announced: true, title: "Tool 7 again", status: "pending" }, 1)]);
    state = reduce(state, [ev({ kind: "tool_update", toolCallId: "t7", status: "completed" }, 1), ev({ kind: "tool_update", toolCallId: "t250", status: "failed" }, 1)]);
    const s = state.sessions.s1!;
    for (let i = 0; i < 300; i++) assert.equal(toolEntryIn(s, `t${i}`)?.title, i === 7 ? "Tool 7 again" : `Tool ${i}`);
    assert.equal(toolEntryIn(s, "t7")?.status, "completed", "an update goes to the later card of an id");
    assert.equal(s.turns[0]!.entries.filter((e) => e.type === "tool" && e.toolCallId === "t7" && e.status === "pending").length, 1, "the earlier card is left as it was");
    assert.equal(toolEntryIn(s, "t250")?.status, "failed");
    assert.equal(toolEntryIn(s, "t300"), undefined);
  });
  it("a tool call id that is the name of an Object property (an agent chooses ids) is one like any other", () => {
    let state = turnOne();
    for (const id of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      state = reduce(state, [ev({ kind: "tool_update", toolCallId: id, status: "completed" }, 1)]);
      assert.equal(toolEntryIn(state.sessions.s1!, id), undefined, `${id}: an update before the card changes nothing`);
      state = reduce(state, [ev({ kind: "tool_start", toolCallId: id, announced: true, title: `Tool ${id}`, status: "pending" })]);
      state = reduce(state, [ev({ kind: "tool_update", toolCallId: id, status: "completed" })]);
      state = reduce(state, [ev({ kind: "tool_start", toolCallId: id, announced: true, title: `Tool ${id}`, status: "pending" }, 1)]);
      state = reduce(state, [ev({ kind: "tool_update", toolCallId: id, status: "failed" }, 1)]);
      assert.equal(toolEntryIn(state.sessions.s1!, id)?.status, "failed", id);
    }
    assert.equal(Object.getPrototypeOf(state.sessions.s1!.newTools), Object.prototype);
    assert.equal(toolEntryIn(state.sessions.s1!, "t1")?.title, "Read");
  });
  it("a saved session put in piece by piece — its last turns, then earlier turns before them — is the session folded whole", () => {
    const events: ThoughtEvent[] = [ev({ kind: "session_start", agentName: "Demo", cwd: "/w" })];
    for (let t = 1; t <= 5; t++) {
      events.push(ev({ kind: "turn_start", turnId: t, prompt: [{ type: "text", text: `p${t}` }] }, t));
      events.push(ev({ kind: "tool_start", toolCallId: `read-${t}`, announced: true, title: "Read", toolKind: "read", status: "pending" }, t));
      events.push(ev({ kind: "tool_start", toolCallId: "same-id", announced: true, title: `Run ${t}`, toolKind: "execute", status: "pending" }, t));
      events.push(ev({ kind: "message", ...text(`answer ${t}`) }, t));
      events.push(ev({ kind: "turn_end", turnId: t, stopReason: "end_turn" }, t));
    }
    const whole = reduce(EMPTY_STATE, events).sessions.s1!;
    const stub = savedView({ sessionId: "s1", agentName: "Demo", cwd: "/w", startedAt: 0, lastAt: 0, bytes: 1, turns: 5 });
    const saved = { ...stub.saved!, loaded: "tail" as const };
    const last = whole.turns.slice(3);
    let state = putSessions(putSessions(EMPTY_STATE, [stub], ["s1"]), [{ ...withTurns(whole, last), saved }], ["s1"]);
    assert.deepEqual(state.sessions.s1!.toolIndex, { "read-4": [0, 0], "read-5": [1, 0], "same-id": [1, 1] });
    assert.equal(state.sessions.s1!.newTools, undefined);
    state = prependTurns(state, "s1", whole.turns.slice(1, 3), false);
    assert.equal(state.sessions.s1!.saved?.loaded, "tail");
    state = prependTurns(state, "s1", whole.turns.slice(0, 1), true);
    const { newTools: _, toolIndex: __, ...rest } = whole;
    const { newTools: ___, toolIndex: ____, ...put } = state.sessions.s1!;
    assert.deepEqual(put, { ...rest, saved: { ...saved, loaded: "all" } });
    for (const id of ["read-1", "read-3", "read-5", "same-id"]) assert.equal(toolEntryIn(state.sessions.s1!, id), toolEntryIn(whole, id), id);
    assert.equal(toolEntryIn(state.sessions.s1!, "same-id")?.title, "Run 5", "a later card of the same id wins");
    assert.equal(state.version, 4);
    assert.equal(prependTurns(state, "nobody", [], true).sessions, state.sessions, "an unknown session: a version step, nothing else");
  });

  it("tells a renderer what a text grew by since the version it drew, two batches back at most, and nothing it cannot vouch for", () => {
    trackTextGrowth();
    let n = 0;
    const at = (body: ThoughtEventBody): ThoughtEvent => ({ ...ev(body, 1), seq: ++n + 100_000 });
    const thought = (t: string): ThoughtEvent => at({ kind: "thought", ...text(t) });
    const last = (st: ViewState): Entry => st.sessions.s1!.turns[0]!.entries.at(-1)!;
    const textOf = (e: Entry): string => ("text" in e ? e.text : "");
    const s0 = reduce(EMPTY_STATE, [at({ kind: "turn_start", turnId: 1, prompt: [] }), thought("a")]);
    const s1 = reduce(s0, [thought("b"), thought("c")]);
    assert.equal(appendedSince(last(s1), last(s0)), "bc", "one batch of two chunks");
    assert.equal(appendedSince(last(s1), last(s1)), "", "the same version: nothing");
    const s2 = reduce(s1, [thought("d")]);
    assert.equal(appendedSince(last(s2), last(s0)), "bcd", "two batches back");
    assert.equal(appendedSince(last(s2), last(s1)), "d");
    assert.equal(appendedSince(last(s1), last(s2)), undefined, "a later version is not an earlier one");
    const s3 = reduce(s2, [thought("e")]);
    assert.equal(appendedSince(last(s3), last(s0)), undefined, "three back is not kept");
    assert.equal(appendedSince(last(s3), last(s1)), "de");
    assert.equal(textOf(last(s1)) + appendedSince(last(s3), last(s1)), textOf(last(s3)), "the earlier text and what it grew by make the later one");
    // A version made another way (a snapshot read back) is not vouched for.
    const copy = JSON.parse(JSON.stringify(s3)) as ViewState;
    const s4 = reduce(copy, [thought("f")]);
    assert.equal(appendedSince(last(s4), last(s3)), undefined, "the snapshot's entry is another object");
    assert.equal(appendedSince(last(s4), last(copy)), "f");
    // Messages grow the same way; a thought closed by one is a copy with no new text.
    const s5 = reduce(s4, [at({ kind: "message", ...text("m") })]);
    const s6 = reduce(s5, [at({ kind: "message", ...text("n") }), at({ kind: "message", ...text("o") })]);
    assert.equal(appendedSince(last(s6), last(s5)), "no");
    const closed = s6.sessions.s1!.turns[0]!.entries.find((e) => e.type === "thought")!;
    assert.equal(appendedSince(closed, last(s4)), undefined);
    // A thought closed in the batch that grew it keeps no record (nor the versions before it).
    const at2 = (body: ThoughtEventBody): ThoughtEvent => ({ ...ev(body, 2), seq: ++n + 100_000 });
    const t0 = reduce(s6, [at({ kind: "turn_end", turnId: 1, stopReason: "end_turn" }), at2({ kind: "turn_start", turnId: 2, prompt: [] })]);
    const lastOf2 = (st: ViewState): Entry => st.sessions.s1!.turns.at(-1)!.entries.at(-1)!;
    const t1 = reduce(t0, [at2({ kind: "thought", ...text("x") })]);
    const t2 = reduce(t1, [at2({ kind: "thought", ...text("y") }), at2({ kind: "message", ...text("z") })]);
    const thoughtOf2 = t2.sessions.s1!.turns.at(-1)!.entries.find((e) => e.type === "thought")!;
    assert.equal(textOf(thoughtOf2), "xy");
    assert.equal(appendedSince(thoughtOf2, lastOf2(t1)), undefined, "closed: drawn from its text");
  });
});
