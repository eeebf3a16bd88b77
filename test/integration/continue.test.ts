// Sessions that continue, in a real VS Code: a closed session or one whose agent died goes on with
// session/resume (or session/load, its replay merged: no turn twice) in the same card list; an
// agent's own session (session/list) opens loaded; Delete removes a session on both sides; an agent
// that can do neither leaves the session read-only and says why, with Continue in a new session.
// (After a real window reload: test/reload.)
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Scenario } from "../fixtures/agents/scenario";
import { api, scriptedAgent, sendFromPanel, transcriptHas, until } from "./helpers";
import { click, evaluate, viewport, waitFor } from "./webview";
import { screenshot } from "./index";
import { recorded } from "../support/recorded";

const ALL = { loadSession: true, sessionCapabilities: { resume: {}, list: {}, close: {}, delete: {} } };

interface Received { method: string; params: Record<string, unknown> }
function received(file: string): Received[] {
  return recorded<Received>(file);
}

describe("sessions that continue", function () {
  this.timeout(90_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-continue-")); });
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function agent(name: string, scenario: Scenario): Promise<{ record: string }> {
    const record = path.join(dir, `${name}.jsonl`);
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const others = (config.get<{ name: string }[]>("agents") ?? []).filter((x) => x.name !== name);
    await config.update("agents", [...others, scriptedAgent(name, { recordFile: record, storeDir: path.join(dir, `${name}-store`), ...scenario })], vscode.ConfigurationTarget.Global);
    await config.update("defaultAgent", name, vscode.ConfigurationTarget.Global);
    return { record };
  }

  it("a closed session goes on with session/resume in the same card list, with the old id and folder", async () => {
    const { record } = await agent("Resumer", { capabilities: ALL, turns: [[{ message: "FIRST-ANSWER" }], [{ echoPrompt: true }]] });
    const a = await api();
    const first = a.stream("first", { agent: "Resumer", newSession: true });
    const r1 = await first.result;
    const id = r1.sessionId;
    const wireId = a._test.manager.sessionById(id)!.agentSessionId;
    assert.equal(await vscode.commands.executeCommand("agentThoughts.closeSession", id), true);
    await until(() => received(record).some((m) => m.method === "session/close" && m.params.sessionId === wireId), "session/close to reach the agent");
    await until(() => a._test.controller.viewState.sessions[id]?.status === "ended", "the session to show as closed");
    await vscode.commands.executeCommand("agentThoughts.showSessions", id);
    await transcriptHas("FIRST-ANSWER");
    await waitFor(() => (document.getElementById("prompt") as HTMLTextAreaElement | null)?.placeholder.includes("continues this session") ?? false, undefined, { view: "sidebar", what: "the box to say a prompt continues the session" });
    await sendFromPanel("second question");
    await transcriptHas("You said: second question");
    const resumed = received(record).find((m) => m.method === "session/resume");
    assert.ok(resumed, "the agent got session/resume");
    assert.equal(resumed.params.sessionId, wireId, "with the session's own id");
    assert.equal(resumed.params.cwd, a._test.controller.viewState.sessions[id]!.cwd, "in the same folder");
    assert.ok(!received(record).some((m) => m.method === "session/load"), "nothing replayed when resume is declared");
    const view = a._test.controller.viewState.sessions[id]!;
    assert.deepEqual(view.turns.map((t) => t.prompt), ["first", "second question"], "the same card list, one turn more");
    assert.equal(view.restored, undefined);
    assert.equal(a._test.controller.viewState.order.filter((sid) => a._test.controller.viewState.sessions[sid]!.agentName === view.agentName && sid !== id && a._test.controller.viewState.sessions[sid]!.turns.some((t) => t.prompt === "second question")).length, 0, "no new session for it");
  });

  it("after the agent died, session/load brings it back with its replay merged: no turn shown twice", async () => {
    const { record } = await agent("Loader", { capabilities: { loadSession: true }, turns: [[{ message: "BEFORE-CRASH" }], [{ crash: 1 }], [{ message: "AFTER-LOAD" }]] });
    const a = await api();
    const id = (await a.stream("one", { agent: "Loader", newSession: true }).result).sessionId;
    await a.stream("two", { sessionId: id }).result.catch(() => undefined);
    await until(() => a._test.manager.sessionById(id)?.isEnded === true, "the agent's death to end the session");
    const r = await a.stream("three", { sessionId: id }).result;
    assert.equal(r.sessionId, id, "the same session");
    const load = received(record).find((m) => m.method === "session/load");
    assert.ok(load, "the new agent process got session/load");
    const view = a._test.controller.viewState.sessions[id]!;
    assert.deepEqual(view.turns.map((t) => t.prompt), ["one", "two", "three"], `no replayed turn twice: ${JSON.stringify(view.turns.map((t) => t.prompt))}`);
    assert.equal(view.turns.filter((t) => t.entries.some((e) => e.type === "message" && e.text.includes("BEFORE-CRASH"))).length, 1);
    assert.ok(view.turns[2]!.entries.some((e) => e.type === "message" && e.text.includes("AFTER-LOAD")));
  });

  it("an agent's own session from session/list opens loaded with its history and title", async () => {
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const { record } = await agent("Lister", {
      capabilities: ALL,
      savedSessions: [{ sessionId: "cli-session-1", title: "Started in the CLI", history: [
        { sessionUpdate: "user_message_chunk", content: { type: "text", text: "CLI-QUESTION" } },
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "CLI-ANSWER" } },
      ] }],
      turns: [[{ echoPrompt: true }]],
    });
    const a = await api();
    const id = await vscode.commands.executeCommand<string | undefined>("agentThoughts.openAgentSessions", "Lister", "cli-session-1");
    assert.ok(id, "the session opened");
    const list = received(record).find((m) => m.method === "session/list");
    assert.equal(list?.params.cwd, folder, "listed for this folder");
    const load = received(record).find((m) => m.method === "session/load");
    assert.equal(load?.params.sessionId, "cli-session-1");
    await until(() => a._test.controller.viewState.sessions[id]?.turns[0]?.prompt === "CLI-QUESTION", "the replayed turn in the panel");
    const view = a._test.controller.viewState.sessions[id]!;
    assert.equal(view.title, "Started in the CLI");
    assert.ok(view.turns[0]!.entries.some((e) => e.type === "message" && e.text === "CLI-ANSWER"));
    await transcriptHas("CLI-ANSWER");
    const r = await a.stream("and now?", { sessionId: id }).result;
    assert.match(r.text, /You said: and now\?/);
    assert.equal(received(record).filter((m) => m.method === "session/load").length, 1, "continuing a loaded session needs no second load");
  });

  it("Delete Session removes it from the panel, its transcript, and the agent's sessions", async () => {
    const { record } = await agent("Deleter", { capabilities: ALL, turns: [[{ message: "DOOMED" }]] });
    const a = await api();
    const id = (await a.stream("doomed", { agent: "Deleter", newSession: true }).result).sessionId;
    const wireId = a._test.manager.sessionById(id)!.agentSessionId;
    const transcript = a._test.transcripts.fileOf(id)!;
    await until(() => fs.existsSync(transcript), "the transcript on disk");
    a._test.modal.testAnswers.push("Delete");
    assert.equal(await vscode.commands.executeCommand("agentThoughts.deleteSession", id), true);
    const question = a._test.modal.asked[a._test.modal.asked.length - 1]!;
    assert.match(question.detail, /deletes its own copy/, "the question says the agent's copy goes too");
    assert.equal(a._test.controller.viewState.sessions[id], undefined, "gone from the panel");
    assert.equal(fs.existsSync(transcript), false, "its transcript deleted");
    assert.ok(received(record).some((m) => m.method === "session/delete" && m.params.sessionId === wireId), "the agent got session/delete");
    const listed = await a._test.manager.listAgentSessions("Deleter", vscode.workspace.workspaceFolders![0]!.uri.fsPath);
    assert.ok(!listed.sessions.some((s) => s.sessionId === wireId), "the agent no longer lists it");
  });

  it("an agent that can neither resume nor load leaves the session read-only, says why, and offers a new one with a summary", async () => {
    const { record } = await agent("Plain", { turns: [[{ message: "PLAIN-ANSWER" }], [{ echoPrompt: true }]] });
    const a = await api();
    const id = (await a.stream("plain question", { agent: "Plain", newSession: true }).result).sessionId;
    await vscode.commands.executeCommand("agentThoughts.closeSession", id);
    await until(() => a._test.controller.viewState.sessions[id]?.status === "ended", "the session to end");
    assert.ok(!received(record).some((m) => m.method === "session/close"), "no session/close to an agent that does not declare it");
    await vscode.commands.executeCommand("agentThoughts.showSessions", id);
    const why = (await waitFor(() => {
      const bar = document.querySelector<HTMLElement>(".read-only");
      return bar && !bar.hidden ? bar.textContent ?? "" : undefined;
    }, undefined, { view: "sidebar", what: "the read-only note" })) ?? "";
    assert.match(why, /declares neither session\/resume nor session\/load/);
    // As a user sees it: the default light theme at 1400×900, dark at 1280×800 (the note wraps under its button in the 300 px sidebar).
    await screenshot("test-results/continue-read-only-light.png");
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", "Default Dark Modern", vscode.ConfigurationTarget.Global);
    await viewport(1280, 800);
    try {
      const fits = await waitFor(() => {
        const bar = document.querySelector<HTMLElement>(".read-only");
        const box = document.querySelector<HTMLElement>(".prompt-box");
        if (!bar || !box) return undefined;
        const b = bar.getBoundingClientRect();
        return b.right <= box.getBoundingClientRect().right + 0.5 && b.width > 0 ? "fits" : undefined;
      }, undefined, { view: "sidebar", what: "the read-only note within the prompt box" });
      assert.equal(fits, "fits");
      await screenshot("test-results/continue-read-only-dark.png");
    } finally {
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      await viewport(1400, 900);
    }
    await click(".read-only .continue-new", "sidebar");
    const text = (await waitFor(() => (document.getElementById("prompt") as HTMLTextAreaElement | null)?.value || undefined, undefined, { view: "sidebar", what: "the summary in the box" })) ?? "";
    assert.match(text, /^Continuing an earlier session with .*\n1\. Asked: plain question\n {3}Answer: PLAIN-ANSWER\n\nNow: $/);
    const before = new Set(a._test.controller.viewState.order);
    await evaluate(() => {
      const box = document.getElementById("prompt") as HTMLTextAreaElement;
      box.value += "what next?";
      box.dispatchEvent(new Event("input", { bubbles: true }));
      box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    }, undefined, "sidebar");
    const fresh = await until(() => a._test.controller.viewState.order.find((sid) => !before.has(sid) && a._test.controller.viewState.sessions[sid]!.turns.length > 0), "a new session for the prompt");
    await until(() => a._test.controller.viewState.sessions[fresh]!.turns[0]!.endedAt !== undefined, "the new session's turn to end");
    assert.match(a._test.controller.viewState.sessions[fresh]!.turns[0]!.prompt, /^Continuing an earlier session[\s\S]*PLAIN-ANSWER[\s\S]*Now: what next\?$/, "the agent got the summary the user saw");
    assert.ok(!received(record).some((m) => m.method === "session/load" || m.method === "session/resume"), "nothing undeclared was called");
  });
});
