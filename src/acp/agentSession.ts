/**
 * One ACP session with a running agent: its event log and mapper, its prompt turns (run one at a
 * time, in the order asked), cancellation, and its open permission requests. Turns are exposed as
 * `ThoughtStream`s; the connection feeds raw wire messages in through `ingest*`.
 */
import type { ContentBlock, PermissionOutcome, StopReason, ThoughtEventBody } from "../shared/events";
import { withoutMediaData } from "../shared/images";
import { ClientTerminalOutput } from "../core/clientTerminalOutput";
import { stringifyJson } from "../core/json";
import { SessionLog } from "../core/sessionLog";
import { ThoughtStream, TurnError, TurnFeed, summariseTurn, type EventFilter } from "../core/thoughtStream";
import { SessionUpdateMapper } from "../core/updateMapper";
import { ReplayMerge } from "../core/replayMerge";
import { jsonWeight, OutputBudget, pastLimit, type BudgetVerdict } from "../core/outputBudget";
import { TimeSlice } from "../core/sleep";
import type { GuardPort, Logger, PermissionPort, ProtectedWriteQuestion } from "./ports";
import { AgentError } from "./agentError";
import { SessionPermissions } from "./sessionPermissions";
import { SessionElicitations, type ElicitationReply } from "./sessionElicitations";

/** What a session needs from its connection. */
export interface SessionTransport {
  readonly agentName: string;
  /** The folder the session was started in (`session/new`'s cwd). */
  readonly cwd: string;
  prompt(sessionId: string, prompt: ContentBlock[]): Promise<{ stopReason: StopReason; usage?: Record<string, unknown> }>;
  /** Why the agent must not get this prompt at all (what it cannot take), or undefined. */
  refusal?(prompt: readonly ContentBlock[]): string | undefined;
  cancel(sessionId: string): Promise<void>;
  setMode(sessionId: string, modeId: string): Promise<void>;
  /** Legacy `session/set_model` for agents that predate model config options. */
  setModel(sessionId: string, modelId: string): Promise<void>;
  /** Returns the agent's full, updated option list. */
  setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<unknown[]>;
  /** `session/close`, when the agent declared it. */
  close?(sessionId: string): Promise<void>;
  /** Rejects when the connection dies, with the reason; never resolves otherwise. */
  readonly dead: Promise<never>;
  /** How long the agent gets to end a cancelled turn (read at each cancel; default 5 s). */
  readonly cancelTimeoutMs?: number | undefined;
}

export interface PromptOptions {
  include?: EventFilter;
  signal?: AbortSignal;
}

/** Where a continued session goes on: after the saved events and turns the panel already shows. */
export interface ContinueFrom { lastSeq: number; lastTurnId: number }

/** How long an agent gets to end a cancelled turn when nobody says otherwise. */
export const DEFAULT_CANCEL_TIMEOUT_MS = 5000;

const STOP_REASONS: readonly StopReason[] = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"];

export class AgentSession {
  readonly log: SessionLog;
  readonly mapper = new SessionUpdateMapper();
  private turnCounter = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly permissions: SessionPermissions;
  private readonly elicitations: SessionElicitations;
  private ended: Error | undefined;
  private cancelRequested = false;
  private runningTurn: number | undefined;
  /** Ends the running turn here, without the agent's answer (after the cancel deadline). */
  private abandonTurn: ((afterMs: number) => void) | undefined;
  private cancelTimer: NodeJS.Timeout | undefined;
  /** The `session/prompt` of a turn ended without the agent's answer, until it answers. */
  private unanswered: Promise<unknown> | undefined;
  /** While `session/load` replays the conversation: what of it the panel already shows, and the added turn being replayed. */
  private replay: ReplayMerge | undefined;
  /** A complete replay not yet added, and what the agent sent after it meanwhile. */
  private replayed: ReplayMerge | undefined;
  private afterReplay: unknown[] | undefined;
  private replayTurn: number | undefined;
  /** What the agent sent since the last prompt, against the limits of one turn. */
  private readonly budget = new OutputBudget();
  /** What the terminals run for this session print, reported as events of the tool calls that show them. */
  private readonly terminals = new ClientTerminalOutput((body) => { if (!this.ended) this.log.append(body); });

