/**
 * Composition root: builds the log channel, the ports, the session manager and the commands, and
 * returns the public API. Behaviour lives in the layers it wires together.
 */
import * as vscode from "vscode";
import { userMessage } from "./acp/agentError";
import { NodeTerminals } from "./acp/nodeTerminals";
import { terminateAllGroups } from "./acp/processGroups";
import { SessionManager } from "./acp/sessionManager";
import type { AgentThoughtsApi, StreamOptions } from "./api";
import type { ContentBlock } from "./shared/events";
import type { TurnResult } from "./core/thoughtStream";
import { AgentChanges } from "./vscode/agentChanges";
import { PROPOSAL_SCHEME } from "./vscode/diffDocuments";
import { AgentRegistry } from "./vscode/agents";
import { VscodeFileSystem } from "./vscode/fileSystem";
import { WorkspaceGuard } from "./vscode/guard";
import { AgentLinks } from "./vscode/links";
import { Checkpoints } from "./vscode/checkpoints";
import { Modal } from "./vscode/modal";
import { SettingsGuard } from "./vscode/settingsGuard";
import { plainText } from "./core/plainText";
import { ChannelLogger, EventTranscript } from "./vscode/logger";
import { PermissionBroker } from "./vscode/permissionBroker";
import { ThoughtPanelController, ThoughtViewProvider } from "./vscode/thoughtPanel";
import { registerExport, TraceFile } from "./vscode/exports";
import { TranscriptStore } from "./vscode/transcripts";
import { AgentStatusBar, registerSessionCommands } from "./vscode/sessionCommands";
import { TerminalMirrors } from "./vscode/terminalMirrors";
import { ToolOutputs } from "./vscode/toolOutputs";

/** The API plus host internals that the integration tests and the benchmark read (undocumented). */
export interface AgentThoughtsInternalApi extends AgentThoughtsApi {
  _test: { controller: ThoughtPanelController; broker: PermissionBroker; changes: AgentChanges; statusBar: AgentStatusBar; terminals: TerminalMirrors; manager: SessionManager; settingsGuard: SettingsGuard; modal: Modal; checkpoints: Checkpoints; transcripts: TranscriptStore };
}

