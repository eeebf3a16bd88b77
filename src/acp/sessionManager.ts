/**
 * Keeps the running agents and their current sessions: starts an agent on first use, reuses
 * its session for later prompts, restarts it after it died, and hands out `ThoughtStream`s
 * synchronously (eager start) even while the agent is still starting.
 */
import { Emitter } from "../core/emitter";
import type { ContentBlock, SessionAbilities, ThoughtEvent } from "../shared/events";
import { ThoughtStream, TurnError, TurnFeed, type StreamOptions, type TurnResult } from "../core/thoughtStream";
import { AgentConnection, type ConnectOptions } from "./agentConnection";
import type { SessionToContinue } from "../shared/viewModel";
import { AgentError, userMessage } from "./agentError";
import type { AgentSession } from "./agentSession";
import type { AgentSpec, ClientPorts } from "./ports";

export interface SessionManagerOptions extends ConnectOptions {
  /** Resolves an agent name (undefined = the default agent) to how to run it. */
  resolveAgent(name: string | undefined): AgentSpec;
  /**
   * A session that is not running here (saved, closed, or its agent died) as far as the panel
   * shows it, with the agent that made it and what that agent can do: a prompt in it continues it.
   */
  savedSession?(sessionId: string): Promise<(SessionToContinue & { agentName: string; abilities?: SessionAbilities }) | undefined>;
}

interface Running { connection: AgentConnection; session: AgentSession }
/** An agent's connection and its current session (none yet while it was started only to list or continue sessions). */
interface AgentEntry { connection: AgentConnection; session?: AgentSession | undefined }

/** Agent start-up progress, and a failure that belongs to no session (with the agent it concerns). */
export interface AgentStatus { starting?: string; error?: string; errorAgent?: string }

export class SessionManager {
  private readonly starting = new Map<string, Promise<AgentEntry>>();
  /** Every session's events, to the panel, the transcript writer, the API…: one throwing listener stops none of the others. */
  private readonly events: Emitter<ThoughtEvent>;
  private readonly sessionsStarted: Emitter<AgentSession>;
  private readonly statuses: Emitter<AgentStatus>;
  private readonly deaths: Emitter<AgentError>;
  private readonly allSessions: AgentSession[] = [];
  /** Continuations under way, per session key. */
  private readonly continuing = new Map<string, Promise<AgentSession | undefined>>();
  /** Sessions whose agent could not continue them, and why. */
  private readonly unavailable = new Map<string, string>();
  private latest: AgentSession | undefined;
  private readonly connections = new Set<AgentConnection>();
  private disposed = false;

