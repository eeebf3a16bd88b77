// The foundation end to end in a real VS Code: Ask… against the built-in demo agent and scripted
// agents, the public API's ThoughtStream, Select Agent, fs on open documents, and clear errors.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { ThoughtEvent, TurnResult } from "../../src/api";
import { api, quickPickRows, scriptedAgent, until } from "./helpers";
import { harnessRequest, log } from "./index";

function workspace(): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(root);
  return root;
}

async function configureAgents(agents: unknown[]): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", agents, vscode.ConfigurationTarget.Global);
}

/** Answers each permission request with its first option, through the palette command's quick pick. */
async function acceptPermissionPicks(events: ThoughtEvent[], turn: Promise<unknown>): Promise<void> {
  let done = false;
  void turn.finally(() => { done = true; });
  const count = (kind: ThoughtEvent["kind"]): number => events.filter((e) => e.kind === kind).length;
  for (;;) {
    await until(() => done || count("permission_request") > count("permission_outcome"), "a permission request or the turn's end", 60_000);
    if (done) return;
    const outcomes = count("permission_outcome");
    // As a user would from the command palette: Respond to Permission Request, then Enter once its options show.
    const picking = vscode.commands.executeCommand("agentThoughts.respondToPermission");
    await until(async () => (await quickPickRows("asks permission")).length > 0, "the permission quick pick's options");
    await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    await picking;
    await until(() => count("permission_outcome") > outcomes, "the answer to reach the agent");
  }
}

