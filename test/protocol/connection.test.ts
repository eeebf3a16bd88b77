/**
 * Our client against the scripted ACP agent over real stdio: the thought stream, permissions,
 * fs and terminals, cancellation, and every way the agent can fail.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { AgentError } from "../../src/acp/agentError";
import type { ThoughtEvent } from "../../src/shared/events";
import { TurnError } from "../../src/core/thoughtStream";
import { harness, type Harness } from "./harness";
import type { Scenario } from "../fixtures/agents/scenario";

describe("ACP client ↔ scripted agent over stdio", function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  afterEach(async () => { await h?.cleanup(); h = undefined; });

  async function run(scenario: Scenario): Promise<{ h: Harness; events: ThoughtEvent[] }> {
    h = await harness(scenario);
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const events: ThoughtEvent[] = [];
    for await (const e of s.prompt("hello agent")) events.push(e);
    return { h, events };
  }

  it("streams thoughts, messages, plan and tool calls in order with dense sequence numbers", async () => {
    const { events } = await run({
      turns: [[
        { thought: "Let me think about this.", chunkSize: 5 },
        { sessionUpdate: { sessionUpdate: "plan", entries: [{ content: "Look", priority: "high", status: "in_progress" }] } },
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read file", kind: "read", status: "in_progress" } },
        { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" } },
        { echoPrompt: true },
      ]],
    });
    const kinds = events.map((e) => e.kind);
    assert.deepEqual(kinds.filter((k) => k !== "thought"), ["turn_start", "user_message", "plan", "tool_start", "tool_update", "tool_done", "message", "turn_end"]);
    assert.equal(events.filter((e) => e.kind === "thought").map((e) => e.kind === "thought" ? e.text : "").join(""), "Let me think about this.");
    const seqs = events.map((e) => e.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    assert.ok(events.every((e, i) => i === 0 || e.seq === events[i - 1]!.seq + 1), "no gaps within the turn");
    assert.ok(events.every((e) => e.at > 0 && e.turnId === 1));
    const msg = events.find((e) => e.kind === "message");
    assert.ok(msg?.kind === "message" && msg.text.includes("hello agent"));
  });

  it("reports unknown and unstable update kinds instead of dropping them", async () => {
    const { events } = await run({
      turns: [[
        { update: { sessionUpdate: "hologram_update", beam: 42 } },
        { update: { sessionUpdate: "plan_update", plan: { type: "items", planId: "p", entries: [{ content: "A", priority: "low", status: "pending" }] } } },
        { update: { sessionUpdate: "agent_thought_chunk", content: { type: "text" } } },
        { message: "done" },
      ]],
    });
    const unknown = events.filter((e) => e.kind === "unknown");
    assert.equal(unknown.length, 2);
    assert.ok(unknown.some((e) => e.kind === "unknown" && e.what === "hologram_update"));
    assert.ok(events.some((e) => e.kind === "plan"));
  });

  it("reports non-JSON stdout noise in the log and the turn", async () => {
    const { h: hh, events } = await run({ turns: [[{ raw: "Debugger listening on ws://..." }, { raw: "{\"jsonrpc\":\"2.0\",\"method\":" }, { message: "still fine" }]] });
    assert.equal(events.filter((e) => e.kind === "unknown" && e.what === "stdout").length, 2);
    assert.ok(hh.logger.lines.some((l) => l.includes("Debugger listening")));
    assert.ok(events.some((e) => e.kind === "message" && e.text === "still fine"));
  });

  it("permission request: the port sees the agent's options and the chosen option reaches the agent", async () => {
    h = await harness({
      turns: [[{
        permission: { toolCall: { toolCallId: "w1", title: "Write notes.md", kind: "edit", content: [{ type: "diff", path: "/x/notes.md", newText: "hi" }] }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }] },
        onSelected: { yes: [{ message: "allowed" }], no: [{ message: "rejected" }] },
        onCancelled: [{ message: "cancelled" }],
      }]],
    });
    h.permissions.decide = () => ({ outcome: "selected", optionId: "no" });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const r = await s.prompt("go").result;
    assert.equal(r.text, "rejected");
    assert.equal(h.permissions.asked.length, 1);
    assert.deepEqual(h.permissions.asked[0]!.options.map((o) => o.optionId), ["yes", "no"]);
    assert.equal(h.permissions.asked[0]!.toolCallId, "w1");
    const kinds = s.log.all().map((e) => e.kind);
    assert.ok(kinds.indexOf("tool_start") < kinds.indexOf("permission_request"));
    assert.ok(kinds.indexOf("permission_request") < kinds.indexOf("permission_outcome"));
  });

  it("AbortSignal cancels: session/cancel reaches the agent, an open permission resolves cancelled", async () => {
    h = await harness({
      turns: [[{
        permission: { toolCall: { toolCallId: "w1", title: "Write" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }] },
        onCancelled: [{ message: "saw cancel" }, { waitForCancel: true, timeoutMs: 5000 }],
      }]],
    });
    h.permissions.decide = (req) => new Promise((resolve) => req.signal.addEventListener("abort", () => resolve({ outcome: "cancelled" })));
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const ac = new AbortController();
    const stream = s.prompt("go", { signal: ac.signal });
    for await (const e of stream) if (e.kind === "permission_request") break;
    ac.abort();
    const r = await stream.result;
    assert.equal(r.stopReason, "cancelled");
    const outcome = s.log.all().find((e) => e.kind === "permission_outcome");
    assert.ok(outcome?.kind === "permission_outcome" && outcome.outcome.outcome === "cancelled");
  });

  it("cancelling during a permission request ends the turn as cancelled, every time", async () => {
    // session/cancel goes out first, then the "cancelled" answer to the open request (ACP's order).
    for (let i = 0; i < 10; i++) {
      h = await harness({ turns: [[{ permission: { toolCall: { toolCallId: "w2", title: "Push" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }] } }]] });
      h.permissions.decide = (req) => new Promise((resolve) => req.signal.addEventListener("abort", () => resolve({ outcome: "cancelled" })));
      const c = await h.start();
      const s = await c.newSession(h.dir);
      const stream = s.prompt("go");
      for await (const e of stream) if (e.kind === "permission_request") break;
      s.cancelTurn();
      assert.equal((await stream.result).stopReason, "cancelled", `run ${i}`);
      await h.cleanup();
      h = undefined;
    }
  });

  it("fs read and write go through the port", async () => {
    h = await harness({ turns: [[]] });
    const file = path.join(h.dir, "a.txt");
    await fs.writeFile(file, "line1\nline2\n");
    const scenario: Scenario = { turns: [[{ readFile: { path: file }, report: true }, { writeFile: { path: path.join(h.dir, "b.txt"), content: "new" }, report: true }]] };
    h.spec.env.SCRIPTED_AGENT_SCENARIO = JSON.stringify(scenario);
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const r = await s.prompt("go").result;
    assert.match(r.text, /read:line1\nline2/);
    assert.match(r.text, /wrote:/);
    assert.equal(await fs.readFile(path.join(h.dir, "b.txt"), "utf8"), "new");
  });

  it("terminal/create runs a shell string, output and exit code come back, byte limit truncates from the start", async () => {
    h = await harness({
      turns: [[
        { terminal: { command: "printf 'abc'; printf 'def' 1>&2; exit 3" }, report: true },
        { terminal: { command: process.execPath, args: ["-e", "process.stdout.write('x'.repeat(100) + 'END')"], outputByteLimit: 10 }, report: true },
      ]],
    });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const r = await s.prompt("go").result;
    assert.match(r.text, /terminal:3:abcdef/);
    assert.match(r.text, /terminal:0:xxxxxxxEND/);
  });

  it("answers an agent error on session/prompt as a failed turn, and the session stays usable", async () => {
    h = await harness({ turns: [[{ thought: "hmm" }, { fail: { code: -32603, message: "model overloaded" } }], [{ message: "second ok" }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const first = s.prompt("1");
    await assert.rejects(first.result, (e: unknown) => e instanceof TurnError && /model overloaded/.test(e.message));
    assert.ok(s.log.all().some((e) => e.kind === "thought"), "what arrived before the error is kept");
    assert.equal((await s.prompt("2").result).text, "second ok");
  });

  it("an agent crash mid-turn fails the turn with the exit code and stderr, never hangs", async () => {
    h = await harness({ turns: [[{ thought: "about to die" }, { stderr: "panic: out of cheese" }, { sleep: 50 }, { crash: 7 }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const stream = s.prompt("go");
    await assert.rejects(stream.result, /exited with code 7/);
    const err = s.log.all().find((e) => e.kind === "error");
    assert.ok(err?.kind === "error" && err.fatal && /out of cheese/.test(err.message), JSON.stringify(err));
    assert.ok(s.log.all().some((e) => e.kind === "thought"), "the transcript so far is kept");
    await assert.rejects(s.prompt("again").result, /not running/);
  });

  it("a stderr flood keeps memory and the log bounded: a 64 KB ring, rate-limited log lines, one notice", async () => {
    // 100,000 lines (20 MB), then a crash: the error quotes the ring's tail, not the whole flood.
    h = await harness({ turns: [[{ thought: "chatty" }, { stderr: "x".repeat(199), repeat: 100_000 }, { stderr: "LAST LINE" }, { sleep: 100 }, { crash: 5 }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    await assert.rejects(s.prompt("go").result, /exited with code 5/);
    const logged = h.logger.lines.filter((l) => l.includes("stderr]"));
    assert.ok(logged.length <= 202, `at most 200 stderr lines per 5 s are logged (got ${logged.length})`);
    const err = s.log.all().find((e) => e.kind === "error");
    assert.ok(err?.kind === "error" && /LAST LINE/.test(err.message), "the error quotes the end of stderr");
    assert.ok(err.message.length < 1000, "and only the end");
    const tail = (c as unknown as { stderrTail: string }).stderrTail;
    assert.ok(tail.length <= 64 * 1024 && tail.endsWith("LAST LINE\n"), `the ring holds the last 64 KB (${tail.length} chars)`);
    const notices = s.log.all().filter((e) => e.kind === "notice" && /writing a lot to stderr/.test(e.title));
    assert.equal(notices.length, 1, "the user is told once");
  });

  it("a command that does not exist is a clear AgentError", async () => {
    h = await harness({ turns: [[]] });
    h.spec.command = "/definitely/not/an-agent";
    await assert.rejects(h.start(), (e: unknown) => e instanceof AgentError && /not found/.test(e.message) && /agentThoughts.agents/.test(e.hint));
  });

  it("initialize that never answers times out with a clear error, and the process is killed", async () => {
    h = await harness({ initialize: "hang", turns: [[]] });
    const started = Date.now();
    await assert.rejects(h.start(800), (e: unknown) => e instanceof AgentError && /did not answer initialize within 1 s/.test(e.message));
    assert.ok(Date.now() - started < 5000);
  });

  it("an unsupported protocol version is refused with a clear error", async () => {
    h = await harness({ protocolVersion: 99, turns: [[]] });
    await assert.rejects(h.start(), (e: unknown) => e instanceof AgentError && /protocol version 99/.test(e.message));
  });

  it("an agent crashing during initialize reports its stderr", async () => {
    h = await harness({ initialize: "crash", turns: [[]] });
    await assert.rejects(h.start(), (e: unknown) => e instanceof AgentError && /exited with code 3/.test(e.message));
  });

  it("authenticates when session/new requires it", async () => {
    h = await harness({ requireAuth: true, authMethods: [{ id: "key", name: "API key" }], turns: [[{ message: "in" }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    assert.equal((await s.prompt("x").result).text, "in");
    assert.ok(h.logger.lines.some((l) => l.includes("Authenticating")));
  });

  it("records session_start with modes, config options and legacy models; early updates are kept", async () => {
    h = await harness({
      sessionNewResponse: {
        modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }, { id: "code", name: "Code" }] },
        configOptions: [{ id: "model", name: "Model", category: "model", type: "select", currentValue: "m1", options: [{ value: "m1", name: "M1" }] }],
        models: { currentModelId: "m1", availableModels: [{ modelId: "m1", name: "M1" }] },
      },
      afterSessionNew: [{ sessionUpdate: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "review", description: "Review" }] } }],
      turns: [[{ message: "ok" }]],
    });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    await s.prompt("x").result;
    const start = s.log.all()[0]!;
    assert.ok(start.kind === "session_start");
    assert.equal(start.modes?.availableModes.length, 2);
    assert.equal(start.configOptions?.[0]?.category, "model");
    assert.equal(start.models?.currentModelId, "m1");
    assert.ok(s.log.all().some((e) => e.kind === "commands"));
  });

  it("sessions of two agents that use the same session id stay apart", async () => {
    h = await harness({ turns: [[{ echoPrompt: true }]] });
    const [c1, c2] = [await h.start(), await h.start()];
    const [s1, s2] = [await c1.newSession(h.dir), await c2.newSession(h.dir)];
    assert.equal(s1.agentSessionId, s2.agentSessionId, "the scripted agent numbers its sessions from 1");
    assert.notEqual(s1.sessionId, s2.sessionId);
    const [r1, r2] = await Promise.all([s1.prompt("one").result, s2.prompt("two").result]);
    assert.match(r1.text, /one/);
    assert.match(r2.text, /two/);
    assert.ok(s1.log.all().every((e) => e.sessionId === s1.sessionId));
  });

  it("a flood of 5,000 thought chunks arrives complete and in order", async () => {
    h = await harness({ turns: [[{ flood: { count: 5000 } }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const chunks: ThoughtEvent[] = [];
    s.log.subscribe((e) => { if (e.kind === "thought") chunks.push(e); });
    const t0 = Date.now();
    const r = await s.prompt("flood").result;
    const ms = Date.now() - t0;
    assert.equal(chunks.length, 5000);
    chunks.forEach((e, i) => assert.ok(e.kind === "thought" && e.text.startsWith(String(i).padStart(6, "0")), `chunk ${i} out of order`));
    assert.equal(r.thoughts.length, 5000 * 24);
    // The log keeps the run as one event, its text the chunks' in order.
    const kept = s.log.all().filter((e) => e.kind === "thought");
    assert.equal(kept.length, 1);
    assert.equal(kept[0]!.kind === "thought" && kept[0]!.text, chunks.map((e) => (e.kind === "thought" ? e.text : "")).join(""));
    console.log(`      5,000 chunks over stdio in ${ms} ms`);
  });
});
