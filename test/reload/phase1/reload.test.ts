// Phase 1 of the reload test: an agent edits a file; the edit is left pending review.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { until } from "../../support/until";
import { waitFor } from "../../integration/webview";
import { alive, api, continued, continuingAgents, EDITED, EXTENSION_ID, file, historyRow, leftovers, midQuestion, midTurn, ORIGINAL, transcriptReaches } from "../shared";

describe("window reload, phase 1", function () {
  this.timeout(60_000);
  it("leaves an agent edit pending review", async () => {
    fs.writeFileSync(file(), ORIGINAL);
    const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      { name: "Editor", command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify({ turns: [[{ thought: "a thought worth keeping" }, { writeFile: { path: file(), content: EDITED } }, { message: "REMEMBER-ME-42" }]] }), ELECTRON_RUN_AS_NODE: "1" } },
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    await a.stream("edit", { agent: "Editor" }).result;
    assert.equal(fs.readFileSync(file(), "utf8"), EDITED);
    assert.ok(a._test.changes.pendingFiles().some((f) => f.path === file()));
  });

  it("leaves a turn running (an edit made, a client terminal running) when the window reloads", async () => {
    const m = midTurn();
    fs.rmSync(m.dir, { recursive: true, force: true });
    fs.mkdirSync(m.dir, { recursive: true });
    fs.writeFileSync(m.edit, m.original);
    const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const scenario = {
      pidFile: m.agentPid,
      promptCounterFile: m.counter,
      turns: [
        [
          { writeFile: { path: m.edit, content: "changed by the agent mid-turn\n" } },
          { message: m.said },
          { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "long", title: "Run the long build", kind: "execute", status: "in_progress" } },
          { terminal: { command: `echo $$ > ${m.terminalPid}; sleep 120` }, toolCallId: "long" },
        ],
        [{ message: "RECOVERED-AFTER-RELOAD" }],
      ],
    };
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      { name: "MidTurn", command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify(scenario), ELECTRON_RUN_AS_NODE: "1" } },
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    const turn = a.stream("build it", { agent: "MidTurn", newSession: true });
    turn.result.catch(() => undefined); // it never ends in this window
    await until(() => fs.existsSync(m.terminalPid), "the terminal command to run", 20_000);
    assert.ok(a._test.changes.pendingFiles().some((f) => f.path === m.edit), "the edit is pending");
    // Transcripts are written in 200 ms batches and the reload comes right after: wait until every
    // event of the session so far is on disk.
    const state = a._test.controller.viewState;
    const id = state.order.find((sid) => state.sessions[sid]!.turns.some((t) => t.entries.some((e) => e.type === "message" && e.text.includes(m.said))));
    assert.ok(id, "the session is in the panel");
    const transcript = a._test.transcripts.fileOf(id);
    assert.ok(transcript, "the session has a transcript file");
    await until(() => transcriptReaches(transcript, a._test.controller.viewState.sessions[id]!.lastSeq), "the session's transcript on disk");
  });

  it("leaves an agent with a helper and a command with a background child running, both ignoring SIGTERM, when the window reloads", async () => {
    const l = leftovers();
    fs.rmSync(l.dir, { recursive: true, force: true });
    fs.mkdirSync(l.dir, { recursive: true });
    const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const scenario = {
      pidFile: l.agentPid,
      turns: [[
        // Each writes its pid once SIGTERM is ignored.
        { spawnChild: { command: `trap '' TERM; echo $$ > ${l.helperPid}; exec sleep 300`, pidFile: `${l.helperPid}.spawned` } },
        { terminal: { command: `sh -c 'trap "" TERM; echo $$ > ${l.commandChildPid}; exec sleep 300' & wait` }, toolCallId: "serve" },
      ]],
    };
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const others = (config.get<{ name: string }[]>("agents") ?? []).filter((x) => x.name !== "Leaver");
    await config.update("agents", [...others, { name: "Leaver", command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify(scenario), ELECTRON_RUN_AS_NODE: "1" } }], vscode.ConfigurationTarget.Global);
    const turn = (await api()).stream("serve", { agent: "Leaver", newSession: true });
    turn.result.catch(() => undefined); // it never ends in this window
    const files = [l.agentPid, l.helperPid, l.commandChildPid];
    await until(() => files.every((f) => fs.existsSync(f) && Number(fs.readFileSync(f, "utf8")) > 0), "the agent, its helper and the command's child to write their pids", 20_000);
    for (const f of files) assert.ok(alive(Number(fs.readFileSync(f, "utf8"))), `${path.basename(f)} runs`);
  });

  it("leaves a question open and a plan in progress, pinned in the panel, when the window reloads", async () => {
    const q = midQuestion();
    const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const scenario = {
      turns: [[
        { sessionUpdate: { sessionUpdate: "plan", entries: [{ content: "Read the config", priority: "high", status: "completed" }, { content: q.step, priority: "high", status: "in_progress" }] } },
        { permission: { toolCall: { toolCallId: "deploy", title: q.title, kind: "execute", status: "pending" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }] } },
      ]],
    };
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const others = (config.get<{ name: string }[]>("agents") ?? []).filter((x) => x.name !== "Questioner");
    await config.update("agents", [...others, { name: "Questioner", command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify(scenario), ELECTRON_RUN_AS_NODE: "1" } }], vscode.ConfigurationTarget.Global);
    const a = await api();
    const turn = a.stream("deploy it", { agent: "Questioner", newSession: true });
    turn.result.catch(() => undefined); // it never ends in this window
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor((title: string) => (document.querySelector("#question:not([hidden]) .question-title")?.textContent ?? "").includes(title) && document.querySelector("#plan:not([hidden])") !== null, q.title, { view: "sidebar", what: "the question and the plan pinned" });
    const id = a._test.controller.activeSession!;
    const transcript = a._test.transcripts.fileOf(id);
    assert.ok(transcript, "the session has a transcript file");
    await until(() => transcriptReaches(transcript, a._test.controller.viewState.sessions[id]!.lastSeq), "the session's transcript on disk");
  });

  it("leaves a session of an agent that can resume, and one of an agent that can only load", async () => {
    const c = continued();
    fs.rmSync(c.dir, { recursive: true, force: true });
    fs.mkdirSync(c.dir, { recursive: true });
    const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const others = (config.get<{ name: string }[]>("agents") ?? []).filter((x) => x.name !== "Keeper" && x.name !== "LoadOnly");
    await config.update("agents", [...others, ...continuingAgents(repo)], vscode.ConfigurationTarget.Global);
    const a = await api();
    for (const [agent, said] of [["Keeper", "KEPT-BEFORE-RELOAD"], ["LoadOnly", "LOADED-BEFORE-RELOAD"]] as const) {
      const r = await a.stream(`${agent} first`, { agent, newSession: true }).result;
      assert.equal(r.text, said);
      const transcript = a._test.transcripts.fileOf(r.sessionId)!;
      await until(() => transcriptReaches(transcript, a._test.controller.viewState.sessions[r.sessionId]!.lastSeq), `${agent}'s transcript on disk`);
    }
  });

  it("leaves a long session with a title in the history, and a newer one", async () => {
    const h = historyRow();
    const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const turns = Array.from({ length: h.turns }, (_, i) => [
      ...(i === 0 ? [{ sessionUpdate: { sessionUpdate: "session_info_update", title: h.title } }] : []),
      { flood: h.thought(i + 1) },
      { message: h.marker(i + 1) },
    ]);
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const others = (config.get<{ name: string }[]>("agents") ?? []).filter((x) => x.name !== h.agent);
    await config.update("agents", [...others, { name: h.agent, command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify({ turns: [...turns, [{ message: "newest" }]] }), ELECTRON_RUN_AS_NODE: "1" } }], vscode.ConfigurationTarget.Global);
    const a = await api();
    let id: string | undefined;
    for (let k = 1; k <= h.turns; k++) id = (await a.stream(h.prompt(k), id ? { sessionId: id } : { agent: h.agent, newSession: true }).result).sessionId;
    assert.ok(id);
    assert.equal(a._test.controller.viewState.sessions[id]?.title, h.title);
    // The newest session is another: the long one is not shown (nor read) when the window comes back.
    const newest = (await a.stream(h.newest, { agent: h.agent, newSession: true }).result).sessionId;
    for (const sid of [id, newest]) {
      const transcript = a._test.transcripts.fileOf(sid)!;
      await until(() => transcriptReaches(transcript, a._test.controller.viewState.sessions[sid]!.lastSeq), "the session's transcript on disk");
    }
  });
});
