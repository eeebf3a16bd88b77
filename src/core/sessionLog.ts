/**
 * The append-only event log of one session: stamps each event with its sequence number, receipt
 * time and turn, keeps it, and tells listeners synchronously, in order. It is the single source
 * every reader (panel, API streams, exports) replays from.
 */
import type { ThoughtEvent, ThoughtEventBody } from "./events";

export type LogListener = (event: ThoughtEvent) => void;

export interface Disposable { dispose(): void }

export class SessionLog {
  private readonly events: ThoughtEvent[] = [];
  private readonly listeners = new Set<LogListener>();
  private currentTurn: number | undefined;

  constructor(
    /** Our key for the session; replaced by the agent's id once `session/new` answers. */
    public sessionId: string,
    private readonly now: () => number = Date.now,
  ) {}

  get length(): number {
    return this.events.length;
  }

  /** The turn events are currently attributed to. */
  get turnId(): number | undefined {
    return this.currentTurn;
  }

  /** Appends events in order and notifies listeners; returns the stamped events. */
  append(...bodies: ThoughtEventBody[]): ThoughtEvent[] {
    const out: ThoughtEvent[] = [];
    for (const body of bodies) {
      if (body.kind === "turn_start") this.currentTurn = body.turnId;
      const at = this.now();
      const envelope = { seq: this.events.length + 1, at, sessionId: this.sessionId, ...(this.currentTurn !== undefined ? { turnId: this.currentTurn } : {}) };
      const event = { ...body, ...envelope };
      this.events.push(event);
      if (body.kind === "turn_end") this.currentTurn = undefined;
      out.push(event);
      for (const l of this.listeners) {
        try {
          l(event);
        } catch (err) {
          // A faulty reader must not stop the others or the writer.
          queueMicrotask(() => { throw err; });
        }
      }
    }
    return out;
  }

  /** Ends turn attribution without a `turn_end` (the turn failed; an `error` event says why). */
  closeTurn(): void {
    this.currentTurn = undefined;
  }

  /** Events with `seq` greater than `afterSeq` (all when omitted). */
  since(afterSeq = 0): readonly ThoughtEvent[] {
    return afterSeq <= 0 ? this.events.slice() : this.events.slice(afterSeq);
  }

  all(): readonly ThoughtEvent[] {
    return this.events;
  }

  subscribe(listener: LogListener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  }
}
