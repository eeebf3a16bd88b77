/**
 * The append-only event log of one session: stamps each event with its sequence number, receipt
 * time and turn, keeps it, and tells listeners synchronously, in order. It is the single source
 * every reader (panel, API streams, exports) replays from.
 */
import { Emitter, type Disposable } from "./emitter";
import type { ThoughtEvent, ThoughtEventBody } from "../shared/events";

export type LogListener = (event: ThoughtEvent) => void;

export type { Disposable };

export class SessionLog {
  private readonly events: ThoughtEvent[] = [];
  /** A faulty reader must not stop the others or the writer: each listener's error is caught and reported. */
  private readonly listeners: Emitter<ThoughtEvent>;
  private currentTurn: number | undefined;

  constructor(
    /** Our key for the session; replaced by the agent's id once `session/new` answers. */
    public sessionId: string,
    private readonly now: () => number = Date.now,
    onListenerError?: (err: unknown) => void,
    /** The last sequence number already used by this session (a continued session goes on after its saved events). */
    private readonly baseSeq = 0,
  ) {
    this.listeners = new Emitter<ThoughtEvent>(onListenerError);
  }

  get length(): number {
    return this.events.length;
  }

  /** The last sequence number used (the saved events' last one for a continued session with nothing new yet). */
  get lastSeq(): number {
    return this.baseSeq + this.events.length;
  }

  /** While true, appended events are marked `replayed` (an agent's replay of earlier history). */
  replaying = false;

  /** Appends events in order and notifies listeners; returns the stamped events. */
  append(...bodies: ThoughtEventBody[]): ThoughtEvent[] {
    const out: ThoughtEvent[] = [];
    for (const body of bodies) {
      if (body.kind === "turn_start") this.currentTurn = body.turnId;
      const at = this.now();
      const envelope = { seq: this.baseSeq + this.events.length + 1, at, sessionId: this.sessionId, ...(this.currentTurn !== undefined ? { turnId: this.currentTurn } : {}), ...(this.replaying ? { replayed: true as const } : {}) };
      const event = { ...body, ...envelope };
      this.events.push(event);
      if (body.kind === "turn_end") this.currentTurn = undefined;
      out.push(event);
      this.listeners.fire(event);
    }
    return out;
  }

  /** Ends turn attribution without a `turn_end` (the turn failed; an `error` event says why). */
  closeTurn(): void {
    this.currentTurn = undefined;
  }

  /** Events with `seq` greater than `afterSeq` (all when omitted). */
  since(afterSeq = 0): readonly ThoughtEvent[] {
    return this.events.slice(Math.max(0, afterSeq - this.baseSeq));
  }

  all(): readonly ThoughtEvent[] {
    return this.events;
  }

  subscribe(listener: LogListener): Disposable {
    return this.listeners.event(listener);
  }
}
