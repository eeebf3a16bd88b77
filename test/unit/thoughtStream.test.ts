/**
 * ThoughtStream semantics, one by one, against a real AgentSession driven by an in-memory
 * transport (the protocol tests repeat the important ones over real stdio).
 */
import * as assert from "node:assert/strict";
import { AgentSession, type SessionTransport } from "../../src/acp/agentSession";
import type { Logger, PermissionPort } from "../../src/acp/ports";
import type { ContentBlock, PermissionOutcome, StopReason, ThoughtEvent } from "../../src/shared/events";
import { TurnError } from "../../src/core/thoughtStream";

const quiet: Logger = { traceEnabled: false, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** A transport whose prompt answers when the test says so. */
class FakeTransport implements SessionTransport {
  readonly agentName = "Fake";
  prompts: ContentBlock[][] = [];
  cancels = 0;
  private answer: ((r: { stopReason: StopReason }) => void) | undefined;
  private failWith: ((e: Error) => void) | undefined;
  private killDead!: (e: Error) => void;
  readonly dead = new Promise<never>((_, reject) => { this.killDead = reject; });
  onPrompt: (() => void) | undefined;
  constructor() { this.dead.catch(() => undefined); }
  prompt(_s: string, prompt: ContentBlock[]): Promise<{ stopReason: StopReason }> {
    this.prompts.push(prompt);
    return new Promise((resolve, reject) => { this.answer = resolve; this.failWith = reject; this.onPrompt?.(); });
  }
  cancel(): Promise<void> { this.cancels++; return Promise.resolve(); }
  setMode(): Promise<void> { return Promise.resolve(); }
  setModel(): Promise<void> { return Promise.resolve(); }
  setConfigOption(): Promise<unknown[]> { return Promise.resolve([]); }
  readonly cwd = "/w";
  end(stopReason: StopReason = "end_turn"): void { this.answer?.({ stopReason }); }
  fail(e: Error): void { this.failWith?.(e); }
  die(e: Error): void { this.killDead(e); }
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const thought = (text: string): unknown => ({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
const message = (text: string): unknown => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

function setup(permission?: PermissionPort): { t: FakeTransport; s: AgentSession } {
  const t = new FakeTransport();
  const s = new AgentSession("s1", "agent-s1", t, permission ?? { request: () => Promise.resolve({ outcome: "cancelled" }) }, quiet);
  return { t, s };
}

async function collect(it: AsyncIterable<ThoughtEvent>): Promise<ThoughtEvent[]> {
  const out: ThoughtEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe("ThoughtStream", () => {
  it("starts eagerly: the prompt is sent before anyone iterates or awaits", async () => {
    const { t, s } = setup();
    s.prompt("hello");
    await tick();
    assert.deepEqual(t.prompts, [[{ type: "text", text: "hello" }]]);
  });

  it("result resolves without iterating, events buffer and can be read afterwards", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    await tick();
    s.ingestUpdate(thought("a"));
    s.ingestUpdate(message("b"));
    t.end();
    const result = await stream.result;
    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.thoughts, "a");
    assert.equal(result.text, "b");
    const events = await collect(stream);
    assert.deepEqual(events.map((e) => e.kind), ["turn_start", "user_message", "thought", "message", "turn_end"]);
  });

  it("iterating while the turn runs yields events live, then ends when the turn ends", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    const seen: string[] = [];
    const done = (async () => { for await (const e of stream) seen.push(e.kind); })();
    await tick();
    s.ingestUpdate(thought("x"));
    await tick();
    assert.deepEqual(seen, ["turn_start", "user_message", "thought"]);
    t.end();
    await done;
    assert.deepEqual(seen, ["turn_start", "user_message", "thought", "turn_end"]);
  });

  it("iterating and awaiting the result at once both complete", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    t.onPrompt = () => { s.ingestUpdate(message("m")); t.end(); };
    const [events, result] = await Promise.all([collect(stream), stream.result]);
    assert.equal(result.text, "m");
    assert.equal(events.at(-1)!.kind, "turn_end");
  });

  it("two iterators are independent cursors over the whole turn", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    t.onPrompt = () => { s.ingestUpdate(thought("1")); s.ingestUpdate(thought("2")); t.end(); };
    const [a, b] = await Promise.all([collect(stream), collect(stream)]);
    assert.deepEqual(a.map((e) => e.seq), b.map((e) => e.seq));
    assert.equal(a.length, 5);
  });

  it("break keeps the turn and the result", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    t.onPrompt = () => s.ingestUpdate(thought("first"));
    for await (const e of stream) if (e.kind === "thought") break;
    s.ingestUpdate(message("after break"));
    t.end();
    const r = await stream.result;
    assert.equal(r.text, "after break");
    assert.equal(t.cancels, 0);
  });

  it("include filters what iteration yields, not the result", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q", { include: ["message"] });
    t.onPrompt = () => { s.ingestUpdate(thought("t")); s.ingestUpdate(message("m")); t.end(); };
    const events = await collect(stream);
    assert.deepEqual(events.map((e) => e.kind), ["message"]);
    assert.equal((await stream.result).thoughts, "t");
    const onlyThoughts = await collect(stream.filter((e) => e.kind === "thought"));
    assert.deepEqual(onlyThoughts.map((e) => e.kind), ["thought"]);
  });

  it("rejects the result and throws from iteration after yielding what arrived when the prompt fails", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    t.onPrompt = () => { s.ingestUpdate(thought("partial")); t.fail(Object.assign(new Error("Internal error"), { code: -32603 })); };
    const seen: string[] = [];
    await assert.rejects(async () => { for await (const e of stream) seen.push(e.kind); }, (e: unknown) => e instanceof TurnError && /Internal error/.test(e.message) && e.code === -32603);
    assert.deepEqual(seen, ["turn_start", "user_message", "thought", "error"]);
    await assert.rejects(stream.result, TurnError);
    // The session is still usable afterwards.
    const next = s.prompt("again");
    t.onPrompt = () => t.end();
    assert.equal((await next.result).stopReason, "end_turn");
  });

  it("never hangs when the agent dies mid-turn", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    t.onPrompt = () => { s.end(new Error("exited with code 3")); t.die(new Error("exited with code 3")); };
    await assert.rejects(stream.result, /exited with code 3/);
    await assert.rejects(collect(stream), /exited with code 3/);
  });

  it("an AbortSignal sends session/cancel and resolves pending permission requests as cancelled", async () => {
    let seenSignal: AbortSignal | undefined;
    const permission: PermissionPort = {
      request: (req) => new Promise<PermissionOutcome>((resolve) => {
        seenSignal = req.signal;
        req.signal.addEventListener("abort", () => resolve({ outcome: "cancelled" }));
      }),
    };
    const { t, s } = setup(permission);
    const ac = new AbortController();
    const stream = s.prompt("q", { signal: ac.signal });
    await tick();
    s.ingestPermissionRequest("7", { toolCall: { toolCallId: "w", title: "Write" }, options: [{ optionId: "ok", name: "OK", kind: "allow_once" }] });
    const answer = s.permissionReply("7");
    await tick();
    assert.ok(seenSignal && !seenSignal.aborted);
    ac.abort();
    assert.deepEqual(await answer, { outcome: "cancelled" });
    assert.equal(t.cancels, 1);
    t.end("cancelled");
    const r = await stream.result;
    assert.equal(r.stopReason, "cancelled");
    const kinds = s.log.all().map((e) => e.kind);
    assert.ok(kinds.includes("permission_outcome"));
    const outcome = s.log.all().find((e) => e.kind === "permission_outcome");
    assert.ok(outcome?.kind === "permission_outcome" && outcome.by === "cancel");
    // The tool card opened by the permission request is closed as canceled at turn end.
    assert.ok(s.log.all().some((e) => e.kind === "tool_done" && e.outcome === "canceled"));
  });

  it("a permission request is asked once, when its handler takes it; one never taken is answered cancelled at turn end", async () => {
    const asked: string[] = [];
    const { t, s } = setup({ request: (req) => { asked.push(req.title); return Promise.resolve({ outcome: "selected", optionId: "ok", by: "user" }); } });
    const stream = s.prompt("q");
    await tick();
    const options = [{ optionId: "ok", name: "OK", kind: "allow_once" }];
    s.ingestPermissionRequest("number:1", { toolCall: { toolCallId: "a", title: "Taken" }, options });
    s.ingestPermissionRequest("number:2", { toolCall: { toolCallId: "b", title: "Refused by the SDK" }, options });
    s.ingestPermissionRequest("number:1", { toolCall: { toolCallId: "c", title: "Same id again" }, options });
    assert.deepEqual(asked, [], "nothing is asked before the handler takes the request");
    assert.deepEqual(await s.permissionReply("number:1"), { outcome: "selected", optionId: "ok" });
    assert.deepEqual(await s.permissionReply("number:9"), { outcome: "cancelled" }, "an id never seen is answered cancelled");
    assert.deepEqual(asked, ["Taken"]);
    t.end("end_turn");
    await stream.result;
    const outcomes = s.log.all().flatMap((e) => e.kind === "permission_outcome" ? [[e.toolCallId, e.outcome.outcome, e.by]] : []);
    assert.deepEqual(outcomes, [["a", "selected", "user"], ["b", "cancelled", "cancel"]]);
    assert.equal(s.log.all().filter((e) => e.kind === "permission_request").length, 2, "the reused id shows no second card");
  });

  it("a request on a tool call that named a protected file earlier always asks, whatever it says now", async () => {
    const seen: { guard?: string; options: string[] }[] = [];
    const t = new FakeTransport();
    const guard = { reasonFor: (paths: readonly string[]) => paths.some((p) => p.includes(".vscode")) ? ".vscode configures tools" : undefined };
    const s = new AgentSession("s1", "agent-s1", t, { request: (req) => { seen.push({ ...(req.guard ? { guard: req.guard } : {}), options: req.options.map((o) => o.kind) }); return Promise.resolve({ outcome: "cancelled" }); } }, quiet, Date.now, guard);
    const stream = s.prompt("q");
    await tick();
    s.ingestUpdate({ sessionUpdate: "tool_call", toolCallId: "w", title: "Edit", kind: "edit", locations: [{ path: "/w/.vscode/tasks.json" }] });
    s.ingestUpdate({ sessionUpdate: "tool_call_update", toolCallId: "w", title: "Edit notes", locations: [{ path: "/w/notes.md" }] });
    s.ingestPermissionRequest("number:1", { toolCall: { toolCallId: "w", title: "Edit notes" }, options: [{ optionId: "y", name: "Always", kind: "allow_always" }, { optionId: "n", name: "No", kind: "reject_once" }] });
    await s.permissionReply("number:1");
    assert.deepEqual(seen, [{ guard: ".vscode configures tools", options: ["reject_once"] }]);
    t.end("end_turn");
    await stream.result;
  });

  it("an already-aborted signal never sends the prompt", async () => {
    const { t, s } = setup();
    const ac = new AbortController();
    ac.abort();
    const r = await s.prompt("q", { signal: ac.signal }).result;
    assert.equal(r.stopReason, "cancelled");
    assert.equal(t.prompts.length, 0);
  });

  it("turns queue: a second prompt runs after the first ends", async () => {
    const { t, s } = setup();
    const first = s.prompt("1");
    const second = s.prompt("2");
    await tick();
    assert.equal(t.prompts.length, 1);
    t.onPrompt = () => t.end();
    t.end();
    await first.result;
    const r2 = await second.result;
    assert.equal(r2.turnId, 2);
    assert.equal(t.prompts.length, 2);
  });

  it("toReadableStream delivers the same events and cancelling it detaches only", async () => {
    const { t, s } = setup();
    const stream = s.prompt("q");
    t.onPrompt = () => { s.ingestUpdate(thought("x")); };
    const reader = stream.toReadableStream().getReader();
    const first = await reader.read();
    assert.equal(first.value?.kind, "turn_start");
    await reader.cancel();
    t.end();
    assert.equal((await stream.result).thoughts, "x");
    const all: ThoughtEvent[] = [];
    const r2 = stream.toReadableStream().getReader();
    for (;;) { const { done, value } = await r2.read(); if (done) break; all.push(value); }
    assert.equal(all.at(-1)!.kind, "turn_end");
  });
});
