// Nothing keeps running that the user cannot see (issue 10), in a real VS Code with hostile
// scripted agents: what a command leaves in the background, the helpers of an agent that crashes
// or is restarted (even ones that ignore SIGTERM), and an agent that ignores Stop.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Scenario } from "../fixtures/agents/scenario";
import { alive, pidWritten } from "../support/processes";
import { api, scriptedAgent, sendFromPanel, transcriptHas, until } from "./helpers";
import { log } from "./index";
import { click, evaluate, waitFor } from "./webview";

/** Pid files the agents write: made when the suite starts (a run that greps it out leaves none behind), removed after it. */
let tmp = "";

async function pidIn(file: string, what: string): Promise<number> {
  return until(() => pidWritten(file), `${what} to write its pid`, 15_000);
}

async function gone(pid: number, what: string, timeoutMs = 5_000): Promise<void> {
  await until(() => !alive(pid), `${what} (pid ${pid}) to be gone`, timeoutMs);
}

async function configure(name: string, scenario: Scenario): Promise<void> {
  const config = vscode.workspace.getConfiguration("agentThoughts");
  await config.update("agents", [scriptedAgent(name, scenario)], vscode.ConfigurationTarget.Global);
  await config.update("defaultAgent", name, vscode.ConfigurationTarget.Global);
}

/** Settles with the turn, or fails once `ms` passed (a turn that never ends must fail the test, not hang it). */
async function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

