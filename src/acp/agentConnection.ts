/**
 * A running ACP agent: spawns the process, frames its stdio, runs the SDK client app with a
 * handler for every client method, performs `initialize` (with timeout and version check) and
 * `authenticate`, creates sessions, and turns every way an agent can fail into an `AgentError`
 * that names the agent and what to do. It owns the process: disposing kills it.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import type { ContentBlock, SessionAbilities, SessionStartInfo } from "../shared/events";
import type { SessionToContinue } from "../shared/viewModel";
import { boundId } from "../core/ids";
import { stringifyJson } from "../core/json";
import { parseConfigOptions } from "../core/updateMapper";
import { jsonWeight, TURN_UPDATE_LIMIT } from "../core/outputBudget";
import { AgentSession, describeError, type ContinueFrom, type SessionTransport } from "./agentSession";
import { ndJsonStream, type AgentStream } from "./ndjson";
import type { AgentSpec, ClientPorts } from "./ports";
import { ProcessGroup } from "./processGroups";
import { startProcess, type LowShare, type ProcessPriority } from "./spawn";
import { AgentError } from "./agentError";
import { Emitter } from "../core/emitter";
import { count } from "../core/words";

/** A terminal sign-in: the agent's command with the method's arguments and environment added. */
export interface TerminalSignIn { agentName: string; method: string; command: string; args: string[]; env: Record<string, string>; cwd: string }

/** Arguments and environment entries a terminal auth method may add, and their length. */
const MAX_SIGN_IN_ARGS = 64;
const MAX_SIGN_IN_TEXT = 4096;

export interface ConnectOptions {
  initializeTimeoutMs: number;
  /** How long an agent gets to end a cancelled turn before it is ended without its answer (read at each cancel). */
  cancelTimeoutMs?: number;
  /** The agent's CPU priority (read at each start); the OS default when absent. */
  processPriority?: ProcessPriority;
  clientName: string;
  clientVersion: string;
  /** Picks an auth method when the agent requires one; undefined = give up. */
  chooseAuthMethod?: (agentName: string, methods: { id: string; name: string; description?: string }[]) => Promise<string | undefined>;
  /**
   * Runs the agent's own program for the user to sign in (a `terminal` auth method) where they can
   * see and use it; resolves true when it exited with status 0. Without it, terminal sign-in is
   * not offered (the capability is not announced).
   */
  signInInTerminal?: (run: TerminalSignIn) => Promise<boolean>;
}


const STDERR_RING_BYTES = 64 * 1024;
/** Numbers connections so session keys stay unique across agents and restarts. */
let connectionSerial = 0;
/** Distinguishes this run from earlier ones, whose transcripts may be restored beside new sessions. */
const RUN_ID = randomBytes(3).toString("hex");
/** Updates held for sessions not known yet, at most: this many, and this much weight in all (see jsonWeight). */
const PENDING_UPDATE_LIMIT = 10_000;
const PENDING_UPDATE_WEIGHT = TURN_UPDATE_LIMIT;
/** Longest agent session id kept with a session (in the panel's state and transcript) to continue it. */
const MAX_KEPT_AGENT_SESSION_ID = 4096;
const STDERR_LOG_LINES = 200;
const UNKNOWN_SESSION_NOTICE_MS = 1000;
const STDERR_LOG_WINDOW_MS = 5_000;
/** What to do after an agent died; its transcript and pending edits stay either way. */
const RESTART_HINT = "Restart it to continue (Restart Agent); what it showed and its pending edits stay. Agent Thoughts: Show Log has its output.";
/** The same for an agent that can take its sessions back (session/resume or session/load). */
const CONTINUE_HINT = "A prompt in the session starts it again and continues the session; Restart Agent starts a fresh one. What it showed and its pending edits stay. Agent Thoughts: Show Log has its output.";

export class AgentConnection {
  private readonly sessions = new Map<string, AgentSession>();
  /** Updates for sessions whose `session/new` answer has not been processed yet (they race it on the wire). */
  private readonly pendingUpdates = new Map<string, Array<{ update: unknown; weight: number }>>();
  private pendingCount = 0;
  private pendingWeight = 0;
  /** Updates dropped since the held ones were last taken up (the first one is logged). */
  private pendingDropped = 0;
  private stderrTail = "";
  /** The agent's stdio framing (set once it is spawned). */
  private output: AgentStream | undefined;
  private stderrWindow = { start: 0, lines: 0, dropped: 0 };
  private stderrFloodNoticed = false;
  private disposed = false;
  private deathReason: AgentError | undefined;
  private readonly deaths: Emitter<AgentError>;
  readonly dead: Promise<never>;
  private rejectDead!: (e: AgentError) => void;
  private conn!: acp.ClientConnection;
  /** The agent and every process it started (they share its process group). */
  private readonly group: ProcessGroup;
  private readonly serial = ++connectionSerial;
  /** Sessions opened from the agent's list here (their keys stay unique). */
  private opened = 0;
  /** The agent's ids of sessions closed or deleted here: what it still sends for them is dropped. */
  private readonly closedIds = new Set<string>();
  /** The terminals run for this agent's sessions (`terminal/create`), and the session of each; what they do is reported to it. */
  private readonly terminalSessions = new Map<string, AgentSession>();
  private terminalListener: { dispose(): void } | undefined;
  /** Each session's turn under way (session/prompt sent, not answered), by a token of its own. */
  private readonly prompting = new Map<string, object>();
  /** Sessions stopping (session/cancel sent, the turn not answered yet): the turn's token and the end of the agent's raised share (LowShare). */
  private readonly stopping = new Map<string, { turn: object | undefined; end: () => void }>();
  initializeResponse: acp.InitializeResponse | undefined;

