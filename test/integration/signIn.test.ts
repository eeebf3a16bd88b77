// Sign-in the ACP way in a real VS Code: an agent whose auth method is of type `terminal` is run
// (its own program with the method's arguments) in a VS Code terminal the user sees; the session
// starts once it exits with 0 and fails with a clear word when it does not. Sign Out of Agent calls
// `logout` where the agent declares it.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Scenario } from "../fixtures/agents/scenario";
import { api, scriptedAgent, until } from "./helpers";

describe("signing in to an agent", function () {
  this.timeout(60_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-signin-")); });
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function agent(name: string, scenario: Scenario, env: Record<string, string> = {}): Promise<void> {
    const entry = scriptedAgent(name, scenario);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [{ ...entry, env: { ...entry.env, ...env } }], vscode.ConfigurationTarget.Global);
  }

  it("runs a terminal auth method in a VS Code terminal, then the session starts; Sign Out calls logout", async () => {
    const loginFile = path.join(dir, "signed-in");
    const record = path.join(dir, "received.jsonl");
    await agent("Login", { requireAuth: true, loginFile, logout: true, recordFile: record, authMethods: [{ id: "tui", name: "Sign in with the agent's TUI", type: "terminal", args: ["--login"] }], turns: [[{ message: "SIGNED-IN-ANSWER" }]] });
    const a = await api();
    const opened: string[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t.name));
    try {
      const r = await a.stream("hello", { agent: "Login", newSession: true }).result;
      assert.equal(r.text, "SIGNED-IN-ANSWER");
    } finally {
      sub.dispose();
    }
    assert.ok(opened.includes("Sign in to Login"), `the sign-in ran in a terminal the user sees (opened: ${opened.join(", ")})`);
    assert.equal(fs.readFileSync(loginFile, "utf8"), "signed in", "the agent's own program signed in");
    const sent = fs.readFileSync(record, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { method: string; params: Record<string, unknown> });
    assert.ok(!sent.some((m) => m.method === "authenticate"), "a terminal method is never passed to authenticate");
    const init = sent.find((m) => m.method === "initialize");
    assert.deepEqual((init?.params.clientCapabilities as { auth?: unknown }).auth, { terminal: true }, "terminal sign-in is announced");
    assert.equal(await vscode.commands.executeCommand("agentThoughts.signOut", "Login"), true);
    await until(() => fs.readFileSync(record, "utf8").includes('"method":"logout"'), "logout to reach the agent");
    assert.equal(fs.existsSync(loginFile), false, "signed out");
    await a._test.manager.stop("Login");
  });

  it("a sign-in that fails says so, and no session starts", async () => {
    await agent("FailLogin", { requireAuth: true, loginFile: path.join(dir, "never"), authMethods: [{ id: "tui", name: "Sign in", type: "terminal", args: ["--login"] }], turns: [[{ message: "never" }]] }, { SCRIPTED_AGENT_LOGIN: "fail" });
    const a = await api();
    await assert.rejects(a.stream("hello", { agent: "FailLogin", newSession: true }).result, /sign-in \(Sign in\) did not succeed/);
    assert.equal(await vscode.commands.executeCommand("agentThoughts.signOut", "FailLogin"), false, "no logout offered by an agent that does not declare it");
    await a._test.manager.stop("FailLogin");
  });
});
