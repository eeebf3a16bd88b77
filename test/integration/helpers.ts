// Shared by the integration suites: the extension's API, scripted agents as settings, and polling.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Scenario } from "../fixtures/agents/scenario";
import { until } from "../support/until";
import { harnessRequest } from "./index";
import { fill, press, waitFor } from "./webview";

export const EXTENSION_ID = "agent-thoughts.agent-thoughts";

export async function api(): Promise<AgentThoughtsInternalApi> {
  const ext = vscode.extensions.getExtension<AgentThoughtsInternalApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed`);
  const a = await ext.activate();
  assert.ok(a._test, "the test hooks (_test) are there: VS Code runs the extension in test mode");
  return a;
}

let scenarioDir: string | undefined;

// Each suite file has its own copy of this module: its scenario files go when the whole run ends
// (a root-level hook; the bench, which loads this outside mocha's suites, has none).
if (typeof after === "function") {
  after(() => {
    if (scenarioDir) fs.rmSync(scenarioDir, { recursive: true, force: true });
    scenarioDir = undefined;
  });
}

// A test that fails may leave a turn working (waiting on a question it never answered): it would
// hold the prompts, questions and "nothing working" of every test after it. End such turns.
if (typeof afterEach === "function") {
  afterEach(async function () {
    if (this.currentTest?.state !== "failed") return;
    const a = await api();
    const working = (): string[] => Object.values(a._test.controller.viewState.sessions).filter((s) => s.status === "running" || s.status === "awaiting_permission").map((s) => s.sessionId);
    for (const id of working()) a._test.manager.sessionById(id)?.cancelTurn();
    await until(() => working().length === 0 || undefined, "the failed test's turns ended", 10_000).catch(() => undefined);
  });
}

/**
 * An `agentThoughts.agents` entry that runs the scripted agent with this scenario: in its
 * environment, or in a file it names there when large (Linux passes no environment string over
 * 128 KiB: the spawn fails with E2BIG).
 */
export function scriptedAgent(name: string, scenario: Scenario): { name: string; command: string; args: string[]; env: Record<string, string> } {
  const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  let value = JSON.stringify(scenario);
  if (value.length > 64_000) {
    scenarioDir ??= fs.mkdtempSync(path.join(os.tmpdir(), "at-scenarios-"));
    const file = path.join(scenarioDir, `${fs.readdirSync(scenarioDir).length}.json`);
    fs.writeFileSync(file, value);
    value = file;
  }
  return { name, command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: value, ELECTRON_RUN_AS_NODE: "1" } };
}

/** Configures one scripted agent (optionally as the default agent). */
export async function useAgent(name: string, scenario: Scenario, asDefault = false): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [scriptedAgent(name, scenario)], vscode.ConfigurationTarget.Global);
  if (asDefault) await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", name, vscode.ConfigurationTarget.Global);
}

export { until } from "../support/until";

/** Types a prompt in the panel and presses Enter, as a user would; waits until the host has it. */
export async function sendFromPanel(text: string, timeoutMs = 15_000): Promise<void> {
  const a = await api();
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the prompt box", timeoutMs });
  const before = a._test.controller.stats.prompts;
  await fill("#prompt", text, "sidebar");
  await press("#prompt", "Enter", "sidebar");
  await until(() => a._test.controller.stats.prompts > before, `the prompt "${text}" to reach the host`, 5_000);
}

/** Whether the panel's transcript shows `text` (textContent: not a folded thought's text, drawn only once opened); waits for it. */
export function transcriptHas(text: string, timeoutMs = 20_000): Promise<boolean> {
  return waitFor((t: string) => (document.getElementById("transcript")?.textContent ?? "").includes(t), text, { view: "sidebar", what: `"${text}" in the transcript`, timeoutMs });
}

/** Clicks the button `label` of the notification toast whose text has `containing`; false when no such toast or button shows. */
export async function clickToastButton(containing: string, label: string): Promise<boolean> {
  return (await harnessRequest<{ value: boolean }>({ op: "workbench", arg: [containing, label], fn: (([text, name]: [string, string]) => {
    const toast = [...document.querySelectorAll(".notification-toast")].find((t) => (t.textContent ?? "").includes(text));
    const button = toast && [...toast.querySelectorAll<HTMLElement>(".monaco-button")].find((b) => b.textContent?.trim() === name);
    button?.click();
    return !!button;
  }).toString() }))?.value ?? false;
}

/** Whether a notification toast whose text has `containing` shows. */
export async function toastShows(containing: string): Promise<boolean> {
  return (await harnessRequest<{ value: boolean }>({ op: "workbench", arg: containing, fn: ((text: string) =>
    [...document.querySelectorAll(".notification-toast")].some((t) => (t.textContent ?? "").includes(text))).toString() }))?.value ?? false;
}

/** The open quick input's title, or "" when none shows. */
export async function quickInputTitle(): Promise<string> {
  return (await harnessRequest<{ value: string }>({ op: "workbench", fn: (() => {
    const widget = document.querySelector<HTMLElement>(".quick-input-widget");
    if (!widget || widget.style.display === "none") return "";
    return (widget.querySelector(".quick-input-title")?.textContent ?? "").trim();
  }).toString() }))?.value ?? "";
}

/** The rows (their text) of the open quick pick, if its title includes `title`; none when no quick pick shows. */
export async function quickPickRows(title = ""): Promise<string[]> {
  return (await harnessRequest<{ value: string[] }>({ op: "workbench", arg: title, fn: ((t: string) => {
    const widget = document.querySelector<HTMLElement>(".quick-input-widget");
    if (!widget || widget.style.display === "none") return [];
    if (!(widget.querySelector(".quick-input-title")?.textContent ?? "").includes(t)) return [];
    return [...widget.querySelectorAll(".monaco-list-row")].map((r) => (r.textContent ?? "").trim());
  }).toString() }))?.value ?? [];
}