  private constructor(readonly spec: AgentSpec, private readonly proc: ChildProcess, private readonly ports: ClientPorts, private readonly options: ConnectOptions, private readonly share?: LowShare) {
    this.dead = new Promise<never>((_, reject) => { this.rejectDead = reject; });
    this.dead.catch(() => undefined);
    this.group = new ProcessGroup(proc);
    this.deaths = new Emitter<AgentError>((err) => ports.logger.error(`An agent-death listener failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`));
  }

  get isAlive(): boolean {
    return !this.deathReason && !this.disposed;
  }


  onDeath(listener: (err: AgentError) => void): { dispose(): void } {
    return this.deaths.event(listener);
  }

  /** Spawns the agent and completes `initialize`; rejects with an `AgentError`. */
  static async start(spec: AgentSpec, ports: ClientPorts, options: ConnectOptions): Promise<AgentConnection> {
    const { logger } = ports;
    logger.info(`Starting agent "${spec.name}": ${[spec.command, ...spec.args].join(" ")} (cwd ${spec.cwd})`);
    let proc: ChildProcess;
    let share: LowShare | undefined;
    try {
      const priority = options.processPriority ?? "normal";
      const started = startProcess(spec.command, spec.args, { cwd: spec.cwd, env: { ...process.env, ...spec.env }, stdio: ["pipe", "pipe", "pipe"], priority });
      proc = started.proc;
      share = started.share;
      if (priority === "low") logger.info(`Agent "${spec.name}" runs below the editor's CPU priority${started.refused.length ? `, as far as allowed (${started.refused.join("; ")})` : ""}.`);
      if (started.plan.via === "cmdScript") logger.info(`Agent "${spec.name}": ${started.plan.file} runs through cmd.exe (arguments escaped by cross-spawn).`);
    } catch (err) {
      throw new AgentError(spec.name, `could not be started: ${describeError(err).message}`, "Check the agent's command in the agentThoughts.agents setting.");
    }
    const self = new AgentConnection(spec, proc, ports, options, share);
    await self.waitForSpawn();
    self.wire();
    await self.initialize();
    return self;
  }

  private waitForSpawn(): Promise<void> {
    const { spec, proc } = this;
    return new Promise<void>((resolve, reject) => {
      proc.once("spawn", () => resolve());
      proc.once("error", (err: NodeJS.ErrnoException) => {
        const hint = "Check the agent's command in the agentThoughts.agents setting, or install the agent.";
        if (err.code === "ENOENT") reject(new AgentError(spec.name, `could not be started: command "${spec.command}" was not found (cwd ${spec.cwd})`, hint));
        else if (err.code === "EACCES") reject(new AgentError(spec.name, `could not be started: "${spec.command}" is not executable`, hint));
        else reject(new AgentError(spec.name, `could not be started: ${err.message}`, hint));
      });
    });
  }

  private wire(): void {
    const { proc, ports: { logger } } = this;
    this.terminalListener = this.ports.terminal.listen({
      created: ({ sessionId, terminalId }) => {
        const session = [...this.sessions.values()].find((s) => s.sessionId === sessionId);
        if (!session) return;
        this.terminalSessions.set(terminalId, session);
        session.terminalCreated(terminalId);
      },
      output: (terminalId, text) => this.terminalSessions.get(terminalId)?.terminalOutput(terminalId, text),
      exited: (terminalId, exit) => {
        this.terminalSessions.get(terminalId)?.terminalExited(terminalId, exit);
        this.terminalSessions.delete(terminalId);
      },
    });
    proc.stderr!.setEncoding("utf8");
    let partial = "";
    proc.stderr!.on("data", (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_RING_BYTES);
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      if (partial.length > 4096) { lines.push(partial); partial = ""; }
      for (const l of lines) if (l.trim()) this.logStderr(l);
    });
    proc.stdin!.on("error", (err) => logger.warn(`[${this.spec.name}] stdin: ${err.message}`));
    proc.on("exit", (code, signal) => {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      if (this.disposed) {
        logger.info(`Agent "${this.spec.name}" ${how}.`);
        return;
      }
      const tail = this.stderrTail.trim().split("\n").slice(-5).join("\n");
      this.die(new AgentError(this.spec.name, how + (tail ? `; its last output: ${tail.slice(-600)}` : ""), this.restartHint, this.stderrTail));
    });

    const stream = this.output = ndJsonStream(proc.stdin!, proc.stdout!, {
      incoming: (m, line) => this.tap(m, line),
      outgoing: (m) => logger.traceEnabled && logger.trace(`→ ${this.spec.name} ${truncate(stringifyJson(m))}`),
      noise: (line, reason) => {
        logger.warn(`[${this.spec.name} stdout] ${reason}: ${truncate(line, 300)}`);
        for (const s of this.sessions.values()) {
          if (s.busy) s.recordFromAgent({ kind: "unknown", what: "stdout", reason: `agent wrote a line that is ${reason}`, raw: truncate(line, 2000) });
        }
      },
    });

