/**
 * One ACP session with a running agent: its event log and mapper, its prompt turns (run one at a
 * time, in the order asked), cancellation, and its open permission requests. Turns are exposed as
 * `ThoughtStream`s; the connection feeds raw wire messages in through `ingest*`.
 */
import type { ContentBlock, PermissionOutcome, StopReason, ThoughtEventBody, ToolKind } from "../core/events";
import { boundId } from "../core/ids";
import { stringifyJson } from "../core/json";
import { SessionLog } from "../core/sessionLog";
import { ThoughtStream, TurnError, TurnFeed, summariseTurn, type EventFilter } from "../core/thoughtStream";
import { SessionUpdateMapper } from "../core/updateMapper";
import type { Logger, PermissionAnswer, PermissionPort } from "./ports";

/** What a session needs from its connection. */
export interface SessionTransport {
  readonly agentName: string;
  /** The folder the session was started in (`session/new`'s cwd). */
  readonly cwd: string;
  prompt(sessionId: string, prompt: ContentBlock[]): Promise<{ stopReason: StopReason; usage?: Record<string, unknown> }>;
  cancel(sessionId: string): Promise<void>;
  setMode(sessionId: string, modeId: string): Promise<void>;
  /** Legacy `session/set_model` for agents that predate model config options. */
  setModel(sessionId: string, modelId: string): Promise<void>;
  /** Returns the agent's full, updated option list. */
  setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<unknown[]>;
  /** Rejects when the connection dies, with the reason; never resolves otherwise. */
  readonly dead: Promise<never>;
}

export interface PromptOptions {
  include?: EventFilter;
  signal?: AbortSignal;
}

interface PendingPermission {
  requestId: string;
  toolCallId: string;
  turnId: number | undefined;
  controller: AbortController;
  answered: boolean;
}

const STOP_REASONS: readonly StopReason[] = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"];

export class AgentSession {
  readonly log: SessionLog;
  private readonly mapper = new SessionUpdateMapper();
  private turnCounter = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly permissions = new Map<string, PendingPermission>();
  private ended: Error | undefined;
  private cancelRequested = false;
  private runningTurn: number | undefined;

  constructor(
    /** Our key for the session, unique across agents and restarts (events carry it). */
    readonly sessionId: string,
    /** The agent's own session id, used on the wire (two agents may both call theirs "1"). */
    readonly agentSessionId: string,
    private readonly transport: SessionTransport,
    private readonly permissionPort: PermissionPort,
    private readonly logger: Logger,
    now: () => number = Date.now,
  ) {
    this.log = new SessionLog(sessionId, now, (err) => logger.error(`A listener of session ${sessionId} failed: ${String(err)}`));
  }

  get agentName(): string {
    return this.transport.agentName;
  }

  get cwd(): string {
    return this.transport.cwd;
  }

  /** True while a turn runs (or is queued). */
  get busy(): boolean {
    return this.runningTurn !== undefined;
  }

  get isEnded(): boolean {
    return this.ended !== undefined;
  }

  /** Appends events to the log (used by the connection for session-level facts). */
  record(...events: ThoughtEventBody[]): void {
    this.log.append(...events);
  }

  /** A raw `session/update` `update` object, in wire order. */
  ingestUpdate(update: unknown): void {
    this.log.append(...this.mapper.map(update));
  }

  /** A raw `session/request_permission`, in wire order; registers it under its JSON-RPC id. */
  ingestPermissionRequest(rpcId: string, params: { toolCall?: unknown; options?: unknown }): void {
    if (this.permissions.has(rpcId)) return;
    const requestId = `perm-${boundId(rpcId)}`;
    const events = this.mapper.permissionRequest(requestId, params.toolCall, params.options);
    const request = events.find((e) => e.kind === "permission_request");
    this.permissions.set(rpcId, {
      requestId, toolCallId: request?.kind === "permission_request" ? request.toolCallId : "", turnId: this.log.turnId,
      controller: new AbortController(), answered: false,
    });
    this.log.append(...events);
  }

