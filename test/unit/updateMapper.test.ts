/** The ACP → ThoughtEvent mapping, fed with update shapes real agents send. */
import * as assert from "node:assert/strict";
import { SessionUpdateMapper } from "../../src/core/updateMapper";
import type { ThoughtEventBody } from "../../src/shared/events";

const kinds = (events: ThoughtEventBody[]): string[] => events.map((e) => e.kind);

describe("SessionUpdateMapper", () => {
  it("maps thought, message and user chunks with their text", () => {
    const m = new SessionUpdateMapper();
    assert.deepEqual(m.map({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } }),
      [{ kind: "thought", text: "hmm", content: { type: "text", text: "hmm" } }]);
    const [msg] = m.map({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" }, messageId: "m1" });
    assert.deepEqual(msg, { kind: "message", text: "hi", content: { type: "text", text: "hi" }, messageId: "m1" });
    assert.equal(m.map({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "q" } })[0]!.kind, "user_message");
  });

  it("starts, updates and finishes a tool call once", () => {
    const m = new SessionUpdateMapper();
    const start = m.map({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read", kind: "read", status: "pending", rawInput: {} });
    assert.deepEqual(kinds(start), ["tool_start"]);
    assert.equal(start[0]!.kind === "tool_start" && start[0].announced, true);
    const upd = m.map({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress", title: "Read a.ts", locations: [{ path: "/w/a.ts", line: 3 }] });
    assert.deepEqual(kinds(upd), ["tool_update"]);
    const done = m.map({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", rawOutput: { ok: true } });
    assert.deepEqual(kinds(done), ["tool_update", "tool_done"]);
    assert.deepEqual(done[1], { kind: "tool_done", toolCallId: "t1", outcome: "completed", rawOutput: { ok: true } });
    assert.deepEqual(kinds(m.map({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" })), ["tool_update"]);
  });

  it("gives a card to a tool call first seen in an update (gemini-cli never announces)", () => {
    const m = new SessionUpdateMapper();
    const ev = m.map({ sessionUpdate: "tool_call_update", toolCallId: "g7", status: "in_progress" });
    assert.equal(ev[0]!.kind, "tool_start");
    assert.ok(ev[0]!.kind === "tool_start" && !ev[0]!.announced && ev[0]!.title.includes("g7"));
  });

  it("keeps diff, terminal and content entries; reports unknown content instead of dropping it", () => {
    const m = new SessionUpdateMapper();
    const ev = m.map({
      sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit", kind: "edit",
      content: [
        { type: "diff", path: "/w/new.ts", newText: "x" },
        { type: "diff", path: "/w/old.ts", oldText: "a", newText: "b" },
        { type: "terminal", terminalId: "term-1" },
        { type: "content", content: { type: "text", text: "done" } },
        { type: "hologram", beam: 1 },
      ],
    });
    assert.deepEqual(kinds(ev), ["tool_start", "unknown"]);
    const start = ev[0]!;
    assert.ok(start.kind === "tool_start");
    assert.deepEqual(start.content, [
      { type: "diff", path: "/w/new.ts", oldText: null, newText: "x" },
      { type: "diff", path: "/w/old.ts", oldText: "a", newText: "b" },
      { type: "terminal", terminalId: "term-1" },
      { type: "content", content: { type: "text", text: "done" } },
    ]);
    assert.match(ev[1]!.kind === "unknown" ? ev[1].reason : "", /hologram/);
  });

  it("maps an unknown tool kind to other and says so", () => {
    const m = new SessionUpdateMapper();
    const ev = m.map({ sessionUpdate: "tool_call", toolCallId: "k", title: "T", kind: "teleport" });
    assert.ok(ev[0]!.kind === "tool_start" && ev[0].toolKind === "other");
    assert.equal(ev[1]!.kind, "unknown");
  });

  it("normalises agent-run terminal output in _meta (codex delta, claude output, exit)", () => {
    const m = new SessionUpdateMapper();
    m.map({ sessionUpdate: "tool_call", toolCallId: "x", title: "ls", kind: "execute", _meta: { terminal_info: { terminal_id: "x" } } });
    const d = m.map({ sessionUpdate: "tool_call_update", toolCallId: "x", _meta: { terminal_output_delta: { terminal_id: "x", data: "a\n" } } });
    assert.ok(d[0]!.kind === "tool_update");
    assert.deepEqual(d[0].terminal, { terminalId: "x", output: "a\n" });
    const e = m.map({ sessionUpdate: "tool_call_update", toolCallId: "x", status: "completed", _meta: { terminal_exit: { terminal_id: "x", exit_code: 2 } } });
    assert.ok(e[0]!.kind === "tool_update");
    assert.deepEqual(e[0].terminal?.exit, { exitCode: 2, signal: null });
  });

  it("a command whose output comes only in rawOutput when it completes (codex-acp) gets it as terminal output, with its exit code", () => {
    const terminalOf = ([e]: ThoughtEventBody[]): unknown => (e?.kind === "tool_update" || e?.kind === "tool_start" ? e.terminal : undefined);
    const codexOutput = { command: ["/bin/bash", "-lc", "cat hello.txt"], stdout: "Hello\n", formatted_output: "Hello", exit_code: 0 };
    // With its terminal announced in _meta (codex-acp when the client asks for terminal output).
    const m = new SessionUpdateMapper();
    m.map({ sessionUpdate: "tool_call", toolCallId: "c1", title: "cat hello.txt", kind: "execute", status: "in_progress", _meta: { terminal_info: { terminal_id: "c1" } } });
    assert.deepEqual(terminalOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", rawOutput: codexOutput })),
      { output: "Hello\n", exit: { exitCode: 0, signal: null } });
    // Without any _meta (the recorded codex-acp trace): an execute call's output field.
    m.map({ sessionUpdate: "tool_call", toolCallId: "c2", title: "ls", kind: "execute", status: "in_progress" });
    assert.deepEqual(terminalOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "c2", status: "failed", rawOutput: { aggregated_output: "ls: nope\n", exit_code: 2 } })),
      { output: "ls: nope\n", exit: { exitCode: 2, signal: null } });
    // A call first seen completed.
    assert.deepEqual(terminalOf(m.map({ sessionUpdate: "tool_call", toolCallId: "c3", title: "pwd", kind: "execute", status: "completed", rawOutput: "/w" })), { output: "/w\n" });

    // Not a command, a command in a terminal Agent Thoughts runs, one that streamed its output, or rawOutput that is not output: unchanged.
    m.map({ sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit a.ts", kind: "edit" });
    assert.equal(terminalOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "e1", status: "completed", rawOutput: "The file a.ts has been updated." })), undefined);
    m.map({ sessionUpdate: "tool_call", toolCallId: "t1", title: "make", kind: "execute", content: [{ type: "terminal", terminalId: "term-1" }] });
    assert.equal(terminalOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", rawOutput: { output: "Exited with code 0" } })), undefined);
    m.map({ sessionUpdate: "tool_call", toolCallId: "s1", title: "npm test", kind: "execute", _meta: { terminal_info: { terminal_id: "s1" } } });
    m.map({ sessionUpdate: "tool_call_update", toolCallId: "s1", _meta: { terminal_output: { terminal_id: "s1", data: "ok" } } });
    assert.equal(terminalOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "s1", status: "completed", rawOutput: "ok" })), undefined);
    m.map({ sessionUpdate: "tool_call", toolCallId: "x1", title: "run", kind: "execute" });
    assert.equal(terminalOf(m.map({ sessionUpdate: "tool_call_update", toolCallId: "x1", status: "failed", rawOutput: { error: "denied" } })), undefined);
  });

  it("cancels tool calls still open when the turn ends", () => {
    const m = new SessionUpdateMapper();
    m.map({ sessionUpdate: "tool_call", toolCallId: "a", title: "A" });
    m.map({ sessionUpdate: "tool_call", toolCallId: "b", title: "B", status: "completed" });
    assert.deepEqual(m.endTurn(), [{ kind: "tool_done", toolCallId: "a", outcome: "canceled" }]);
    assert.deepEqual(m.endTurn(), []);
  });

  it("maps plan, plan_update items, commands, modes, config, title, usage, notices and compaction", () => {
    const m = new SessionUpdateMapper();
    const entries = [{ content: "Read", priority: "high", status: "completed" }, { content: "Edit", priority: "low", status: "in_progress" }];
    assert.deepEqual(m.map({ sessionUpdate: "plan", entries }), [{ kind: "plan", entries }]);
    assert.deepEqual(m.map({ sessionUpdate: "plan_update", plan: { type: "items", planId: "p", entries } }), [{ kind: "plan", entries }]);
    assert.equal(m.map({ sessionUpdate: "plan_update", plan: { type: "markdown", planId: "p", markdown: "# x" } })[0]!.kind, "unknown");
    assert.deepEqual(m.map({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "web", description: "Search", input: { hint: "query" } }] }),
      [{ kind: "commands", commands: [{ name: "web", description: "Search", hint: "query" }] }]);
    assert.deepEqual(m.map({ sessionUpdate: "current_mode_update", currentModeId: "code" }), [{ kind: "mode", currentModeId: "code" }]);
    const cfg = m.map({ sessionUpdate: "config_option_update", configOptions: [{ id: "model", name: "Model", category: "model", type: "select", currentValue: "a", options: [{ group: "Fast", name: "Fast", options: [{ value: "a", name: "A" }] }, { value: "b", name: "B" }] }] });
    assert.deepEqual(cfg, [{ kind: "config_options", options: [{ id: "model", name: "Model", category: "model", type: "select", currentValue: "a", options: [{ value: "a", name: "A", group: "Fast" }, { value: "b", name: "B" }] }] }]);
    assert.deepEqual(m.map({ sessionUpdate: "session_info_update", title: "Fix bug" }), [{ kind: "session_info", title: "Fix bug" }]);
    assert.deepEqual(m.map({ sessionUpdate: "usage_update", used: 10, size: 100, cost: { amount: 0.5, currency: "USD" } }), [{ kind: "usage", used: 10, size: 100, cost: { amount: 0.5, currency: "USD" } }]);
    assert.deepEqual(m.map({ sessionUpdate: "notice", severity: "warning", title: "Slow" }), [{ kind: "notice", severity: "warning", title: "Slow" }]);
    assert.deepEqual(m.map({ sessionUpdate: "compaction_update", compactionId: "c", status: "completed", summary: "s" }), [{ kind: "compaction", compactionId: "c", status: "completed", summary: "s" }]);
    assert.deepEqual(m.map({ sessionUpdate: "compaction_summary_chunk", compactionId: "c", content: { type: "text", text: "sum" } }), [{ kind: "compaction_summary", compactionId: "c", text: "sum" }]);
  });

  it("never drops an update: unknown kinds and malformed known kinds become unknown events", () => {
    const m = new SessionUpdateMapper();
    const raw = { sessionUpdate: "subagent_update", agent: "x" };
    assert.deepEqual(m.map(raw), [{ kind: "unknown", what: "subagent_update", reason: "update kind not modelled by Agent Thoughts", raw }]);
    const bad = m.map({ sessionUpdate: "agent_thought_chunk", content: { type: "text" } });
    assert.equal(bad[0]!.kind, "unknown");
    assert.equal(m.map(null)[0]!.kind, "unknown");
    assert.equal(m.map({ sessionUpdate: "tool_call", title: "no id" })[0]!.kind, "unknown");
  });

  it("starts a card from a permission request for a never-announced tool call", () => {
    const m = new SessionUpdateMapper();
    const ev = m.permissionRequest("perm-1", { toolCallId: "w1", title: "Write x", kind: "edit", content: [{ type: "diff", path: "/w/x", newText: "n" }] },
      [{ optionId: "a", name: "Allow", kind: "allow_once" }, { optionId: "r", name: "Reject", kind: "reject_once" }]);
    assert.deepEqual(kinds(ev), ["tool_start", "permission_request"]);
    const req = ev[1]!;
    assert.ok(req.kind === "permission_request");
    assert.equal(req.toolCallId, "w1");
    assert.equal(req.options.length, 2);
    assert.equal(req.title, "Write x");
    // A known tool call gets an update instead of a second card.
    assert.deepEqual(kinds(m.permissionRequest("perm-2", { toolCallId: "w1", title: "Write x again" }, [])), ["tool_update", "permission_request"]);
    assert.deepEqual(kinds(m.permissionRequest("perm-3", { toolCallId: "w1" }, [])), ["permission_request"]);
  });
});