  constructor(
    /** Our key for the session, unique across agents and restarts (events carry it). */
    readonly sessionId: string,
    /** The agent's own session id, used on the wire (two agents may both call theirs "1"). */
    readonly agentSessionId: string,
    private readonly transport: SessionTransport,
    permissionPort: PermissionPort,
    private readonly logger: Logger,
    now: () => number = Date.now,
    /** Decides which requests touch files that configure tools (always asked). */
    guard?: GuardPort,
    /** A saved session this one continues (same key): its events and turns go on after these. */
    from?: ContinueFrom,
  ) {
    this.log = new SessionLog(sessionId, now, (err) => logger.error(`A listener of session ${sessionId} failed: ${String(err)}`), from?.lastSeq ?? 0);
    this.turnCounter = from?.lastTurnId ?? 0;
    this.permissions = new SessionPermissions(this, permissionPort, logger, guard);
    this.elicitations = new SessionElicitations(this, logger);
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

  /** True when no permission may be asked: the session ended, its turn is being cancelled, or it is stuck. */
  get closed(): boolean {
    return this.ended !== undefined || this.cancelRequested || this.stuck;
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

  /**
   * A raw `session/update` `update` object, in wire order (kept aside while `session/load` replays,
   * and while its replay is drained); `line`: its JSON as read from the wire, or its weight (see
   * OutputBudget.take).
   */
  ingestUpdate(update: unknown, line: string | number = stringifyJson(update)): void {
    if (this.replay) {
      this.replay.push(update, line);
      return;
    }
    if (this.afterReplay) {
      // Measured as it comes (the agent decides how long the drain takes); mapped once the replay is in.
      if (this.admit(this.budget.take(update, line, true))) this.afterReplay.push(update);
      return;
    }
    if (this.admit(this.budget.take(update, line))) this.map(update);
  }

  /**
   * Something the agent caused that is kept as an event (a line of noise, a request that failed):
   * recorded while its turn's output is within the limits.
   */
  recordFromAgent(body: ThoughtEventBody): void {
    if (this.admit(this.budget.takeOther(jsonWeight(stringifyJson(body))))) this.log.append(body);
  }

  /** True to keep what the budget measured; past the limit, says so once (and stops the turn). */
  private admit(verdict: BudgetVerdict): boolean {
    switch (verdict) {
      case "keep":
        return true;
      case "crossed":
        this.overBudget();
        return false;
      case "drop":
        return false;
    }
  }

  /** The agent's output in this turn went past a limit: said once, the turn stopped, and the rest of it dropped until the next prompt. */
  private overBudget(): void {
    const what = pastLimit(this.budget.crossed ?? "other");
    const running = this.runningTurn !== undefined;
    this.logger.warn(`${this.agentName} sent ${what} in one turn; the rest is dropped${running ? " and the turn is stopped" : " until the next prompt"}`);
    this.log.append({
      kind: "notice", severity: "warning",
      title: `${this.agentName} sent ${what} in one turn; the rest is not shown`,
      description: running
        ? "Agent Thoughts stopped the turn so that the editor stays responsive. What came before is shown and saved."
        : "What it sends until your next prompt is not shown, so that the editor stays responsive.",
    });
    // Nothing more of this turn is asked either (a cancel closes the open questions itself).
    if (running) this.cancelTurn();
    else this.cancelOpenPermissions();
  }

  private map(update: unknown): void {
    const bodies = this.mapper.map(update);
    this.log.append(...bodies, ...this.terminals.link(bodies));
  }

  /**
   * `session/load` is about to replay the conversation; `shownPrompts` are the prompts of the
   * turns the panel already shows (ReplayMerge lines the replay up with them).
   */
  beginReplay(shownPrompts: readonly string[]): void {
    this.replay = new ReplayMerge(shownPrompts);
  }

  /** `session/load` answered (or failed): the replay is complete; what the agent sends from now on waits for `drainReplay`. */
  endReplay(): void {
    if (!this.replay) return;
    this.replayed = this.replay;
    this.replay = undefined;
    this.afterReplay = [];
  }

  /**
   * Adds what the replay has that the panel does not show, marked as replayed (shown, never acted
   * on: no edit review, checkpoint or terminal), in slices of HOST_SLICE_MS so a long replay never
   * blocks the extension host; then what the agent sent meanwhile.
   */
  async drainReplay(): Promise<{ added: number; skipped: number; overflow: number }> {
    const r = this.replayed;
    this.replayed = undefined;
    if (!r) return { added: 0, skipped: 0, overflow: 0 };
    const slice = new TimeSlice();
    this.log.replaying = true;
    try {
      let n = 0;
      for (const step of r.steps()) {
        if (step.newTurn) {
          this.closeReplayTurn();
          this.replayTurn = ++this.turnCounter;
          this.log.append({ kind: "turn_start", turnId: this.replayTurn, prompt: [] });
        }
        this.map(step.update);
        if ((++n & 63) === 0 && slice.due()) {
          // Anything else recorded meanwhile is not part of the replay.
          this.log.replaying = false;
          await slice.pause();
          this.log.replaying = true;
        }
      }
      this.closeReplayTurn();
      if (r.overflow > 0) this.log.append({ kind: "notice", severity: "warning", title: `${this.agentName} replayed more than can be shown`, description: `${r.overflow} later updates of its replay are not shown.` });
    } finally {
      this.log.replaying = false;
      const later = this.afterReplay ?? [];
      this.afterReplay = undefined;
      for (const u of later) this.map(u);
    }
    return { added: r.added, skipped: r.skipped, overflow: r.overflow };
  }

  private closeReplayTurn(): void {
    if (this.replayTurn === undefined) return;
    this.log.append(...this.mapper.endTurn(), { kind: "turn_end", turnId: this.replayTurn, stopReason: "end_turn" });
    this.replayTurn = undefined;
  }

  /** The last sequence number and turn id this session used (a continuation goes on after them). */
  get lastSeq(): number {
    return this.log.lastSeq;
  }

  get lastTurnId(): number {
    return this.turnCounter;
  }

  /** A terminal Agent Thoughts runs for this session (`terminal/create`) started, printed, or ended. */
  terminalCreated(terminalId: string): void {
    this.terminals.created(terminalId);
  }

  terminalOutput(terminalId: string, text: string): void {
    this.terminals.output(terminalId, text);
  }

  terminalExited(terminalId: string, exit: { exitCode: number | null; signal: string | null }): void {
    this.terminals.exited(terminalId, exit);
  }

  /** A raw `session/request_permission`, in wire order (see SessionPermissions); past its turn's limits, answered cancelled unseen. */
  ingestPermissionRequest(rpcKey: string, params: { toolCall?: unknown; options?: unknown }, weight = jsonWeight(stringifyJson(params))): void {
    if (this.admit(this.budget.takeOther(weight))) this.permissions.fromAgent(rpcKey, params);
    else this.permissions.refuse(rpcKey);
  }

  /** The answer owed to the agent's permission request with this JSON-RPC id. */
  permissionReply(rpcKey: string, byUser?: () => void): Promise<PermissionOutcome> {
    return this.permissions.reply(rpcKey, byUser);
  }

  /** The agent's form question (`elicitation/create`, form mode), asked in the panel; resolves with the reply for the agent (see SessionElicitations). */
  elicit(params: { message?: unknown; requestedSchema?: unknown; toolCallId?: unknown; url?: unknown; elicitationId?: unknown }, byUser?: () => void): Promise<ElicitationReply> {
    return this.elicitations.ask(params, byUser);
  }

  /** The page the open URL-mode question would open, once the user agrees. */
  elicitationUrl(requestId: string): string | undefined {
    return this.elicitations.urlOf(requestId);
  }

  /** `elicitation/complete` for this session's open URL-mode question: closes it. */
  completeElicitation(elicitationId: string): boolean {
    return this.elicitations.complete(elicitationId);
  }

  /** The user's answer to an open form question; returns why it was not taken, or undefined. */
  answerElicitation(requestId: string, action: "accept" | "decline" | "cancel", content?: unknown): string | undefined {
    return this.elicitations.answer(requestId, action, content);
  }

  /** Asks the user about a write to a file that configures tools (see SessionPermissions). */
  confirmWrite(q: ProtectedWriteQuestion): Promise<boolean> {
    return this.permissions.confirmWrite(q);
  }

  /** Why this session's agent must not get the prompt at all (images it does not take), or undefined. */
  refusal(prompt: string | readonly ContentBlock[]): string | undefined {
    return typeof prompt === "string" ? undefined : this.transport.refusal?.(prompt);
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
    if (this.budget.dropped > 0) this.logger.info(`${this.agentName}: ${this.budget.dropped} updates past the limit of one turn were dropped`);
    this.budget.reset();
    const sub = this.log.subscribe((e) => { if (e.turnId === turnId) feed.push(e); });
    const onAbort = (): void => this.cancelTurn(turnId);
    try {
      // The log keeps an image's type and thumbnail: its data went to the agent and is not held again.
      const kept = prompt.map(withoutMediaData);
      this.log.append({ kind: "turn_start", turnId, prompt: kept });
      for (const block of kept) this.log.append({ kind: "user_message", text: block.type === "text" ? block.text : "", content: block });
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
        const last = this.log.last();
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
    feed.finish(summariseTurn(this.log.turn(turnId), feed.count, this.sessionId, turnId, stopReason, usage));
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
    this.permissions.cancelAll();
    this.elicitations.cancelAll();
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
    // The agent's answer to the user's change, not something it sent on its own: recorded whatever its turn's output.
    this.map({ sessionUpdate: "config_option_update", configOptions: options });
  }

  /**
   * Closes an idle session: `session/close` when the agent declared it (it frees what the agent
   * keeps for it), then the session ends here. A prompt in it later continues it (resume or load).
   */
  async close(): Promise<void> {
    if (this.ended) return;
    if (this.busy) throw new TurnError(`${this.agentName} is working in this session; stop the turn first`);
    try {
      if (this.transport.close) await this.transport.close(this.agentSessionId);
    } finally {
      this.log.append({ kind: "session_end", reason: "closed" });
      this.end(new Error("the session was closed"));
    }
  }

  /** The agent died or the session was closed: fail what runs, cancel what waits. */
  end(reason: Error): void {
    if (this.ended) return;
    this.ended = reason;
    this.terminals.dispose();
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