describe("Agent Thoughts: Ask… and the thought stream", function () {
  this.timeout(90_000);
  const seen: ThoughtEvent[] = [];
  let sub: { dispose(): void } | undefined;

  before(async () => {
    process.env.AGENT_THOUGHTS_DEMO_SPEED = "0";
    sub = (await api()).onEvent((e) => seen.push(e));
  });
  after(async () => {
    sub?.dispose();
    await configureAgents([]);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
  });

  it("registers its commands", async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const c of ["agentThoughts.ask", "agentThoughts.selectAgent", "agentThoughts.cancel", "agentThoughts.showLog", "agentThoughts.openPanel", "agentThoughts.respondToPermission", "agentThoughts.restartAgent"]) assert.ok(commands.includes(c), c);
  });

  it("runs the demo agent by default: every kind of event, and the scratch file lands on disk", async () => {
    const before = seen.length;
    const started = Date.now();
    const result = Promise.resolve(vscode.commands.executeCommand<TurnResult | undefined>("agentThoughts.ask", "Show me what you can do"));
    await acceptPermissionPicks(seen, result);
    const r = await result;
    log(`      demo turn: ${Date.now() - started} ms, ${r?.eventCount} events`);
    assert.ok(r, "the turn produced a result");
    assert.equal(r.stopReason, "end_turn");
    const kinds = new Set(seen.slice(before).map((e) => e.kind));
    for (const k of ["session_start", "turn_start", "thought", "message", "plan", "tool_start", "tool_update", "tool_done", "permission_request", "permission_outcome", "turn_end"]) {
      assert.ok(kinds.has(k as ThoughtEvent["kind"]), `demo produced a ${k} event (got ${[...kinds].join(", ")})`);
    }
    assert.ok(r.text.length > 50, "the demo answered with a message");
    assert.ok(r.thoughts.length > 50, "the demo thought out loud");
    const scratch = path.join(workspace(), "agent-thoughts-demo", "demo.md");
    assert.ok(fs.existsSync(scratch), `${scratch} exists`);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === scratch);
    assert.equal(doc?.isDirty ?? false, false, "the write was saved");
  });

  it("the public API streams a turn from a scripted agent: eager, filtered, with a result", async () => {
    await configureAgents([scriptedAgent("Scripted", { turns: [[{ thought: "considering", chunkSize: 3 }, { echoPrompt: true }]] })]);
    const a = await api();
    const stream = a.stream("ping", { agent: "Scripted", include: ["thought", "message"] });
    const kinds: string[] = [];
    for await (const e of stream) kinds.push(e.kind);
    assert.ok(kinds.every((k) => k === "thought" || k === "message"));
    assert.ok(kinds.includes("message"));
    const r = await stream.result;
    assert.equal(r.thoughts, "considering");
    assert.match(r.text, /ping/);
    assert.ok(a.agents().includes("Scripted") && a.agents().includes("Demo"));
  });

  it("cancels through an AbortSignal", async () => {
    await configureAgents([scriptedAgent("Slow", { turns: [[{ thought: "working" }, { waitForCancel: true, timeoutMs: 20_000 }]] })]);
    const a = await api();
    const ac = new AbortController();
    const stream = a.stream("wait", { agent: "Slow", signal: ac.signal });
    for await (const e of stream) if (e.kind === "thought") break;
    ac.abort();
    assert.equal((await stream.result).stopReason, "cancelled");
  });

  it("Select Agent switches the default agent that Ask… uses", async () => {
    await configureAgents([scriptedAgent("Echo", { turns: [[{ echoPrompt: true }]] })]);
    const chosen = await vscode.commands.executeCommand<string>("agentThoughts.selectAgent", "Echo");
    assert.equal(chosen, "Echo");
    assert.equal(vscode.workspace.getConfiguration("agentThoughts").get("defaultAgent"), "Echo");
    const r = await vscode.commands.executeCommand<TurnResult>("agentThoughts.ask", "marco");
    assert.match(r.text, /marco/);
  });

  it("fs/read_text_file sees unsaved editor text; fs/write_text_file writes inside the workspace", async () => {
    const file = path.join(workspace(), "src", "hello.ts");
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), "// UNSAVED MARKER\n"));
    const target = path.join(workspace(), "written-by-agent.txt");
    await configureAgents([scriptedAgent("Files", { turns: [[{ readFile: { path: file }, report: true }, { writeFile: { path: target, content: "from the agent\n" }, report: true }]] })]);
    const r = await (await api()).stream("files", { agent: "Files" }).result;
    assert.match(r.text, /read:\/\/ UNSAVED MARKER/);
    assert.match(r.text, /wrote:/);
    assert.equal(fs.readFileSync(target, "utf8"), "from the agent\n");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  it("a missing agent command is a clear error naming the agent", async () => {
    await configureAgents([{ name: "Ghost", command: "/no/such/agent-binary", args: [] }]);
    await assert.rejects((await api()).stream("hi", { agent: "Ghost" }).result, (e: unknown) => e instanceof Error && /Agent "Ghost" could not be started/.test(e.message) && /not found/.test(e.message));
  });

  it("a crash mid-turn is reported and what was shown stays in the session", async () => {
    await configureAgents([scriptedAgent("Crashy", { turns: [[{ thought: "before the crash" }, { crash: 9 }]] })]);
    const a = await api();
    const events: ThoughtEvent[] = [];
    const stream = a.stream("boom", { agent: "Crashy" });
    await assert.rejects(async () => { for await (const e of stream) events.push(e); }, /exited with code 9/);
    assert.ok(events.some((e) => e.kind === "thought"));
    assert.ok(events.some((e) => e.kind === "error" && e.fatal));
    // The user is told, with an offer to restart; taking it starts a fresh session of that agent.
    await configureAgents([scriptedAgent("Crashy", { turns: [[{ message: "back" }]] })]);
    const sessionsBefore = seen.filter((e) => e.kind === "session_start").length;
    await until(async () => (await harnessRequest<{ value: boolean }>({ op: "workbench", fn: (() => {
      const toast = [...document.querySelectorAll(".notification-toast")].find((t) => (t.textContent ?? "").includes("Crashy") && (t.textContent ?? "").includes("exited with code 9"));
      const button = toast && [...toast.querySelectorAll<HTMLElement>(".monaco-button")].find((b) => b.textContent?.trim() === "Restart Agent");
      button?.click();
      return !!button;
    }).toString() }))?.value, "a notification offering to restart the crashed agent, to click Restart Agent", 20_000);
    await until(() => seen.filter((e) => e.kind === "session_start").length > sessionsBefore, "the agent to be restarted with a new session");
    assert.equal((await a.stream("again", { agent: "Crashy" }).result).text, "back");
  });
});