export function activate(context: vscode.ExtensionContext): AgentThoughtsInternalApi {
  const started = Date.now();
  const channel = vscode.window.createOutputChannel("Agent Thoughts", { log: true });
  context.subscriptions.push(channel);
  const logger = new ChannelLogger(channel);
  const registry = new AgentRegistry(context.extensionPath);
  const version = (context.extension.packageJSON as { version?: string }).version ?? "0.0.0";

  const mirrors = new TerminalMirrors();
  const outputs = new ToolOutputs(mirrors);
  // Agent commands run in their session's folder or a workspace folder (see resolveTerminalCwd).
  // (`manager` is declared below; terminals are only asked for once a session exists.)
  const terminals = new NodeTerminals((sessionId): string => manager.sessionById(sessionId)?.cwd ?? registry.resolve(undefined).cwd, mirrors.listener, {
    allowedRoots: () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath),
    logger,
  });
  mirrors.kill = (sessionId, terminalId) => terminals.kill(sessionId, terminalId);
  // The broker asks "is a panel showing?" lazily: the panel is created just below.
  let panelVisible = (): boolean => false;
  let revealTool = (_sessionId: string, _toolCallId: string): Promise<void> => Promise.resolve();
  const guard = new WorkspaceGuard();
  const settingsGuard = new SettingsGuard(context.workspaceState, logger);
  context.subscriptions.push(guard, settingsGuard);
  const modal = new Modal(logger);
  const changes = new AgentChanges(context.extensionUri, context.workspaceState, logger, (sessionId, toolCallId) => revealTool(sessionId, toolCallId), guard, modal);
  const broker = new PermissionBroker(logger, () => panelVisible());
  const checkpoints = new Checkpoints(context.storageUri?.fsPath, context.workspaceState, logger, changes);
  const manager = new SessionManager(
    { fs: new VscodeFileSystem(logger, guard, modal, changes), guard, permission: broker, terminal: terminals, logger, checkpoint: checkpoints },
    {
      clientName: "agent-thoughts",
      clientVersion: version,
      // Read at each start, so a changed setting applies to the next agent started.
      get initializeTimeoutMs() {
        return Math.max(1, vscode.workspace.getConfiguration("agentThoughts").get<number>("initializeTimeoutSeconds") ?? 60) * 1000;
      },
      // Read at each cancel.
      get cancelTimeoutMs() {
        // At most a minute, whoever set it: a workspace must not be able to make Stop wait forever.
        return Math.min(60, Math.max(0.1, vscode.workspace.getConfiguration("agentThoughts").get<number>("cancelTimeoutSeconds") ?? 5)) * 1000;
      },
      resolveAgent: (name) => registry.resolve(name),
      chooseAuthMethod: async (agentName, methods) => {
        const pick = await vscode.window.showQuickPick(methods.map((m) => ({ label: plainText(m.name), detail: m.description, id: m.id })), { title: `${agentName} needs you to sign in`, ignoreFocusOut: true });
        return pick?.id;
      },
    },
  );
  const transcript = new EventTranscript(channel);
  const controller = new ThoughtPanelController(context.extensionUri, manager, registry, broker, logger, outputs, new AgentLinks((real) => guard.inWorkspace(real), logger), checkpoints);
  const sidebar = new ThoughtViewProvider(controller);
  panelVisible = () => controller.anyVisible;
  revealTool = async (sessionId, toolCallId) => {
    if (!controller.anyVisible) await sidebar.reveal();
    controller.reveal(sessionId, toolCallId);
  };
  const changesView = vscode.window.createTreeView("agentThoughts.changes", { treeDataProvider: changes.tree, showCollapseAll: true });
  changes.attachView(changesView);
  outputs.review = (file) => changes.openReview(file);
  context.subscriptions.push(
    { dispose: () => manager.dispose() },
    { dispose: () => terminals.dispose() },
    broker,
    outputs,
    controller,
    transcript,
    manager.onEvent((e) => transcript.write(e)),
    changes,
    changesView,
    manager.onEvent((e) => changes.onEvent(e)),
    mirrors,
    manager.onEvent((e) => mirrors.onEvent(e)),
    checkpoints,
    manager.onEvent((e) => checkpoints.onEvent(e)),
    vscode.commands.registerCommand("agentThoughts.restoreCheckpoint", (sessionArg?: unknown, turnArg?: unknown) =>
      checkpoints.restore(typeof sessionArg === "string" ? sessionArg : undefined, typeof turnArg === "number" ? turnArg : undefined)),
    vscode.commands.registerCommand("agentThoughts.undoRestoreCheckpoint", () => checkpoints.undoRestore()),
    // Kept alive while hidden so showing the panel again is instant; a reload still restores from a snapshot.
    vscode.window.registerWebviewViewProvider(ThoughtViewProvider.viewId, sidebar, { webviewOptions: { retainContextWhenHidden: true } }),
  );

  const stream = (prompt: string | ContentBlock[], options?: StreamOptions): ReturnType<SessionManager["stream"]> => manager.stream(prompt, options);
  /** A turn started from a command: shows the panel, reports failures as an error message. */
  const ask = async (prompt: string | ContentBlock[]): Promise<TurnResult | undefined> => {
    const turn = stream(prompt);
    if (!controller.anyVisible) void sidebar.reveal();
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `${registry.defaultName()} is working…` }, () => turn.result);
    } catch (err) {
      const message = userMessage(err);
      void vscode.window.showErrorMessage(plainText(message), "Show Log").then((choice) => { if (choice) channel.show(); });
      return undefined;
    }
  };
  const statusBar = new AgentStatusBar(registry, () => controller.activeSession);
  const trace = new TraceFile(logger);
  const transcripts = new TranscriptStore(context.storageUri, logger);
  // Past sessions come back after activation (reading them must not slow activation down).
  const restoreTimer = setTimeout(() => {
    transcripts.recent().then((sessions) => controller.restore(sessions), (err: unknown) => logger.error(`Could not restore saved transcripts: ${String(err)}`));
  }, 0);
  context.subscriptions.push(
    { dispose: () => clearTimeout(restoreTimer) },
    transcripts,
    manager.onEvent((e) => transcripts.write(e)),
    vscode.commands.registerCommand("agentThoughts.showSessions", async (sessionArg?: unknown) => {
      const state = controller.viewState;
      const id = typeof sessionArg === "string" ? sessionArg : (await vscode.window.showQuickPick(
        [...state.order].reverse().map((sid) => {
          const v = state.sessions[sid]!;
          const waiting = Object.keys(v.pendingPermissions).length;
          const last = v.turns[v.turns.length - 1];
          return {
            label: `${waiting ? "$(bell-dot) " : v.status === "running" ? "$(loading~spin) " : ""}${plainText(v.title ?? last?.prompt.slice(0, 60) ?? "New session")}`,
            description: `${plainText(v.agentName)}${v.restored ? " · saved transcript" : ""}${waiting ? " · waiting for you" : ""}`,
            detail: `${v.turns.length} turn(s)${last ? ` · last ${new Date(last.startedAt).toLocaleString()}` : ""}`,
            sid,
          };
        }),
        { title: "Sessions", placeHolder: "Show a session in the thought panel" },
      ))?.sid;
      if (!id) return undefined;
      controller.select(id);
      if (!controller.anyVisible) await sidebar.reveal();
      return id;
    }),
    statusBar,
    trace,
    manager.onEvent((e) => trace.write(e)),
    registerExport(manager, () => controller.activeSession),
    manager.onEvent((e) => statusBar.onEvent(e)),
    ...registerSessionCommands(manager, registry, { ask, viewState: () => controller.viewState, activeSessionId: () => controller.activeSession }),
  );

  context.subscriptions.push(
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
      const name = typeof nameArg === "string" ? nameArg : (await vscode.window.showQuickPick(
        registry.names().map((n) => ({ label: n, description: n === current ? "current" : undefined, detail: n === "Demo" ? "Built-in demo agent (no API key, no network)" : describeCommand(registry, n) })),
        { title: "Select the agent for Agent Thoughts", placeHolder: current },
      ))?.label;
      if (!name) return undefined;
      if (!registry.names().includes(name)) {
        void vscode.window.showErrorMessage(`No agent named "${name}". Add it to the agentThoughts.agents setting.`);
        return undefined;
      }
      // The user's own settings: a workspace file is one an agent can write, and this setting picks what runs.
      await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", name, vscode.ConfigurationTarget.Global);
      return name;
    }),
    vscode.commands.registerCommand("agentThoughts.cancel", () => manager.currentSession?.cancelTurn()),
    vscode.commands.registerCommand("agentThoughts.showLog", () => channel.show()),
    vscode.commands.registerCommand("agentThoughts.restartAgent", async (nameArg?: unknown): Promise<string | undefined> => {
      const shown = controller.activeSession ? manager.sessionById(controller.activeSession) : undefined;
      const name = typeof nameArg === "string" ? nameArg : shown?.agentName ?? registry.defaultName();
      try {
        const session = await manager.restart(name);
        return session.sessionId;
      } catch (err) {
        const message = userMessage(err);
        void vscode.window.showErrorMessage(plainText(message), "Show Log").then((c) => { if (c) channel.show(); });
        return undefined;
      }
    }),
    // An agent that crashes: say so (its transcript stays in the panel) and offer a restart.
    manager.onAgentDeath((err) => {
      void vscode.window.showErrorMessage(plainText(err.userMessage), "Restart Agent", "Show Log").then((choice) => {
        if (choice === "Restart Agent") void vscode.commands.executeCommand("agentThoughts.restartAgent", err.agentName);
        else if (choice === "Show Log") channel.show();
      });
    }),
    vscode.commands.registerCommand("agentThoughts.openPanel", () => controller.openInEditor()),
    vscode.commands.registerCommand("agentThoughts.respondToPermission", () => broker.pick()),
    vscode.commands.registerCommand("agentThoughts.managePermissionRules", () => broker.manageRules()),
    ...registerReviewCommands(changes),
    ...registerProposalCommands(changes, broker),
    vscode.commands.registerCommand("agentThoughts.focusPrompt", async () => { await sidebar.reveal(); controller.focusPrompt(); }),
  );

  logger.info(`Agent Thoughts ${version} activated in ${Date.now() - started} ms (VS Code ${vscode.version}).`);
  return {
    apiVersion: 1,
    stream,
    agents: () => registry.names(),
    onEvent: (listener) => manager.onEvent(listener),
    _test: { controller, broker, changes, statusBar, terminals: mirrors, manager, settingsGuard, modal, checkpoints, transcripts },
  };
}

