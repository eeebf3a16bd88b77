/**
 * Terminals the agent asks the client to run (`terminal/*`), as child processes. Owns their
 * output buffers (bounded by `outputByteLimit`, truncated from the start at a character
 * boundary), exit status, and lifetime: every process dies with its session and with us.
 * Also owns where and with what environment a command may run (see `resolveTerminalCwd` and
 * `mergeTerminalEnv`). Output is also published to listeners so the editor can mirror it into
 * pseudoterminals.
 */
import type { ChildProcess } from "node:child_process";
import { realpath } from "node:fs/promises";
import * as path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import type { Logger, TerminalCreateRequest, TerminalExit, TerminalListener, TerminalPort } from "./ports";
import { ProcessGroup } from "./processGroups";
import { startProcess, type ProcessPriority } from "./spawn";
import { isInside } from "../core/paths";

/** Default cap when the agent gives none: enough for any log, bounded memory. */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;
/** The most an agent may ask to keep per terminal: its buffer lives in the extension host. */
export const MAX_OUTPUT_BYTE_LIMIT = 16 * 1024 * 1024;
/**
 * Terminals a session may hold unreleased, and the output they may keep in all (the sum of their
 * limits): each one's buffer lives in the extension host, and an agent that creates terminals
 * without releasing them would otherwise grow it without end. A terminal past the sum gets what is
 * left of it (at least MIN_OUTPUT_BYTE_LIMIT), else is refused.
 */
export const MAX_SESSION_TERMINALS = 32;
export const SESSION_OUTPUT_BYTES = 64 * 1024 * 1024;
const MIN_OUTPUT_BYTE_LIMIT = 64 * 1024;
/** What a command left running when its shell exited gets this long after SIGTERM before SIGKILL. */
export const LEFTOVER_GRACE_MS = 1000;
/** After that, how long its output pipes may stay open without output (held by a process outside the group). */
const PIPE_CLOSE_MS = 500;
/** …and at most this long in all, however much such a process writes. */
const PIPE_CLOSE_MAX_MS = 5000;

