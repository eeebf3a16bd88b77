/**
 * Continuing a saved session: the replay of `session/load` merged into what the panel shows (turns
 * it has are dropped, later ones added, session state applied), the continued log going on after
 * the saved events and turns, and what the panel offers for a session that cannot be continued.
 */
import * as assert from "node:assert/strict";
import { AgentSession, type SessionTransport } from "../../src/acp/agentSession";
import type { Logger } from "../../src/acp/ports";
import type { ThoughtEvent, ThoughtEventBody } from "../../src/shared/events";
import { ReplayMerge } from "../../src/core/replayMerge";
import { EMPTY_STATE, markRestored, readOnlyReason, reduce, savedSessionOf, sessionSummary, type SessionView } from "../../src/shared/viewModel";

const quiet: Logger = { traceEnabled: false, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const user = (text: string): unknown => ({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
const said = (text: string): unknown => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const thought = (text: string): unknown => ({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
const tool = (id: string): unknown => ({ sessionUpdate: "tool_call", toolCallId: id, title: `Read ${id}`, kind: "read", status: "completed" });

const transport: SessionTransport = {
  agentName: "Scripted", cwd: "/w", dead: new Promise<never>(() => undefined),
  prompt: () => Promise.resolve({ stopReason: "end_turn" }), cancel: () => Promise.resolve(),
  setMode: () => Promise.resolve(), setModel: () => Promise.resolve(), setConfigOption: () => Promise.resolve([]),
};

/** A saved session of two turns, as the panel shows it after a reload. */
function savedTwoTurns(): SessionView {
  let seq = 0;
  const ev = (body: ThoughtEventBody, turnId?: number): ThoughtEvent => ({ ...body, seq: ++seq, at: 1000 + seq, sessionId: "old.1:agent-7", ...(turnId ? { turnId } : {}) });
  const text = (t: string): { text: string; content: { type: "text"; text: string } } => ({ text: t, content: { type: "text", text: t } });
  const state = reduce(EMPTY_STATE, [
    ev({ kind: "session_start", agentName: "Scripted", agentId: "Saver", cwd: "/w", agentSessionId: "agent-7", abilities: { load: true } }),
    ev({ kind: "turn_start", turnId: 1, prompt: [{ type: "text", text: "first question" }] }, 1),
    ev({ kind: "user_message", ...text("first question") }, 1),
    ev({ kind: "message", ...text("first answer") }, 1),
    ev({ kind: "turn_end", turnId: 1, stopReason: "end_turn" }, 1),
    ev({ kind: "turn_start", turnId: 2, prompt: [{ type: "text", text: "second question" }] }, 2),
    ev({ kind: "user_message", ...text("second question") }, 2),
    ev({ kind: "message", ...text("second answer") }, 2),
    ev({ kind: "turn_end", turnId: 2, stopReason: "end_turn" }, 2),
  ]);
  return markRestored(state, ["old.1:agent-7"]).sessions["old.1:agent-7"]!;
}

describe("continuing saved sessions", () => {
  it("lines a replay up with the shown prompts: shown turns dropped, the rest added from the first that is not shown", () => {
    const replay = [
      { sessionUpdate: "available_commands_update", availableCommands: [] }, user("q1"), user(" more of q1"), thought("t"), said("a1"),
      user("q2"), tool("x"), said("a2"), { sessionUpdate: "session_info_update", title: "Title" },
      user("q3"), said("a3"),
    ];
    const run = (shown: string[]): { steps: string[]; added: number; skipped: number } => {
      const m = new ReplayMerge(shown);
      for (const u of replay) m.push(u);
      const steps = m.steps().map((s) => `${s.newTurn ? "+" : ""}${(s.update as { sessionUpdate: string }).sessionUpdate.replace(/_.*/, "")}`);
      return { steps, added: m.added, skipped: m.skipped };
    };
    assert.deepEqual(run(["q1", "q2"]), { steps: ["available", "session", "+user", "agent"], added: 1, skipped: 7 });
    assert.deepEqual(run([]), { steps: ["available", "+user", "user", "agent", "agent", "+user", "tool", "agent", "session", "+user", "agent"], added: 3, skipped: 0 });
    // A shown turn the agent never got (refused, cancelled before it was sent): lined up by text, q3 from the CLI is kept.
    assert.deepEqual(run(["q1", "never reached the agent"]), { steps: ["available", "+user", "tool", "agent", "session", "+user", "agent"], added: 2, skipped: 4 });
    // An agent that rewrites prompts when it replays them: nothing matches, so the shown count decides.
    assert.deepEqual(run(["Q-ONE rewritten", "Q-TWO rewritten"]).added, 1);
  });

  it("continues the saved session's numbering and adds only the turns the panel did not have", async () => {
    const saved = savedSessionOf(savedTwoTurns());
    assert.deepEqual({ ...saved }, { sessionId: "old.1:agent-7", agentSessionId: "agent-7", cwd: "/w", lastSeq: 9, lastTurnId: 2, shownPrompts: ["first question", "second question"], agentName: "Saver", abilities: { load: true } });
    const s = new AgentSession(saved.sessionId, saved.agentSessionId, transport, { request: () => Promise.resolve({ outcome: "cancelled" }) }, quiet, () => 5000, undefined, { lastSeq: saved.lastSeq, lastTurnId: saved.lastTurnId });
    s.beginReplay(saved.shownPrompts);
    for (const u of [user("first question"), said("first answer"), user("second question"), said("second answer"), user("asked in the CLI"), thought("hm"), said("answered in the CLI")]) s.ingestUpdate(u);
    assert.equal(s.log.length, 0, "nothing is shown until the replay is complete");
    s.endReplay();
    assert.deepEqual(await s.drainReplay(), { added: 1, skipped: 4, overflow: 0 });
    s.record({ kind: "session_start", agentName: "Scripted", agentId: "Saver", cwd: "/w", agentSessionId: "agent-7", continued: "load" });
    const events = s.log.all();
    assert.deepEqual(events.map((e) => e.seq), [10, 11, 12, 13, 14, 15]);
    assert.deepEqual(events.map((e) => e.kind), ["turn_start", "user_message", "thought", "message", "turn_end", "session_start"]);
    assert.ok(events.slice(0, 5).every((e) => e.turnId === 3), "the added turn is numbered after the saved ones");
    const view = savedTwoTurns();
    const next = reduce({ version: 9, sessions: { [view.sessionId]: view }, order: [view.sessionId] }, events).sessions[view.sessionId]!;
    assert.deepEqual(next.turns.map((t) => t.prompt), ["first question", "second question", "asked in the CLI"], "no turn twice, the new one added");
    assert.equal(next.turns[2]!.entries.find((e) => e.type === "message")?.type === "message" ? "answered in the CLI" : "", "answered in the CLI");
    assert.equal(next.restored, undefined, "live again");
    assert.equal(next.status, "idle");
    assert.equal(new Set(next.turns.flatMap((t) => t.entries.map((e) => e.id))).size, next.turns.reduce((n, t) => n + t.entries.length, 0), "entry ids stay unique");
  });

  it("adds a long replay in slices (the host keeps answering) and what the agent sent meanwhile after it", async () => {
    const s = new AgentSession("k", "a", transport, { request: () => Promise.resolve({ outcome: "cancelled" }) }, quiet, Date.now, undefined, { lastSeq: 0, lastTurnId: 0 });
    s.beginReplay([]);
    for (let t = 0; t < 200; t++) {
      s.ingestUpdate(user(`question ${t}`));
      for (let i = 0; i < 200; i++) s.ingestUpdate(said(`answer ${t}.${i} `));
    }
    s.endReplay();
    s.ingestUpdate(said("LIVE after the load"));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const draining = s.drainReplay();
    setImmediate(() => s.ingestUpdate(said(" and more")));
    const r = await draining;
    clearInterval(ticker);
    assert.equal(r.added, 200);
    assert.ok(ticks > 0, "the event loop ran while the replay was added");
    const events = s.log.all();
    const live = events.filter((e) => !e.replayed);
    assert.deepEqual(live.map((e) => (e.kind === "message" ? e.text : e.kind)), ["LIVE after the load and more"], "what came during the drain follows the replay, not marked replayed (one message: the log keeps a run of chunks joined)");
    assert.equal(events.filter((e) => e.replayed && e.kind === "turn_start").length, 200);
  });

  it("numbers the next prompt's turn after the saved ones", async () => {
    const s = new AgentSession("k", "a", transport, { request: () => Promise.resolve({ outcome: "cancelled" }) }, quiet, Date.now, undefined, { lastSeq: 40, lastTurnId: 6 });
    await s.prompt("go on").result;
    const start = s.log.all()[0]!;
    assert.equal(start.kind, "turn_start");
    assert.equal(start.seq, 41);
    assert.equal(start.turnId, 7);
  });

  it("says why a session is read-only, and which sessions a prompt continues", () => {
    const view = savedTwoTurns();
    assert.equal(readOnlyReason(view), undefined, "an agent that declares session/load continues it");
    assert.match(readOnlyReason({ ...view, abilities: {} }) ?? "", /declares neither session\/resume nor session\/load/);
    assert.equal(readOnlyReason({ ...view, abilities: undefined }), undefined, "unknown (older transcript): the agent is asked");
    assert.match(readOnlyReason({ ...view, agentSessionId: undefined, sessionId: "old.1:long…hash", abilities: undefined }) ?? "", /does not have the agent's id/);
    assert.equal(readOnlyReason({ ...view, restored: undefined, status: "idle" }), undefined, "a running session is not read-only");
  });

  it("summarises a session for a new one, newest turns kept within the limit", () => {
    const view = savedTwoTurns();
    const text = sessionSummary(view);
    assert.match(text, /^Continuing an earlier session with Scripted\. What happened there:\n1\. Asked: first question\n {3}Answer: first answer\n2\. Asked: second question\n {3}Answer: second answer\n\nNow: $/);
    const long = { ...view, turns: Array.from({ length: 200 }, (_, i) => ({ ...view.turns[0]!, turnId: i + 1, prompt: `question ${i + 1} ${"x".repeat(200)}` })) };
    const cut = sessionSummary(long, 2000);
    assert.ok(cut.length <= 2000, `${cut.length} characters`);
    assert.match(cut, /earlier turns left out/);
    assert.match(cut, /200\. Asked: question 200/);
  });
});
