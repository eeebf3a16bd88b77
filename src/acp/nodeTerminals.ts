/**
 * Terminals the agent asks the client to run (`terminal/*`), as child processes. Owns their
 * output buffers (bounded by `outputByteLimit`, truncated from the start at a character
 * boundary), exit status, and lifetime: every process dies with its session and with us.
 * Output is also published to listeners so the editor can mirror it into pseudoterminals.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { RequestError } from "@agentclientprotocol/sdk";
import type { TerminalCreateRequest, TerminalExit, TerminalPort } from "./ports";

/** Default cap when the agent gives none: enough for any log, bounded memory. */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;

export interface TerminalListener {
  created?(info: { sessionId: string; terminalId: string; commandLine: string; cwd: string }): void;
  output?(terminalId: string, text: string): void;
  exited?(terminalId: string, exit: TerminalExit): void;
}

interface Term {
  sessionId: string;
  proc: ChildProcess;
  chunks: Buffer[];
  bytes: number;
  limit: number;
  truncated: boolean;
  exit?: TerminalExit;
  exited: Promise<TerminalExit>;
}

/** Drops bytes from the start until at most `limit` remain, never splitting a UTF-8 character. */
export function truncateStart(buf: Buffer, limit: number): { buf: Buffer; truncated: boolean } {
  if (buf.length <= limit) return { buf, truncated: false };
  let start = buf.length - limit;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++; // skip continuation bytes
  return { buf: buf.subarray(start), truncated: true };
}

export class NodeTerminals implements TerminalPort {
  private readonly terms = new Map<string, Term>();
  private next = 1;

  constructor(
    private readonly defaultCwd: (sessionId: string) => string,
    private readonly listener: TerminalListener = {},
    private readonly baseEnv: NodeJS.ProcessEnv = process.env,
  ) {}

  create(req: TerminalCreateRequest): Promise<string> {
    const terminalId = `term-${this.next++}`;
    const cwd = req.cwd ?? this.defaultCwd(req.sessionId);
    const env: NodeJS.ProcessEnv = { ...this.baseEnv };
    for (const { name, value } of req.env ?? []) env[name] = value;
    // Some agents send one full shell string and no args: run it through the shell.
    const useShell = !req.args || req.args.length === 0;
    const proc = spawn(req.command, useShell ? [] : req.args!, { cwd, env, shell: useShell, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" });
    const term: Term = {
      sessionId: req.sessionId, proc, chunks: [], bytes: 0, truncated: false,
      limit: req.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT,
      exited: new Promise<TerminalExit>((resolve) => {
        let done = false;
        const finish = (exit: TerminalExit): void => {
          if (done) return;
          done = true;
          term.exit = exit;
          this.listener.exited?.(terminalId, exit);
          resolve(exit);
        };
        proc.on("error", (err) => {
          this.append(terminalId, term, Buffer.from(`${err.message}\n`));
          finish({ exitCode: 127, signal: null });
        });
        proc.on("close", (code, signal) => finish({ exitCode: code, signal }));
      }),
    };
    this.terms.set(terminalId, term);
    const commandLine = useShell ? req.command : [req.command, ...req.args!].join(" ");
    this.listener.created?.({ sessionId: req.sessionId, terminalId, commandLine, cwd });
    proc.stdout?.on("data", (b: Buffer) => this.append(terminalId, term, b));
    proc.stderr?.on("data", (b: Buffer) => this.append(terminalId, term, b));
    return Promise.resolve(terminalId);
  }

  private append(terminalId: string, term: Term, b: Buffer): void {
    term.chunks.push(b);
    term.bytes += b.length;
    // Compact lazily (at twice the limit) so streaming stays linear.
    if (term.bytes > term.limit * 2 + 65536) this.compact(term);
    this.listener.output?.(terminalId, b.toString("utf8"));
  }

  private compact(term: Term): void {
    const { buf, truncated } = truncateStart(Buffer.concat(term.chunks), term.limit);
    term.chunks = [Buffer.from(buf)];
    term.bytes = buf.length;
    term.truncated ||= truncated;
  }

  private get(sessionId: string, terminalId: string): Term {
    const term = this.terms.get(terminalId);
    if (!term || term.sessionId !== sessionId) throw RequestError.resourceNotFound(`terminal ${terminalId}`);
    return term;
  }

  // Async so that an unknown id is a rejected promise, like every other failure of a port.
  async output(sessionId: string, terminalId: string): Promise<{ output: string; truncated: boolean; exitStatus?: TerminalExit }> {
    const term = this.get(sessionId, terminalId);
    this.compact(term);
    const output = Buffer.concat(term.chunks).toString("utf8");
    return Promise.resolve({ output, truncated: term.truncated, ...(term.exit ? { exitStatus: term.exit } : {}) });
  }

  async waitForExit(sessionId: string, terminalId: string): Promise<TerminalExit> {
    return this.get(sessionId, terminalId).exited;
  }

  async kill(sessionId: string, terminalId: string): Promise<void> {
    const term = this.get(sessionId, terminalId);
    if (!term.exit) killTree(term.proc);
    await Promise.resolve();
  }

  async release(sessionId: string, terminalId: string): Promise<void> {
    const term = this.get(sessionId, terminalId);
    if (!term.exit) killTree(term.proc);
    this.terms.delete(terminalId);
    await Promise.resolve();
  }

  releaseSession(sessionId: string): void {
    for (const [id, term] of this.terms) {
      if (term.sessionId !== sessionId) continue;
      if (!term.exit) killTree(term.proc);
      this.terms.delete(id);
    }
  }

  dispose(): void {
    for (const term of this.terms.values()) if (!term.exit) killTree(term.proc);
    this.terms.clear();
  }
}

/** Kills a process and its children (the shell's command runs in the same process group). */
export function killTree(proc: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    if (process.platform !== "win32" && proc.pid) process.kill(-proc.pid, signal);
    else proc.kill(signal);
  } catch {
    try { proc.kill(signal); } catch { /* already gone */ }
  }
}
