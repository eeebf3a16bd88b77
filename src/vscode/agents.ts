/**
 * Agent configuration from settings (`agentThoughts.agents`, `agentThoughts.defaultAgent`) and the
 * built-in demo agent, resolved into runnable `AgentSpec`s.
 */
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentSpec, Logger } from "../acp/ports";
import type { SessionManagerOptions } from "../acp/sessionManager";
import type { ProcessPriority } from "../acp/spawn";
import { DEMO_AGENT, zAgentSetting, type AgentSetting } from "../core/agentPresets";
import { plainText } from "../core/plainText";
import { parseList } from "../shared/validation";

/** The folder agents start in unless their entry says otherwise. */
export function workspaceCwd(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
}

/** `${workspaceFolder}` and a leading `~` expanded, as in a command, its arguments and cwd. */
export function expand(value: string): string {
  return value.replace(/\$\{workspaceFolder\}/g, workspaceCwd()).replace(/^~(?=$|\/)/, os.homedir());
}

export class AgentRegistry {
  /** Problems already logged (each is logged once). */
  private readonly reported = new Set<string>();

  constructor(private readonly extensionPath: string, private readonly logger: Pick<Logger, "warn">) {}

  /** Configured agents, valid entries only; an invalid entry is skipped and logged once. */
  configured(): AgentSetting[] {
    const { items, problems } = parseList(zAgentSetting, vscode.workspace.getConfiguration("agentThoughts").get<unknown>("agents"), "the setting");
    for (const p of problems) this.report(`agentThoughts.agents: ${p}; skipped`);
    const out = items.filter((a) => a.name !== DEMO_AGENT);
    if (out.length < items.length) this.report(`agentThoughts.agents: an entry named "${DEMO_AGENT}" is skipped; that is the built-in demo agent's name`);
    return out;
  }

  private report(problem: string): void {
    if (this.reported.has(problem)) return;
    this.reported.add(problem);
    this.logger.warn(problem);
  }

  names(): string[] {
    return [DEMO_AGENT, ...this.configured().map((a) => a.name)];
  }

  defaultName(): string {
    return vscode.workspace.getConfiguration("agentThoughts").get<string>("defaultAgent") || DEMO_AGENT;
  }

  /** Makes `name` the default agent, in the user's own settings: a workspace file is one an agent can write, and this setting picks what runs. */
  async select(name: string): Promise<void> {
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", name, vscode.ConfigurationTarget.Global);
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

  /** The command line an agent runs, or why it cannot run (for pick lists). */
  describe(name: string): string {
    try {
      const spec = this.resolve(name);
      return [spec.command, ...spec.args].join(" ");
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  /** Throws a clear error for an unknown name. */
  resolve(name: string | undefined): AgentSpec {
    const wanted = name ?? this.defaultName();
    if (wanted === DEMO_AGENT) return this.demoSpec();
    const a = this.configured().find((x) => x.name === wanted);
    if (!a) throw new Error(`No agent named "${wanted}" in the agentThoughts.agents setting (known: ${this.names().join(", ")}).`);
    const cwd = a.cwd ? expand(a.cwd) : workspaceCwd();
    // A multi-root workspace: the agent may work in every folder, as file access here allows.
    const others = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file" && f.uri.fsPath !== cwd).map((f) => f.uri.fsPath);
    return { name: a.name, command: expand(a.command), args: (a.args ?? []).map(expand), env: a.env ?? {}, cwd, ...(others.length ? { additionalDirectories: others } : {}) };
  }
}

/** `agentThoughts.processPriority`: agents (and what they run) below the editor's CPU priority unless set to `normal`. */
export function processPriority(): ProcessPriority {
  return vscode.workspace.getConfiguration("agentThoughts").get<string>("processPriority") === "normal" ? "normal" : "low";
}

/** How the session manager starts agents: from these settings, read at each use so a changed setting applies next time. */
export function clientOptions(registry: AgentRegistry, version: string, savedSession?: SessionManagerOptions["savedSession"]): SessionManagerOptions {
  const settings = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration("agentThoughts");
  return {
    clientName: "agent-thoughts",
    clientVersion: version,
    // Read at each start.
    get initializeTimeoutMs() {
      return Math.max(1, settings().get<number>("initializeTimeoutSeconds") ?? 60) * 1000;
    },
    // Read at each cancel. At most a minute, whoever set it: a workspace must not be able to make Stop wait forever.
    get cancelTimeoutMs() {
      return Math.min(60, Math.max(0.1, settings().get<number>("cancelTimeoutSeconds") ?? 5)) * 1000;
    },
    // Read at each start.
    get processPriority() {
      return processPriority();
    },
    resolveAgent: (name) => registry.resolve(name),
    ...(savedSession ? { savedSession } : {}),
    // A `terminal` auth method: the agent's own program, in a terminal the user sees and types in.
    signInInTerminal: (run) => new Promise<boolean>((resolve) => {
      const terminal = vscode.window.createTerminal({ name: `Sign in to ${plainText(run.agentName)}`, shellPath: run.command, shellArgs: run.args, env: run.env, cwd: run.cwd, iconPath: new vscode.ThemeIcon("account") });
      const closed = vscode.window.onDidCloseTerminal((t) => {
        if (t !== terminal) return;
        closed.dispose();
        resolve(t.exitStatus?.code === 0);
      });
      terminal.show();
    }),
    chooseAuthMethod: async (agentName, methods) => {
      const pick = await vscode.window.showQuickPick(methods.map((m) => ({ label: plainText(m.name), detail: m.description, id: m.id })), { title: `${agentName} needs you to sign in`, ignoreFocusOut: true });
      return pick?.id;
    },
  };
}
