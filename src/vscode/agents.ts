/**
 * Agent configuration from settings (`agentThoughts.agents`, `agentThoughts.defaultAgent`) and the
 * built-in demo agent, resolved into runnable `AgentSpec`s.
 */
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentSpec } from "../acp/ports";

export const DEMO_AGENT = "Demo";

export interface AgentSetting { name: string; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }

function workspaceCwd(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
}

function expand(value: string): string {
  return value.replace(/\$\{workspaceFolder\}/g, workspaceCwd()).replace(/^~(?=$|\/)/, os.homedir());
}

export class AgentRegistry {
  constructor(private readonly extensionPath: string) {}

  /** Configured agents, valid entries only (problems are reported by `problems()`). */
  configured(): AgentSetting[] {
    const raw = vscode.workspace.getConfiguration("agentThoughts").get<unknown[]>("agents") ?? [];
    return raw.filter((a): a is AgentSetting => {
      const r = a as Partial<AgentSetting> | null;
      return typeof r?.name === "string" && typeof r.command === "string" && r.name !== DEMO_AGENT;
    });
  }

  names(): string[] {
    return [DEMO_AGENT, ...this.configured().map((a) => a.name)];
  }

  defaultName(): string {
    return vscode.workspace.getConfiguration("agentThoughts").get<string>("defaultAgent") || DEMO_AGENT;
  }

  demoSpec(): AgentSpec {
    return {
      name: DEMO_AGENT,
      command: process.execPath,
      args: [path.join(this.extensionPath, "dist", "demoAgent.js")],
      // The extension host may be Electron: make it behave as plain Node for the demo agent.
      env: { ELECTRON_RUN_AS_NODE: "1" },
      cwd: workspaceCwd(),
    };
  }

  /** Throws a clear error for an unknown name. */
  /** The command line an agent runs, or why it cannot run (for pick lists). */
  describe(name: string): string {
    try {
      const spec = this.resolve(name);
      return [spec.command, ...spec.args].join(" ");
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  resolve(name: string | undefined): AgentSpec {
    const wanted = name ?? this.defaultName();
    if (wanted === DEMO_AGENT) return this.demoSpec();
    const a = this.configured().find((x) => x.name === wanted);
    if (!a) throw new Error(`No agent named "${wanted}" in the agentThoughts.agents setting (known: ${this.names().join(", ")}).`);
    return { name: a.name, command: expand(a.command), args: (a.args ?? []).map(expand), env: a.env ?? {}, cwd: a.cwd ? expand(a.cwd) : workspaceCwd() };
  }
}
