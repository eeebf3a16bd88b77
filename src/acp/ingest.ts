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

/**
 * How many more chunks of its stdout (each at most 64 KB) a hurried agent's are read while its
 * lines still wait: enough for a write it is blocked in to complete, a bound for one that goes on
 * writing regardless.
 */
export const HURRY_CHUNKS = 16;

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
  /** Hurried sources read on while their lines wait, and how many more chunks they may bring. */
  private readonly hurried = new Map<IngestSource, number>();

  constructor(private readonly sliceMs = INGEST_SLICE_MS, private readonly now: () => number = () => performance.now()) {}

  /**
   * New lines are waiting in `source`: handled now while this turn's slice lasts (and nothing of
   * the same source waits before them), else later in order.
   */
  run(source: IngestSource): void {
    if (this.backlog.includes(source)) {
      // Read on while hurried (the lines join those waiting), then paused again.
      const left = this.hurried.get(source);
      if (left !== undefined && left <= 1) {
        this.hurried.delete(source);
        source.pause();
      } else if (left !== undefined) this.hurried.set(source, left - 1);
      return;
    }
    if (!this.drain(source)) this.defer(source);
  }

  /**
   * We sent `source`'s agent something it must read at once (a Stop): while its lines wait, its
   * stdout is not read, and an agent whose writes block on a full pipe (Node's stdout to a pipe
   * does) does not read its input either. Its lines go first next turn, and its stdout is read on
   * for up to HURRY_CHUNKS chunks, so the write it is in completes and it gets to its input.
   */
  hurry(source: IngestSource): void {
    const at = this.backlog.indexOf(source);
    if (at < 0) return;
    this.backlog.splice(at, 1);
    this.backlog.unshift(source);
    if (!this.hurried.has(source)) {
      this.hurried.set(source, HURRY_CHUNKS);
      source.resume();
    }
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
          this.hurried.delete(source);
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
