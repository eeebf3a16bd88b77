/**
 * Palette commands that work on sessions — ask about the selection or a file, new session, mode
 * and model — and the status bar item that says what the active agent is doing.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../acp/agentSession";
import type { SessionManager } from "../acp/sessionManager";
import type { ContentBlock, ThoughtEvent } from "../shared/events";
import type { ViewState } from "../shared/viewModel";
import type { AgentRegistry } from "./agents";
import { plainText } from "../core/plainText";

export interface SessionUi {
  /** Sends a prompt like Ask… does (reveals the panel, reports errors). */
  ask(prompt: string | ContentBlock[], label: string): Promise<unknown>;
  viewState(): ViewState;
  activeSessionId(): string | undefined;
}

/** An embedded resource for a document range (1-based lines in the URI fragment, as editors link them). */
export function selectionResource(doc: vscode.TextDocument, range?: vscode.Range): ContentBlock {
  const whole = !range || range.isEmpty;
  const text = whole ? doc.getText() : doc.getText(range);
  const uri = doc.uri.toString() + (whole ? "" : `#L${range.start.line + 1}-L${range.end.line + 1}`);
  return { type: "resource", resource: { uri, text, mimeType: `text/x-${doc.languageId}` } };
}

export function registerSessionCommands(manager: SessionManager, registry: AgentRegistry, ui: SessionUi): vscode.Disposable[] {
  const activeSession = (): AgentSession | undefined => {
    const id = ui.activeSessionId();
    return (id ? manager.sessionById(id) : undefined) ?? manager.currentSession;
  };
  const question = (title: string): Thenable<string | undefined> => vscode.window.showInputBox({ title, prompt: "What should the agent do with it?", placeHolder: "e.g. Explain this, or: add error handling", ignoreFocusOut: true });

  return [
    vscode.commands.registerCommand("agentThoughts.askAboutSelection", async (questionArg?: unknown) => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showInformationMessage("Open a file and select some code first.");
        return undefined;
      }
      const sel = editor.selection;
      const lines = sel.isEmpty ? "" : `:${sel.start.line + 1}-${sel.end.line + 1}`;
      const text = typeof questionArg === "string" ? questionArg : await question(`Ask ${registry.defaultName()} about ${path.basename(editor.document.fileName)}${lines}`);
      if (!text) return undefined;
      return ui.ask([{ type: "text", text }, selectionResource(editor.document, sel)], text);
    }),
    vscode.commands.registerCommand("agentThoughts.askAboutFile", async (uriArg?: unknown, questionArg?: unknown) => {
      const uri = uriArg instanceof vscode.Uri ? uriArg : vscode.window.activeTextEditor?.document.uri;
      if (!uri) {
        void vscode.window.showInformationMessage("Open or select a file first.");
        return undefined;
      }
      const doc = await vscode.workspace.openTextDocument(uri);
      const text = typeof questionArg === "string" ? questionArg : await question(`Ask ${registry.defaultName()} about ${path.basename(uri.fsPath)}`);
      if (!text) return undefined;
      return ui.ask([{ type: "text", text }, selectionResource(doc)], text);
    }),
    vscode.commands.registerCommand("agentThoughts.newSession", async () => {
      const { session } = await manager.sessionFor(undefined, true);
      return session.sessionId;
    }),
    vscode.commands.registerCommand("agentThoughts.setMode", async (modeArg?: unknown) => {
      const session = activeSession();
      const view = session ? ui.viewState().sessions[session.sessionId] : undefined;
      const modes = view?.modes;
      if (!session || !modes?.availableModes.length) {
        void vscode.window.showInformationMessage("The active agent has no modes to choose from.");
        return;
      }
      const modeId = typeof modeArg === "string" ? modeArg : (await vscode.window.showQuickPick(
        modes.availableModes.map((m) => ({ label: plainText(m.name), description: m.id === modes.currentModeId ? "current" : undefined, detail: m.description, id: m.id })),
        { title: `Mode for ${session.agentName}` },
      ))?.id;
      if (modeId) await session.setMode(modeId);
    }),
    vscode.commands.registerCommand("agentThoughts.setModel", async (modelArg?: unknown) => {
      const session = activeSession();
      const view = session ? ui.viewState().sessions[session.sessionId] : undefined;
      if (!session || !view) {
        void vscode.window.showInformationMessage("Start a session first.");
        return;
      }
      const option = view.configOptions.find((o) => o.category === "model" && o.type === "select");
      if (option?.options?.length) {
        const value = typeof modelArg === "string" ? modelArg : (await vscode.window.showQuickPick(
          option.options.map((o) => ({ label: plainText(o.name), description: o.value === option.currentValue ? "current" : o.group, detail: o.description, value: o.value })),
          { title: `${option.name} for ${session.agentName}` },
        ))?.value;
        if (value) await session.setConfigOption(option.id, value);
        return;
      }
      const legacy = view.models;
      if (legacy?.availableModels.length) {
        const modelId = typeof modelArg === "string" ? modelArg : (await vscode.window.showQuickPick(
          legacy.availableModels.map((m) => ({ label: plainText(m.name), description: m.modelId === legacy.currentModelId ? "current" : undefined, detail: m.description, id: m.modelId })),
          { title: `Model for ${session.agentName}` },
        ))?.id;
        if (modelId) await session.setModel(modelId);
        return;
      }
      void vscode.window.showInformationMessage(`${session.agentName} does not offer a choice of model.`);
    }),
  ];
}

