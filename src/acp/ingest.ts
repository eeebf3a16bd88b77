/**
 * Agent output handled in time-budgeted slices, shared by every agent: one event-loop turn spends
 * at most `INGEST_SLICE_MS` on agent lines, then the extension host gets a turn (timers, the
 * panel's messages, a Stop, a permission answer, the user's typing in other extensions) before the
 * next slice. A source with lines left over is paused — its stdout is no longer read, so the pipe
 * fills and the agent's own writes wait — and resumed once its lines are handled. Ten agents
 * writing flat out therefore cost the host a bounded share of each turn instead of a queue that
 * grows without limit or a loop blocked for as long as their output takes to handle.
 */

/** The longest stretch of agent output handled in one event-loop turn, across all agents. */
export const INGEST_SLICE_MS = 8;

/** One agent's output as the scheduler sees it. */
export interface IngestSource {
  /** Handles one waiting line; false when there is none. */
  next(): boolean;
  /** Whether lines are waiting. */
  readonly waiting: boolean;
  /** Stop reading the agent's stdout (its writes then wait in the pipe). */
  pause(): void;
  /** Read it again. */
  resume(): void;
}

export class IngestScheduler {
  /** When the current turn's slice started (-1: no slice this turn). */
  private sliceStart = -1;
  private scheduled = false;
  /** Sources with lines left over, in the order they ran out of time (round-robin). */
  private readonly backlog: IngestSource[] = [];

  constructor(private readonly sliceMs = INGEST_SLICE_MS, private readonly now: () => number = () => performance.now()) {}

  /**
   * New lines are waiting in `source`: handled now while this turn's slice lasts (and nothing of
   * the same source waits before them), else later in order.
   */
  run(source: IngestSource): void {
    if (this.backlog.includes(source)) return;
    if (!this.drain(source)) this.defer(source);
  }

  /** Handles `source`'s lines while the slice lasts; true when none are left. */
  private drain(source: IngestSource): boolean {
    while (source.waiting) {
      if (!this.budget()) return false;
      source.next();
    }
    return true;
  }

  private budget(): boolean {
    const t = this.now();
    if (this.sliceStart < 0) {
      this.sliceStart = t;
      this.schedule();
    }
    return t - this.sliceStart < this.sliceMs;
  }

  private defer(source: IngestSource): void {
    source.pause();
    this.backlog.push(source);
    this.schedule();
  }

  /** The next turn: a fresh slice, spent on the backlog round-robin. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sliceStart = -1;
      const sources = this.backlog.splice(0);
      for (let i = 0; i < sources.length; i++) {
        const source = sources[i]!;
        if (this.drain(source)) {
          source.resume();
          continue;
        }
        // Out of time: the rest go first next turn, then this one.
        this.backlog.push(...sources.slice(i + 1), source);
        this.schedule();
        return;
      }
    });
  }
}

/** The scheduler all agents of this extension host share. */
export const agentIngest = new IngestScheduler();