describe("Nothing keeps running that the user cannot see", function () {
  this.timeout(90_000);
  let a: AgentThoughtsInternalApi;
  /** Every pid a test learnt of: killed after the suite whatever happened, so a failure leaks nothing. */
  const pids: number[] = [];

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "at-leftovers-"));
    a = await api();
  });

  after(async () => {
    await a._test.manager.stop();
    for (const pid of pids) if (alive(pid)) try { process.kill(pid, "SIGKILL"); } catch { /* gone, as it should be */ }
    const config = vscode.workspace.getConfiguration("agentThoughts");
    await config.update("agents", [], vscode.ConfigurationTarget.Global);
    await config.update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    await config.update("cancelTimeoutSeconds", undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("a terminal command `… & …` reports its exit promptly, and what it left in the background is gone after it ends and after release", async () => {
    const bg = path.join(tmp, "bg.pid");
    const quiet = path.join(tmp, "bg-quiet.pid");
    await configure("Backgrounder", {
      turns: [[
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Start a server and say hi", kind: "execute", status: "in_progress" } },
        // Holds the output pipe: before, its exit was never reported (and sleep ran on).
        { terminal: { command: `sleep 300 & echo $! > ${bg}; echo hi` }, toolCallId: "t1", report: true },
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "t2", title: "Start a quiet daemon", kind: "execute", status: "in_progress" } },
        // Holds nothing and ignores SIGTERM: before, it outlived the command and its release. (The
        // command waits until it ignores SIGTERM, so the end of the command cannot beat the trap.)
        { terminal: { command: `sh -c 'trap "" TERM; echo $$ > ${quiet}; exec sleep 300' >/dev/null 2>&1 & while [ ! -s ${quiet} ]; do sleep 0.05; done` }, toolCallId: "t2", report: true },
        { message: " turn finished" },
      ]],
    });
    const started = Date.now();
    const turn = a.stream("go", { agent: "Backgrounder", newSession: true });
    const bgPid = await pidIn(bg, "the background sleep");
    pids.push(bgPid);
    const result = await within(15_000, turn.result, "the end of the turn (the agent waits for each command's exit)");
    const took = Date.now() - started;
    assert.match(result.text, /^terminal:0:hi\nterminal:0: turn finished$/, "the agent got each command's exit and output");
    const quietPid = await pidIn(quiet, "the quiet daemon");
    pids.push(quietPid);
    await gone(bgPid, "the background sleep of the first command");
    await gone(quietPid, "the TERM-proof daemon of the second command");
    log(`      background processes: the turn with two commands ended in ${took} ms; both leftovers are gone`);
    await a._test.manager.stop("Backgrounder");
  });

  it("a grandchild of an agent that crashes is gone after the crash", async () => {
    const child = path.join(tmp, "crasher-child.pid");
    await configure("Crasher", { turns: [[{ spawnChild: { command: "exec sleep 300", pidFile: child } }, { message: "spawned a helper" }, { crash: 7 }]] });
    const turn = a.stream("go", { agent: "Crasher", newSession: true });
    await assert.rejects(within(15_000, turn.result, "the crash"), /exited with code 7/);
    const pid = await pidIn(child, "the agent's helper");
    pids.push(pid);
    await gone(pid, "the crashed agent's helper");
    await vscode.commands.executeCommand("notifications.clearAll");
  });

  it("Stop ends the turn of an agent that ignores it within the deadline, offers Restart Agent, a new prompt works; Restart Agent leaves no agent or helper", async () => {
    const agentPid = path.join(tmp, "stubborn.pid");
    const child = path.join(tmp, "stubborn-child.pid");
    await vscode.workspace.getConfiguration("agentThoughts").update("cancelTimeoutSeconds", 1, vscode.ConfigurationTarget.Global);
    await configure("Stubborn", {
      pidFile: agentPid,
      promptCounterFile: path.join(tmp, "stubborn.count"),
      turns: [
        [
          // The helper writes its pid once SIGTERM is ignored.
          { spawnChild: { command: `trap '' TERM; echo $$ > ${child}; exec sleep 300`, pidFile: `${child}.spawned` } },
          { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "busy", title: "Think very hard", kind: "think", status: "in_progress" } },
          { message: "working on it" },
          { ignoreCancel: 60_000 },
        ],
        [{ message: "recovered after the stubborn turn" }],
      ],
    });
    await sendFromPanel("go", 60_000);
    await transcriptHas("working on it");
    const stubborn = a._test.controller.activeSession!;
    const pid = await pidIn(agentPid, "Stubborn");
    const helper = await pidIn(child, "Stubborn's helper");
    pids.push(pid, helper);
    const clicked = Date.now();
    await click("#stop", "sidebar");
    await waitFor(() => document.querySelector("#session-status")?.getAttribute("data-status") === "idle", undefined, { view: "sidebar", what: "the stopped turn to end", timeoutMs: 10_000 });
    const took = Date.now() - clicked;
    assert.ok(took < 5_000, `the turn ended at the 1 s deadline (${took} ms after Stop)`);
    const footer = await waitFor(() => [...document.querySelectorAll(".turn-footer")].map((f) => f.textContent?.trim() ?? "").filter((t) => /cancel/i.test(t)).pop() ?? "", undefined, { view: "sidebar", what: "the turn to say it was cancelled" });
    const notice = await waitFor(() => {
      const n = [...document.querySelectorAll(".entry-notice")].find((e) => e.querySelector('[data-action="restartAgent"]'));
      return n ? (n.textContent ?? "").replace(/\s+/g, " ") : "";
    }, undefined, { view: "sidebar", what: "a notice with Restart Agent in the turn" });
    assert.match(notice, /Stubborn did not stop within 1 s; the turn was ended here/);
    const card = await evaluate(() => document.querySelector('[data-tool-call-id="busy"]')?.getAttribute("data-status"), undefined, "sidebar");
    assert.equal(card, "canceled", "the open tool call is no longer shown running");
    log(`      ignores Stop: turn ended ${took} ms after Stop; footer "${footer}"; notice "${notice.slice(0, 160)}"`);
    // A new prompt works (the agent still has not answered: a new session of the same agent).
    await sendFromPanel("again", 60_000);
    await transcriptHas("recovered after the stubborn turn");
    assert.ok(alive(pid), "Stop alone does not kill the agent");
    // Restart Agent, from the stopped turn's notice.
    await vscode.commands.executeCommand("agentThoughts.showSessions", stubborn);
    await waitFor(() => document.querySelector('.entry-notice [data-action="restartAgent"]') !== null, undefined, { view: "sidebar", what: "the notice's Restart Agent button" });
    await click('.entry-notice [data-action="restartAgent"]', "sidebar");
    await gone(pid, "the stubborn agent after Restart Agent", 10_000);
    await gone(helper, "its helper that ignores SIGTERM", 10_000);
    const next = await pidIn(agentPid, "the restarted agent");
    await until(() => next !== pid && alive(next) ? next : undefined, "a new Stubborn process");
    pids.push(next);
    await a._test.manager.stop("Stubborn");
    await gone(next, "the restarted agent after stopping it");
  });
});
