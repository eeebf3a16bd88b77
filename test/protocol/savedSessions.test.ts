/**
 * The scripted agent as an agent with saved sessions, driven over real stdio by the SDK's own
 * client: a session made by one agent process is listed, loaded (its conversation replayed before
 * the answer), resumed (nothing replayed) and deleted by later processes with the same store, as
 * after window reloads; the record file shows what each process was sent.
 */
import * as assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { AGENT_JS } from "./harness";
import { until } from "../support/until";
import { SCENARIO_ENV, type Scenario } from "../fixtures/agents/scenario";
import { recorded } from "../support/recorded";

/** One scripted agent process and the SDK client connected to it. */
interface Agent {
  agent: acp.ClientContext;
  init: acp.InitializeResponse;
  /** Every `session/update` received, in arrival order. */
  updates: acp.SessionNotification[];
  /** Ends stdin (the agent exits when its connection closes) and waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as when the window that ran it reloads, and waits for the exit. */
  kill(): Promise<void>;
}

const running: ChildProcess[] = [];

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

async function startAgent(scenario: Scenario, cwd: string): Promise<Agent> {
  const child = spawn(process.execPath, [AGENT_JS], { cwd, env: { ...process.env, [SCENARIO_ENV]: JSON.stringify(scenario) }, stdio: ["pipe", "pipe", "inherit"] });
  running.push(child);
  const updates: acp.SessionNotification[] = [];
  const connection = acp
    .client({ name: "saved-sessions-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
  const init = await connection.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "saved-sessions-test", version: "0.0.0" },
  });
  return {
    agent: connection.agent,
    init,
    updates,
    async stop() {
      connection.close();
      child.stdin.end();
      await exited(child);
    },
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
      connection.close();
    },
  };
}

const SESSION_METHODS = {
  loadSession: true,
  sessionCapabilities: { resume: {}, list: {}, close: {}, delete: {} },
};

const text = (t: string): acp.ContentBlock => ({ type: "text", text: t });
const user = (t: string): Record<string, unknown> => ({ sessionUpdate: "user_message_chunk", content: text(t) });
const forSession = (updates: acp.SessionNotification[], sessionId: string): Record<string, unknown>[] =>
  updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as Record<string, unknown>);

