/**
 * `ThoughtStream`: one prompt turn as an async iterable of events plus a `result` promise.
 *
 * Semantics (each covered by a unit test):
 * - eager: the turn runs whether or not anyone iterates or awaits;
 * - `result` settles independently of iteration; events buffer until read;
 * - every `[Symbol.asyncIterator]()` call is an independent cursor from the turn's first event;
 * - `break`/`return()` only detaches that cursor, the turn and `result` go on;
 * - iteration ends after the turn's last event; on failure it yields what arrived, then throws;
 * - `include` filters what iteration yields (never what `result` sees).
 */
import type { StopReason, ThoughtEvent, ThoughtEventKind, ToolOutcome, ToolKind } from "../shared/events";

export type EventFilter = readonly ThoughtEventKind[] | ((event: ThoughtEvent) => boolean);

/** Options of one API turn (`AgentThoughtsApi.stream`, `SessionManager.stream`); part of the public API (`src/api.ts`). */
export interface StreamOptions {
  /** Agent name from `agentThoughts.agents` (or "Demo"); default: `agentThoughts.defaultAgent`. */
  agent?: string;
  /** Start a fresh session instead of continuing the agent's current one. */
  newSession?: boolean;
  /** Continue this session (from a `ThoughtEvent.sessionId`); takes precedence over `agent`. */
  sessionId?: string;
  /** Only these event kinds (or events passing this predicate) are yielded by iteration. */
  include?: EventFilter;
  /** Aborting cancels the turn (`session/cancel`); pending permission requests resolve as cancelled. */
  signal?: AbortSignal;
}

export interface ToolCallSummary { toolCallId: string; title: string; toolKind?: ToolKind; outcome?: ToolOutcome }

/** What a finished turn produced. */
export interface TurnResult {
  sessionId: string;
  turnId: number;
  stopReason: StopReason;
  /** The agent's message text for this turn, concatenated. */
  text: string;
  /** The agent's thought text for this turn, concatenated. */
  thoughts: string;
  toolCalls: ToolCallSummary[];
  /** Number of events in the turn (unfiltered). */
  eventCount: number;
  /** `PromptResponse.usage` where the agent reports it. */
  usage?: Record<string, unknown>;
}

/** Error a turn fails with: the agent crashed, refused the prompt, or the connection broke. */
export class TurnError extends Error {
  constructor(message: string, readonly code?: number, readonly detail?: string) {
    super(message);
    this.name = "TurnError";
  }
}

/**
 * The producer side of one turn: the session pushes the turn's events and then settles it.
 * Consumers read through `ThoughtStream`s, each from the turn's first event, so a feed for streams
 * keeps every event until the turn is dropped. A feed for a caller that reads only the result
 * (`SessionManager.run`: the panel, commands) keeps none: the session log has them, compacted
 * (kept here too, a 200,000-chunk turn held some 50 MB of the extension host's heap until it ended).
 */
export class TurnFeed {
  /** The turn's events, for `ThoughtStream`s; none when the feed does not keep them. */
  readonly events: ThoughtEvent[] = [];
  private pushed = 0;
  private settled: { ok: true; result: TurnResult } | { ok: false; error: Error } | undefined;
  private wakers: (() => void)[] = [];
  readonly result: Promise<TurnResult>;
  private resolveResult!: (r: TurnResult) => void;
  private rejectResult!: (e: Error) => void;