  /** Answers a permission request through the port (UI/policy); called by the SDK handler. */
  async resolvePermission(rpcId: string, params: { toolCall?: unknown; options?: unknown }): Promise<PermissionOutcome> {
    if (!this.permissions.has(rpcId)) this.ingestPermissionRequest(rpcId, params);
    const pending = this.permissions.get(rpcId)!;
    const event = this.log.all().findLast((e) => e.kind === "permission_request" && e.requestId === pending.requestId);
    if (this.ended || this.cancelRequested || event?.kind !== "permission_request") {
      return this.answerPermission(pending, { outcome: "cancelled" }, "cancel");
    }
    let answer: PermissionAnswer;
    const toolKind = event.toolCall.toolKind ?? this.toolKindOf(event.toolCallId);
    try {
      answer = await this.permissionPort.request({
        sessionId: this.sessionId, agentName: this.agentName, requestId: pending.requestId, toolCallId: event.toolCallId,
        title: event.title, options: event.options, toolCall: event.toolCall, signal: pending.controller.signal,
        ...(toolKind ? { toolKind } : {}),
      });
    } catch (err) {
      this.logger.error(`Permission request ${pending.requestId} failed: ${String(err)}`);
      answer = { outcome: "cancelled" };
    }
    if (pending.answered) return { outcome: "cancelled" };
    if (pending.controller.signal.aborted) return this.answerPermission(pending, { outcome: "cancelled" }, "cancel");
    const outcome: PermissionOutcome = answer.outcome === "selected" ? { outcome: "selected", optionId: answer.optionId } : { outcome: "cancelled" };
    return this.answerPermission(pending, outcome, answer.by ?? "user");
  }