/**
 * Allow / Reject in the title of a proposed-edit diff: answers the permission request that showed
 * it with its allow-once (or reject-once) option — never an "always" rule from a diff title.
 */
function registerProposalCommands(changes: AgentChanges, broker: PermissionBroker): vscode.Disposable[] {
  const answer = (arg: unknown, kinds: readonly string[]): void => {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    const requestId = uri?.scheme === PROPOSAL_SCHEME ? changes.proposalRequest(uri.path) : undefined;
    const req = broker.open().find((r) => r.requestId === requestId);
    if (!req) {
      void vscode.window.showInformationMessage("This proposed edit is no longer waiting for an answer.");
      return;
    }
    const option = kinds.map((k) => req.options.find((o) => o.kind === k)).find((o) => o !== undefined);
    if (!option) {
      void vscode.window.showInformationMessage("The agent offered no such answer; use Agent Thoughts: Respond to Permission Request.");
      return;
    }
    broker.resolve(req.requestId, option.optionId);
  };
  return [
    vscode.commands.registerCommand("agentThoughts.allowProposal", (arg: unknown) => answer(arg, ["allow_once"])),
    vscode.commands.registerCommand("agentThoughts.rejectProposal", (arg: unknown) => answer(arg, ["reject_once", "reject_always"])),
  ];
}

