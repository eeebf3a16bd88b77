// Session commands from the palette in a real VS Code: ask about the selection (sent as an embedded
// resource with file and line range), ask about a file, new session, mode and model, status bar.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { TurnResult } from "../../src/core/thoughtStream";
import type { Scenario } from "../fixtures/agents/scenario";
import { api, scriptedAgent, until } from "./helpers";
import { evaluate, waitFor } from "./webview";
import { screenshot } from "./index";



async function useDefault(name: string, scenario: Scenario): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
    scriptedAgent(name, scenario),
  ], vscode.ConfigurationTarget.Global);
  await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", name, vscode.ConfigurationTarget.Global);
}

describe("session commands", function () {
  this.timeout(60_000);
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("Ask About Selection sends the selection as an embedded resource with its file and line range", async () => {
    await useDefault("Echo", { turns: [[{ echoPrompt: true }]] });
    const file = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "src", "hello.ts");
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 1, doc.lineAt(1).text.length);
    const r = await vscode.commands.executeCommand<TurnResult>("agentThoughts.askAboutSelection", "what does this do?");
    const first2 = doc.getText(new vscode.Range(0, 0, 1, doc.lineAt(1).text.length));
    assert.match(r.text, /what does this do\?/);
    assert.ok(r.text.includes(`${vscode.Uri.file(file).toString()}#L1-L2`), r.text);
    assert.ok(r.text.includes(first2), "the selected text reached the agent");
    // Whole lines selected with Shift+Down end at column 0 of the next line, which is not part of it.
    editor.selection = new vscode.Selection(0, 0, 3, 0);
    const lines13 = await vscode.commands.executeCommand<TurnResult>("agentThoughts.askAboutSelection", "and these?");
    assert.ok(lines13.text.includes(`${vscode.Uri.file(file).toString()}#L1-L3`), lines13.text);
    assert.ok(!lines13.text.includes("#L1-L4"), lines13.text);
    // The panel shows the question with the range as a chip (never an empty bubble); the chip opens the file at its line.
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const bubble = await waitFor(() => {
      const prompts = [...document.querySelectorAll(".turn-prompt")];
      const p = prompts[prompts.length - 1];
      const chip = p?.querySelector<HTMLElement>(".chip");
      return p && chip && (p.querySelector(".prompt-text")?.textContent ?? "") === "and these?" ? { chip: chip.textContent, title: chip.title, empty: document.querySelectorAll(".entry-user .user-text:empty, .turn-prompt .prompt-text:empty").length } : undefined;
    }, undefined, { view: "sidebar", what: "the prompt with its chip" });
    assert.ok(bubble);
    assert.equal(bubble.chip, "hello.ts:1-3");
    assert.match(bubble.title, /hello\.ts#L1-L3$/);
    assert.equal(bubble.empty, 0, "no empty bubble");
    const workbench = vscode.workspace.getConfiguration("workbench");
    for (const [name, theme] of [["light", "Default Light Modern"], ["dark", "Default Dark Modern"]] as const) {
      await workbench.update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      await waitFor((cls: string) => document.body.classList.contains(cls), `vscode-${name}`, { view: "sidebar", what: `the ${name} theme` });
      await screenshot(`test-results/prompt-chip-${name}.png`);
    }
    await workbench.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await evaluate(() => { const c = [...document.querySelectorAll<HTMLElement>(".turn-prompt .chip")].pop(); c?.click(); }, undefined, "sidebar");
    await until(() => vscode.window.activeTextEditor?.document.uri.fsPath === file && vscode.window.activeTextEditor.selection.active.line === 0, "the chip to open hello.ts at line 1");
    const whole = await vscode.commands.executeCommand<TurnResult>("agentThoughts.askAboutFile", vscode.Uri.file(file), "review it");
    assert.ok(whole.text.includes(fs.readFileSync(file, "utf8")), "the whole file reached the agent");
  });

  it("New Session, Set Mode and Set Model act on the active session; the status bar follows the agent", async () => {
    await useDefault("Modes", {
      sessionNewResponse: {
        modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }, { id: "code", name: "Code" }] },
        configOptions: [{ id: "model", name: "Model", category: "model", type: "select", currentValue: "m1", options: [{ value: "m1", name: "Model One" }, { value: "m2", name: "Model Two" }] }],
      },
      turns: [[{ thought: "thinking hard" }, { waitForCancel: true, timeoutMs: 20_000 }]],
    });
    const a = await api();
    const sessionId = await vscode.commands.executeCommand<string>("agentThoughts.newSession");
    assert.equal(a._test.controller.activeSession, sessionId, "the panel shows the new session");
    await vscode.commands.executeCommand("agentThoughts.setMode", "code");
    await vscode.commands.executeCommand("agentThoughts.setModel", "m2");
    const view = a._test.controller.viewState.sessions[sessionId]!;
    assert.equal(view.modes?.currentModeId, "code");
    assert.equal(view.configOptions.find((o) => o.id === "model")?.currentValue, "m2");
    const turn = a.stream("work", { sessionId });
    await until(() => a._test.statusBar.text.includes("thinking"), "the status bar to say the agent is thinking");
    assert.match(a._test.statusBar.text, /Scripted Agent thinking…/);
    await vscode.commands.executeCommand("agentThoughts.cancel");
    assert.equal((await turn.result).stopReason, "cancelled");
    await until(() => !a._test.statusBar.text.includes("thinking"), `the status bar to stop saying thinking (it says "${a._test.statusBar.text}")`);
  });

  it("the status bar item is sent to the workbench only when what it shows changes, not on every render while an agent streams", async () => {
    await useDefault("Streamer", { turns: [[{ flood: { count: 400, paceMs: 2 } }]] });
    const a = await api();
    // Every property set sends the whole item to the workbench: count the sets.
    const item = (a._test.statusBar as unknown as { item: vscode.StatusBarItem }).item;
    const sets: string[] = [];
    const proto = Object.getPrototypeOf(item) as object;
    for (const key of ["text", "tooltip", "backgroundColor", "command"] as const) {
      const get = Reflect.getOwnPropertyDescriptor(proto, key)?.get;
      const set = Reflect.getOwnPropertyDescriptor(proto, key)?.set;
      assert.ok(get && set, `the item's ${key} is an accessor`);
      Object.defineProperty(item, key, { configurable: true, get: (): unknown => Reflect.apply(get, item, []), set: (v: unknown) => { sets.push(key); Reflect.apply(set, item, [v]); } });
    }
    try {
      const turn = a.stream("stream", { agent: "Streamer", newSession: true });
      let renders = 0;
      let thinkingSeen = false;
      const started = Date.now();
      for await (const e of turn) {
        if (e.kind !== "thought") continue;
        // Reading `text` renders what is due now, as the 100 ms timer would.
        if (Date.now() - started > renders * 50) {
          renders++;
          thinkingSeen ||= a._test.statusBar.text.includes("thinking");
        }
      }
      await turn.result;
      assert.ok(thinkingSeen, "the status bar said the agent was thinking while it streamed");
      assert.ok(renders >= 5, `renders while streaming: ${renders}`);
      await until(() => !a._test.statusBar.text.includes("thinking"), "the status bar to stop saying thinking");
      // Thinking, then idle again: a few sets (the session becoming active may change the tooltip too), not one per render.
      assert.ok(sets.filter((k) => k === "text").length <= 3, `text set ${sets.filter((k) => k === "text").length} times over ${renders} renders: ${sets.join(", ")}`);
      assert.ok(sets.length <= 8, `the item was set ${sets.length} times over ${renders} renders: ${sets.join(", ")}`);
    } finally {
      for (const key of ["text", "tooltip", "backgroundColor", "command"]) Reflect.deleteProperty(item, key);
    }
  });

  it("Export Session writes every format, and trace.file tees the live stream to JSON Lines", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-export-"));
    const traceFile = path.join(dir, "trace.jsonl");
    await vscode.workspace.getConfiguration("agentThoughts").update("trace.file", traceFile, vscode.ConfigurationTarget.Global);
    try {
      await useDefault("Exporter", { turns: [[{ thought: "plan it", chunkSize: 2 }, { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read a", kind: "read", status: "completed" } }, { message: "done" }]] });
      const a = await api();
      const r = await a.stream("export me", { agent: "Exporter", newSession: true }).result;
      const written: Record<string, string> = {};
      for (const format of ["markdown", "thought-events", "cli-deltas", "ag-ui"]) {
        const out = path.join(dir, `session.${format}`);
        assert.equal(await vscode.commands.executeCommand<string>("agentThoughts.exportSession", r.sessionId, format, out), out);
        written[format] = fs.readFileSync(out, "utf8");
      }
      assert.match(written.markdown!, /## Turn 1: export me/);
      assert.match(written.markdown!, /Read a/);
      const exported = written["thought-events"]!.trim().split("\n").map((l) => JSON.parse(l) as { seq: number; sessionId: string; kind: string; text?: string });
      const lastSeq = a._test.manager.sessionById(r.sessionId)!.log.lastSeq;
      assert.ok(exported.length >= 6 && exported.at(-1)?.seq === lastSeq && exported.every((e, i) => (i === 0 || e.seq > exported[i - 1]!.seq) && e.sessionId === r.sessionId), "the whole log, in order");
      assert.deepEqual(exported.filter((e) => e.kind === "thought").map((e) => e.text), ["plan it"], "the thought's four chunks as one event");
      for (const f of ["cli-deltas", "ag-ui"]) for (const line of written[f]!.trim().split("\n")) JSON.parse(line);
      // The trace is a write stream: wait until its complete lines hold the session's last event. It has every event as it came (each chunk).
      const tracedSeqs = (): number[] => (fs.existsSync(traceFile) ? fs.readFileSync(traceFile, "utf8") : "").split("\n").slice(0, -1)
        .map((l) => JSON.parse(l) as { sessionId: string; seq: number }).filter((e) => e.sessionId === r.sessionId).map((e) => e.seq);
      const traced = await until(() => (tracedSeqs().at(-1) === lastSeq ? tracedSeqs() : undefined), "the trace file to hold the session's events");
      assert.deepEqual(traced, Array.from({ length: lastSeq }, (_, i) => i + 1), "every event of the session was traced live");
    } finally {
      await vscode.workspace.getConfiguration("agentThoughts").update("trace.file", undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
