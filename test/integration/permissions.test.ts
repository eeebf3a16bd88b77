// Permission policy in a real VS Code: agentThoughts.permissions.default, and "always" answers
// remembered for the session and kind of tool (the outcome is recorded as given by policy).
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { ThoughtEvent } from "../../src/core/events";
import type { Scenario, Step } from "../fixtures/agents/scenario";
import { harnessRequest } from "./index";
import { api, scriptedAgent } from "./helpers";



async function useAgent(name: string, scenario: Scenario): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
    scriptedAgent(name, scenario),
  ], vscode.ConfigurationTarget.Global);
}

const ask = (id: string, kind: string): Step => ({
  permission: {
    toolCall: { toolCallId: id, title: `${kind} ${id}`, kind },
    options: [{ optionId: "once", name: "Allow", kind: "allow_once" }, { optionId: "always", name: "Always allow", kind: "allow_always" }, { optionId: "no", name: "Reject", kind: "reject_once" }],
  },
  onSelected: { once: [{ message: `${id}:once ` }], always: [{ message: `${id}:always ` }], no: [{ message: `${id}:no ` }] },
  onCancelled: [{ message: `${id}:cancelled ` }],
});

describe("permission policy", function () {
  this.timeout(60_000);
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("permissions.default", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
  });

  it("allowReads answers reads by itself and still asks about edits", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("permissions.default", "allowReads", vscode.ConfigurationTarget.Global);
    await useAgent("Policy", { turns: [[ask("r1", "read"), ask("e1", "edit")]] });
    const a = await api();
    const events: ThoughtEvent[] = [];
    const sub = a.onEvent((e) => events.push(e));
    const turn = a.stream("go", { agent: "Policy", newSession: true });
    const deadline = Date.now() + 20_000;
    while (a._test.broker.open().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const open = a._test.broker.open();
    assert.equal(open.length, 1, "only the edit waits for the user");
    assert.equal(open[0]!.toolCallId, "e1");
    a._test.broker.resolve(open[0]!.requestId, "no");
    const r = await turn.result;
    sub.dispose();
    assert.equal(r.text, "r1:once e1:no ");
    const outcomes = events.filter((e) => e.kind === "permission_outcome");
    assert.deepEqual(outcomes.map((e) => e.kind === "permission_outcome" ? e.by : ""), ["policy", "user"]);
  });

  it("an 'always allow' answer is remembered for that kind of tool in the session", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("permissions.default", "ask", vscode.ConfigurationTarget.Global);
    await useAgent("Remember", { turns: [[ask("e1", "edit"), ask("e2", "edit"), ask("x1", "execute")]] });
    const a = await api();
    const turn = a.stream("go", { agent: "Remember", newSession: true });
    const answered: string[] = [];
    const answer = async (optionId: string): Promise<void> => {
      const deadline = Date.now() + 20_000;
      while (a._test.broker.open().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      const req = a._test.broker.open()[0]!;
      answered.push(req.toolCallId);
      a._test.broker.resolve(req.requestId, optionId);
    };
    await answer("always"); // e1: always allow edits
    await answer("no"); // x1: execute still asks
    const r = await turn.result;
    assert.deepEqual(answered, ["e1", "x1"], "e2 was answered by the remembered choice");
    assert.equal(r.text, "e1:always e2:always x1:no ");
  });

  it("with no panel showing, the request comes as a notification whose buttons answer the agent", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("permissions.default", "ask", vscode.ConfigurationTarget.Global);
    await useAgent("Notify", { turns: [[ask("n1", "execute")]] });
    await vscode.commands.executeCommand("workbench.view.explorer");
    await new Promise((r) => setTimeout(r, 300));
    const a = await api();
    assert.equal(a._test.controller.anyVisible, false, "the panel is hidden");
    const turn = a.stream("go", { agent: "Notify", newSession: true });
    // Click "Reject" on the toast, as a user would.
    const deadline = Date.now() + 20_000;
    let clicked = false;
    while (!clicked && Date.now() < deadline) {
      clicked = (await harnessRequest<{ value: boolean }>({ op: "workbench", fn: (() => {
        const toast = [...document.querySelectorAll(".notification-toast")].find((t) => (t.textContent ?? "").includes("asks permission: execute n1"));
        const button = toast && [...toast.querySelectorAll<HTMLElement>(".monaco-button")].find((b) => b.textContent?.trim() === "Reject");
        button?.click();
        return !!button;
      }).toString() }))?.value ?? false;
      if (!clicked) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(clicked, "the notification with the agent's options appeared");
    assert.equal((await turn.result).text, "n1:no ");
  });
});
