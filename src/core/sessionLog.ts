/**
 * The append-only event log of one session: stamps each event with its sequence number, receipt
 * time and turn, keeps it, and tells listeners synchronously, in order. It is the single source
 * every reader (panel, API streams, exports) replays from.
 *
 * Listeners get every event as it comes. What the log keeps is compacted: a run of text chunks of
 * one kind (thought or message) in one message of one turn is kept as one event with
 * their text joined, the first chunk's time and the last chunk's sequence number. Real agents send
 * a thought as thousands of chunks of a few characters; kept one object each, a 200,000-chunk
 * session held about 50 MB of the extension host's heap for 4.8 MB of text.
 */
import { Emitter, type Disposable } from "./emitter";
import { isPlainText, type ThoughtEvent, type ThoughtEventBody } from "../shared/events";

export type LogListener = (event: ThoughtEvent) => void;

export type { Disposable };

/** A text chunk of the agent's: a thought or a message. */
export type ChunkEvent = Extract<ThoughtEvent, { kind: "thought" | "message" }>;

/** Pieces joined into one string once this many wait (keeps the pieces few without copying the whole run each time). */
const JOIN_PIECES = 512;

/** An open run of text chunks: the kept event at `index` is their join (made when read). */
interface Run {
  index: number;
  first: ChunkEvent;
  lastSeq: number;
  /** Joined text so far, in order. */
  blocks: string[];
  /** Texts not yet joined. */
  pieces: string[];
}

/**
 * A text chunk of the agent's that joins a run. The user's own message blocks never join: each is
 * a block of the prompt (two text blocks are two paragraphs, not one string).
 */
function isChunk(e: ThoughtEvent): e is ChunkEvent {
  return e.kind === "thought" || e.kind === "message";
}

/** A run's one event: its first chunk's fields and `from` (see EventEnvelope), the joined text, its last chunk's `seq`. */
function joinedRun(first: ChunkEvent, text: string, lastSeq: number): ChunkEvent {
  return { ...first, text, content: { type: "text", text }, seq: lastSeq, from: first.from ?? first.seq };
}

function sameRun(a: ChunkEvent, b: ChunkEvent): boolean {
  return a.kind === b.kind && a.messageId === b.messageId && a.turnId === b.turnId && a.replayed === b.replayed && a.cuts === undefined && b.cuts === undefined;
}

/**
 * How runs of text chunks are joined: a run starts at an event `starts` accepts and goes on while
 * `continues(first, next)`; `joined` makes its one event from its first and last chunk and text.
 */
export interface RunRules {
  starts(e: ThoughtEvent): e is ChunkEvent;
  continues(first: ChunkEvent, next: ThoughtEvent): next is ChunkEvent;
  joined(first: ChunkEvent, last: ChunkEvent, text: string): ThoughtEvent;
}

/** `events` with each run of text chunks joined into one event, by `rules`. The log's transcript lines and the panel's patches join runs this way. */
export function joinRuns(events: readonly ThoughtEvent[], rules: RunRules): ThoughtEvent[] {
  const queue = new RunQueue(rules);
  for (const e of events) queue.push(e);
  return queue.take();
}

/**
 * Events waiting to be handed on (the next transcript write, the next panel patch), joined by
 * `rules` as they come: of a run of text chunks only its first and last chunk and the texts are
 * kept, and the chunk events die at once. Queued whole for a frame or longer (the transcript for
 * 200 ms), a flood's chunk events outlived the young generation: the extension host's old space
 * grew 6.5 MB a second at 20,000 chunks a second, 2 MB with runs joined as they come.
 */
export class RunQueue {
  private done: ThoughtEvent[] = [];
  private first: ChunkEvent | undefined;
  private last: ChunkEvent | undefined;
  private texts: string[] = [];

  constructor(private readonly rules: RunRules) {}

  push(e: ThoughtEvent): void {
    if (this.first && this.rules.continues(this.first, e)) {
      this.texts.push(e.text);
      this.last = e;
      return;
    }
    this.close();
    if (this.rules.starts(e)) {
      this.first = this.last = e;
      this.texts = [e.text];
    } else {
      this.done.push(e);
    }
  }

  /** Everything queued, runs joined, in order; the queue is empty after. */
  take(): ThoughtEvent[] {
    this.close();
    const out = this.done;
    this.done = [];
    return out;
  }

  private close(): void {
    const { first, last } = this;
    if (!first || !last) return;
    this.done.push(last === first ? first : this.rules.joined(first, last, this.texts.join("")));
    this.first = this.last = undefined;
    this.texts = [];
  }
}