/** Keep / Undo commands: arguments come from CodeLens (path, hunk index), tree items, or the palette (pick a file). */
function registerReviewCommands(changes: AgentChanges): vscode.Disposable[] {
  const fileOf = (arg: unknown): string | undefined => {
    if (typeof arg === "string") return arg;
    const node = arg as { file?: { path?: unknown } } | undefined;
    if (typeof node?.file?.path === "string") return node.file.path;
    if (arg instanceof vscode.Uri) return arg.scheme === "file" ? arg.fsPath : arg.path;
    const active = vscode.window.activeTextEditor?.document.uri;
    return active?.scheme === "file" ? active.fsPath : undefined;
  };
  const hunkOf = (arg: unknown, index: unknown): [string, number] | undefined => {
    const node = arg as { hunk?: { index?: unknown }; file?: { path?: unknown } } | undefined;
    if (typeof node?.hunk?.index === "number" && typeof node.file?.path === "string") return [node.file.path, node.hunk.index];
    if (typeof index !== "number") return undefined;
    const file = fileOf(arg);
    return file !== undefined ? [file, index] : undefined;
  };
  // From a diff editor's context menu (VS Code hides CodeLens in diff editors): the hunk under the cursor.
  const atCursor = async (): Promise<[string, number] | undefined> => {
    const hit = await changes.hunkAtCursor(vscode.window.activeTextEditor);
    if (!hit) void vscode.window.showInformationMessage("Put the cursor in an agent change first.");
    return hit ? [hit.file, hit.index] : undefined;
  };
  const pickFile = async (arg: unknown): Promise<string | undefined> => {
    const file = arg === undefined ? undefined : fileOf(arg);
    if (file) return file;
    const pending = changes.pendingFiles();
    if (pending.length === 0) {
      void vscode.window.showInformationMessage("No agent changes are waiting for review.");
      return undefined;
    }
    if (pending.length === 1) return pending[0]!.path;
    return (await vscode.window.showQuickPick(pending.map((f) => ({ label: plainText(vscode.workspace.asRelativePath(f.path)), path: f.path })), { title: "Which file?" }))?.path;
  };
  return [
    vscode.commands.registerCommand("agentThoughts.keepHunk", async (a: unknown, i: unknown) => {
      const h = hunkOf(a, i) ?? await atCursor();
      if (h) await changes.keepHunkAt(...h);
    }),
    vscode.commands.registerCommand("agentThoughts.undoHunk", async (a: unknown, i: unknown) => {
      const h = hunkOf(a, i) ?? await atCursor();
      if (h) await changes.undoHunkAt(...h);
    }),
    vscode.commands.registerCommand("agentThoughts.keepFile", async (a: unknown) => { const f = await pickFile(a); if (f) await changes.keepFile(f); }),
    vscode.commands.registerCommand("agentThoughts.undoFile", async (a: unknown) => { const f = await pickFile(a); if (f) await changes.undoFile(f); }),
    vscode.commands.registerCommand("agentThoughts.keepAll", () => changes.keepAll()),
    vscode.commands.registerCommand("agentThoughts.restoreFile", async (a: unknown) => { const f = fileOf(a); if (f) await changes.restoreFile(f); }),
    vscode.commands.registerCommand("agentThoughts.undoAll", async () => {
      const n = changes.pendingFiles().length;
      if (n === 0) return;
      const ok = await vscode.window.showWarningMessage(`Undo the agent's changes in ${n} file(s)?`, { modal: true, detail: "Each file goes back to its text before the agent changed it; files the agent created are deleted." }, "Undo All");
      if (ok === "Undo All") await changes.undoAll();
    }),
    vscode.commands.registerCommand("agentThoughts.reviewChanges", async () => {
      const first = changes.pendingFiles()[0];
      if (!first) {
        void vscode.window.showInformationMessage("No agent changes are waiting for review.");
        return;
      }
      await vscode.commands.executeCommand("agentThoughts.changes.focus");
      await changes.openDiff(first.path, false);
    }),
    vscode.commands.registerCommand("agentThoughts.openChange", async (a: unknown) => { const f = await pickFile(a); if (f) await changes.openDiff(f, true); }),
    vscode.commands.registerCommand("agentThoughts.whyChange", async (a: unknown) => { const f = await pickFile(a); if (f) await changes.why(f); }),
  ];
}

function describeCommand(registry: AgentRegistry, name: string): string {
  try {
    const spec = registry.resolve(name);
    return [spec.command, ...spec.args].join(" ");
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Everything is disposed through context.subscriptions, which VS Code does right after calling
 * this; the host then waits (up to 5 s) for the promise: until every agent and command process
 * group is gone, SIGKILL included, so nothing keeps running once VS Code closes or reloads.
 */
export async function deactivate(): Promise<void> {
  await Promise.resolve(); // let the subscriptions stop the agents gracefully first
  await terminateAllGroups(1500);
}