  /** The latest kind the log knows for a tool call. */
  private toolKindOf(toolCallId: string): ToolKind | undefined {
    const events = this.log.all();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if ((e.kind === "tool_start" || e.kind === "tool_update") && e.toolCallId === toolCallId && e.toolKind) return e.toolKind;
    }
    return undefined;
  }

  private answerPermission(pending: PendingPermission, outcome: PermissionOutcome, by: "user" | "policy" | "cancel"): PermissionOutcome {
    if (!pending.answered) {
      pending.answered = true;
      this.log.append({ kind: "permission_outcome", requestId: pending.requestId, toolCallId: pending.toolCallId, outcome, by });
    }
    for (const [id, p] of this.permissions) if (p === pending) this.permissions.delete(id);
    return outcome;
  }

  /** Open permission requests (for commands that answer them). */
  pendingPermissions(): { requestId: string; toolCallId: string }[] {
    return [...this.permissions.values()].filter((p) => !p.answered).map((p) => ({ requestId: p.requestId, toolCallId: p.toolCallId }));
  }

  /** Starts a prompt turn now (or right after the running one) and returns its stream. */
  prompt(prompt: string | ContentBlock[], options: PromptOptions = {}): ThoughtStream {
    const feed = new TurnFeed();
    const cancel = this.promptInto(feed, prompt, options.signal);
    return new ThoughtStream(feed, { ...(options.include ? { include: options.include } : {}), cancel });
  }

  /** Queues a turn that reports into `feed`; returns the function that cancels it. */
  promptInto(feed: TurnFeed, prompt: string | ContentBlock[], signal?: AbortSignal): () => void {
    const blocks: ContentBlock[] = typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
    const turnId = ++this.turnCounter;
    const run = this.queue.then(() => this.runTurn(turnId, blocks, feed, signal));
    this.queue = run.catch(() => undefined);
    return () => this.cancelTurn(turnId);
  }

  private async runTurn(turnId: number, prompt: ContentBlock[], feed: TurnFeed, signal: AbortSignal | undefined): Promise<void> {
    if (this.ended) {
      feed.fail(new TurnError(`${this.agentName} is not running: ${this.ended.message}`));
      return;
    }
    this.runningTurn = turnId;
    this.cancelRequested = false;
    const sub = this.log.subscribe((e) => { if (e.turnId === turnId) feed.push(e); });
    const onAbort = (): void => this.cancelTurn(turnId);
    try {
      this.log.append({ kind: "turn_start", turnId, prompt });
      for (const block of prompt) this.log.append({ kind: "user_message", text: block.type === "text" ? block.text : "", content: block });
      if (signal?.aborted) {
        this.finishTurn(turnId, feed, "cancelled");
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      let response: { stopReason: StopReason; usage?: Record<string, unknown> };
      try {
        response = await Promise.race([this.transport.prompt(this.agentSessionId, prompt), this.transport.dead]);
      } catch (err) {
        const { message, code, detail } = describeError(err);
        const fatal = this.ended !== undefined;
        // AgentErrors already name the agent ("Agent "X" exited…"); others get its name in front.
        const text = message.startsWith(`Agent "${this.agentName}"`) ? message : `${this.agentName}: ${message}`;
        const all = this.log.all();
        const last = all[all.length - 1];
        // A dead agent's error was recorded when it died (with what to do); one entry is enough.
        const recorded = fatal && last?.kind === "error" && last.fatal && last.message === text;
        this.log.append(...this.mapper.endTurn(), ...(recorded ? [] : [{ kind: "error" as const, message: text, ...(detail ? { detail } : {}), ...(code !== undefined ? { code } : {}), fatal }]));
        this.log.closeTurn();
        feed.fail(new TurnError(text, code, detail));
        return;
      }
      let stop = response.stopReason;
      if (!STOP_REASONS.includes(stop)) {
        this.log.append({ kind: "unknown", what: "session/prompt", reason: `unknown stop reason "${String(stop)}" shown as end_turn`, raw: response });
        stop = "end_turn";
      }
      this.finishTurn(turnId, feed, stop, response.usage);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      sub.dispose();
      this.runningTurn = undefined;
      this.cancelRequested = false;
      if (!feed.isSettled) feed.fail(new TurnError(`${this.agentName}: the turn ended unexpectedly`));
    }
  }

  private finishTurn(turnId: number, feed: TurnFeed, stopReason: StopReason, usage?: Record<string, unknown>): void {
    this.cancelOpenPermissions();
    this.log.append(...this.mapper.endTurn(), { kind: "turn_end", turnId, stopReason, ...(usage ? { usage } : {}) });
    feed.finish(summariseTurn(feed.events, this.sessionId, turnId, stopReason, usage));
  }

  /** Cancels the running turn if it is `turnId` (or any running turn when omitted). */
  cancelTurn(turnId?: number): void {
    if (this.runningTurn === undefined || (turnId !== undefined && turnId !== this.runningTurn)) return;
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    // session/cancel is queued before the "cancelled" answers to open permission requests (ACP's
    // order), and the connection writes in queue order.
    this.transport.cancel(this.agentSessionId).catch((err: unknown) => this.logger.warn(`session/cancel failed: ${String(err)}`));
    this.cancelOpenPermissions();
  }

  private cancelOpenPermissions(): void {
    for (const p of this.permissions.values()) if (!p.answered) p.controller.abort();
  }

  /** Switches the session mode; recorded as a `mode` event once the agent agrees. */
  async setMode(modeId: string): Promise<void> {
    await this.transport.setMode(this.agentSessionId, modeId);
    this.log.append({ kind: "mode", currentModeId: modeId });
  }

  /** Switches the model of an agent that only has the legacy model list. */
  async setModel(modelId: string): Promise<void> {
    await this.transport.setModel(this.agentSessionId, modelId);
    this.log.append({ kind: "notice", severity: "info", title: `Model switched to ${modelId}` });
  }

  /** Sets a config option (model, thought level…); records the agent's updated options. */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const options = await this.transport.setConfigOption(this.agentSessionId, configId, value);
    this.ingestUpdate({ sessionUpdate: "config_option_update", configOptions: options });
  }

  /** The agent died or the session was closed: fail what runs, cancel what waits. */
  end(reason: Error): void {
    if (this.ended) return;
    this.ended = reason;
    this.cancelOpenPermissions();
  }
}

export function describeError(err: unknown): { message: string; code?: number; detail?: string } {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; data?: unknown };
    const code = typeof e.code === "number" ? e.code : undefined;
    const detail = e.data !== undefined ? (typeof e.data === "string" ? e.data : stringifyJson(e.data)) : undefined;
    return { message: e.message, ...(code !== undefined ? { code } : {}), ...(detail ? { detail } : {}) };
  }
  return { message: String(err) };
}
