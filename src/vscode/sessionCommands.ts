/**
 * The commands that start and steer sessions: Ask… (also about the selection or a file), new
 * session, the session list, the agent (select, restart, cancel its turn), mode and model, the
 * panel (open in editor, focus the prompt), and the notice with Restart when an agent dies.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { userMessage } from "../acp/agentError";
import type { AgentSession } from "../acp/agentSession";
import type { SessionManager } from "../acp/sessionManager";
import type { ContentBlock } from "../shared/events";
import type { TurnResult } from "../core/thoughtStream";
import { agentIdOf, savedSessionOf, sessionFacts, type ViewState } from "../shared/viewModel";
import { DEMO_AGENT } from "../core/agentPresets";
import type { AgentRegistry } from "./agents";
import { plainText } from "../core/plainText";
import { count } from "../core/words";

/** A row of Select Agent: an agent, or Add Agent…. */
type AgentItem = vscode.QuickPickItem & { addAgent?: boolean };

/** What the session commands need of the thought panel. */
export interface SessionUi {
  viewState(): ViewState;
  /** The session the panel shows. */
  activeSessionId(): string | undefined;
  /** Shows a session in the panel. */
  select(sessionId: string): void;
  /** Whether a thought panel (sidebar or editor) is visible. */
  readonly anyVisible: boolean;
  /** Shows the sidebar panel. */
  reveal(): Promise<void>;
  openInEditor(): unknown;
  focusPrompt(): void;
  showLog(): void;
  /** Removes a session from the panel, and its saved transcript. */
  forget(sessionId: string): void;
  deleteSaved(sessionId: string): Promise<void>;
  /** A modal yes/no question (see Modal). */
  ask(message: string, detail: string, ...actions: string[]): Promise<string | undefined>;
  log(message: string): void;
}

/**
 * The 1-based lines a selection covers: one that ends at the start of a line (whole lines selected
 * with Shift+Down) does not cover that line.
 */
export function selectedLines(range: vscode.Range): { first: number; last: number } {
  const endsAtLineStart = range.end.character === 0 && range.end.line > range.start.line;
  return { first: range.start.line + 1, last: range.end.line + (endsAtLineStart ? 0 : 1) };
}

/** An embedded resource for a document range (1-based lines in the URI fragment, as editors link them). */
export function selectionResource(doc: vscode.TextDocument, range?: vscode.Range): ContentBlock {
  const whole = !range || range.isEmpty;
  const text = whole ? doc.getText() : doc.getText(range);
  const lines = whole ? undefined : selectedLines(range);
  const uri = doc.uri.toString() + (lines ? `#L${lines.first}-L${lines.last}` : "");
  return { type: "resource", resource: { uri, text, mimeType: `text/x-${doc.languageId}` } };
}

/** An error shown to the user, with Show Log. */
function showError(err: unknown, ui: SessionUi): void {
  void vscode.window.showErrorMessage(plainText(userMessage(err)), "Show Log").then((choice) => { if (choice) ui.showLog(); });
}