type Activity = { state: "idle" | "thinking" | "tool" | "waiting" | "ended"; detail?: string; waiting: number };

/** The status bar item: the active agent and whether it is thinking, running a tool, or waiting for you. */
export class AgentStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("agentThoughts.status", vscode.StatusBarAlignment.Left, 100);
  private readonly activity = new Map<string, Activity>();
  private readonly names = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly registry: AgentRegistry, private readonly activeSessionId: () => string | undefined) {
    this.item.name = "Agent Thoughts";
    this.render();
    this.item.show();
  }

  onEvent(e: ThoughtEvent): void {
    const a = this.activity.get(e.sessionId) ?? { state: "idle", waiting: 0 };
    switch (e.kind) {
      case "session_start": this.names.set(e.sessionId, e.agentName); break;
      case "turn_start": case "thought": case "message": if (a.state !== "waiting") { a.state = "thinking"; delete a.detail; } break;
      case "tool_start": if (a.state !== "waiting") { a.state = "tool"; a.detail = e.title; } break;
      case "tool_done": if (a.state === "tool") { a.state = "thinking"; delete a.detail; } break;
      case "permission_request": a.waiting++; a.state = "waiting"; a.detail = e.title; break;
      case "permission_outcome": a.waiting = Math.max(0, a.waiting - 1); if (a.waiting === 0) { a.state = "thinking"; delete a.detail; } break;
      case "turn_end": a.state = "idle"; a.waiting = 0; delete a.detail; break;
      case "error": if (e.fatal) { a.state = "ended"; a.waiting = 0; } else if (e.turnId !== undefined) { a.state = "idle"; a.waiting = 0; } break;
      default: return;
    }
    this.activity.set(e.sessionId, a);
    // Many events a second: update at most a few times per second.
    this.timer ??= setTimeout(() => { this.timer = undefined; this.render(); }, 100);
  }

  private render(): void {
    const id = this.activeSessionId();
    const a = id ? this.activity.get(id) : undefined;
    const name = (id && this.names.get(id)) ?? this.registry.defaultName();
    const waitingElsewhere = [...this.activity.entries()].filter(([sid, x]) => sid !== id && x.waiting > 0).length;
    const icon = !a || a.state === "idle" ? "$(hubot)" : a.state === "thinking" ? "$(loading~spin)" : a.state === "tool" ? "$(tools)" : a.state === "waiting" ? "$(bell-dot)" : "$(circle-slash)";
    const what = !a || a.state === "idle" ? "" : a.state === "thinking" ? " thinking…" : a.state === "tool" ? ` ${a.detail ?? "running a tool"}` : a.state === "waiting" ? " waiting for you" : " stopped";
    // The agent's tool title is agent text: no `$(icon)` of its own in the status bar.
    this.item.text = `${icon} ${plainText(name)}${plainText(what.length > 40 ? what.slice(0, 39) + "…" : what)}${waitingElsewhere ? ` (+${waitingElsewhere} waiting)` : ""}`;
    this.item.tooltip = `Agent Thoughts: ${name}${what}${waitingElsewhere ? `\n${waitingElsewhere} other session(s) wait for you` : ""}\nClick to ${a?.state === "waiting" ? "answer" : "open the panel"}`;
    this.item.backgroundColor = a?.state === "waiting" || waitingElsewhere ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    this.item.command = a?.state === "waiting" ? "agentThoughts.respondToPermission" : "agentThoughts.focusPrompt";
  }

  /** Current text (tests read it). */
  get text(): string {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; this.render(); }
    return this.item.text;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.item.dispose();
  }
}
