// Shared by the integration suites: the extension's API, scripted agents as settings, and polling.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Scenario } from "../fixtures/agents/scenario";

export const EXTENSION_ID = "agent-thoughts.agent-thoughts";

export async function api(): Promise<AgentThoughtsInternalApi> {
  const ext = vscode.extensions.getExtension<AgentThoughtsInternalApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed`);
  return ext.activate();
}

/** An `agentThoughts.agents` entry that runs the scripted agent with this scenario. */
export function scriptedAgent(name: string, scenario: Scenario): { name: string; command: string; args: string[]; env: Record<string, string> } {
  const repo = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  return { name, command: process.execPath, args: [path.join(repo, "out", "fixtures", "agents", "scriptedAgent.js")], env: { SCRIPTED_AGENT_SCENARIO: JSON.stringify(scenario), ELECTRON_RUN_AS_NODE: "1" } };
}

/** Configures one scripted agent (optionally as the default agent). */
export async function useAgent(name: string, scenario: Scenario, asDefault = false): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [scriptedAgent(name, scenario)], vscode.ConfigurationTarget.Global);
  if (asDefault) await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", name, vscode.ConfigurationTarget.Global);
}

/** Polls `fn` until it returns something truthy. */
export async function until<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