  constructor(private readonly ports: ClientPorts, private readonly options: SessionManagerOptions) {
    const report = (what: string) => (err: unknown): void => ports.logger.error(`${what} listener failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    this.events = new Emitter<ThoughtEvent>(report("An event"));
    this.sessionsStarted = new Emitter<AgentSession>(report("A new-session"));
    this.statuses = new Emitter<AgentStatus>(report("An agent-status"));
    this.deaths = new Emitter<AgentError>(report("An agent-death"));
  }

  /** The session used most recently (for commands such as cancel). */
  get currentSession(): AgentSession | undefined {
    return this.latest;
  }

  get sessions(): readonly AgentSession[] {
    return this.allSessions;
  }

  onEvent(listener: (e: ThoughtEvent) => void): { dispose(): void } {
    return this.events.event(listener);
  }

  sessionById(sessionId: string): AgentSession | undefined {
    return this.allSessions.find((s) => s.sessionId === sessionId);
  }

  /** Agent start-up progress and failures that belong to no session (for the panel). */
  onStatus(listener: (status: AgentStatus) => void): { dispose(): void } {
    return this.statuses.event(listener);
  }

  private status(status: AgentStatus): void {
    this.statuses.fire(status);
  }

  /** An agent process died on its own (crash, exit); not called for agents we stop. */
  onAgentDeath(listener: (err: AgentError) => void): { dispose(): void } {
    return this.deaths.event(listener);
  }

  /** Stops an agent (default: the default agent) and starts a fresh session with it. */
  async restart(agentName?: string): Promise<AgentSession> {
    const name = this.options.resolveAgent(agentName).name;
    await this.stop(name);
    return (await this.sessionFor(name, true)).session;
  }

  onSession(listener: (s: AgentSession) => void): { dispose(): void } {
    return this.sessionsStarted.event(listener);
  }

  /** Runs a prompt turn; the stream exists at once, the agent starts behind it if needed. */
  stream(prompt: string | ContentBlock[], options: StreamOptions = {}): ThoughtStream {
    const feed = new TurnFeed();
    const cancel = this.start(feed, prompt, options);
    return new ThoughtStream(feed, { ...(options.include ? { include: options.include } : {}), cancel });
  }

  /**
   * Runs a prompt turn for a caller that reads only how it ended (the panel's prompt box, commands):
   * as `stream`, without keeping the turn's events a second time (the session's log has them).
   */
  run(prompt: string | ContentBlock[], options: Omit<StreamOptions, "include"> = {}): Promise<TurnResult> {
    const feed = new TurnFeed(false);
    this.start(feed, prompt, options);
    return feed.result;
  }

  /** Starts a turn reporting into `feed`; returns the function that cancels it. */
  private start(feed: TurnFeed, prompt: string | ContentBlock[], options: StreamOptions): () => void {
    let cancel: (() => void) | undefined;
    let cancelled = false;
    void (async () => {
      try {
        const existing = options.sessionId ? this.sessionById(options.sessionId) : undefined;
        // A session not running here (saved, closed, its agent died): its agent takes it back if it can.
        const continued = options.sessionId && (!existing || existing.isEnded) ? await this.continueOnce(options.sessionId, existing) : undefined;
        if (options.sessionId && !existing && !continued) throw new TurnError(`No session ${options.sessionId}`);
        // A session whose agent never answered a stopped turn may still be busy with it: a new one.
        const usable = continued ?? (existing && !existing.isEnded && !existing.stuck ? existing : undefined);
        // What the agent cannot take (images) is refused before a new session is opened for it.
        const refusal = usable ? usable.refusal(prompt) : typeof prompt === "string" ? undefined : (await this.connectionFor(existing?.agentName ?? options.agent)).refusal(prompt);
        if (refusal) throw new TurnError(refusal);
        const session = usable ?? (await this.sessionFor(existing?.agentName ?? options.agent, options.newSession === true || existing !== undefined)).session;
        if (existing?.stuck && session !== existing) {
          session.record({ kind: "notice", severity: "info", title: `${session.agentName} has not answered the turn you stopped, so this is a new session`, description: "Restart Agent stops what it may still be doing." });
        }
        this.latest = session;
        cancel = session.promptInto(feed, prompt, options.signal);
        if (cancelled) cancel();
      } catch (err) {
        const message = userMessage(err);
        this.ports.logger.error(message);
        this.status({ error: message, ...(err instanceof AgentError ? { errorAgent: err.agentName } : {}) });
        feed.fail(err instanceof Error ? err : new TurnError(message));
      }
    })();
    return () => { cancelled = true; cancel?.(); };
  }

  /** The agent's current session, starting the agent or a new session when needed. */
  async sessionFor(agentName: string | undefined, fresh: boolean): Promise<Running> {
    const spec = this.options.resolveAgent(agentName);
    const running = await this.runningAgent(spec);
    if (running) {
      if (!fresh && running.session && !running.session.isEnded && !running.session.stuck) return { connection: running.connection, session: running.session };
      const next = this.newSession(running.connection);
      this.starting.set(spec.name, next);
      return next;
    }
    const started = this.startConnection(spec).then((connection) => this.newSession(connection));
    this.starting.set(spec.name, started);
    started.catch(() => { if (this.starting.get(spec.name) === started) this.starting.delete(spec.name); });
    return started;
  }

  /** The agent's connection (and current session) when it is alive and started as `spec` says; a dead or changed one is disposed. */
  private async runningAgent(spec: AgentSpec): Promise<AgentEntry | undefined> {
    const running = await this.starting.get(spec.name)?.catch(() => undefined);
    if (running && running.connection.isAlive && sameSpec(running.connection.spec, spec)) return running;
    running?.connection.dispose();
    return undefined;
  }

  private async startConnection(spec: AgentSpec): Promise<AgentConnection> {
    this.status({ starting: spec.name });
    const connection = await AgentConnection.start(spec, this.ports, this.options).finally(() => this.status({}));
    this.connections.add(connection);
    connection.onDeath((err) => this.deaths.fire(err));
    if (this.disposed) {
      connection.dispose();
      throw new TurnError("Agent Thoughts is shutting down");
    }
    return connection;
  }

  /** The agent's running connection, started when there is none (without a new session). */
  private async connectionFor(agentName: string | undefined): Promise<AgentConnection> {
    const spec = this.options.resolveAgent(agentName);
    const running = await this.runningAgent(spec);
    if (running) return running.connection;
    const started = this.startConnection(spec);
    // Until a session exists, nobody else may start this agent a second time.
    const placeholder = started.then((connection): AgentEntry => ({ connection }));
    this.starting.set(spec.name, placeholder);
    started.catch(() => { if (this.starting.get(spec.name) === placeholder) this.starting.delete(spec.name); });
    return started;
  }

  private async newSession(connection: AgentConnection): Promise<Running> {
    return this.adopt(connection, await connection.newSession(connection.spec.cwd));
  }

  /** A session starts here (new or continued): the panel, the transcript… hear all of it. */
  private adopt(connection: AgentConnection, session: AgentSession): Running {
    // A continued session takes the place of the one it continues (same key).
    const at = this.allSessions.findIndex((s) => s.sessionId === session.sessionId);
    if (at >= 0) this.allSessions[at] = session;
    else this.allSessions.push(session);
    session.log.subscribe((e) => this.events.fire(e));
    // Replay what was recorded before anyone could subscribe (session_start, early updates).
    for (const e of session.log.all()) this.events.fire(e);
    this.sessionsStarted.fire(session);
    return { connection, session };
  }

  /**
   * One continuation per session at a time: prompts sent while it is under way (Enter pressed
   * twice, a second prompt while the agent resumes) wait for it and go to the same session, in order.
   */
  private continueOnce(sessionId: string, existing: AgentSession | undefined): Promise<AgentSession | undefined> {
    let pending = this.continuing.get(sessionId);
    if (!pending) {
      pending = this.continueOrNew(sessionId, existing).finally(() => this.continuing.delete(sessionId));
      this.continuing.set(sessionId, pending);
    }
    return pending;
  }

  /**
   * Continues a session that is not running here with the agent that made it (session/resume or
   * session/load). Undefined when there is nothing to continue. When the agent is known not to be
   * able to, a new session with a notice that says why; when it tried and failed, the turn fails
   * with the reason (the panel puts the prompt back) and the session counts as read-only.
   */
  private async continueOrNew(sessionId: string, existing: AgentSession | undefined): Promise<AgentSession | undefined> {
    const found = await this.options.savedSession?.(sessionId);
    if (!found) return undefined;
    // The panel's figures can lag behind a session that ran here (its last chunks merged in one frame).
    const saved = existing ? { ...found, lastSeq: Math.max(found.lastSeq, existing.lastSeq), lastTurnId: Math.max(found.lastTurnId, existing.lastTurnId) } : found;
    const name = saved.agentName || existing?.agentName;
    const known = saved.abilities;
    const why = known && !known.resume && !known.load ? "it declares neither session/resume nor session/load"
      : !saved.agentSessionId ? "the saved transcript does not have the agent's id for it"
      : !saved.cwd ? "the saved transcript does not have the session's folder"
      : this.unavailable.get(sessionId);
    if (why === undefined) {
      try {
        return await this.continueSession(saved, name);
      } catch (err) {
        const reason = userMessage(err);
        this.ports.logger.warn(`Could not continue session ${sessionId}: ${reason}`);
        this.unavailable.set(sessionId, reason);
        this.status({});
        throw new TurnError(`${name ?? "The agent"} could not continue this session: ${reason}. Your prompt was not sent; "Continue in a new session" above the prompt box starts one with a summary of this one.`);
      }
    }
    const { session } = await this.sessionFor(name, true);
    session.record({ kind: "notice", severity: "info", title: `${session.agentName} cannot continue the earlier session, so this is a new one`, description: `Why: ${why}. The earlier session stays in Show Sessions as history; "Continue in a new session" there starts one with a summary of it.` });
    return session;
  }

  /** Whether the agent is taking this session back right now. */
  isContinuing(sessionId: string): boolean {
    return this.continuing.has(sessionId);
  }

  /** Sessions whose agent tried to continue them and could not, with why (the panel shows them read-only). */
  cannotContinue(): Record<string, string> {
    return Object.fromEntries(this.unavailable);
  }

  /**
   * Takes a saved session back with its agent (see AgentConnection.continueSession). An empty
   * `saved.sessionId` opens one of the agent's own sessions (from `session/list`) under a new key,
   * loading it (its history replayed) when the agent can.
   */
  async continueSession(saved: SessionToContinue, agentName: string | undefined): Promise<AgentSession> {
    const connection = await this.connectionFor(agentName);
    // The header says the agent is getting the session back (a load can take a while).
    this.status({ starting: connection.spec.name });
    let session: AgentSession;
    try {
      session = await connection.continueSession(saved, saved.sessionId ? "resume" : "load");
    } finally {
      this.status({});
    }
    this.unavailable.delete(session.sessionId);
    const running = this.adopt(connection, session);
    // A load's replay is added after the session is adopted: in slices, heard as it comes.
    const replay = await session.drainReplay();
    if (replay.added || replay.skipped) this.ports.logger.info(`${connection.spec.name} replayed session ${session.agentSessionId}: ${replay.skipped} update(s) already shown, ${replay.added} turn(s) added`);
    this.starting.set(connection.spec.name, Promise.resolve(running));
    return running.session;
  }

  /** The agent's own sessions in a folder (`session/list`; empty when it does not declare it). */
  async listAgentSessions(agentName: string | undefined, cwd: string): Promise<{ agentName: string; sessions: { sessionId: string; cwd: string; title?: string; updatedAt?: string }[] }> {
    const connection = await this.connectionFor(agentName);
    const sessions = await connection.listSessions(cwd);
    return {
      agentName: connection.spec.name,
      sessions: sessions.map((s) => ({ sessionId: s.sessionId, cwd: s.cwd, ...(s.title ? { title: s.title } : {}), ...(s.updatedAt ? { updatedAt: s.updatedAt } : {}) })),
    };
  }

  /** Signs out of an agent (`logout`, when it declares it). */
  async signOut(agentName: string | undefined): Promise<string> {
    const connection = await this.connectionFor(agentName);
    await connection.signOut();
    return connection.spec.name;
  }

  /** Whether the agent (started if needed) declared an ability; for what the UI offers. */
  async abilitiesOf(agentName: string | undefined): Promise<SessionAbilities> {
    return (await this.connectionFor(agentName)).abilities;
  }

  /** Deletes a session on the agent's side (`session/delete`, when the agent declares it). */
  async deleteAgentSession(agentName: string | undefined, agentSessionId: string): Promise<void> {
    const connection = await this.connectionFor(agentName);
    await connection.deleteSession(agentSessionId);
  }

  /** Stops one agent (by name) or all. */
  async stop(agentName?: string): Promise<void> {
    const names = agentName ? [agentName] : [...this.starting.keys()];
    for (const name of names) {
      const p = this.starting.get(name);
      this.starting.delete(name);
      const running = await p?.catch(() => undefined);
      if (running) {
        running.connection.dispose();
        this.connections.delete(running.connection);
      }
    }
  }

  /** Kills every agent process now (extension shutdown). */
  dispose(): void {
    this.disposed = true;
    for (const c of this.connections) c.dispose();
    this.connections.clear();
    this.starting.clear();
  }
}

function sameSpec(a: AgentSpec, b: AgentSpec): boolean {
  return a.command === b.command && a.cwd === b.cwd && JSON.stringify(a.args) === JSON.stringify(b.args) && JSON.stringify(a.env) === JSON.stringify(b.env);
}
