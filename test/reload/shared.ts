// A real window reload, in two phases run by the harness in the same window storage: phase 1
// leaves an agent edit pending review; phase 2 (a fresh workbench and extension host) finds it.
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import { sessionFacts } from "../../src/shared/viewModel";
import { until } from "../support/until";

export const EXTENSION_ID = "agent-thoughts.agent-thoughts";
export const ORIGINAL = "line one\nline two\nline three\n";
export const EDITED = "line one\nline 2 (agent)\nline three\nline four (agent)\n";

export function file(): string {
  return path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "src", "reloaded.txt");
}

export async function api(): Promise<AgentThoughtsInternalApi> {
  const ext = vscode.extensions.getExtension<AgentThoughtsInternalApi>(EXTENSION_ID);
  if (!ext) throw new Error("extension missing");
  const a = await ext.activate();
  if (!a._test) throw new Error("no test hooks (_test): VS Code must run the extension in test mode");
  return a;
}

/** The mid-turn reload row: where its agent and terminal write their pids, and what it said. */
export function midTurn(): { dir: string; agentPid: string; terminalPid: string; counter: string; edit: string; said: string; original: string } {
  const dir = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ".reload-mid-turn");
  return {
    dir,
    agentPid: path.join(dir, "agent.pid"),
    terminalPid: path.join(dir, "terminal.pid"),
    counter: path.join(dir, "prompts"),
    edit: path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "src", "mid-turn.txt"),
    said: "SAID-BEFORE-THE-RELOAD",
    original: "before the agent\n",
  };
}

/** The leftovers row: where an agent's TERM-proof helper and a command's TERM-proof child write their pids. */
export function leftovers(): { dir: string; agentPid: string; helperPid: string; commandChildPid: string } {
  const dir = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ".reload-leftovers");
  return { dir, agentPid: path.join(dir, "agent.pid"), helperPid: path.join(dir, "helper.pid"), commandChildPid: path.join(dir, "command-child.pid") };
}

/** The mid-question reload row: a permission request and a plan step open when the window reloads. */
export function midQuestion(): { title: string; step: string } {
  return { title: "npm run deploy -- --prod", step: "Deploy to production" };
}

/** The history row: a long saved session with a title (not the newest one), listed from the index after the reload. */
export function historyRow(): { agent: string; title: string; turns: number; prompt: (k: number) => string; marker: (k: number) => string; thought: (k: number) => { count: number; text: string }; newest: string } {
  return {
    agent: "Historian",
    title: "A long session worth keeping",
    turns: 30,
    prompt: (k) => `history step ${k}`,
    marker: (k) => `HISTORY-TURN-${k}-END`,
    // ~30 KB of thought chunks a turn: the transcript is ~1.5 MB, so its tail is a few turns, not all of them.
    thought: (k) => ({ count: 200, text: `weighing step ${k} of the long session, chunk {i} of many. ` }),
    newest: "the newest session",
  };
}

/**
 * A saved session listed after the reload, found by its first prompt (what the index keeps of a
 * session without a title) and read back (`ensureLoaded`): after a reload sessions are listed from
 * the index and read when shown.
 */
export async function savedSession(a: AgentThoughtsInternalApi, prompt: string, timeoutMs = 20_000): Promise<string> {
  const id = await until(() => {
    const state = a._test.controller.viewState;
    return state.order.find((sid) => state.sessions[sid]!.restored && sessionFacts(state.sessions[sid]!).title === prompt);
  }, `the saved session "${prompt}" to be listed`, timeoutMs);
  if (!(await a._test.controller.ensureLoaded(id))) throw new Error(`the saved session "${prompt}" could not be read`);
  return id;
}

export { alive } from "../support/processes";

/** The continue-after-reload row: where its agents keep their sessions and record what they receive. */
export function continued(): { dir: string; store: string; record: string; loadRecord: string } {
  const dir = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ".reload-continue");
  return { dir, store: path.join(dir, "store"), record: path.join(dir, "keeper.jsonl"), loadRecord: path.join(dir, "loader.jsonl") };
}

/** The agents of that row: Keeper declares resume, list, close and delete; LoadOnly declares only session/load. */
export function continuingAgents(repo: string): { name: string; command: string; args: string[]; env: Record<string, string> }[] {
  const c = continued();
  const run = (name: string, scenario: Record<string, unknown>): { name: string; command: string; args: string[]; env: Record<string, string> } =>
    ({ name, command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify(scenario), ELECTRON_RUN_AS_NODE: "1" } });
  return [
    run("Keeper", { capabilities: { loadSession: true, sessionCapabilities: { resume: {}, list: {}, close: {}, delete: {} } }, storeDir: `${c.store}-keeper`, recordFile: c.record, turns: [[{ message: "KEPT-BEFORE-RELOAD" }], [{ echoPrompt: true }]] }),
    run("LoadOnly", { capabilities: { loadSession: true }, storeDir: `${c.store}-loader`, recordFile: c.loadRecord, turns: [[{ thought: "loading thought" }, { message: "LOADED-BEFORE-RELOAD" }], [{ echoPrompt: true }]] }),
  ];
}

/** Whether a saved transcript holds events up to `seq` (its last line's; a run of text chunks is one line). */
export function transcriptReaches(file: string, seq: number): boolean {
  if (!fs.existsSync(file)) return false;
  const last = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).at(-1);
  return last !== undefined && (JSON.parse(last) as { seq: number }).seq >= seq;
}
