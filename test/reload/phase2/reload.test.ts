// Phase 2 of the reload test: after the reload the edit is still pending, and undo restores the original.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as vscode from "vscode";
import { alive, api, continued, EDITED, file, historyRow, leftovers, midQuestion, midTurn, ORIGINAL, savedSession } from "../shared";
import { evaluate, waitFor } from "../../integration/webview";
import { screenshot } from "../../integration/index";
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
    const id = await savedSession(a, "edit");
    const session = a._test.controller.viewState.sessions[id]!;
    assert.ok(session.turns.some((t) => t.entries.some((e) => e.type === "message" && e.text.includes("REMEMBER-ME-42"))));
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
    const id = await savedSession(a, "build it");
    const turn = a._test.controller.viewState.sessions[id]!.turns[0]!;
    assert.ok(turn.entries.some((e) => e.type === "message" && e.text.includes(m.said)));
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
    const id = await savedSession(a, "deploy it");
    assert.ok(a._test.controller.viewState.sessions[id]!.turns.some((t) => t.entries.some((e) => e.type === "tool" && e.title === q.title)));
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
    // Sessions after a reload are listed from the index and read when shown.
    const keeper = await savedSession(a, "Keeper first");
    assert.equal(find("KEPT-BEFORE-RELOAD"), keeper);
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

    const loader = await savedSession(a, "LoadOnly first");
    assert.equal(find("LOADED-BEFORE-RELOAD"), loader);
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

  it("lists saved sessions from the index without reading them (title, date, size), and one selected shows its last turn, then all its turns", async () => {
    const h = historyRow();
    const a = await api();
    await a._test.transcripts.whenIndexed;
    const c = a._test.controller;
    const id = await until(() => {
      const state = c.viewState;
      return state.order.find((sid) => state.sessions[sid]!.title === h.title);
    }, "the long session to be listed", 20_000);
    assert.equal(a._test.transcripts.startup.rebuilt, 0, "every saved session came from the index, none was read to list it");
    const listed = c.viewState.sessions[id]!;
    assert.equal(listed.restored, true);
    assert.deepEqual(listed.turns, [], "listed, not read");
    assert.equal(listed.saved?.loaded, "none");
    assert.equal(listed.saved?.turns, h.turns);
    assert.equal(listed.saved?.bytes, fs.statSync(a._test.transcripts.fileOf(id)!).size);
    assert.notEqual(c.activeSession, id, "the newest session is the one shown");
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    // The header's switcher lists it with its title, date and size.
    const option = await waitFor((sid: string) => document.querySelector<HTMLOptionElement>(`select.session-select option[value="${CSS.escape(sid)}"]`)?.textContent ?? "", id, { view: "sidebar", what: "the long session in the switcher" });
    assert.ok(option.startsWith(h.title), option);
    assert.match(option, /· \d+(\.\d)? (KB|MB) \(history\)$/);
    // Picked in the switcher, as a user does: what the panel receives, in order, is its last turns, then all of it (in pieces).
    await evaluate((sid: string) => {
      const got: string[] = [];
      (window as Window & { __atSaved?: string[] }).__atSaved = got;
      type Message = { type?: string; sessionId?: string; done?: boolean; turns?: unknown[]; sessions?: { sessionId: string; saved?: { loaded: string }; turns: unknown[] }[] };
      window.addEventListener("message", (ev: MessageEvent<Message>) => {
        const m = ev.data;
        for (const s of m.type === "sessions" ? m.sessions ?? [] : []) if (s.sessionId === sid) got.push(`${s.saved?.loaded}:${s.turns.length}`);
        if (m.type === "turns" && m.sessionId === sid) got.push(`+${m.turns?.length}${m.done ? " done" : ""}`);
      });
      const select = document.querySelector<HTMLSelectElement>("select.session-select")!;
      select.value = sid;
      select.dispatchEvent(new Event("change"));
    }, id, "sidebar");
    const last = await waitFor((marker: string) => {
      const turns = [...document.querySelectorAll("#transcript section.turn")];
      const end = turns[turns.length - 1];
      return end?.textContent?.includes(marker) ? end.querySelector(".turn-title")?.textContent ?? "?" : "";
    }, h.marker(h.turns), { view: "sidebar", what: "the last turn shown", timeoutMs: 20_000 });
    assert.equal(last, `Turn ${h.turns}`, "numbered as in the whole session, also before the earlier turns are in");
    assert.ok(await c.ensureLoaded(id));
    assert.equal(c.viewState.sessions[id]!.turns.length, h.turns);
    const all = await waitFor((n: number) => document.querySelectorAll("#transcript section.turn").length === n && document.getElementById("saved-loading")?.hidden, h.turns, { view: "sidebar", what: "all the turns" });
    assert.ok(all);
    // As a user sees it: the saved session in the switcher (title, date, size) with all its turns.
    await screenshot("test-results/history-saved-session.png");
    const received = await evaluate(() => (window as Window & { __atSaved?: string[] }).__atSaved ?? [], undefined, "sidebar");
    const what = received.join(", ");
    assert.match(received[0] ?? "", /^tail:\d+$/, what);
    const tailTurns = Number(received[0]!.slice(5));
    assert.ok(tailTurns >= 1 && tailTurns < h.turns, `the last turns first (${tailTurns} of ${h.turns}): ${what}`);
    // Then the whole session read: its last turns again (now with everything outside them), earlier turns put before them until it is whole.
    const whole = received.slice(1);
    assert.match(whole[0] ?? "", whole.length === 1 ? /^all:\d+$/ : /^tail:\d+$/, what);
    assert.ok(whole.slice(1).every((m, i, all) => (i === all.length - 1 ? /^\+\d+ done$/ : /^\+\d+$/).test(m)), what);
    assert.equal(whole.reduce((n, m) => n + Number(/\d+/.exec(m)![0]), 0), h.turns, what);
    assert.ok(c.stats.savedTailMs < c.stats.savedLoadMs);
  });
  it("a saved session whose transcript can no longer be read says so when shown, and ensureLoaded answers false", async () => {
    const a = await api();
    const c = a._test.controller;
    const state = c.viewState;
    const id = state.order.find((sid) => state.sessions[sid]!.saved?.loaded === "none" && sid !== c.activeSession);
    assert.ok(id, "a saved session not read yet");
    // Damaged after it was indexed: same size, nothing of a session left in it.
    const transcript = a._test.transcripts.fileOf(id)!;
    fs.writeFileSync(transcript, "#".repeat(fs.statSync(transcript).size));
    await vscode.commands.executeCommand("agentThoughts.showSessions", id);
    assert.equal(await c.ensureLoaded(id), false);
    assert.equal(c.viewState.sessions[id]!.saved?.loaded, "failed");
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const shown = await waitFor(() => {
      const banner = [...document.querySelectorAll(".banner")].map((b) => b.textContent ?? "").find((t) => t.includes("Could not read this saved session"));
      const empty = document.querySelector(".empty-state:not([hidden])")?.textContent ?? "";
      return banner && empty.includes("could not be read") ? banner : "";
    }, undefined, { view: "sidebar", what: "the unreadable session's banner" });
    assert.match(shown, /no events of this session/);
  });
});
