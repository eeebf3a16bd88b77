// Phase 2 of the reload test: after the reload the edit is still pending, and undo restores the original.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as vscode from "vscode";
import { alive, api, continued, EDITED, file, leftovers, midQuestion, midTurn, ORIGINAL } from "../shared";
import { evaluate, waitFor } from "../../integration/webview";
import { until } from "../../support/until";

describe("window reload, phase 2", function () {
  this.timeout(60_000);
  it("still lists the edit as pending, and Undo restores the original", async () => {
    assert.equal(fs.readFileSync(file(), "utf8"), EDITED);
    const changes = (await api())._test.changes;
    await changes.refresh();
    const pending = changes.pendingFiles().find((f) => f.path === file());
    assert.ok(pending, "the edit survived the reload");
    assert.equal(pending.base, ORIGINAL);
    assert.equal((await changes.hunksOf(file())).hunks.length, 2);
    await changes.undoFile(file());
    assert.equal(fs.readFileSync(file(), "utf8"), ORIGINAL);
  });

  it("brings the earlier session's transcript back into the panel as history", async () => {
    const a = await api();
    const find = (): string | undefined => {
      const state = a._test.controller.viewState;
      return state.order.find((id) => state.sessions[id]!.turns.some((t) => t.entries.some((e) => e.type === "message" && e.text.includes("REMEMBER-ME-42"))));
    };
    const id = await until(find, "the transcript to be restored");
    const session = a._test.controller.viewState.sessions[id]!;
    assert.equal(session.restored, true);
    assert.equal(session.status, "ended");
    assert.ok(session.turns[0]!.entries.some((e) => e.type === "thought" && e.text.includes("worth keeping")));
    assert.equal(await vscode.commands.executeCommand<string>("agentThoughts.showSessions", id), id);
    assert.equal(a._test.controller.activeSession, id);
    // Its turn's checkpoint came back too: the panel offers Restore checkpoint on the restored prompt.
    assert.deepEqual(a._test.checkpoints.turns()[id], [1], "the checkpoint before turn 1 survived the reload");
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.querySelectorAll('[data-turn-id="1"] .restore-checkpoint').length > 0, undefined, { view: "sidebar", what: "Restore checkpoint on the restored turn", timeoutMs: 20_000 });
  });

  it("a turn interrupted by the reload: said so in the panel, edit reviewable, no process left, the agent works again", async () => {
    const m = midTurn();
    const a = await api();
    // 4. No process left: neither the agent nor the command its terminal ran survives the reload.
    const agentPid = Number(fs.readFileSync(m.agentPid, "utf8"));
    const terminalPid = Number(fs.readFileSync(m.terminalPid, "utf8"));
    await until(() => !alive(agentPid), `the agent (pid ${agentPid}) to be gone`);
    await until(() => !alive(terminalPid), `the terminal command (pid ${terminalPid}) to be gone`);
    // 2. The transcript so far is back; 1. the turn says it was interrupted, naming the agent.
    const id = await until(() => {
      const state = a._test.controller.viewState;
      return state.order.find((sid) => state.sessions[sid]!.turns.some((t) => t.entries.some((e) => e.type === "message" && e.text.includes(m.said))));
    }, "the interrupted session's transcript to be restored", 20_000);
    const turn = a._test.controller.viewState.sessions[id]!.turns[0]!;
    assert.match(turn.failed ?? "", /Interrupted: VS Code reloaded or closed while MidTurn was working/);
    const card = turn.entries.find((e) => e.type === "tool");
    assert.equal(card?.type === "tool" ? card.status : undefined, "canceled", "the running tool call is no longer shown as running");
    await vscode.commands.executeCommand("agentThoughts.showSessions", id);
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const footer = await waitFor((said: string) => {
      const text = document.getElementById("transcript")?.textContent ?? "";
      return text.includes(said) ? [...document.querySelectorAll(".turn-footer")].map((f) => f.textContent ?? "").find((f) => f.includes("Interrupted")) ?? "" : "";
    }, m.said, { view: "sidebar", what: "the interrupted turn in the panel", timeoutMs: 60_000 });
    assert.match(footer, /MidTurn/);
    const running = await evaluate(() => document.querySelector('[data-tool-call-id="long"]')?.getAttribute("data-status"), undefined, "sidebar");
    assert.equal(running, "canceled");
    // 3. The edit made before the reload is still pending review.
    const changes = a._test.changes;
    await changes.refresh();
    assert.ok(changes.pendingFiles().some((f) => f.path === m.edit && f.base === m.original), "the mid-turn edit is pending with its original");
    // 5. The agent works again.
    const r = await a.stream("again", { agent: "MidTurn", newSession: true }).result;
    assert.equal(r.text, "RECOVERED-AFTER-RELOAD");
    await a._test.manager.stop("MidTurn");
    await changes.undoFile(m.edit);
    fs.rmSync(m.dir, { recursive: true, force: true });
  });

  it("a question open at the reload: no answer button is enabled, nothing is pinned, and the plan is not shown as in progress above the transcript", async () => {
    const q = midQuestion();
    const a = await api();
    const id = await until(() => {
      const state = a._test.controller.viewState;
      return state.order.find((sid) => state.sessions[sid]!.turns.some((t) => t.entries.some((e) => e.type === "tool" && e.title === q.title)));
    }, "the session that asked to be restored", 20_000);
    assert.equal(a._test.broker.open().length, 0, "no request is open in the host");
    await vscode.commands.executeCommand("agentThoughts.showSessions", id);
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const shown = await waitFor(() => {
      const card = document.querySelector('[data-tool-call-id="deploy"]');
      if (!card) return undefined;
      return {
        enabled: [...document.querySelectorAll<HTMLButtonElement>("[data-option-id], [data-answer]")].filter((b) => !b.disabled && b.getClientRects().length > 0).map((b) => b.textContent ?? ""),
        question: document.querySelector("#question")?.hasAttribute("hidden"),
        plan: document.querySelector("#plan")?.hasAttribute("hidden"),
        card: card.textContent ?? "",
      };
    }, undefined, { view: "sidebar", what: "the restored question's card", timeoutMs: 60_000 });
    assert.ok(shown);
    assert.deepEqual(shown.enabled, [], "no enabled answer button");
    assert.equal(shown.question, true, "no question pinned");
    assert.equal(shown.plan, true, "no plan pinned as in progress");
    assert.match(shown.card, /ancel/, "the card says the question was cancelled");
  });

  it("no agent, helper or command child survives the reload, not even those that ignore SIGTERM", async () => {
    const l = leftovers();
    const pids = [l.agentPid, l.helperPid, l.commandChildPid].map((f) => ({ what: f.slice(l.dir.length + 1), pid: Number(fs.readFileSync(f, "utf8")) }));
    try {
      for (const p of pids) await until(() => !alive(p.pid), `${p.what} (pid ${p.pid}) to be gone`);
    } finally {
      for (const p of pids) if (alive(p.pid)) try { process.kill(p.pid, "SIGKILL"); } catch { /* gone */ }
      fs.rmSync(l.dir, { recursive: true, force: true });
    }
  });

  it("continues saved sessions after the reload: session/resume with the old id, or session/load with its replay merged, in the same card list", async () => {
    const c = continued();
    const a = await api();
    const records = (file: string): { method: string; params: Record<string, unknown> }[] => fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { method: string; params: Record<string, unknown> });
    const find = (said: string): string | undefined => {
      const state = a._test.controller.viewState;
      return state.order.find((sid) => state.sessions[sid]!.turns.some((t) => t.entries.some((e) => e.type === "message" && e.text.includes(said))));
    };
    const keeper = await until(() => find("KEPT-BEFORE-RELOAD"), "Keeper's session restored", 20_000);
    const saved = a._test.controller.viewState.sessions[keeper]!;
    assert.equal(saved.restored, true);
    const wireId = saved.agentSessionId;
    assert.ok(wireId, "the transcript kept the agent's id for the session");
    // From the panel, as a user would: show it, type, Enter.
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", "Keeper", vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("agentThoughts.showSessions", keeper);
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => (document.getElementById("prompt") as HTMLTextAreaElement | null)?.placeholder.includes("continues this session") ?? false, undefined, { view: "sidebar", what: "the box to say a prompt continues the session", timeoutMs: 20_000 });
    await evaluate((text: string) => {
      const box = document.getElementById("prompt") as HTMLTextAreaElement;
      box.value = text;
      box.dispatchEvent(new Event("input", { bubbles: true }));
      box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    }, "after the reload", "sidebar");
    await until(() => a._test.controller.viewState.sessions[keeper]!.turns.length === 2 && a._test.controller.viewState.sessions[keeper]!.turns[1]!.endedAt !== undefined, "the continued turn to end in the same session", 20_000);
    const resume = records(c.record).find((m) => m.method === "session/resume");
    assert.ok(resume, "Keeper got session/resume");
    assert.equal(resume.params.sessionId, wireId, "with the old id");
    assert.equal(resume.params.cwd, saved.cwd, "and the same folder");
    const view = a._test.controller.viewState.sessions[keeper]!;
    assert.deepEqual(view.turns.map((t) => t.prompt), ["Keeper first", "after the reload"]);
    assert.ok(view.turns[1]!.entries.some((e) => e.type === "message" && e.text.includes("You said: after the reload")));
    assert.equal(view.restored, undefined, "live again");
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("You said: after the reload"), undefined, { view: "sidebar", what: "the answer in the panel" });

    const loader = await until(() => find("LOADED-BEFORE-RELOAD"), "LoadOnly's session restored", 20_000);
    const r = await a.stream("second", { sessionId: loader }).result;
    assert.equal(r.sessionId, loader, "the same session");
    assert.ok(records(c.loadRecord).some((m) => m.method === "session/load"), "LoadOnly got session/load");
    assert.ok(!records(c.loadRecord).some((m) => m.method === "session/resume"), "and no undeclared session/resume");
    const loaded = a._test.controller.viewState.sessions[loader]!;
    assert.deepEqual(loaded.turns.map((t) => t.prompt), ["LoadOnly first", "second"], "the replayed turn is not shown twice");
    await a._test.manager.stop("Keeper");
    await a._test.manager.stop("LoadOnly");
    fs.rmSync(c.dir, { recursive: true, force: true });
  });
});