/** Runs as the log keeps them: one kind, message and turn, plain text; the first chunk's time, the last chunk's sequence number. */
export const LOG_RUNS: RunRules = {
  starts: (e): e is ChunkEvent => isChunk(e) && isPlainText(e),
  continues: (first, next): next is ChunkEvent => isChunk(next) && isPlainText(next) && sameRun(first, next),
  joined: (first, last, text) => joinedRun(first, text, last.seq),
};

/** `events` with each run of text chunks joined as the log keeps them (LOG_RUNS). */
export function joinChunkRuns(events: readonly ThoughtEvent[]): ThoughtEvent[] {
  return joinRuns(events, LOG_RUNS);
}

export class SessionLog {
  private readonly events: ThoughtEvent[] = [];
  private run: Run | undefined;
  /** Events appended so far (kept events are fewer: runs of chunks are one). */
  private appended = 0;
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

  /** How many events were appended (each chunk counts). */
  get length(): number {
    return this.appended;
  }

  /** The last sequence number used (the saved events' last one for a continued session with nothing new yet). */
  get lastSeq(): number {
    return this.baseSeq + this.appended;
  }

  /** While true, appended events are marked `replayed` (an agent's replay of earlier history). */
  replaying = false;

  /** Appends events in order and notifies listeners; returns the stamped events. */
  append(...bodies: ThoughtEventBody[]): ThoughtEvent[] {
    const out: ThoughtEvent[] = [];
    for (const body of bodies) {
      if (body.kind === "turn_start") this.currentTurn = body.turnId;
      const at = this.now();
      this.appended++;
      // Object.assign, then the envelope: V8 (Node 20) allocated about ten times as much for
      // `{ ...body, seq, … }` or for adding fields to a spread copy, once per streamed chunk.
      const event = Object.assign({}, body) as ThoughtEvent;
      event.seq = this.baseSeq + this.appended;
      event.at = at;
      event.sessionId = this.sessionId;
      if (this.currentTurn !== undefined) event.turnId = this.currentTurn;
      if (this.replaying) event.replayed = true;
      this.keep(event);
      if (body.kind === "turn_end") this.currentTurn = undefined;
      out.push(event);
      this.listeners.fire(event);
    }
    return out;
  }

  private keep(event: ThoughtEvent): void {
    const run = this.run;
    if (isChunk(event) && isPlainText(event)) {
      if (run && sameRun(run.first, event)) {
        run.pieces.push(event.text);
        if (run.pieces.length >= JOIN_PIECES) run.blocks.push(run.pieces.splice(0).join(""));
        run.lastSeq = event.seq;
        return;
      }
      this.closeRun();
      this.run = { index: this.events.length, first: event, lastSeq: event.seq, blocks: [], pieces: [event.text] };
      this.events.push(event);
      return;
    }
    this.closeRun();
    this.events.push(event);
  }

  /** Writes the open run's joined event into its place. */
  private closeRun(): void {
    if (!this.run) return;
    this.materialise(this.run);
    this.run = undefined;
  }

  private materialise(run: Run): void {
    // Already written up to its last chunk (or a run of one chunk, kept as it came).
    if (this.events[run.index]!.seq === run.lastSeq) return;
    const text = [...run.blocks, ...run.pieces].join("");
    run.blocks = [text];
    run.pieces = [];
    this.events[run.index] = joinedRun(run.first, text, run.lastSeq);
  }

  /** Ends turn attribution without a `turn_end` (the turn failed; an `error` event says why). */
  closeTurn(): void {
    this.currentTurn = undefined;
  }

  /** The kept events (runs of text chunks joined, see above), in order. */
  all(): readonly ThoughtEvent[] {
    if (this.run) this.materialise(this.run);
    return this.events;
  }

  /** The kept events of one turn, in order (searched back from the end to the turn's start). */
  turn(turnId: number): ThoughtEvent[] {
    const all = this.all();
    const out: ThoughtEvent[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const e = all[i]!;
      if (e.turnId !== turnId) continue;
      out.push(e);
      if (e.kind === "turn_start") break;
    }
    return out.reverse();
  }

  /** The last event kept (a run of chunks joined so far). */
  last(): ThoughtEvent | undefined {
    if (this.run && this.run.index === this.events.length - 1) this.materialise(this.run);
    return this.events[this.events.length - 1];
  }

  subscribe(listener: LogListener): Disposable {
    return this.listeners.event(listener);
  }
}