  constructor(readonly keeps = true) {
    this.result = new Promise<TurnResult>((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    // Nobody may ever await a failed turn's result; the failure still reaches iterators and the log.
    this.result.catch(() => undefined);
  }

  /** Events pushed, kept or not. */
  get count(): number {
    return this.pushed;
  }

  get isSettled(): boolean {
    return this.settled !== undefined;
  }

  push(event: ThoughtEvent): void {
    if (this.settled) return;
    this.pushed++;
    if (!this.keeps) return;
    this.events.push(event);
    this.wake();
  }

  finish(result: TurnResult): void {
    if (this.settled) return;
    this.settled = { ok: true, result };
    this.resolveResult(result);
    this.wake();
  }

  fail(error: Error): void {
    if (this.settled) return;
    this.settled = { ok: false, error };
    this.rejectResult(error);
    this.wake();
  }

  /** Resolves when there is an event past `index` or the turn settled. */
  async waitFor(index: number): Promise<void> {
    if (index < this.events.length || this.settled) return;
    await new Promise<void>((resolve) => this.wakers.push(resolve));
  }

  /** After the last event: `undefined` while running, else how the turn ended. */
  get outcome(): { ok: true } | { ok: false; error: Error } | undefined {
    if (!this.settled) return undefined;
    return this.settled.ok ? { ok: true } : { ok: false, error: this.settled.error };
  }

  private wake(): void {
    const w = this.wakers;
    this.wakers = [];
    for (const f of w) f();
  }
}

function matcher(include: EventFilter | undefined): (e: ThoughtEvent) => boolean {
  if (!include) return () => true;
  if (typeof include === "function") return include;
  const kinds = new Set<ThoughtEventKind>(include);
  return (e) => kinds.has(e.kind);
}

export interface ThoughtStreamOptions {
  include?: EventFilter;
  /** Called by `cancel()`: asks the agent to stop the turn. */
  cancel?: () => void;
}

export class ThoughtStream implements AsyncIterable<ThoughtEvent> {
  private readonly accept: (e: ThoughtEvent) => boolean;

  constructor(private readonly feed: TurnFeed, private readonly options: ThoughtStreamOptions = {}) {
    if (!feed.keeps) throw new Error("a ThoughtStream reads a feed that keeps its events");
    this.accept = matcher(options.include);
  }

  /** Settles when the turn ends, whether or not anyone iterates. */
  get result(): Promise<TurnResult> {
    return this.feed.result;
  }

  /** Asks the agent to cancel the turn (`session/cancel`); `result` then resolves with `cancelled`. */
  cancel(): void {
    this.options.cancel?.();
  }

  /** A new stream over the same turn with another filter. */
  filter(include: EventFilter): ThoughtStream {
    return new ThoughtStream(this.feed, { ...this.options, include });
  }

  [Symbol.asyncIterator](): AsyncIterator<ThoughtEvent> {
    const feed = this.feed;
    const accept = this.accept;
    let index = 0;
    let closed = false;
    const done = (): IteratorResult<ThoughtEvent> => ({ done: true, value: undefined });
    return {
      async next(): Promise<IteratorResult<ThoughtEvent>> {
        for (;;) {
          if (closed) return done();
          while (index < feed.events.length) {
            const event = feed.events[index++]!;
            if (accept(event)) return { done: false, value: event };
          }
          const outcome = feed.outcome;
          if (outcome) {
            closed = true;
            if (!outcome.ok) throw outcome.error;
            return done();
          }
          await feed.waitFor(index);
        }
      },
      return(): Promise<IteratorResult<ThoughtEvent>> {
        closed = true;
        return Promise.resolve(done());
      },
    };
  }

  /** The same events as a WHATWG `ReadableStream` (cancelling it detaches, the turn goes on). */
  toReadableStream(): ReadableStream<ThoughtEvent> {
    const it = this[Symbol.asyncIterator]();
    return new ReadableStream<ThoughtEvent>({
      async pull(controller) {
        try {
          const r = await it.next();
          if (r.done) controller.close();
          else controller.enqueue(r.value);
        } catch (err) {
          controller.error(err);
        }
      },
      async cancel() {
        await it.return?.();
      },
    }, { highWaterMark: 0 });
  }
}

/**
 * Folds a turn's events into its result. `events` may be the turn's events as they came or as the
 * session log keeps them (runs of text chunks joined): the result is the same; `eventCount` is
 * how many came.
 */
export function summariseTurn(events: readonly ThoughtEvent[], eventCount: number, sessionId: string, turnId: number, stopReason: StopReason, usage?: Record<string, unknown>): TurnResult {
  let text = "";
  let thoughts = "";
  const tools = new Map<string, ToolCallSummary>();
  for (const e of events) {
    switch (e.kind) {
      case "message": text += e.text; break;
      case "thought": thoughts += e.text; break;
      case "tool_start": tools.set(e.toolCallId, { toolCallId: e.toolCallId, title: e.title, ...(e.toolKind ? { toolKind: e.toolKind } : {}) }); break;
      case "tool_update": {
        const t = tools.get(e.toolCallId);
        if (t && e.title) t.title = e.title;
        if (t && e.toolKind) t.toolKind = e.toolKind;
        break;
      }
      case "tool_done": {
        const t = tools.get(e.toolCallId);
        if (t) t.outcome = e.outcome;
        break;
      }
      default: break;
    }
  }
  return { sessionId, turnId, stopReason, text, thoughts, toolCalls: [...tools.values()], eventCount, ...(usage ? { usage } : {}) };
}
