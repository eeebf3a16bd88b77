/**
 * What the ACP client needs from its host, as narrow interfaces ("ports"). The VS Code adapters
 * implement them in src/vscode; tests implement them in plain Node. Nothing here imports vscode.
 */
import type { PermissionOption, PermissionOutcome, ToolCallFields, ToolKind } from "../core/events";

export interface ReadFileRequest { sessionId: string; path: string; line?: number; limit?: number }
export interface WriteFileRequest { sessionId: string; path: string; content: string; toolCallId?: string }

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
}

/** An answer, and whether a policy gave it (rather than the user). */
export type PermissionAnswer = PermissionOutcome & { by?: "user" | "policy" };

export interface PermissionPort {
  request(req: PermissionRequest): Promise<PermissionAnswer>;
}

export interface TerminalCreateRequest {
  sessionId: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  cwd?: string;
  outputByteLimit?: number;
}

export interface TerminalExit { exitCode: number | null; signal: string | null }

export interface TerminalPort {
  create(req: TerminalCreateRequest): Promise<string>;
  output(sessionId: string, terminalId: string): Promise<{ output: string; truncated: boolean; exitStatus?: TerminalExit }>;
  waitForExit(sessionId: string, terminalId: string): Promise<TerminalExit>;
  kill(sessionId: string, terminalId: string): Promise<void>;
  release(sessionId: string, terminalId: string): Promise<void>;
  /** Kills and forgets every terminal of a session (session ended or agent died). */
  releaseSession(sessionId: string): void;
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

export interface ClientPorts {
  fs: FsPort;
  permission: PermissionPort;
  terminal: TerminalPort;
  logger: Logger;
}
