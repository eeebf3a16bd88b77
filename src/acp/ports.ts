/**
 * What the ACP client needs from its host, as narrow interfaces ("ports"). The VS Code adapters
 * implement them in src/vscode; tests implement them in plain Node. Nothing here imports vscode.
 */
import type { PermissionOption, PermissionOutcome, ToolCallFields, ToolKind } from "../shared/events";
import type { McpCapabilitiesLike, McpServerEntry } from "../core/mcpServers";

export interface ReadFileRequest { sessionId: string; path: string; line?: number; limit?: number }
export interface WriteFileRequest {
  sessionId: string;
  path: string;
  content: string;
  toolCallId?: string;
  /**
   * Asks the user, in the session that wrote, whether this write to a file that configures tools
   * may happen (shown as a permission request with the diff). Resolves true only on the user's yes.
   */
  confirm?: (q: ProtectedWriteQuestion) => Promise<boolean>;
}

/** A write to a protected file (see core/protectedPaths) that needs the user's yes. */
export interface ProtectedWriteQuestion { path: string; current: string | null; content: string; reason: string }

export interface FsPort {
  /** Returns the text the user sees (open, unsaved documents included); `line` is 1-based. */
  readTextFile(req: ReadFileRequest): Promise<string>;
  writeTextFile(req: WriteFileRequest): Promise<void>;
}

export interface PermissionRequest {
  sessionId: string;
  agentName: string;
  requestId: string;
  toolCallId: string;
  title: string;
  options: PermissionOption[];
  toolCall: ToolCallFields;
  /** The tool's kind as far as the session knows it (the request itself may not say). */
  toolKind?: ToolKind;
  /** Aborted when the turn is cancelled or the session ends: resolve as cancelled then. */
  signal: AbortSignal;
  /** Why this request always asks (it touches files that configure tools): no policy or rule answers it. */
  guard?: string;
}

/** An answer, and whether a policy gave it (rather than the user). */
export type PermissionAnswer = PermissionOutcome & { by?: "user" | "policy" };

export interface PermissionPort {
  request(req: PermissionRequest): Promise<PermissionAnswer>;
}

export interface TerminalCreateRequest {
  sessionId: string;
  /** The session's folder: commands may run in it, and a relative `cwd` resolves against it. */
  sessionCwd: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  cwd?: string;
  outputByteLimit?: number;
}

export interface TerminalExit { exitCode: number | null; signal: string | null }

/** Told what the terminals of a `TerminalPort` do (VS Code mirrors them in its terminal panel). */
export interface TerminalListener {
  created?(info: { sessionId: string; terminalId: string; commandLine: string; cwd: string }): void;
  output?(terminalId: string, text: string): void;
  exited?(terminalId: string, exit: TerminalExit): void;
}

export interface TerminalPort {
  create(req: TerminalCreateRequest): Promise<string>;
  /** Tells `listener` what the terminals do from now on; dispose to stop. */
  listen(listener: TerminalListener): { dispose(): void };
  output(sessionId: string, terminalId: string): Promise<{ output: string; truncated: boolean; exitStatus?: TerminalExit }>;
  waitForExit(sessionId: string, terminalId: string): Promise<TerminalExit>;
  kill(sessionId: string, terminalId: string): Promise<void>;
  release(sessionId: string, terminalId: string): Promise<void>;
  /** Kills and forgets every terminal of a session (session ended or agent died). */
  releaseSession(sessionId: string): void;
}

/** How to run an agent: resolved from settings by the host. */
export interface AgentSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The workspace's other folders: sent with each session when the agent declares `sessionCapabilities.additionalDirectories`. */
  additionalDirectories?: string[];
}

/** Where diagnostics go (the LogOutputChannel in VS Code, a buffer in tests). */
export interface Logger {
  /** Whether `trace` output is wanted (tracing every wire message is costly). */
  readonly traceEnabled: boolean;
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Which paths and commands touch files that make tools run code (see core/protectedPaths). */
export interface GuardPort {
  /** Why a request naming these files, or carrying these strings (commands, input), must always ask; undefined when it need not. */
  reasonFor(paths: readonly string[], texts: readonly string[], cwd: string): string | undefined;
}

/** Snapshots the workspace before a prompt goes to the agent (Restore checkpoint). */
export interface CheckpointPort {
  /** Resolves once the snapshot is taken (or failed, which it logs); never rejects. */
  beforePrompt(sessionId: string): Promise<void>;
}

/** The user's MCP servers, passed to the agent with every session it starts, loads or resumes. */
export interface McpPort {
  /**
   * The servers this agent may get, given what it declared (stdio always; http and sse only when
   * declared). May ask the user (a workspace server the first time); never rejects.
   */
  serversFor(agentName: string, caps: McpCapabilitiesLike | undefined): Promise<McpServerEntry[]>;
}

export interface ClientPorts {
  fs: FsPort;
  mcp?: McpPort;
  guard?: GuardPort;
  checkpoint?: CheckpointPort;
  permission: PermissionPort;
  terminal: TerminalPort;
  logger: Logger;
}
