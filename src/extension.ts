/**
 * Composition root: builds the log channel, the ports, the session manager and the commands, and
 * returns the public API. Behaviour lives in the layers it wires together.
 */
import * as vscode from "vscode";
import { NodeTerminals } from "./acp/nodeTerminals";
import { terminateAllGroups } from "./acp/processGroups";
import { SessionManager } from "./acp/sessionManager";
import type { AgentThoughtsApi, StreamOptions } from "./api";
import type { ContentBlock, ThoughtEvent } from "./shared/events";
import { savedSessionOf, type SessionView } from "./shared/viewModel";
import { AgentChanges } from "./vscode/agentChanges";
import { AgentRegistry, clientOptions, processPriority } from "./vscode/agents";
import { registerAgentSetup } from "./vscode/agentSetup";
import { VscodeFileSystem } from "./vscode/fileSystem";
import { WorkspaceGuard } from "./vscode/guard";
import { AgentLinks } from "./vscode/links";
import { VscodeMentions } from "./vscode/mentions";
import { VscodePromptFiles } from "./vscode/promptFiles";
import { Checkpoints, registerCheckpointCommands } from "./vscode/checkpoints";
import { Modal } from "./vscode/modal";
import { McpForwarding } from "./vscode/mcpForwarding";
import { SettingsGuard } from "./vscode/settingsGuard";
import { ChannelLogger, EventTranscript } from "./vscode/logger";
import { PermissionBroker, registerPermissionCommands } from "./vscode/permissionBroker";
import { registerProposalCommands, registerReviewCommands } from "./vscode/reviewCommands";
import { ThoughtPanelController, ThoughtViewProvider, UNSEEN_QUESTION_MS } from "./vscode/thoughtPanel";
import { registerExport, TraceFile } from "./vscode/exports";
import { TranscriptStore } from "./vscode/transcripts";
import { registerSessionCommands } from "./vscode/sessionCommands";
import { AgentStatusBar } from "./vscode/statusBar";
import { TerminalMirrors } from "./vscode/terminalMirrors";
import { UserTerminals } from "./vscode/userTerminals";
import { workingTreeChanges } from "./vscode/workingTreeChanges";
import { ToolOutputs } from "./vscode/toolOutputs";

/**
 * A listener that acts on what happens now: an agent's replay of earlier history (session/load) is
 * shown and saved, never reviewed as new edits, checkpointed, run in terminals or counted as work.
 */
function live(listener: (e: ThoughtEvent) => void): (e: ThoughtEvent) => void {
  return (e) => { if (!e.replayed) listener(e); };
}

/** The API plus host internals that the integration tests and the benchmark read (undocumented). */
export interface AgentThoughtsInternalApi extends AgentThoughtsApi {
  _test: { controller: ThoughtPanelController; broker: PermissionBroker; changes: AgentChanges; statusBar: AgentStatusBar; terminals: TerminalMirrors; userTerminals: UserTerminals; manager: SessionManager; settingsGuard: SettingsGuard; modal: Modal; checkpoints: Checkpoints; transcripts: TranscriptStore; links: AgentLinks; activationMs: number };
}

