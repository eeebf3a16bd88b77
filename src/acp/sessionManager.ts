/**
 * Keeps the running agents and their current sessions: starts an agent on first use, reuses
 * its session for later prompts, restarts it after it died, and hands out `ThoughtStream`s
 * synchronously (eager start) even while the agent is still starting.
 */
import { Emitter } from "../core/emitter";
import type { ContentBlock, ThoughtEvent } from "../shared/events";
import { ThoughtStream, TurnError, TurnFeed, type StreamOptions } from "../core/thoughtStream";
import { AgentConnection, type ConnectOptions } from "./agentConnection";
import { AgentError, userMessage } from "./agentError";
import type { AgentSession } from "./agentSession";
import type { AgentSpec, ClientPorts } from "./ports";

export interface SessionManagerOptions extends ConnectOptions {
  /** Resolves an agent name (undefined = the default agent) to how to run it. */
  resolveAgent(name: string | undefined): AgentSpec;
}

interface Running { connection: AgentConnection; session: AgentSession }

/** Agent start-up progress, and a failure that belongs to no session (with the agent it concerns). */
export interface AgentStatus { starting?: string; error?: string; errorAgent?: string }

export class SessionManager {
  private readonly starting = new Map<string, Promise<Running>>();
  /** Every session's events, to the panel, the transcript writer, the API…: one throwing listener stops none of the others. */
  private readonly events: Emitter<ThoughtEvent>;
  private readonly sessionsStarted: Emitter<AgentSession>;
  private readonly statuses: Emitter<AgentStatus>;
  private readonly deaths: Emitter<AgentError>;
  private readonly allSessions: AgentSession[] = [];
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
    let cancel: (() => void) | undefined;
    let cancelled = false;
    const stream = new ThoughtStream(feed, {
      ...(options.include ? { include: options.include } : {}),
      cancel: () => { cancelled = true; cancel?.(); },
    });
    void (async () => {
      try {
        const existing = options.sessionId ? this.sessionById(options.sessionId) : undefined;
        if (options.sessionId && !existing) throw new TurnError(`No session ${options.sessionId}`);
        // A session whose agent never answered a stopped turn may still be busy with it: a new one.
        const session = existing && !existing.isEnded && !existing.stuck ? existing : (await this.sessionFor(existing?.agentName ?? options.agent, options.newSession === true || existing !== undefined)).session;
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
    return stream;
  }

  /** The agent's current session, starting the agent or a new session when needed. */
  async sessionFor(agentName: string | undefined, fresh: boolean): Promise<Running> {
    const spec = this.options.resolveAgent(agentName);
    const existing = this.starting.get(spec.name);
    if (existing) {
      const running = await existing.catch(() => undefined);
      if (running && running.connection.isAlive && sameSpec(running.connection.spec, spec)) {
        if (!fresh && !running.session.isEnded && !running.session.stuck) return running;
        const next = this.newSession(running.connection);
        this.starting.set(spec.name, next);
        return next;
      }
      running?.connection.dispose();
    }
    this.status({ starting: spec.name });
    const started = (async () => {
      const connection = await AgentConnection.start(spec, this.ports, this.options).finally(() => this.status({}));
      this.connections.add(connection);
      connection.onDeath((err) => this.deaths.fire(err));
      if (this.disposed) {
        connection.dispose();
        throw new TurnError("Agent Thoughts is shutting down");
      }
      return this.newSession(connection);
    })();
    this.starting.set(spec.name, started);
    started.catch(() => { if (this.starting.get(spec.name) === started) this.starting.delete(spec.name); });
    return started;
  }

  private async newSession(connection: AgentConnection): Promise<Running> {
    const session = await connection.newSession(connection.spec.cwd);
    this.allSessions.push(session);
    session.log.subscribe((e) => this.events.fire(e));
    // Replay what was recorded before anyone could subscribe (session_start, early updates).
    for (const e of session.log.all()) this.events.fire(e);
    this.sessionsStarted.fire(session);
    return { connection, session };
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
