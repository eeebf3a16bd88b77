// Commands an agent runs, in a real VS Code: a client terminal (terminal/create) streams into a
// pseudoterminal named after its tool call, and terminal/output gives the agent the same text;
// output the agent streams itself in _meta is mirrored the same way.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { Scenario } from "../fixtures/agents/scenario";
import { harnessRequest, screenshot } from "./index";
import { api, scriptedAgent, until } from "./helpers";



async function run(name: string, scenario: Scenario): Promise<{ text: string; sessionId: string }> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
    scriptedAgent(name, scenario),
  ], vscode.ConfigurationTarget.Global);
  return (await api()).stream("run it", { agent: name, newSession: true }).result;
}

/** Text the terminal panel shows (xterm renders rows into the DOM here). */
async function terminalPanelText(): Promise<string> {
  const reply = await harnessRequest<{ value: string }>({ op: "workbench", fn: (() => [...document.querySelectorAll(".xterm-rows, .xterm-accessibility-tree")].map((e) => e.textContent ?? "").join("\n")).toString() });
  return reply?.value ?? "";
}


describe("terminals", function () {
  this.timeout(60_000);
  before(async () => {
    // The DOM renderer puts terminal rows in the page, so the test can read what the user sees.
    await vscode.workspace.getConfiguration("terminal.integrated").update("gpuAcceleration", "off", vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration("terminal.integrated").update("gpuAcceleration", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    for (const t of vscode.window.terminals) t.dispose();
  });

  it("a client terminal streams into a pseudoterminal named after its tool call; terminal/output agrees", async () => {
    const r = await run("Runner", {
      turns: [[
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "run-1", title: "Run the greeting script", kind: "execute", status: "in_progress" } },
        { terminal: { command: "printf 'hello from the client terminal\\n'; sleep 0.3; printf 'second line\\n'" }, toolCallId: "run-1", report: true },
        { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "run-1", status: "completed" } },
        // terminal/output honours outputByteLimit: the start is cut, at a character boundary.
        { terminal: { command: "printf 'ééééé-the-end'", outputByteLimit: 10 }, report: true },
      ]],
    });
    assert.match(r.text, /terminal:0:hello from the client terminal\nsecond line/);
    assert.match(r.text, /terminal:0:é?-the-end$/, "truncated from the start without splitting a character");
    const term = await until(() => vscode.window.terminals.find((t) => t.name === "Run the greeting script"), "the terminal named after the tool call");
    const a = await api();
    assert.match(a._test.terminals.outputOf(r.sessionId, "run-1") ?? "", /hello from the client terminal\nsecond line\n/);
    term.show(true);
    await until(async () => /second line/.test(await terminalPanelText()), "the output on screen");
    assert.match(await terminalPanelText(), /process exited with code 0/);
    await screenshot("test-results/terminal-client.png");
  });

  it("output the agent streams itself in _meta is mirrored into a read-only terminal too", async () => {
    const r = await run("SelfRunner", {
      turns: [[
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "x1", title: "npm test (agent-run)", kind: "execute", status: "in_progress", _meta: { terminal_info: { terminal_id: "x1" } } } },
        { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "x1", _meta: { terminal_output_delta: { terminal_id: "x1", data: "agent ran this\n" } } } },
        { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "x1", _meta: { terminal_output_delta: { terminal_id: "x1", data: "and this too\n" } } } },
        { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "x1", status: "completed", _meta: { terminal_exit: { terminal_id: "x1", exit_code: 3 } } } },
      ]],
    });
    const term = await until(() => vscode.window.terminals.find((t) => t.name === "npm test (agent-run)"), "the mirrored terminal");
    const a = await api();
    assert.equal(a._test.terminals.outputOf(r.sessionId, "x1"), "agent ran this\nand this too\n");
    term.show(true);
    await until(async () => /and this too/.test(await terminalPanelText()), "the mirrored output on screen").catch(async (e: unknown) => {
      await screenshot("test-results/terminal-mirror-failure.png");
      throw new Error(`${String(e)}; the panel shows: ${JSON.stringify((await terminalPanelText()).slice(0, 500))}`);
    });
    assert.match(await terminalPanelText(), /process exited with code 3/);
  });
});
