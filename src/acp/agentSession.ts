/**
 * One ACP session with a running agent: its event log and mapper, its prompt turns (run one at a
 * time, in the order asked), cancellation, and its open permission requests. Turns are exposed as
 * `ThoughtStream`s; the connection feeds raw wire messages in through `ingest*`.
 */
import type { ContentBlock, PermissionOption, PermissionOutcome, StopReason, ThoughtEventBody, ToolCallFields, ToolKind } from "../shared/events";
import { stringifyJson } from "../core/json";
import { pathsOf, textsOf } from "../core/permissionPolicy";
import { matchesApprovedEdit, type ApprovedEdit } from "../core/protectedPaths";
import { SessionLog } from "../core/sessionLog";
import { ThoughtStream, TurnError, TurnFeed, summariseTurn, type EventFilter } from "../core/thoughtStream";
import { SessionUpdateMapper } from "../core/updateMapper";
import type { GuardPort, Logger, PermissionAnswer, PermissionPort, ProtectedWriteQuestion } from "./ports";
import { AgentError } from "./agentError";

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
  /** How long the agent gets to end a cancelled turn (read at each cancel; default 5 s). */
  readonly cancelTimeoutMs?: number | undefined;
}

export interface PromptOptions {
  include?: EventFilter;
  signal?: AbortSignal;
}

interface PendingPermission {
  requestId: string;
  toolCallId: string;
  /** Why it always asks (files that configure tools), if it does. */
  guard: string | undefined;
  turnId: number | undefined;
  controller: AbortController;
  answered: boolean;
}

/** How long an agent gets to end a cancelled turn when nobody says otherwise. */
export const DEFAULT_CANCEL_TIMEOUT_MS = 5000;

const STOP_REASONS: readonly StopReason[] = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"];
const GUARDED_LABEL: Partial<Record<PermissionOption["kind"], string>> = { allow_once: "Allow once", reject_once: "Reject", reject_always: "Reject always" };
/** Numbers permission requests across all sessions (ids must never repeat while the extension runs). */
let permissionSerial = 0;
/** Approved diffs of protected files kept for the write that follows them. */
const MAX_APPROVED_EDITS = 20;

export class AgentSession {
  readonly log: SessionLog;
  private readonly mapper = new SessionUpdateMapper();
  private turnCounter = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly permissions = new Map<string, PendingPermission>();
  private ended: Error | undefined;
  private cancelRequested = false;
  private runningTurn: number | undefined;
  /** Diffs of protected files the user allowed by hand: the matching write needs no second question. */
  private readonly approvedEdits: ApprovedEdit[] = [];
  private guardSerial = 0;
  /** Ends the running turn here, without the agent's answer (after the cancel deadline). */
  private abandonTurn: ((afterMs: number) => void) | undefined;
  private cancelTimer: NodeJS.Timeout | undefined;
  /** The `session/prompt` of a turn ended without the agent's answer, until it answers. */
  private unanswered: Promise<unknown> | undefined;