export function registerSessionCommands(manager: SessionManager, registry: AgentRegistry, ui: SessionUi): vscode.Disposable[] {
  const activeSession = (): AgentSession | undefined => {
    const id = ui.activeSessionId();
    return (id ? manager.sessionById(id) : undefined) ?? manager.currentSession;
  };
  const question = (title: string): Thenable<string | undefined> => vscode.window.showInputBox({ title, prompt: "What should the agent do with it?", placeHolder: "e.g. Explain this, or: add error handling", ignoreFocusOut: true });
  /** A turn started from a command: shows the panel, reports failures as an error message. */
  const ask = async (prompt: string | ContentBlock[]): Promise<TurnResult | undefined> => {
    const result = manager.run(prompt);
    if (!ui.anyVisible) void ui.reveal();
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `${registry.defaultName()} is working…` }, () => result);
    } catch (err) {
      showError(err, ui);
      return undefined;
    }
  };


  const deleteButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete session…" };
  const closeButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("circle-slash"), tooltip: "Close session (a prompt in it continues it)" };
  type SessionItem = vscode.QuickPickItem & { sid?: string; agentSessions?: boolean };

  /** Show Sessions: every session, newest first, searchable; Delete and Close on each row; the agent's own sessions last. */
  const pickSession = (): Promise<string | undefined> => new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<SessionItem>();
    qp.title = "Sessions";
    qp.placeholder = "Show a session in the thought panel (type to search titles, agents, dates)";
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    const fill = (): void => {
      const state = ui.viewState();
      const rows: SessionItem[] = [...state.order].reverse().map((sid) => {
        const v = state.sessions[sid]!;
        const waiting = Object.keys(v.pendingPermissions).length;
        const facts = sessionFacts(v);
        const live = manager.sessionById(sid);
        // Close only where a prompt can bring the session back (the agent resumes or loads).
        const idle = !!live && !live.isEnded && !live.busy && (!!v.abilities?.resume || !!v.abilities?.load);
        const state_ = waiting ? "waiting for you" : v.status === "running" ? "working" : v.restored ? "saved" : v.status === "ended" ? "ended" : "idle";
        return {
          label: `${waiting ? "$(bell-dot) " : v.status === "running" ? "$(loading~spin) " : ""}${plainText((facts.title ?? "New session").slice(0, 60))}`,
          description: `${plainText(v.agentName)} · ${state_}`,
          detail: `${count(facts.turns, "turn")}${facts.lastAt !== undefined ? ` · last ${new Date(facts.lastAt).toLocaleString()}` : ""}${facts.bytes !== undefined ? ` · ${(facts.bytes / 1_048_576).toFixed(1)} MB` : ""}`,
          sid,
          buttons: idle ? [closeButton, deleteButton] : [deleteButton],
        };
      });
      const agent = registry.defaultName();
      qp.items = [...rows, { label: "", kind: vscode.QuickPickItemKind.Separator }, { label: `$(history) ${plainText(agent)}'s own sessions in this folder…`, detail: "Sessions the agent keeps (session/list), e.g. ones started in its CLI; opening one loads it", agentSessions: true, alwaysShow: true }];
    };
    fill();
    let done = false;
    const finish = (id: string | undefined): void => {
      if (done) return;
      done = true;
      qp.dispose();
      resolve(id);
    };
    qp.onDidTriggerItemButton(async ({ item, button }) => {
      if (!item.sid) return;
      if (button === deleteButton) await deleteSession(item.sid);
      else await closeSession(item.sid);
      fill();
    });
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0];
      if (item?.agentSessions) {
        finish(undefined);
        void openAgentSessions(undefined, undefined);
        return;
      }
      finish(item?.sid);
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });

  /** Deletes a session: asks first; closes it if live, then its transcript here and, where declared, the agent's own copy. */
  const deleteSession = async (id: string): Promise<boolean> => {
    const v = ui.viewState().sessions[id];
    if (!v) return false;
    const live = manager.sessionById(id);
    if (live?.busy || manager.isContinuing(id)) {
      void vscode.window.showInformationMessage(live?.busy ? "The agent is working in this session; stop the turn before deleting it." : "The agent is taking this session back; delete it once it has.");
      return false;
    }
    const agentSessionId = savedSessionOf(v).agentSessionId;
    const agentSide = !!v.abilities?.delete && !!agentSessionId;
    const title = sessionFacts(v).title ?? "New session";
    const answer = await ui.ask(`Delete the session "${title.slice(0, 80)}"?`,
      `Its saved transcript in this workspace is removed${agentSide ? `, and ${v.agentName} deletes its own copy of the conversation (session/delete)` : ""}. This cannot be undone.`, "Delete");
    if (answer !== "Delete") return false;
    if (live && !live.isEnded) await live.close().catch((err: unknown) => ui.log(`Closing session ${id} before deleting it failed: ${String(err)}`));
    if (agentSide) {
      try {
        await manager.deleteAgentSession(agentIdOf(v), agentSessionId);
      } catch (err) {
        void vscode.window.showWarningMessage(plainText(`${v.agentName} could not delete its copy of the session: ${userMessage(err)}. It is removed here.`));
      }
    }
    await ui.deleteSaved(id);
    ui.forget(id);
    return true;
  };

  /** Closes an idle live session (session/close where declared); a prompt in it later continues it. */
  const closeSession = async (id: string): Promise<boolean> => {
    const live = manager.sessionById(id);
    if (!live || live.isEnded) return false;
    try {
      await live.close();
      return true;
    } catch (err) {
      showError(err, ui);
      return false;
    }
  };

  /**
   * The agent's own sessions in this folder (session/list); the one picked (or `pick`, the agent's
   * id for it) opens in the panel, loaded with its history. Sessions the panel already has are shown.
   */
  const openAgentSessions = async (agentName: string | undefined, pick: string | undefined): Promise<string | undefined> => {
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!cwd) {
      void vscode.window.showInformationMessage("Open a folder first: agents list their sessions per folder.");
      return undefined;
    }
    const name = agentName ?? registry.defaultName();
    let listed: Awaited<ReturnType<SessionManager["listAgentSessions"]>> | undefined;
    try {
      listed = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Asking ${name} for its sessions…` },
        async () => ((await manager.abilitiesOf(name)).list ? manager.listAgentSessions(name, cwd) : undefined));
    } catch (err) {
      showError(err, ui);
      return undefined;
    }
    if (!listed) {
      void vscode.window.showInformationMessage(plainText(`${name} does not list its sessions (it does not declare session/list).`));
      return undefined;
    }
    const state = ui.viewState();
    const shown = new Map<string, string>();
    for (const sid of state.order) {
      const v = state.sessions[sid]!;
      const agentId = savedSessionOf(v).agentSessionId;
      if (agentId && agentIdOf(v) === listed.agentName) shown.set(agentId, sid);
    }
    const rows = listed.sessions.map((s) => ({
      label: plainText(s.title ?? s.sessionId).slice(0, 200),
      description: shown.has(s.sessionId) ? "in the panel" : undefined,
      detail: s.updatedAt && !Number.isNaN(Date.parse(s.updatedAt)) ? `updated ${new Date(s.updatedAt).toLocaleString()}` : undefined,
      info: s,
    }));
    if (rows.length === 0 && !pick) {
      void vscode.window.showInformationMessage(plainText(`${listed.agentName} has no saved sessions in this folder.`));
      return undefined;
    }
    const chosen = pick ? rows.find((r) => r.info.sessionId === pick)?.info : (await vscode.window.showQuickPick(rows, { title: `${plainText(listed.agentName)}'s sessions in this folder`, matchOnDetail: true, placeHolder: "Open a session in the thought panel" }))?.info;
    if (!chosen) return undefined;
    const already = shown.get(chosen.sessionId);
    if (already) {
      ui.select(already);
      if (!ui.anyVisible) await ui.reveal();
      return already;
    }
    try {
      // Our folder, not the one the agent reported: a session opens only where we work.
      const session = await manager.continueSession({ sessionId: "", agentSessionId: chosen.sessionId, cwd, lastSeq: 0, lastTurnId: 0, shownPrompts: [] }, listed.agentName);
      if (chosen.title) session.record({ kind: "session_info", title: chosen.title });
      ui.select(session.sessionId);
      if (!ui.anyVisible) await ui.reveal();
      return session.sessionId;
    } catch (err) {
      showError(err, ui);
      return undefined;
    }
  };

  return [
    vscode.commands.registerCommand("agentThoughts.ask", async (promptArg?: unknown): Promise<TurnResult | undefined> => {
      const prompt = typeof promptArg === "string" && promptArg.trim() ? promptArg : await vscode.window.showInputBox({
        title: `Ask ${registry.defaultName()}`,
        prompt: "What should the agent do?",
        placeHolder: "e.g. Explain what src/hello.ts does",
        ignoreFocusOut: true,
      });
      if (!prompt) return undefined;
      return ask(prompt);
    }),
    vscode.commands.registerCommand("agentThoughts.selectAgent", async (nameArg?: unknown): Promise<string | undefined> => {
      const current = registry.defaultName();
      let name: string | undefined;
      if (typeof nameArg === "string") name = nameArg;
      else {
        const agents: AgentItem[] = registry.names().map((n) => ({ label: n, description: n === current ? "current" : undefined, detail: n === DEMO_AGENT ? "Built-in demo agent (no API key, no network)" : registry.describe(n) }));
        const picked = await vscode.window.showQuickPick<AgentItem>(
          [...agents, { label: "", kind: vscode.QuickPickItemKind.Separator }, { label: "$(add) Add Agent…", detail: "Claude Code, Codex, Gemini CLI, Goose, OpenCode, or a command of your own", addAgent: true }],
          { title: "Select the agent for Agent Thoughts", placeHolder: current },
        );
        // Add Agent… writes the new entry and selects it itself.
        if (picked?.addAgent) return vscode.commands.executeCommand<string | undefined>("agentThoughts.addAgent");
        name = picked?.label;
      }
      if (!name) return undefined;
      if (!registry.names().includes(name)) {
        void vscode.window.showErrorMessage(plainText(`No agent named "${name}". Add it with Agent Thoughts: Add Agent… (or in the agentThoughts.agents setting).`));
        return undefined;
      }
      await registry.select(name);
      return name;
    }),
    vscode.commands.registerCommand("agentThoughts.cancel", () => manager.currentSession?.cancelTurn()),
    vscode.commands.registerCommand("agentThoughts.restartAgent", async (nameArg?: unknown): Promise<string | undefined> => {
      const shown = ui.activeSessionId();
      const name = typeof nameArg === "string" ? nameArg : (shown ? manager.sessionById(shown)?.agentName : undefined) ?? registry.defaultName();
      try {
        const session = await manager.restart(name);
        return session.sessionId;
      } catch (err) {
        showError(err, ui);
        return undefined;
      }
    }),
    // An agent that crashes: say so (its transcript stays in the panel) and offer a restart.
    manager.onAgentDeath((err) => {
      void vscode.window.showErrorMessage(plainText(err.userMessage), "Restart Agent", "Show Log").then((choice) => {
        if (choice === "Restart Agent") void vscode.commands.executeCommand("agentThoughts.restartAgent", err.agentName);
        else if (choice === "Show Log") ui.showLog();
      });
    }),
    vscode.commands.registerCommand("agentThoughts.showSessions", async (sessionArg?: unknown) => {
      const id = typeof sessionArg === "string" ? sessionArg : await pickSession();
      if (!id) return undefined;
      ui.select(id);
      if (!ui.anyVisible) await ui.reveal();
      return id;
    }),
    vscode.commands.registerCommand("agentThoughts.deleteSession", async (sessionArg?: unknown) => {
      const id = typeof sessionArg === "string" ? sessionArg : ui.activeSessionId();
      return id ? deleteSession(id) : false;
    }),
    vscode.commands.registerCommand("agentThoughts.closeSession", async (sessionArg?: unknown) => {
      const id = typeof sessionArg === "string" ? sessionArg : ui.activeSessionId();
      return id ? closeSession(id) : false;
    }),
    vscode.commands.registerCommand("agentThoughts.openAgentSessions", async (agentArg?: unknown, sessionArg?: unknown) => {
      return openAgentSessions(typeof agentArg === "string" ? agentArg : undefined, typeof sessionArg === "string" ? sessionArg : undefined);
    }),
    vscode.commands.registerCommand("agentThoughts.signOut", async (agentArg?: unknown): Promise<boolean> => {
      const name = typeof agentArg === "string" ? agentArg : registry.defaultName();
      try {
        await manager.signOut(name);
        void vscode.window.showInformationMessage(plainText(`Signed out of ${name}.`));
        return true;
      } catch (err) {
        showError(err, ui);
        return false;
      }
    }),
    vscode.commands.registerCommand("agentThoughts.openPanel", () => ui.openInEditor()),
    vscode.commands.registerCommand("agentThoughts.focusPrompt", async () => { await ui.reveal(); ui.focusPrompt(); }),
    vscode.commands.registerCommand("agentThoughts.askAboutSelection", async (questionArg?: unknown) => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) {
        void vscode.window.showInformationMessage("Open a file and select some code first.");
        return undefined;
      }
      const sel = editor.selection;
      const span = selectedLines(sel);
      const lines = sel.isEmpty ? "" : `:${span.first}-${span.last}`;
      const text = typeof questionArg === "string" ? questionArg : await question(`Ask ${registry.defaultName()} about ${path.basename(editor.document.fileName)}${lines}`);
      if (!text) return undefined;
      return ask([{ type: "text", text }, selectionResource(editor.document, sel)]);
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
      return ask([{ type: "text", text }, selectionResource(doc)]);
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