    // Errors from our ports reach the agent with their message (the SDK would send a bare "Internal error").
    // A refused or failed request is also shown in the session, so the user sees what the agent was told.
    const explained = <P extends { sessionId: string }, R>(what: (params: P) => string, handler: (ctx: { params: P }) => Promise<R>) => async (ctx: { params: P }): Promise<R> => {
      try {
        return await handler(ctx);
      } catch (err) {
        const message = describeError(err).message;
        this.sessions.get(ctx.params.sessionId)?.recordFromAgent({ kind: "notice", severity: "warning", title: `${this.spec.name} could not ${truncate(what(ctx.params), 300)}`, description: message });
        if (err instanceof acp.RequestError) throw err;
        throw acp.RequestError.internalError(undefined, message);
      }
    };
    const app = acp.client({ name: this.options.clientName })
      // Mapped by the tap, in wire order; the framing does not pass updates on to the SDK at all.
      .onNotification(acp.methods.client.session.update, () => undefined)
      .onNotification(acp.methods.client.elicitation.complete, ({ params }) => {
        const closed = [...this.sessions.values()].some((s) => s.completeElicitation(params.elicitationId));
        if (!closed) this.ports.logger.debug(`[${this.spec.name}] elicitation/complete for ${truncate(params.elicitationId, 100)}, which is not open`);
      })
      .onRequest(acp.methods.client.session.requestPermission, async (ctx) => {
        // Entered (and asked) by the tap, in wire order; here only its answer is sent back.
        // The user's answer (not a policy's: an agent asking in a loop would keep the editor's share)
        // raises the agent's share a moment: at the lowest it would get a CPU, and the answer, late.
        const outcome = await this.session(ctx.params.sessionId).permissionReply(rpcKey(ctx.requestId), () => this.share?.answered());
        return { outcome };
      })
      .onRequest(acp.methods.client.fs.readTextFile, explained((p) => `read ${p.path}`, async ({ params }) => {
        const key = this.session(params.sessionId).sessionId;
        const content = await this.ports.fs.readTextFile({ sessionId: key, path: params.path, ...(params.line != null ? { line: params.line } : {}), ...(params.limit != null ? { limit: params.limit } : {}) });
        return { content };
      }))
      .onRequest(acp.methods.client.fs.writeTextFile, explained((p) => `write ${p.path}`, async ({ params }) => {
        const session = this.session(params.sessionId);
        await this.ports.fs.writeTextFile({ sessionId: session.sessionId, path: params.path, content: params.content, confirm: (q) => session.confirmWrite(q) });
        return {};
      }))
      .onRequest(acp.methods.client.terminal.create, explained((p) => `run ${p.command}${p.args?.length ? ` ${p.args.join(" ")}` : ""}`, async ({ params }) => {
        const session = this.session(params.sessionId);
        const terminalId = await this.ports.terminal.create({
          sessionId: session.sessionId, sessionCwd: session.cwd, command: params.command,
          ...(params.args ? { args: params.args } : {}), ...(params.env ? { env: params.env } : {}),
          cwd: params.cwd ?? session.cwd,
          ...(params.outputByteLimit != null ? { outputByteLimit: params.outputByteLimit } : {}),
        });
        return { terminalId };
      }))
      .onRequest(acp.methods.client.terminal.output, explained((p) => `read the output of terminal ${p.terminalId}`, async ({ params }) => {
        const r = await this.ports.terminal.output(this.session(params.sessionId).sessionId, params.terminalId);
        return { output: r.output, truncated: r.truncated, ...(r.exitStatus ? { exitStatus: r.exitStatus } : {}) };
      }))
      .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => this.ports.terminal.waitForExit(this.session(params.sessionId).sessionId, params.terminalId))
      .onRequest(acp.methods.client.terminal.kill, async ({ params }) => { await this.ports.terminal.kill(this.session(params.sessionId).sessionId, params.terminalId); return {}; })
      .onRequest(acp.methods.client.terminal.release, async ({ params }) => { await this.ports.terminal.release(this.session(params.sessionId).sessionId, params.terminalId); return {}; })
      .onRequest(acp.methods.client.elicitation.create, ({ params }) => this.elicit(params));
    this.conn = app.connect(stream);
    void this.conn.closed.then(() => {
      if (!this.disposed && !this.deathReason) {
        // The stream ended before the exit event; the exit handler words the error when it comes.
        setTimeout(() => { if (!this.disposed && !this.deathReason) this.die(new AgentError(this.spec.name, "closed its connection", this.restartHint, this.stderrTail)); }, 1000);
      }
    });
  }

  /**
   * `elicitation/create`: a form or URL question scoped to a live session is asked in its panel
   * (see SessionElicitations). Anything else — unknown modes, a question outside any session — is
   * declined, and the session (if any) says so.
   */
  private async elicit(params: acp.CreateElicitationRequest): Promise<acp.CreateElicitationResponse> {
    const sessionId = "sessionId" in params && typeof params.sessionId === "string" ? params.sessionId : undefined;
    const s = sessionId && !this.closedIds.has(sessionId) ? this.sessions.get(sessionId) : undefined;
    const toolCallId = "toolCallId" in params ? { toolCallId: params.toolCallId } : {};
    // The user's answer raises the agent's share a moment, as for a permission request (LowShare.answered).
    const answered = (): void => this.share?.answered();
    if (s && !s.isEnded && params.mode === "form" && "requestedSchema" in params) {
      return s.elicit({ message: params.message, requestedSchema: params.requestedSchema, ...toolCallId }, answered);
    }
    if (s && !s.isEnded && params.mode === "url" && "url" in params) {
      return s.elicit({ message: params.message, url: params.url, elicitationId: "elicitationId" in params ? params.elicitationId : undefined, ...toolCallId }, answered);
    }
    const what = params.mode === "form" ? "outside a session" : `in ${truncate(String(params.mode), 40)} mode`;
    this.ports.logger.warn(`[${this.spec.name}] elicitation/create ${what} declined`);
    s?.recordFromAgent({ kind: "notice", severity: "warning", title: `${this.spec.name} asked for input ${what}, which Agent Thoughts does not support; it was declined`, description: truncate(typeof params.message === "string" ? params.message : "", 2000) });
    return { action: "decline" };
  }

  /** A notice in every session of this agent that is working (or in all, when none is). */
  private notice(severity: "info" | "warning", title: string, description: string): void {
    const all = [...this.sessions.values()].filter((s) => !s.isEnded);
    const busy = all.filter((s) => s.busy);
    for (const s of busy.length ? busy : all) s.record({ kind: "notice", severity, title, description });
  }

  /**
   * Logs a stderr line, at most STDERR_LOG_LINES per STDERR_LOG_WINDOW_MS: an agent flooding
   * stderr must not flood the log (its tail is kept in the 64 KB ring for error reports anyway).
   */
  private logStderr(line: string): void {
    const { logger } = this.ports;
    const now = Date.now();
    if (now - this.stderrWindow.start >= STDERR_LOG_WINDOW_MS) {
      if (this.stderrWindow.dropped > 0) logger.warn(`[${this.spec.name} stderr] ${this.stderrWindow.dropped} more lines not logged (the last 64 KB are kept for error reports)`);
      this.stderrWindow = { start: now, lines: 0, dropped: 0 };
    }
    if (this.stderrWindow.lines++ < STDERR_LOG_LINES) logger.info(`[${this.spec.name} stderr] ${line.length > 2000 ? line.slice(0, 2000) + "…" : line}`);
    else {
      this.stderrWindow.dropped++;
      if (!this.stderrFloodNoticed) {
        this.stderrFloodNoticed = true;
        this.notice("info", `${this.spec.name} is writing a lot to stderr; not every line goes to the log`, `At most ${STDERR_LOG_LINES} lines per ${STDERR_LOG_WINDOW_MS / 1000} s are logged, and the last 64 KB are kept for error reports.`);
      }
    }
  }

  /** Sees every incoming message in wire order; maps session updates and permission requests. */
  private tap(message: AnyMessage, line: string): void {
    // What is still buffered (or written by what the agent left running) after it died or was stopped is not taken up.
    if (this.deathReason || this.disposed) return;
    const { logger } = this.ports;
    if (logger.traceEnabled) logger.trace(`← ${this.spec.name} ${truncate(stringifyJson(message))}`);
    if (!("method" in message)) return;
    const params = (typeof message.params === "object" && message.params !== null ? message.params : {}) as Record<string, unknown>;
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
    if (message.method === acp.methods.client.session.update) {
      if (!sessionId) {
        logger.warn(`[${this.spec.name}] session/update without sessionId ignored: ${truncate(stringifyJson(message), 300)}`);
        return;
      }
      const session = this.sessions.get(sessionId);
      if (session) session.ingestUpdate(params.update, line);
      else if (this.closedIds.has(sessionId)) logger.debug(`[${this.spec.name}] update for closed session ${sessionId} dropped`);
      else this.holdUpdate(sessionId, params.update, line);
    } else if (message.method === acp.methods.client.session.requestPermission && "id" in message && sessionId) {
      this.sessions.get(sessionId)?.ingestPermissionRequest(rpcKey(message.id), params, jsonWeight(line));
    } else if (!("id" in message) && !knownNotification(message.method)) {
      logger.debug(`[${this.spec.name}] ignoring notification ${message.method}`);
    }
  }

  private holdUpdate(sessionId: string, update: unknown, line: string): void {
    // Full already: not even weighed (a flood of them would pay the scan on each).
    const full = this.pendingCount >= PENDING_UPDATE_LIMIT || this.pendingWeight >= PENDING_UPDATE_WEIGHT;
    const weight = full ? undefined : jsonWeight(line);
    if (weight === undefined || this.pendingWeight + weight > PENDING_UPDATE_WEIGHT) {
      // Said once per run of drops, without writing out the update (it may be megabytes, and come by the thousand).
      if (this.pendingDropped++ === 0) this.ports.logger.warn(`[${this.spec.name}] dropping updates for unknown sessions (${count(this.pendingCount, "update")} of weight ${this.pendingWeight} held), from one for ${truncate(sessionId, 100)} of weight ${weight ?? "(not measured)"}`);
      return;
    }
    const list = this.pendingUpdates.get(sessionId) ?? [];
    list.push({ update, weight });
    this.pendingUpdates.set(sessionId, list);
    this.pendingCount++;
    this.pendingWeight += weight;
    if (list.length === 1) {
      setTimeout(() => {
        const held = this.pendingUpdates.get(sessionId)?.length;
        if (held === undefined) return;
        this.ports.logger.warn(`[${this.spec.name}] updates for unknown session ${sessionId} (${held} so far) are held until that session appears`);
        this.notice("warning", `${this.spec.name} sent updates for a session Agent Thoughts does not know`, `${count(held, "update")} for session "${truncate(sessionId, 100)}" are not shown; they are kept in case that session appears. Show Log has them.`);
      }, UNKNOWN_SESSION_NOTICE_MS).unref?.();
    }
  }

  /** The session for a wire session id; ports see its unique key. */
  private session(sessionId: string): AgentSession {
    const s = this.sessions.get(sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(sessionId);
    return s;
  }

  private async initialize(): Promise<void> {
    const { spec, options } = this;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AgentError(spec.name, `did not answer initialize within ${Math.round(options.initializeTimeoutMs / 1000)} s`, "Check that the command starts an ACP agent (some need a flag such as --acp), or raise agentThoughts.initializeTimeoutSeconds.", this.stderrTail)), options.initializeTimeoutMs);
    });
    try {
      const init = await Promise.race([
        this.conn.agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {
            fs: { readTextFile: true, writeTextFile: true },
            terminal: true,
            ...(options.signInInTerminal ? { auth: { terminal: true } } : {}),
            elicitation: { form: {}, url: {} },
            _meta: { terminal_output: true, terminal_output_delta: true },
          },
          clientInfo: { name: options.clientName, title: "Agent Thoughts", version: options.clientVersion },
        }),
        timeout,
        this.dead,
      ]);
      if (init.protocolVersion !== acp.PROTOCOL_VERSION) {
        throw new AgentError(spec.name, `speaks ACP protocol version ${String(init.protocolVersion)}, but Agent Thoughts supports version ${acp.PROTOCOL_VERSION}`, "Update the agent (or Agent Thoughts) to a matching version.");
      }
      this.initializeResponse = init;
      this.ports.logger.info(`Agent "${spec.name}" initialized: ${init.agentInfo?.name ?? "?"} ${init.agentInfo?.version ?? ""} (protocol ${init.protocolVersion})`);
    } catch (caught) {
      const err = await this.explain(caught);
      this.dispose();
      // Dying before it ever worked is a start failure: the advice is about the command, not a restart.
      if (err instanceof AgentError && err === this.deathReason) throw err.withHint("Check the agent's command and arguments in the agentThoughts.agents setting; Agent Thoughts: Show Log has its output.");
      if (err instanceof AgentError) throw err;
      throw new AgentError(spec.name, `failed to initialize: ${describeError(err).message}`, "See Agent Thoughts: Show Log for the agent's output.", this.stderrTail);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A session request, authenticating first when the agent answers that it requires it (-32000),
   * given up after the initialize timeout (agentThoughts.initializeTimeoutSeconds): an agent that
   * never answers a resume, load, list or delete must not leave the user waiting with nothing shown.
   */
  private async withAuth<R>(what: string, request: () => Promise<R>): Promise<R> {
    if (this.deathReason) throw this.deathReason;
    try {
      return await this.answered(what, request);
    } catch (err) {
      if (!(err instanceof acp.RequestError) || err.code !== -32000) throw this.wrap(err, `could not ${what}`);
      // Signing in takes as long as the user needs (a terminal sign-in, a choice of method): only the requests are timed.
      await this.authenticate();
      try {
        return await this.answered(what, request);
      } catch (err2) {
        throw this.wrap(err2, `could not ${what} after authenticating`);
      }
    }
  }

  /** One request, raced against the agent's death and the initialize timeout. */
  private async answered<R>(what: string, request: () => Promise<R>): Promise<R> {
    const ms = this.options.initializeTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AgentError(this.spec.name, `did not answer within ${Math.round(ms / 1000)} s when asked to ${what}`, "Try again, or raise agentThoughts.initializeTimeoutSeconds.")), ms);
    });
    try {
      return await Promise.race([request(), this.dead, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** `session/new` (authenticating first when the agent asks for it). */
  async newSession(cwd: string): Promise<AgentSession> {
    const mcpServers = await this.mcpServers();
    const res = await this.withAuth("start a session", () => this.conn.agent.request(acp.methods.agent.session.new, { cwd, mcpServers, ...this.directories() }));
    const session = this.makeSession(this.keyFor(res.sessionId), res.sessionId, cwd);
    session.record({ kind: "session_start", ...this.startInfo(cwd, res.sessionId, res, mcpServers) });
    this.releaseHeld(res.sessionId, session);
    return session;
  }

  /**
   * Takes a saved session back (same key, its events and turns going on after the saved ones):
   * `session/resume` when the agent declares it (nothing replayed), else `session/load`, whose
   * replay is merged into what the panel shows (ReplayMerge: turns it already has are dropped).
   * Throws an AgentError saying why when the agent can do neither.
   */
  async continueSession(saved: SessionToContinue, prefer: "resume" | "load" = "resume"): Promise<AgentSession> {
    const abilities = this.abilities;
    if (!abilities.resume && !abilities.load) {
      throw new AgentError(this.spec.name, "cannot continue a saved session: it declares neither session/resume nor session/load", "Continue in a new session, with a summary of this one.");
    }
    const { agentSessionId, cwd } = saved;
    const live = this.sessions.get(agentSessionId);
    if (live && !live.isEnded) {
      // Two sessions of the panel would both hear the agent's updates for it.
      throw new AgentError(this.spec.name, "already has this session open in the panel", "Show Sessions lists it.");
    }
    // A session opened from session/list gets a key of its own, never one this connection used before.
    const key = saved.sessionId || this.keyFor(agentSessionId, ++this.opened);
    const session = this.makeSession(key, agentSessionId, cwd, { lastSeq: saved.lastSeq, lastTurnId: saved.lastTurnId });
    let how: "resume" | "load" = abilities.resume && (prefer === "resume" || !abilities.load) ? "resume" : "load";
    let res: acp.ResumeSessionResponse | acp.LoadSessionResponse;
    const mcpServers = await this.mcpServers();
    try {
      if (how === "resume") {
        try {
          res = await this.withAuth("resume the saved session", () => this.conn.agent.request(acp.methods.agent.session.resume, { sessionId: agentSessionId, cwd, mcpServers, ...this.directories() }));
        } catch (err) {
          if (!abilities.load) throw err;
          this.ports.logger.warn(`${this.spec.name} could not resume session ${agentSessionId} (${describeError(err).message}); loading it instead`);
          how = "load";
        }
      }
      if (how === "load") {
        // Replayed updates arrive before the answer; they are merged as they come.
        this.sessions.set(agentSessionId, session);
        session.beginReplay(saved.shownPrompts);
        try {
          res = await this.withAuth("load the saved session", () => this.conn.agent.request(acp.methods.agent.session.load, { sessionId: agentSessionId, cwd, mcpServers, ...this.directories() }));
        } finally {
          // Added by whoever adopts the session (drainReplay), in slices.
          session.endReplay();
        }
      }
    } catch (err) {
      if (this.sessions.get(agentSessionId) === session) this.sessions.delete(agentSessionId);
      session.end(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
    this.sessions.set(agentSessionId, session);
    session.record({ kind: "session_start", ...this.startInfo(cwd, agentSessionId, res!, mcpServers), continued: how });
    this.releaseHeld(agentSessionId, session);
    return session;
  }

  /** The agent's own sessions in a folder (`session/list`, every page, at most `max`). */
  async listSessions(cwd: string, max = 500): Promise<acp.SessionInfo[]> {
    if (!this.abilities.list) return [];
    const out: acp.SessionInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20 && out.length < max; page++) {
      const res = await this.withAuth("list its sessions", () => this.conn.agent.request(acp.methods.agent.session.list, { cwd, ...(cursor ? { cursor } : {}) }));
      out.push(...res.sessions.slice(0, max - out.length));
      if (!res.nextCursor || res.nextCursor === cursor) break;
      cursor = res.nextCursor;
    }
    return out;
  }

  /** `session/delete` of one of the agent's sessions (when declared). */
  async deleteSession(agentSessionId: string): Promise<void> {
    if (!this.abilities.delete) return;
    await this.withAuth("delete the session", () => this.conn.agent.request(acp.methods.agent.session.delete, { sessionId: agentSessionId }));
    const live = this.sessions.get(agentSessionId);
    if (live) {
      live.end(new Error("the session was deleted"));
      this.forgetSession(agentSessionId, live);
    }
  }

  /** A session closed or deleted here: no longer routed, its terminals released. */
  private forgetSession(agentSessionId: string, session: AgentSession): void {
    if (this.sessions.get(agentSessionId) === session) this.sessions.delete(agentSessionId);
    this.closedIds.add(agentSessionId);
    this.ports.terminal.releaseSession(session.sessionId);
  }

  /**
   * Our key for one of this agent's sessions: unique across agents, restarts and windows; `opened`
   * numbers a session opened from the agent's list, so it never gets a key this connection used.
   */
  private keyFor(agentSessionId: string, opened?: number): string {
    return `${RUN_ID}.${this.serial}${opened !== undefined ? `.o${opened}` : ""}:${boundId(agentSessionId)}`;
  }

  /** Updates that came for a session before it was known, now that it is. */
  private releaseHeld(agentSessionId: string, session: AgentSession): void {
    const held = this.pendingUpdates.get(agentSessionId);
    if (!held) return;
    this.pendingUpdates.delete(agentSessionId);
    this.pendingCount -= held.length;
    this.pendingDropped = 0;
    for (const h of held) {
      this.pendingWeight -= h.weight;
      session.ingestUpdate(h.update, h.weight);
    }
  }

  private makeSession(key: string, agentSessionId: string, cwd: string, from?: ContinueFrom): AgentSession {
    const options = this.options;
    const abilities = this.abilities;
    const transport: SessionTransport = {
      agentName: this.spec.name,
      cwd,
      dead: this.dead,
      refusal: (prompt: readonly ContentBlock[]) => this.refusal(prompt),
      get cancelTimeoutMs() { return options.cancelTimeoutMs; },
      prompt: async (sessionId: string, prompt: ContentBlock[]) => {
        let r: acp.PromptResponse;
        const turn = {};
        this.prompting.set(sessionId, turn);
        try {
          // The turn's checkpoint is taken before the agent can change anything.
          await this.ports.checkpoint?.beforePrompt(session.sessionId);
          try {
            r = await this.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: this.adaptPrompt(prompt) as acp.ContentBlock[] });
          } catch (err) {
            throw await this.explain(err);
          }
        } finally {
          // An earlier turn answered late ends nothing of this one's.
          if (this.prompting.get(sessionId) === turn) this.prompting.delete(sessionId);
          if (this.stopping.get(sessionId)?.turn === turn) this.stopped(sessionId);
        }
        const usage = "usage" in r && r.usage && typeof r.usage === "object" ? (r.usage as Record<string, unknown>) : undefined;
        return { stopReason: r.stopReason, ...(usage ? { usage } : {}) };
      },
      cancel: (sessionId: string) => {
        // A busy agent at the lowest share reads the cancel late: it has the editor's share until it
        // answers the turn (a turn never answered: until STOP_SHARE_MS; the next Stop starts afresh).
        if (this.share) {
          // Raised for this stop before the last one's end, so the share does not dip in between.
          const end = this.share.stopping();
          this.stopped(sessionId);
          this.stopping.set(sessionId, { turn: this.prompting.get(sessionId), end });
        }
        const sent = this.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId });
        // An agent blocked writing its output (which waits to be read) gets to its input sooner.
        this.output?.hurry();
        return sent;
      },
      setMode: async (sessionId: string, modeId: string) => {
        await Promise.race([this.conn.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId }), this.dead]);
      },
      setModel: async (sessionId: string, modelId: string) => {
        // Older agents (gemini-cli 0.61, claude-code-acp 0.16) only know this unstable, untyped method.
        await Promise.race([this.conn.agent.request<unknown, { sessionId: string; modelId: string }>("session/set_model", { sessionId, modelId }), this.dead]);
      },
      setConfigOption: async (sessionId: string, configId: string, value: string | boolean) => {
        const params: acp.SetSessionConfigOptionRequest = typeof value === "boolean" ? { sessionId, configId, type: "boolean", value } : { sessionId, configId, value };
        const r = await Promise.race([this.conn.agent.request(acp.methods.agent.session.setConfigOption, params), this.dead]);
        return r.configOptions;
      },
      // Closing: session/close where declared; either way the session is gone here (what the agent
      // still sends for it is dropped, its file and terminal requests refused, its terminals released).
      close: async (sessionId: string) => {
        try {
          if (abilities.close) await this.withAuth("close the session", () => this.conn.agent.request(acp.methods.agent.session.close, { sessionId }));
        } finally {
          this.forgetSession(sessionId, session);
        }
      },
    };
    const session = new AgentSession(key, agentSessionId, transport, this.ports.permission, this.ports.logger, Date.now, this.ports.guard, from);
    this.sessions.set(agentSessionId, session);
    this.closedIds.delete(agentSessionId);
    return session;
  }

  /**
   * ACP forbids sending what the agent did not declare: embedded resources become fenced text
   * (with their location), images and audio it cannot take become a short note.
   */
  adaptPrompt(prompt: ContentBlock[]): ContentBlock[] {
    const caps = this.initializeResponse?.agentCapabilities?.promptCapabilities;
    return prompt.map((b): ContentBlock => {
      if (b.type === "resource" && !caps?.embeddedContext) {
        return { type: "text", text: b.resource.text !== undefined ? `\n${b.resource.uri}:\n\`\`\`\n${b.resource.text}\n\`\`\`\n` : `\n(${b.resource.uri})\n` };
      }
      if ((b.type === "image" && !caps?.image) || (b.type === "audio" && !caps?.audio)) {
        return { type: "text", text: `\n(${b.type} omitted: ${this.spec.name} does not accept ${b.type}s)\n` };
      }
      if (b.type === "image" && b.thumbnail !== undefined) {
        // The thumbnail is the panel's, not part of ACP.
        const { thumbnail: _thumbnail, ...image } = b;
        return image;
      }
      return b;
    });
  }

  /**
   * Why a prompt the user typed must not go to this agent at all, or undefined: images to an agent
   * that did not declare `promptCapabilities.image` (the user keeps the prompt and decides, rather
   * than the agent answering without the picture the question is about).
   */
  refusal(prompt: readonly ContentBlock[]): string | undefined {
    const caps = this.initializeResponse?.agentCapabilities?.promptCapabilities;
    if (!caps?.image && prompt.some((b) => b.type === "image")) return `${this.spec.name} does not accept images: the prompt was not sent (remove the images, or pick an agent that takes them)`;
    return undefined;
  }

  /** The workspace's other folders, for an agent that declares it takes them (ACP forbids sending them otherwise). */
  private directories(): { additionalDirectories?: string[] } {
    const dirs = this.spec.additionalDirectories ?? [];
    return dirs.length && this.initializeResponse?.agentCapabilities?.sessionCapabilities?.additionalDirectories != null ? { additionalDirectories: dirs } : {};
  }

  /** What to do after this agent died. */
  private get restartHint(): string {
    const a = this.abilities;
    return a.resume || a.load ? CONTINUE_HINT : RESTART_HINT;
  }

  /** What the agent declared it can do with sessions. */
  get abilities(): SessionAbilities {
    return sessionAbilities(this.initializeResponse?.agentCapabilities);
  }

  /** The user's MCP servers this agent may get (none when the host offers none, or on any failure). */
  private async mcpServers(): Promise<acp.McpServer[]> {
    if (!this.ports.mcp) return [];
    try {
      const servers = await this.ports.mcp.serversFor(this.spec.name, this.initializeResponse?.agentCapabilities?.mcpCapabilities);
      this.ports.logger.info(`MCP servers for "${this.spec.name}": ${servers.length ? servers.map((s) => `${s.name} (${"type" in s ? s.type : "stdio"})`).join(", ") : "none"}`);
      return servers;
    } catch (err) {
      this.ports.logger.warn(`MCP servers for "${this.spec.name}" could not be read: ${describeError(err).message}`);
      return [];
    }
  }

  private startInfo(cwd: string, agentSessionId: string, res: Pick<acp.NewSessionResponse, "modes" | "configOptions">, mcpServers: readonly acp.McpServer[] = []): SessionStartInfo {
    const info: SessionStartInfo = { agentName: this.initializeResponse?.agentInfo?.title ?? this.initializeResponse?.agentInfo?.name ?? this.spec.name, agentId: this.spec.name, cwd, abilities: this.abilities };
    if (mcpServers.length > 0) info.mcpServers = mcpServers.map((s) => s.name);
    // Kept to continue the session later; an id too long to keep makes it history only.
    if (agentSessionId.length <= MAX_KEPT_AGENT_SESSION_ID) info.agentSessionId = agentSessionId;
    const version = this.initializeResponse?.agentInfo?.version;
    if (version) info.agentVersion = version;
    if (res.modes) info.modes = { currentModeId: res.modes.currentModeId, availableModes: res.modes.availableModes.map((m) => ({ id: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })) };
    if (res.configOptions) info.configOptions = parseConfigOptions(res.configOptions).options;
    const legacy = (res as { models?: { currentModelId?: unknown; availableModels?: unknown } }).models;
    if (legacy && typeof legacy.currentModelId === "string" && Array.isArray(legacy.availableModels)) {
      info.models = {
        currentModelId: legacy.currentModelId,
        availableModels: (legacy.availableModels as { modelId?: unknown; name?: unknown; description?: unknown }[])
          .filter((m) => typeof m.modelId === "string")
          .map((m) => ({ modelId: String(m.modelId), name: typeof m.name === "string" ? m.name : String(m.modelId), ...(typeof m.description === "string" ? { description: m.description } : {}) })),
      };
    }
    return info;
  }

  private async authenticate(): Promise<void> {
    const offered = (this.initializeResponse?.authMethods ?? []).filter((m) => !terminalMethod(m) || this.options.signInInTerminal);
    const methods = offered.map((m) => ({ id: m.id, name: m.name, ...(terminalMethod(m) ? { description: `In a terminal${m.description ? `: ${m.description}` : ""}` } : m.description ? { description: m.description } : {}) }));
    if (methods.length === 0) throw new AgentError(this.spec.name, "requires authentication but offers no method", "Log in with the agent's own CLI, then try again.");
    const methodId = methods.length === 1 ? methods[0]!.id : await this.options.chooseAuthMethod?.(this.spec.name, methods);
    if (!methodId) throw new AgentError(this.spec.name, "requires authentication", `Choose one of: ${methods.map((m) => m.name).join(", ")}; or log in with the agent's own CLI.`);
    const chosen = offered.find((m) => m.id === methodId);
    const method = chosen ? terminalMethod(chosen) : undefined;
    if (method && this.options.signInInTerminal) {
      // ACP: the client runs the configured agent program itself; `authenticate` is never called for it.
      const text = (v: unknown): string => String(v).slice(0, MAX_SIGN_IN_TEXT);
      const run: TerminalSignIn = {
        agentName: this.spec.name, method: text(method.name).slice(0, 200), command: this.spec.command, cwd: this.spec.cwd,
        args: [...this.spec.args, ...(Array.isArray(method.args) ? method.args.slice(0, MAX_SIGN_IN_ARGS).map(text) : [])],
        env: { ...this.spec.env, ...Object.fromEntries(Object.entries(method.env ?? {}).slice(0, MAX_SIGN_IN_ARGS).map(([k, v]) => [text(k), text(v)])) },
      };
      this.ports.logger.info(`Signing in to "${this.spec.name}" in a terminal: ${[run.command, ...run.args].join(" ")}`);
      if (!(await this.options.signInInTerminal(run))) throw new AgentError(this.spec.name, `sign-in (${run.method}) did not succeed`, "The terminal shows what happened; try again, or log in with the agent's own CLI.");
      return;
    }
    this.ports.logger.info(`Authenticating with "${this.spec.name}" using ${methodId}`);
    try {
      await Promise.race([this.conn.agent.request(acp.methods.agent.authenticate, { methodId }), this.dead]);
    } catch (err) {
      throw this.wrap(err, `could not authenticate with ${methodId}`);
    }
  }

  /** Whether the agent declared `logout` (Sign Out of Agent). */
  get canSignOut(): boolean {
    return this.initializeResponse?.agentCapabilities?.auth?.logout != null;
  }

  /** `logout`: the agent forgets its credentials. */
  async signOut(): Promise<void> {
    if (!this.canSignOut) throw new AgentError(this.spec.name, "does not offer signing out (it does not declare logout)", "Sign out with the agent's own CLI.");
    await this.withAuth("sign out", () => this.conn.agent.request(acp.methods.agent.logout, {}));
  }

  /**
   * A request failing because the connection closed usually means the agent is exiting; the exit
   * (code, signal, stderr) tells the user more than "connection closed", so wait briefly for it.
   */
  private async explain(err: unknown): Promise<unknown> {
    if (err instanceof AgentError || this.disposed) return err;
    if (!this.conn.signal.aborted && this.proc.exitCode === null && this.proc.signalCode === null && !this.proc.stdout?.readableEnded) return err;
    await Promise.race([this.dead.catch(() => undefined), new Promise((r) => setTimeout(r, 1500))]);
    return this.deathReason ?? err;
  }

  private wrap(err: unknown, what: string): AgentError {
    if (err instanceof AgentError) return err;
    return new AgentError(this.spec.name, `${what}: ${describeError(err).message}`, "See Agent Thoughts: Show Log for details.", this.stderrTail);
  }

  private die(reason: AgentError): void {
    if (this.deathReason) return;
    this.deathReason = reason;
    this.ports.logger.error(reason.userMessage);
    for (const s of this.sessions.values()) {
      s.record({ kind: "error", message: reason.message, detail: reason.hint, fatal: true });
      s.end(reason);
      this.ports.terminal.releaseSession(s.sessionId);
    }
    this.dropHeldUpdates();
    this.rejectDead(reason);
    this.deaths.fire(reason);
    // The agent itself is usually gone already; what it started (its group) must go with it.
    void this.group.terminate();
  }

  /** The agent is gone: updates held for sessions it never made will never be taken up (a stopped connection may be kept a while). */
  private dropHeldUpdates(): void {
    this.pendingUpdates.clear();
    this.pendingCount = 0;
    this.pendingWeight = 0;
    this.pendingDropped = 0;
  }

  /** A session's turn is answered (or failed): a stop of it no longer raises the agent's share. */
  private stopped(sessionId: string): void {
    this.stopping.get(sessionId)?.end();
    this.stopping.delete(sessionId);
  }

  /**
   * Stops the agent (and every session and terminal it has): SIGTERM to its process group, SIGKILL
   * to what is left after a grace period (`terminateAllGroups` waits for that on shutdown).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.terminalListener?.dispose();
    this.terminalSessions.clear();
    for (const id of [...this.stopping.keys()]) this.stopped(id);
    const reason = new AgentError(this.spec.name, "was stopped", "Start a new session to continue.");
    for (const s of this.sessions.values()) {
      s.end(reason);
      this.ports.terminal.releaseSession(s.sessionId);
    }
    this.dropHeldUpdates();
    this.rejectDead(reason);
    // Signalled before its stdin closes: an agent exiting on EOF would orphan the helpers it
    // started in sessions of their own before they could be found as its descendants.
    void this.group.terminate();
    try { this.conn?.close(); } catch { /* already closed */ }
    this.proc.stdin?.destroy();
  }

}

/** What an `initialize` answer's capabilities say the agent can do with sessions (a capability is declared by any non-null object). */
export function sessionAbilities(caps: { loadSession?: boolean | null; sessionCapabilities?: Partial<Record<"resume" | "list" | "close" | "delete" | "fork", unknown>> | null } | undefined): SessionAbilities {
  const sc = caps?.sessionCapabilities;
  const out: SessionAbilities = {};
  if (caps?.loadSession === true) out.load = true;
  for (const k of ["resume", "list", "close", "delete", "fork"] as const) if (sc?.[k] != null && typeof sc[k] === "object") out[k] = true;
  return out;
}

/** A `terminal` auth method (the client runs the agent itself for the user to sign in), or undefined. */
function terminalMethod(m: acp.AuthMethod): acp.AuthMethodTerminal | undefined {
  return "type" in m && m.type === "terminal" ? m : undefined;
}

function knownNotification(method: string): boolean {
  return method === acp.methods.client.elicitation.complete || method.startsWith("_");
}

/** A JSON-RPC id as a key: 1 and "1" are different requests. */
function rpcKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

function truncate(s: string, max = 4000): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}