  constructor(
    /** Our key for the session, unique across agents and restarts (events carry it). */
    readonly sessionId: string,
    /** The agent's own session id, used on the wire (two agents may both call theirs "1"). */
    readonly agentSessionId: string,
    private readonly transport: SessionTransport,
    private readonly permissionPort: PermissionPort,
    private readonly logger: Logger,
    now: () => number = Date.now,
    /** Decides which requests touch files that configure tools (always asked). */
    private readonly guard?: GuardPort,
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

  /**
   * True while the agent has not answered a turn that was ended without it (it ignored
   * `session/cancel`): it may still be working on it, and whatever it sends for this session
   * cannot be told apart from a new turn's, so new prompts go to a new session meanwhile.
   */
  get stuck(): boolean {
    return this.unanswered !== undefined;
  }

  /** Appends events to the log (used by the connection for session-level facts). */
  record(...events: ThoughtEventBody[]): void {
    this.log.append(...events);
  }

  /** A raw `session/update` `update` object, in wire order. */
  ingestUpdate(update: unknown): void {
    this.log.append(...this.mapper.map(update));
  }

  /**
   * A raw `session/request_permission`, in wire order; registers it under its JSON-RPC id. A
   * request that touches files that configure tools is marked `guard` (always asked) and loses
   * its "always allow" options: an agent remembering one would write them without asking next time.
   */
  ingestPermissionRequest(rpcId: string, params: { toolCall?: unknown; options?: unknown }): void {
    this.ingestRequest(`rpc:${rpcId}`, params);
  }

  /** Registers a request under `key` (agent requests: `rpc:<JSON-RPC id>`; ours: `guard:<n>`); the request id is our own. */
  private ingestRequest(key: string, params: { toolCall?: unknown; options?: unknown }, guard?: string): void {
    if (this.permissions.has(key)) return;
    // Unique across every session: the broker, the panel and the diff title answer by request id.
    const requestId = `perm-${++permissionSerial}`;
    const events = this.mapper.permissionRequest(requestId, params.toolCall, params.options);
    const request = events.find((e) => e.kind === "permission_request");
    let reason = guard;
    if (request?.kind === "permission_request") {
      reason ??= this.guardReason(request.toolCallId, request.toolCall);
      if (reason) {
        request.guard = reason;
        // No "always", and labels that say what the kind does: an agent's "Reject" labelled allow_once must not approve anything.
        request.options = request.options.filter((o) => o.kind !== "allow_always").map((o) => ({ ...o, name: GUARDED_LABEL[o.kind] ?? o.name }));
      }
    }
    this.permissions.set(key, {
      requestId, toolCallId: request?.kind === "permission_request" ? request.toolCallId : "", guard: reason, turnId: this.log.turnId,
      controller: new AbortController(), answered: false,
    });
    this.log.append(...events);
  }

  /** Why a request must always ask: judged on what it says now and what the log knows of its tool call. */
  private guardReason(toolCallId: string, fields: ToolCallFields): string | undefined {
    if (!this.guard) return undefined;
    const known: ToolCallFields[] = [fields];
    for (const e of this.log.all()) if ((e.kind === "tool_start" || e.kind === "tool_update") && e.toolCallId === toolCallId) known.push(e);
    return this.guard.reasonFor(known.flatMap(pathsOf), known.flatMap((f) => textsOf(f)), this.cwd);
  }

  /**
   * A write to a file that configures tools: asks the user as a permission request in this
   * session (with the diff), whatever the policy — unless it is exactly a diff the user allowed
   * by hand a moment ago. Resolves true only on the user's yes.
   */
  async confirmWrite(q: ProtectedWriteQuestion): Promise<boolean> {
    const approved = this.approvedEdits.findIndex((a) => matchesApprovedEdit(a, q.path, q.current, q.content));
    if (approved >= 0) {
      this.approvedEdits.splice(approved, 1);
      this.logger.info(`Write to ${q.path} is the diff the user allowed; not asked again`);
      return true;
    }
    const n = ++this.guardSerial;
    const toolCallId = `agent-thoughts-write-${n}`;
    const key = `guard:${n}`;
    const params = {
      toolCall: { toolCallId, title: `Write ${q.path}`, kind: "edit", status: "pending", locations: [{ path: q.path }], content: [{ type: "diff", path: q.path, oldText: q.current, newText: q.content }] },
      options: [{ optionId: "allow", name: "Allow this write", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }],
    };
    this.ingestRequest(key, params, q.reason);
    const outcome = await this.resolveRequest(key, params);
    const allowed = outcome.outcome === "selected" && outcome.optionId === "allow";
    if (allowed) this.ingestUpdate({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
    return allowed;
  }

  /** Answers a permission request through the port (UI/policy); called by the SDK handler. */
  async resolvePermission(rpcId: string, params: { toolCall?: unknown; options?: unknown }): Promise<PermissionOutcome> {
    return this.resolveRequest(`rpc:${rpcId}`, params);
  }

  private async resolveRequest(key: string, params: { toolCall?: unknown; options?: unknown }): Promise<PermissionOutcome> {
    if (!this.permissions.has(key)) this.ingestRequest(key, params);
    const pending = this.permissions.get(key)!;
    const event = this.log.all().findLast((e) => e.kind === "permission_request" && e.requestId === pending.requestId);
    if (this.ended || this.cancelRequested || this.stuck || event?.kind !== "permission_request") {
      return this.answerPermission(pending, { outcome: "cancelled" }, "cancel");
    }
    let answer: PermissionAnswer;
    const toolKind = event.toolCall.toolKind ?? this.toolKindOf(event.toolCallId);
    try {
      answer = await this.permissionPort.request({
        sessionId: this.sessionId, agentName: this.agentName, requestId: pending.requestId, toolCallId: event.toolCallId,
        title: event.title, options: event.options, toolCall: event.toolCall, signal: pending.controller.signal,
        ...(toolKind ? { toolKind } : {}), ...(pending.guard ? { guard: pending.guard } : {}),
      });
    } catch (err) {
      this.logger.error(`Permission request ${pending.requestId} failed: ${String(err)}`);
      answer = { outcome: "cancelled" };
    }
    if (pending.answered) return { outcome: "cancelled" };
    if (pending.controller.signal.aborted) return this.answerPermission(pending, { outcome: "cancelled" }, "cancel");
    const outcome: PermissionOutcome = answer.outcome === "selected" ? { outcome: "selected", optionId: answer.optionId } : { outcome: "cancelled" };
    if (pending.guard && key.startsWith("rpc:") && outcome.outcome === "selected" && answer.by !== "policy" && event.options.find((o) => o.optionId === outcome.optionId)?.kind.startsWith("allow")) {
      for (const c of event.toolCall.content ?? []) if (c.type === "diff") this.approvedEdits.push({ path: c.path, oldText: c.oldText, newText: c.newText });
      this.approvedEdits.splice(0, Math.max(0, this.approvedEdits.length - MAX_APPROVED_EDITS));
    }
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
      const prompting = this.transport.prompt(this.agentSessionId, prompt);
      const abandoned = new Promise<number>((resolve) => { this.abandonTurn = resolve; });
      try {
        const answer = await Promise.race([prompting, this.transport.dead, abandoned]);
        if (typeof answer === "number") {
          this.endWithoutAnswer(turnId, feed, prompting, answer);
          return;
        }
        response = answer;
      } catch (err) {
        const { message, code, detail } = describeError(err);
        const fatal = this.ended !== undefined;
        // AgentErrors already name the agent ("Agent "X" exited…"); others get its name in front.
        const text = err instanceof AgentError ? message : `${this.agentName}: ${message}`;
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
      clearTimeout(this.cancelTimer);
      this.abandonTurn = undefined;
      this.runningTurn = undefined;
      this.cancelRequested = false;
      if (!feed.isSettled) feed.fail(new TurnError(`${this.agentName}: the turn ended unexpectedly`));
    }
  }

  /**
   * The agent did not end a cancelled turn within the deadline: the turn ends here as cancelled
   * (open tool calls canceled, permission requests answered), so the user can go on. Its late
   * answer is ignored; until it comes, the session counts as `stuck`.
   */
  private endWithoutAnswer(turnId: number, feed: TurnFeed, prompting: Promise<unknown>, afterMs: number): void {
    this.unanswered = prompting;
    const answered = (): void => {
      if (this.unanswered !== prompting) return;
      this.unanswered = undefined;
      this.logger.info(`${this.agentName} answered the turn it was asked to stop, after it had been ended`);
    };
    prompting.then(answered, answered);
    const seconds = Math.round(afterMs / 100) / 10;
    this.logger.warn(`${this.agentName} did not end a cancelled turn within ${seconds} s; the turn was ended without its answer`);
    this.log.append({
      kind: "notice", severity: "warning", action: "restartAgent",
      title: `${this.agentName} did not stop within ${seconds} s; the turn was ended here`,
      description: `It may still be working. Restart Agent stops it; a new prompt goes to a new session while ${this.agentName} has not answered. agentThoughts.cancelTimeoutSeconds sets how long to wait.`,
    });
    this.finishTurn(turnId, feed, "cancelled");
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
    // Stop always ends the turn: an agent that ignores the cancel gets a deadline.
    const ms = Math.max(0, this.transport.cancelTimeoutMs ?? DEFAULT_CANCEL_TIMEOUT_MS);
    this.cancelTimer = setTimeout(() => this.abandonTurn?.(ms), ms);
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