export function activate(context: vscode.ExtensionContext): AgentThoughtsApi & Partial<Pick<AgentThoughtsInternalApi, "_test">> {
  const started = Date.now();
  const channel = vscode.window.createOutputChannel("Agent Thoughts", { log: true });
  context.subscriptions.push(channel);
  const logger = new ChannelLogger(channel);
  const registry = new AgentRegistry(context.extensionPath, logger);
  const version = (context.extension.packageJSON as { version?: string }).version ?? "0.0.0";

  // Agent commands run in their session's folder or a workspace folder (see resolveTerminalCwd).
  const terminals = new NodeTerminals({
    priority: processPriority,
    allowedRoots: () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath),
    logger,
  });
  const mirrors = new TerminalMirrors((sessionId, terminalId) => terminals.kill(sessionId, terminalId));
  const guard = new WorkspaceGuard();
  const settingsGuard = new SettingsGuard(context.workspaceState, logger);
  context.subscriptions.push(guard, settingsGuard);
  const modal = new Modal(logger);
  const changes = new AgentChanges(context.extensionUri, context.workspaceState, logger, guard, modal);
  const outputs = new ToolOutputs(mirrors, (file) => changes.openReview(file));
  const broker = new PermissionBroker(logger);
  const checkpoints = new Checkpoints(context.storageUri?.fsPath, context.workspaceState, logger, changes);
  const manager: SessionManager = new SessionManager(
    { fs: new VscodeFileSystem(logger, guard, modal, changes), guard, mcp: new McpForwarding(context.workspaceState, modal, logger, context.secrets), permission: broker, terminal: terminals, logger, checkpoint: checkpoints },
    // What the panel shows of a session that is not running: a prompt in it continues it.
    // (A saved session is read whole first: its turns and last sequence number decide how it goes on.)
    clientOptions(registry, version, async (sessionId: string): Promise<ReturnType<typeof savedSessionOf> | undefined> => {
      if (!(await controller.ensureLoaded(sessionId))) return undefined;
      const view: SessionView | undefined = controller.viewState.sessions[sessionId];
      return view ? savedSessionOf(view) : undefined;
    }),
  );
  const transcript = new EventTranscript(channel);
  const links = new AgentLinks((real) => guard.inWorkspace(real), logger);
  const userTerminals = new UserTerminals();
  const mentions = new VscodeMentions((real) => guard.inWorkspace(real), logger, { agentTerminals: mirrors, userTerminals, changes: workingTreeChanges });
  const controller: ThoughtPanelController = new ThoughtPanelController(context.extensionUri, manager, registry, broker, logger, outputs, links, checkpoints, mentions, new VscodePromptFiles((real) => guard.inWorkspace(real), logger));
  const sidebar = new ThoughtViewProvider(controller);
  /** Shows a tool call in the panel (Why this change?). */
  const revealTool = async (sessionId: string, toolCallId: string): Promise<void> => {
    if (!controller.anyVisible) await sidebar.reveal();
    controller.reveal(sessionId, toolCallId);
  };
  context.subscriptions.push(
    terminals.listen(mirrors.listener),
    { dispose: () => manager.dispose() },
    { dispose: () => terminals.dispose() },
    broker,
    outputs,
    controller,
    transcript,
    manager.onEvent((e) => transcript.write(e)),
    changes,
    manager.onEvent(live((e) => changes.onEvent(e))),
    mirrors,
    userTerminals,
    manager.onEvent(live((e) => mirrors.onEvent(e))),
    checkpoints,
    manager.onEvent(live((e) => checkpoints.onEvent(e))),
    ...registerCheckpointCommands(checkpoints),
    // A question no panel puts on screen within a moment (hidden, another session shown, too short): a notification.
    broker.onDidAsk((req) => { void controller.seenWithin(req.requestId, UNSEEN_QUESTION_MS).then((seen) => { if (!seen) void broker.notify(req); }); }),
    // Kept alive while hidden so showing the panel again is instant; a reload still restores from a snapshot.
    vscode.window.registerWebviewViewProvider(ThoughtViewProvider.viewId, sidebar, { webviewOptions: { retainContextWhenHidden: true } }),
  );

  const stream = (prompt: string | ContentBlock[], options?: StreamOptions): ReturnType<SessionManager["stream"]> => manager.stream(prompt, options);
  const statusBar = new AgentStatusBar(registry, () => controller.activeSession);
  const trace = new TraceFile(logger);
  const transcripts = new TranscriptStore(context.storageUri, logger,
    () => 1_048_576 * Math.max(1, vscode.workspace.getConfiguration("agentThoughts").inspect<number>("history.maxMegabytes")?.globalValue ?? 500),
    (message) => { void vscode.window.showInformationMessage(`Agent Thoughts: ${message}`); });
  // Past sessions are listed after activation, from the index of them; each is read when shown.
  const restoreTimer = setTimeout(() => {
    controller.restore(transcripts).catch((err: unknown) => logger.error(`Could not list the saved sessions: ${String(err)}`));
  }, 0);
  context.subscriptions.push(
    { dispose: () => clearTimeout(restoreTimer) },
    transcripts,
    manager.onEvent((e) => transcripts.write(e)),
    statusBar,
    trace,
    manager.onEvent((e) => trace.write(e)),
    registerExport(manager, () => controller.activeSession),
    manager.onEvent(live((e) => statusBar.onEvent(e))),
    ...registerSessionCommands(manager, registry, {
      viewState: () => controller.viewState,
      activeSessionId: () => controller.activeSession,
      select: (id) => controller.select(id),
      get anyVisible() { return controller.anyVisible; },
      reveal: () => sidebar.reveal(),
      openInEditor: () => controller.openInEditor(),
      focusPrompt: () => controller.focusPrompt(),
      showLog: () => channel.show(),
      forget: (id) => controller.forget(id),
      deleteSaved: (id) => transcripts.remove(id),
      ask: (message, detail, ...actions) => modal.ask(message, detail, ...actions),
      log: (message) => logger.warn(message),
    }),
    vscode.commands.registerCommand("agentThoughts.showLog", () => channel.show()),
    ...registerAgentSetup(registry, logger),
    ...registerPermissionCommands(broker),
    ...registerReviewCommands(changes, modal, revealTool),
    ...registerProposalCommands(changes, broker),
  );

  const activationMs = Date.now() - started;
  logger.info(`Agent Thoughts ${version} activated in ${activationMs} ms (VS Code ${vscode.version}).`);
  return {
    apiVersion: 1,
    stream,
    agents: () => registry.names(),
    onEvent: (listener) => manager.onEvent(listener),
    // Host internals for the extension's own tests only: absent unless VS Code runs them (extensionMode Test).
    ...(context.extensionMode === vscode.ExtensionMode.Test ? { _test: { controller, broker, changes, statusBar, terminals: mirrors, userTerminals, manager, settingsGuard, modal, checkpoints, transcripts, links, activationMs } } : {}),
  };
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