interface Term {
  sessionId: string;
  proc: ChildProcess;
  /** The command's process group: the shell and everything it started. */
  group: ProcessGroup;
  chunks: Buffer[];
  bytes: number;
  limit: number;
  truncated: boolean;
  /** When output last arrived (ms since the epoch). */
  lastOutputAt: number;
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

async function realOrResolved(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Where an agent's command may run: in the session's folder or inside one of `roots` (the
 * workspace folders), judged after resolving a relative `cwd` against the session's folder and
 * following `..` and symlinks (realpath). Anything else — or a folder that does not exist — is
 * refused with an error the agent receives.
 */
export async function resolveTerminalCwd(requested: string | undefined, sessionCwd: string, roots: readonly string[]): Promise<string> {
  const asked = path.resolve(sessionCwd, requested ?? ".");
  let real: string;
  try {
    real = await realpath(asked);
  } catch {
    throw RequestError.invalidParams(undefined, `cwd ${asked} does not exist`);
  }
  const allowed = await Promise.all([sessionCwd, ...roots].map(realOrResolved));
  if (!allowed.some((root) => isInside(real, root))) {
    throw RequestError.invalidParams(undefined, `cwd ${asked} is outside the workspace${real !== asked ? ` (it resolves to ${real})` : ""}`);
  }
  return real;
}

/** Whether `name` is PATH (case-insensitive on Windows, like its environment). */
function isPathName(name: string): boolean {
  return process.platform === "win32" ? name.toUpperCase() === "PATH" : name === "PATH";
}

/**
 * The environment of an agent's command: the user's environment with the agent's variables on
 * top, except that the agent cannot take the user's PATH away (a command that suddenly finds no
 * `git` or `node` fails in confusing ways):
 * - an empty PATH from the agent is ignored (the user's PATH stays);
 * - otherwise the agent's entries come first (it may put its own tools in front), followed by
 *   each entry of the user's PATH that the agent's PATH lacks, in the user's order.
 * Variables with an empty name or a name containing `=` or NUL cannot be set and are skipped.
 * `note` hears about each of these adjustments (for the log).
 */
export function mergeTerminalEnv(base: NodeJS.ProcessEnv, agentEnv: readonly { name: string; value: string }[], note: (message: string) => void = () => undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  const key = Object.keys(env).find(isPathName) ?? "PATH";
  const userEntries = (env[key] ?? "").split(path.delimiter).filter((e) => e !== "");
  for (const { name, value } of agentEnv) {
    if (name === "" || name.includes("=") || name.includes("\0")) {
      note(`skipped the environment variable ${JSON.stringify(name)} (not a valid name)`);
      continue;
    }
    if (!isPathName(name)) {
      env[name] = value;
      continue;
    }
    const agentEntries = value.split(path.delimiter).filter((e) => e.trim() !== "");
    if (agentEntries.length === 0) {
      note("ignored an empty PATH from the agent; the command gets the user's PATH");
      env[key] = base[key];
      continue;
    }
    const missing = [...new Set(userEntries)].filter((e) => !agentEntries.includes(e));
    if (missing.length > 0) note(`the agent's PATH lacks ${missing.length} of the user's entries; appended ${missing.join(path.delimiter)}`);
    env[key] = [...agentEntries, ...missing].join(path.delimiter);
  }
  return env;
}

export interface NodeTerminalsOptions {
  /** Folders besides the session's own where commands may run (the workspace folders). */
  allowedRoots?: () => readonly string[];
  /** The user's environment; defaults to this process's. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Where refusals and environment adjustments are logged. */
  logger?: Pick<Logger, "info" | "warn">;
  /** The CPU priority of the commands agents run (read at each command), as of the agents themselves. */
  priority?: () => ProcessPriority;
}

export class NodeTerminals implements TerminalPort {
  private readonly terms = new Map<string, Term>();
  /** Creates resolving their folder: one whose session ends meanwhile (`releaseSession`) is refused. Only these are kept, not every session that ever ended. */
  private readonly creating = new Set<{ readonly sessionId: string; ended: boolean }>();
  private readonly listeners = new Set<TerminalListener>();
  private next = 1;

  constructor(private readonly options: NodeTerminalsOptions = {}) {}

  /** Tells `listener` what the terminals do from now on (the editor mirrors them); dispose to stop. */
  listen(listener: TerminalListener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  }

  private tell(call: (l: TerminalListener) => void): void {
    for (const l of this.listeners) {
      try {
        call(l);
      } catch (err) {
        this.options.logger?.warn(`A terminal listener failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  async create(req: TerminalCreateRequest): Promise<string> {
    const { logger } = this.options;
    const pending = { sessionId: req.sessionId, ended: false };
    this.creating.add(pending);
    let cwd: string;
    try {
      cwd = await resolveTerminalCwd(req.cwd, req.sessionCwd, this.options.allowedRoots?.() ?? []);
    } catch (err) {
      logger?.warn(`Refused terminal/create "${req.command.slice(0, 200)}": ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    } finally {
      this.creating.delete(pending);
    }
    // From here to the terminal's entry nothing waits: requests handled at once (the SDK does not
    // wait for one to end before the next) cannot all pass the check on the same count.
    if (pending.ended) throw new Error("the session ended while the terminal was being created");
    let held = 0;
    let kept = 0;
    for (const t of this.terms.values()) {
      if (t.sessionId !== req.sessionId) continue;
      held++;
      kept += t.limit;
    }
    const room = SESSION_OUTPUT_BYTES - kept;
    if (held >= MAX_SESSION_TERMINALS || room < MIN_OUTPUT_BYTE_LIMIT) {
      const why = held >= MAX_SESSION_TERMINALS ? `${held} terminals not released` : `terminals not released that keep ${Math.round(kept / 1048576)} MB of output`;
      logger?.warn(`Refused terminal/create "${req.command.slice(0, 200)}": the session has ${why}`);
      throw new Error(`this session has ${why}; release one (terminal/release) before creating another`);
    }
    const asked = req.outputByteLimit;
    const wanted = asked !== undefined && Number.isFinite(asked) ? Math.max(0, asked) : DEFAULT_OUTPUT_BYTE_LIMIT;
    const env = mergeTerminalEnv(this.options.baseEnv ?? process.env, req.env ?? [], (m) => logger?.info(`terminal/create "${req.command.slice(0, 200)}": ${m}`));
    const terminalId = `term-${this.next++}`;
    // Some agents send one full shell string and no args: run it through the shell.
    const useShell = !req.args || req.args.length === 0;
    const { proc, refused } = startProcess(req.command, useShell ? undefined : req.args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], priority: this.options.priority?.() ?? "normal" });
    if (refused.length) logger?.info(`terminal/create "${req.command.slice(0, 200)}": its CPU priority could not be lowered fully (${refused.join("; ")})`);
    const group = new ProcessGroup(proc);
    const term: Term = {
      sessionId: req.sessionId, proc, group, chunks: [], bytes: 0, truncated: false, lastOutputAt: 0,
      limit: Math.min(wanted, MAX_OUTPUT_BYTE_LIMIT, room),
      exited: new Promise<TerminalExit>((resolve) => {
        let done = false;
        let status: TerminalExit | undefined;
        let pipeTimer: NodeJS.Timeout | undefined;
        const finish = (exit: TerminalExit): void => {
          if (done) return;
          done = true;
          clearTimeout(pipeTimer);
          term.exit = exit;
          this.tell((l) => l.exited?.(terminalId, exit));
          resolve(exit);
        };
        proc.on("error", (err) => {
          this.append(terminalId, term, Buffer.from(`${err.message}\n`));
          finish({ exitCode: 127, signal: null });
        });
        // The command has ended when its shell (the group's leader) exits. What it left running
        // (`server &`) would hold the output pipes open and run on unseen: it is ended too, and the
        // exit is reported once the pipes closed (all output read), or shortly after if something
        // outside the group still holds them.
        proc.on("exit", (code, signal) => {
          status = { exitCode: code, signal };
          void group.terminate(LEFTOVER_GRACE_MS).then(() => {
            const since = Date.now();
            // Output already written is read before the pipes are given up on: the check runs after
            // the event loop's next I/O poll (setImmediate), and waits on while output still comes —
            // on a busy machine the timer can fire before the pipes' last bytes were read.
            const settle = (): void => {
              if (done) return;
              pipeTimer = setTimeout(() => setImmediate(() => {
                if (done) return;
                if (Date.now() - term.lastOutputAt < PIPE_CLOSE_MS && Date.now() - since < PIPE_CLOSE_MAX_MS) return settle();
                proc.stdout?.destroy();
                proc.stderr?.destroy();
                finish(status!);
              }), PIPE_CLOSE_MS);
            };
            settle();
          });
        });
        proc.on("close", (code, signal) => finish(status ?? { exitCode: code, signal }));
      }),
    };
    this.terms.set(terminalId, term);
    const commandLine = useShell ? req.command : [req.command, ...req.args!].join(" ");
    this.tell((l) => l.created?.({ sessionId: req.sessionId, terminalId, commandLine, cwd }));
    // One decoder per stream, so a character split across chunks reaches the mirror whole.
    const out = new StringDecoder("utf8");
    const err = new StringDecoder("utf8");
    proc.stdout?.on("data", (b: Buffer) => this.append(terminalId, term, b, out));
    proc.stderr?.on("data", (b: Buffer) => this.append(terminalId, term, b, err));
    return terminalId;
  }

  private append(terminalId: string, term: Term, b: Buffer, decoder?: StringDecoder): void {
    term.chunks.push(b);
    term.bytes += b.length;
    term.lastOutputAt = Date.now();
    // Compact lazily (at twice the limit) so streaming stays linear.
    if (term.bytes > term.limit * 2 + 65536) this.compact(term);
    const text = decoder ? decoder.write(b) : b.toString("utf8");
    if (text) this.tell((l) => l.output?.(terminalId, text));
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

  // Kill, release, a session's end and disposal end the command's whole group, even when its
  // shell already exited (what it started in the background goes too).
  async kill(sessionId: string, terminalId: string): Promise<void> {
    void this.get(sessionId, terminalId).group.terminate();
    await Promise.resolve();
  }

  async release(sessionId: string, terminalId: string): Promise<void> {
    const term = this.get(sessionId, terminalId);
    void term.group.terminate();
    this.terms.delete(terminalId);
    await Promise.resolve();
  }

  releaseSession(sessionId: string): void {
    // A create still resolving its folder for this session adds nothing after this.
    for (const pending of this.creating) if (pending.sessionId === sessionId) pending.ended = true;
    for (const [id, term] of this.terms) {
      if (term.sessionId !== sessionId) continue;
      void term.group.terminate();
      this.terms.delete(id);
    }
  }

  /** Ends every command (`terminateAllGroups` waits for them); a create still resolving its folder starts none. */
  dispose(): void {
    for (const pending of this.creating) pending.ended = true;
    for (const term of this.terms.values()) void term.group.terminate();
    this.terms.clear();
  }
}