describe("Scripted agent: saved sessions across agent processes (load, resume, list, close, delete)", function () {
  this.timeout(30_000);
  let tmp: string;
  let cwd: string;
  let storeDir: string;
  let recordFile: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), "at-saved-"));
    cwd = path.join(tmp, "workspace");
    storeDir = path.join(tmp, "store");
    recordFile = path.join(tmp, "received.jsonl");
    mkdirSync(cwd);
  });
  afterEach(async () => {
    for (const child of running.splice(0)) {
      child.kill("SIGKILL");
      await exited(child);
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  const received = (): { method: string; params: Record<string, unknown> }[] =>
    recorded(recordFile);

  it("a session made by one process is listed and loaded by the next (replay before the answer), resumed by a third that plays the next turn, then deleted", async () => {
    const scenario: Scenario = {
      capabilities: SESSION_METHODS,
      storeDir,
      recordFile,
      sessionTitle: "Fix the parser",
      turns: [
        [{ thought: "Reading the parser" }, { message: "First answer" }],
        [
          { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read parser.ts", kind: "read", status: "in_progress" } },
          { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" } },
          { sessionUpdate: { sessionUpdate: "plan", entries: [{ content: "Fix it", priority: "high", status: "pending" }] } },
          { echoPrompt: true },
        ],
        [{ message: "Third turn, after the reloads" }],
      ],
    };

    // Process 1: a new session, two turns, then the agent goes away.
    const first = await startAgent(scenario, cwd);
    assert.deepEqual(first.init.agentCapabilities?.sessionCapabilities, SESSION_METHODS.sessionCapabilities);
    assert.equal(first.init.agentCapabilities?.loadSession, true);
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    await until(() => forSession(first.updates, sessionId).some((u) => u.sessionUpdate === "session_info_update"), "the session's title");
    assert.equal((await first.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("first prompt")] })).stopReason, "end_turn");
    const afterFirst = forSession(first.updates, sessionId).length;
    assert.equal((await first.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("second prompt")] })).stopReason, "end_turn");
    const live = forSession(first.updates, sessionId);
    assert.deepEqual(live[0], { sessionUpdate: "session_info_update", title: "Fix the parser" });
    await first.stop();

    // What a load must replay: everything the agent sent, with each prompt where it was made.
    const conversation = [live[0], user("first prompt"), ...live.slice(1, afterFirst), user("second prompt"), ...live.slice(afterFirst)];
    assert.equal(conversation.length, 9, JSON.stringify(conversation));

    // Process 2: lists it, loads it.
    const second = await startAgent(scenario, cwd);
    const listed = await second.agent.request(acp.methods.agent.session.list, { cwd });
    assert.equal(listed.sessions.length, 1);
    assert.equal(listed.sessions[0]!.sessionId, sessionId);
    assert.equal(listed.sessions[0]!.title, "Fix the parser");
    assert.equal(listed.sessions[0]!.cwd, cwd);
    assert.ok(!Number.isNaN(Date.parse(listed.sessions[0]!.updatedAt ?? "")), `updatedAt is a date: ${listed.sessions[0]!.updatedAt}`);
    assert.deepEqual((await second.agent.request(acp.methods.agent.session.list, { cwd: path.join(tmp, "elsewhere") })).sessions, [], "another folder's list leaves it out");
    await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    // Read at the moment the answer arrived: a replay that came after it would be missing here.
    const replayed = forSession(second.updates, sessionId);
    assert.deepEqual(replayed, conversation);
    await second.agent.request(acp.methods.agent.session.close, { sessionId });
    await second.stop();

    // Process 3: resumes it (nothing replayed) and plays the conversation's third turn.
    const third = await startAgent(scenario, cwd);
    await third.agent.request(acp.methods.agent.session.resume, { sessionId, cwd, mcpServers: [] });
    assert.deepEqual(forSession(third.updates, sessionId), [], "resume replays nothing");
    assert.equal((await third.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("third prompt")] })).stopReason, "end_turn");
    assert.deepEqual(forSession(third.updates, sessionId), [{ sessionUpdate: "agent_message_chunk", content: text("Third turn, after the reloads") }]);
    await third.agent.request(acp.methods.agent.session.delete, { sessionId });
    assert.deepEqual((await third.agent.request(acp.methods.agent.session.list, { cwd })).sessions, []);
    await assert.rejects(third.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] }), (e: unknown) => e instanceof acp.RequestError && e.code === -32002);
    await third.stop();

    const record = received();
    assert.deepEqual(record.map((r) => r.method), [
      "initialize", "session/new", "session/prompt", "session/prompt",
      "initialize", "session/list", "session/list", "session/load", "session/close",
      "initialize", "session/resume", "session/prompt", "session/delete", "session/list", "session/load",
    ]);
    const resume = record.find((r) => r.method === "session/resume")!;
    assert.equal(resume.params.sessionId, sessionId);
    assert.equal(resume.params.cwd, cwd);
  });

  it("the default scenario declares no load, resume or other session methods, and its record shows what it was sent", async () => {
    const agent = await startAgent({ recordFile, turns: [[{ message: "ok" }]] }, cwd);
    assert.equal(agent.init.agentCapabilities?.loadSession, false);
    assert.equal(agent.init.agentCapabilities?.sessionCapabilities, undefined);
    await agent.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    await agent.stop();
    assert.deepEqual(received().map((r) => r.method), ["initialize", "session/new"]);
  });

  it("what a turn sent before its agent was killed is loaded by the next process", async () => {
    const scenario: Scenario = { capabilities: SESSION_METHODS, storeDir, turns: [[{ message: "halfway" }, { sleep: 60_000 }, { message: "never sent" }], [{ message: "second turn" }]] };
    const first = await startAgent(scenario, cwd);
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    void first.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("go")] }).catch(() => undefined);
    await until(() => forSession(first.updates, sessionId).length > 0, "the first message");
    await first.kill();

    const second = await startAgent(scenario, cwd);
    await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    assert.deepEqual(forSession(second.updates, sessionId), [user("go"), { sessionUpdate: "agent_message_chunk", content: text("halfway") }]);
    await second.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("again")] });
    assert.deepEqual(forSession(second.updates, sessionId).at(-1), { sessionUpdate: "agent_message_chunk", content: text("second turn") });
  });

  it("saved sessions from the start: listed with the folder asked about, loaded with their history, the next prompt plays the next turn; a deleted one stays deleted in the next process", async () => {
    const history = [user("old question"), { sessionUpdate: "agent_message_chunk", content: text("old answer") }];
    const scenario: Scenario = {
      capabilities: SESSION_METHODS,
      storeDir,
      savedSessions: [
        { sessionId: "cli-older", title: "Older", updatedAt: "2026-01-01T10:00:00.000Z", history },
        { sessionId: "cli-newer", title: "Newer", updatedAt: "2026-01-02T10:00:00.000Z", cwd: path.join(tmp, "other"), history: [] },
      ],
      turns: [[{ message: "turn 0" }], [{ message: "turn 1" }]],
    };
    const first = await startAgent(scenario, cwd);
    const all = await first.agent.request(acp.methods.agent.session.list, {});
    assert.deepEqual(all.sessions.map((s) => s.sessionId), ["cli-newer", "cli-older"], "newest first");
    const here = await first.agent.request(acp.methods.agent.session.list, { cwd });
    assert.deepEqual(here.sessions.map((s) => [s.sessionId, s.cwd, s.title]), [["cli-older", cwd, "Older"]]);
    await first.agent.request(acp.methods.agent.session.load, { sessionId: "cli-older", cwd, mcpServers: [] });
    assert.deepEqual(forSession(first.updates, "cli-older"), history);
    await first.agent.request(acp.methods.agent.session.prompt, { sessionId: "cli-older", prompt: [text("new question")] });
    assert.deepEqual(forSession(first.updates, "cli-older").at(-1), { sessionUpdate: "agent_message_chunk", content: text("turn 1") });
    await first.agent.request(acp.methods.agent.session.delete, { sessionId: "cli-newer" });
    await first.stop();

    const second = await startAgent(scenario, cwd);
    assert.deepEqual((await second.agent.request(acp.methods.agent.session.list, {})).sessions.map((s) => s.sessionId), ["cli-older"]);
  });

  it("session/close cancels the session's running turn, and the closed session takes no more prompts until it is loaded again", async () => {
    const agent = await startAgent({ capabilities: SESSION_METHODS, turns: [[{ sleep: 60_000 }, { message: "slept through" }], [{ message: "after close" }]] }, cwd);
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const turn = agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("wait")] });
    await agent.agent.request(acp.methods.agent.session.close, { sessionId });
    assert.equal((await turn).stopReason, "cancelled");
    await assert.rejects(agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("closed?")] }), (e: unknown) => e instanceof acp.RequestError && e.code === -32002);
    await agent.agent.request(acp.methods.agent.session.resume, { sessionId, cwd });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("back")] });
    assert.deepEqual(forSession(agent.updates, sessionId).at(-1), { sessionUpdate: "agent_message_chunk", content: text("after close") });
  });
});
