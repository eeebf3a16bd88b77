/**
 * Continuing sessions under stress and attack, with the real SessionManager and the scripted agent
 * over stdio (written by a review as reproductions of defects, which are fixed): two prompts at
 * once, keys of reopened sessions, a closed session staying closed, a replay that does not line
 * up, a second continuation of a live agent session, replayed edits.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { AgentSession } from "../../src/acp/agentSession";
import { SessionManager } from "../../src/acp/sessionManager";
import type { ThoughtEvent } from "../../src/shared/events";
import { EMPTY_STATE, reduce, savedSessionOf, type ViewState } from "../../src/shared/viewModel";
import { harness, type Harness } from "./harness";
import type { Scenario } from "../fixtures/agents/scenario";
import { until } from "../support/until";
import { recorded } from "../support/recorded";

describe("continuing sessions: races, reopening, closing, replays", function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  let manager: SessionManager | undefined;
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(path.join(os.tmpdir(), "at-review-")); });
  afterEach(async () => {
    manager?.dispose();
    manager = undefined;
    await h?.cleanup();
    h = undefined;
    rmSync(tmp, { recursive: true, force: true });
  });

  /** A manager whose "panel" is the reduced view state, as extension.ts wires it. */
  async function setUp(scenario: Omit<Scenario, "recordFile" | "storeDir">): Promise<{ m: SessionManager; events: ThoughtEvent[]; view: () => ViewState; received: () => { method: string; params: Record<string, unknown> }[] }> {
    const recordFile = path.join(tmp, "received.jsonl");
    h = await harness({ ...scenario, recordFile, storeDir: path.join(tmp, "store") });
    let state = EMPTY_STATE;
    const events: ThoughtEvent[] = [];
    const hh = h;
    const m = new SessionManager(hh.ports, {
      initializeTimeoutMs: 10_000, clientName: "review", clientVersion: "0",
      resolveAgent: () => hh.spec,
      savedSession: (id) => { const v = state.sessions[id]; return Promise.resolve(v ? savedSessionOf(v) : undefined); },
    });
    manager = m;
    m.onEvent((e) => { events.push(e); state = reduce(state, [e]); });
    const received = (): { method: string; params: Record<string, unknown> }[] =>
      recorded(recordFile);
    return { m, events, view: () => state, received };
  }

  it("two prompts sent quickly to a closed session continue it once (one session/resume, no duplicate seq or turn ids)", async () => {
    const { m, events, received } = await setUp({ capabilities: { sessionCapabilities: { resume: {}, close: {} } }, turns: [[{ message: "ok" }]] });
    const first = m.stream("first");
    const r1 = await first.result;
    const key = r1.sessionId;
    await m.sessionById(key)!.close();
    // The user presses Enter twice (or types a second prompt while the agent is resuming).
    const a = m.stream("second", { sessionId: key });
    const b = m.stream("third", { sessionId: key });
    await Promise.allSettled([a.result, b.result]);
    const resumes = received().filter((r) => r.method === "session/resume");
    const mine = events.filter((e) => e.sessionId === key);
    const seqs = mine.map((e) => e.seq);
    const dupSeqs = seqs.filter((s, i) => seqs.indexOf(s) !== i);
    const turnStarts = mine.filter((e) => e.kind === "turn_start").map((e) => e.kind === "turn_start" ? e.turnId : 0);
    assert.deepEqual({ resumes: resumes.length, dupSeqs, turnStarts },
      { resumes: 1, dupSeqs: [], turnStarts: [1, 2, 3] });
  });

  it("a session opened from session/list never gets the key of a session this connection already had (Delete then reopen shows nothing)", async () => {
    const { m } = await setUp({ capabilities: { loadSession: true, sessionCapabilities: { list: {}, close: {} } }, turns: [[{ message: "ok" }]] });
    const r = await m.stream("first").result;
    const live = m.sessionById(r.sessionId)!;
    await live.close();
    // Delete Session forgets `r.sessionId` in the panel (ThoughtPanelController.forgotten); the agent
    // declares no session/delete, so session/list still offers it, and opening it continues with key keyFor(id):
    const opened = await m.continueSession({ sessionId: "", agentSessionId: live.agentSessionId, cwd: h!.dir, lastSeq: 0, lastTurnId: 0, shownPrompts: [] }, undefined);
    assert.notEqual(opened.sessionId, r.sessionId, "same key as the deleted session: every event of it is dropped by the panel's forgotten set, and its seqs restart at 1 under a key that had seqs");
  });

  it("after Close Session (agent without session/close) nothing more is recorded in the closed session: no late updates, no fatal error when the agent later dies", async () => {
    const { m, events } = await setUp({
      capabilities: { sessionCapabilities: { resume: {} } },
      promptCounterFile: path.join(tmp, "prompts"),
      turns: [
        [{ message: "ok" }],
        // The agent goes on writing into the first session (its id is scripted-session-1), then exits.
        [{ update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "late, for the closed session" } }, sessionId: "scripted-session-1" }, { crash: 1 }],
      ],
    });
    const r = await m.stream("first").result;
    const closed = m.sessionById(r.sessionId)!;
    await closed.close();
    const closedAt = events.filter((e) => e.sessionId === r.sessionId).length;
    // Another session of the same agent process.
    await m.stream("second", { newSession: true }).result.catch(() => undefined);
    await until(() => events.some((e) => e.kind === "error" && e.fatal), "the agent's death");
    const after = events.filter((e) => e.sessionId === r.sessionId).slice(closedAt);
    // Each of these re-creates the transcript file of a session the user may have deleted (TranscriptStore.write appends by key).
    assert.deepEqual(after.map((e) => e.kind), []);
  });

  it("a session/load replay whose turns do not line up with the panel's loses the agent's new turn (counting turns is not matching them)", async () => {
    // The panel shows 2 turns; the second never reached the agent's history (a prompt the agent
    // refused, a local slash command, a turn cancelled before it was sent). In the agent's CLI the
    // user then asked one more question. The replay: [turn 1, CLI turn].
    const transport = {
      agentName: "A", cwd: "/w", dead: new Promise<never>(() => undefined),
      prompt: () => Promise.resolve({ stopReason: "end_turn" as const }), cancel: () => Promise.resolve(),
      setMode: () => Promise.resolve(), setModel: () => Promise.resolve(), setConfigOption: () => Promise.resolve([]),
    };
    const quiet = { traceEnabled: false, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
    const s = new AgentSession("k", "a", transport, { request: () => Promise.resolve({ outcome: "cancelled" as const }) }, quiet, Date.now, undefined, { lastSeq: 10, lastTurnId: 2 });
    s.beginReplay(["first question", "a prompt the agent never got"]);
    for (const u of [
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "first question" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "first answer" } },
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "asked in the CLI" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "answered in the CLI" } },
    ]) s.ingestUpdate(u);
    s.endReplay();
    await s.drainReplay();
    const texts = s.log.all().flatMap((e) => (e.kind === "message" ? [e.text] : []));
    assert.deepEqual(texts, ["answered in the CLI"]);
  });

  it("continuing a second panel session with the same agent id does not steal the first one's running turn", async () => {
    const { m, events } = await setUp({
      capabilities: { sessionCapabilities: { resume: {}, close: {} } },
      turns: [[{ message: "ok" }], [{ sleep: 1500 }, { message: "for the first" }], [{ message: "for the second" }]],
    });
    const r = await m.stream("first").result;
    const live = m.sessionById(r.sessionId)!;
    await live.close();
    // Two sessions in the panel know the same agent session (e.g. one restored from an earlier
    // window, one opened from session/list when the first was beyond the 20 restored).
    const one = await m.continueSession({ sessionId: r.sessionId, agentSessionId: live.agentSessionId, cwd: h!.dir, lastSeq: 100, lastTurnId: 1, shownPrompts: ["first"] }, undefined);
    const running = one.prompt("long one").result;
    await until(() => events.some((e) => e.sessionId === one.sessionId && e.kind === "turn_start" && e.seq > 100), "the turn starts");
    await assert.rejects(m.continueSession({ sessionId: "other-window.1:" + live.agentSessionId, agentSessionId: live.agentSessionId, cwd: h!.dir, lastSeq: 0, lastTurnId: 0, shownPrompts: [] }, undefined), /already has this session open/);
    await running.catch(() => undefined);
    const msg = events.find((e) => e.kind === "message" && e.text === "for the first");
    assert.equal(msg?.sessionId, one.sessionId, "the first session's answer landed in another session");
  });

  it("opening an agent's session from session/list does not feed its old edits to the change tracker as edits that just completed", async () => {
    const file = path.join(tmp, "a.txt");
    const { m, events } = await setUp({
      capabilities: { loadSession: true, sessionCapabilities: { list: {} } },
      savedSessions: [{ sessionId: "cli-1", title: "Old work", history: [
        { sessionUpdate: "user_message_chunk", content: { type: "text", text: "rename it" } },
        { sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit a.txt", kind: "edit", status: "completed", content: [{ type: "diff", path: file, oldText: "old", newText: "new" }] },
      ] }],
      turns: [[{ message: "ok" }]],
    });
    await m.continueSession({ sessionId: "", agentSessionId: "cli-1", cwd: h!.dir, lastSeq: 0, lastTurnId: 0, shownPrompts: [] }, undefined);
    // EditSources.onEvent (via AgentChanges, extension.ts) records a tool_start/tool_update diff
    // followed by tool_done "completed" as an agent edit to review: with a.txt = "new" today,
    // Review lists a.txt and Reject writes back "old" (months-old text).
    // extension.ts hands the change tracker, checkpoints, terminals and the status bar only events that are not replayed.
    const done = events.filter((e) => !e.replayed && e.kind === "tool_done" && e.outcome === "completed");
    const withDiff = events.filter((e) => !e.replayed && e.kind === "tool_start" && (e.content ?? []).some((c) => c.type === "diff"));
    assert.deepEqual({ done: done.length, withDiff: withDiff.length }, { done: 0, withDiff: 0 }, "replayed history must be told apart from a live edit");
    assert.ok(events.some((e) => e.replayed && e.kind === "tool_start"), "the replayed edit is still shown");
  });
});
