/**
 * The thought panel's patches, as pure functions: the events that arrived during one frame are
 * coalesced (runs of text chunks become one event), bounded for the panel, and folded into the
 * view state; the patch carries them from the old version to the new one.
 */
import { boundEvent } from "../shared/bound";
import { packEvent, type ThoughtEvent } from "../shared/events";
import { joinRuns, RunQueue, type ChunkEvent, type RunRules } from "./sessionLog";
import type { HostMessage } from "../shared/protocol";
import { reduce, type TurnView, type ViewState } from "../shared/viewModel";

export type PatchMessage = Extract<HostMessage, { type: "patch" }>;

/** The panel's runs of text chunks: same session, turn, kind and message; one event with the first chunk's fields. */
export const PANEL_RUNS: RunRules = {
  starts: (e): e is ChunkEvent => e.kind === "thought" || e.kind === "message",
  continues: (first, next): next is ChunkEvent => next.kind === first.kind && next.sessionId === first.sessionId && next.turnId === first.turnId && (next.kind !== "message" || next.messageId === first.messageId),
  joined: (first, _last, text) => ({ ...first, text, content: { type: "text", text } }),
};

/** Merges runs of text chunks (PANEL_RUNS) into one event, its text joined once. */
export function coalesce(events: readonly ThoughtEvent[]): ThoughtEvent[] {
  return joinRuns(events, PANEL_RUNS);
}

/** Events waiting for the next patch, their runs joined as they come (see RunQueue). */
export function patchQueue(): RunQueue {
  return new RunQueue(PANEL_RUNS);
}

/**
 * Folds the events pending since the last patch (their runs already joined by the queue) into
 * `state`, and empties the queue. The panel gets bounded events (huge or deeply nested raw data,
 * plans, lists are cut with a marker); the session log, the transcript and exports keep the whole
 * ones; a text chunk's text travels once (`packEvent`). Undefined when nothing is pending.
 */
export function nextPatch(state: ViewState, pending: RunQueue): { state: ViewState; patch: PatchMessage } | undefined {
  const taken = pending.take();
  if (taken.length === 0) return undefined;
  const events = taken.map(boundEvent);
  const next = reduce(state, events);
  return { state: next, patch: { type: "patch", from: state.version, to: next.version, events: events.map(packEvent) } };
}

/**
 * Makes a finished turn's thoughts and messages hold the session log's strings rather than copies
 * of their own: the panel's state grew each entry's text patch by patch, the log joined the same
 * chunks into one string, and both were kept (a 200,000-chunk session held its 4.8 MB of text
 * twice in the extension host). An entry takes the log's string only where the two are the same
 * text (an entry the panel cut, or one that spans several of the log's runs, keeps its own), so
 * nothing the panel shows changes. `logged`: the turn's kept events (SessionLog.turn). Returns how
 * many entries now share their text.
 */
export function shareLoggedText(turn: TurnView, logged: readonly ThoughtEvent[]): number {
  const texts = new Map<string, string>();
  for (const e of logged) if (e.kind === "thought" || e.kind === "message") texts.set(`e${e.from ?? e.seq}`, e.text);
  let shared = 0;
  for (const entry of turn.entries) {
    if (entry.type !== "thought" && entry.type !== "message") continue;
    const text = texts.get(entry.id);
    if (text === undefined || text !== entry.text) continue;
    // The same text: written in place, no new version (every reader sees the same characters).
    entry.text = text;
    shared++;
  }
  return shared;
}

/** Event kinds that carry a session's text and output: for sessions the panel does not show, held back a while (HeldText). */
const TEXT_KINDS: ReadonlySet<ThoughtEvent["kind"]> = new Set<ThoughtEvent["kind"]>(["thought", "message", "tool_update", "plan", "usage"]);

/**
 * The text of the sessions the panel does not show, held back so that it reaches the panel a few
 * times a second as one joined run per session instead of with every frame: ten agents streaming
 * then cost the panel about one stream, and the panel still has every session, so picking one
 * shows it at once. Each session's events keep their order: any other event of a session (a tool
 * call, a question, the end of its turn) lets its held text go first.
 */
export class HeldText {
  /** Per session, its held events in order, runs joined (sessions in the order they first held something). */
  private readonly held = new Map<string, RunQueue>();

  /** How many sessions have text held. */
  get sessions(): number {
    return this.held.size;
  }

  /** What of `e` may go to the panel now, in order: nothing (held), or the session's held events and then `e`. */
  take(e: ThoughtEvent, shown: string | undefined): ThoughtEvent[] {
    if (e.sessionId !== shown && TEXT_KINDS.has(e.kind)) {
      let queue = this.held.get(e.sessionId);
      if (!queue) this.held.set(e.sessionId, queue = patchQueue());
      queue.push(e);
      return [];
    }
    return this.held.has(e.sessionId) ? [...this.release(e.sessionId), e] : [e];
  }

  /** The held events of `sessionId`, in order, no longer held; undefined: every session's, one session after another. */
  release(sessionId?: string): ThoughtEvent[] {
    if (sessionId !== undefined) {
      const events = this.held.get(sessionId)?.take() ?? [];
      this.held.delete(sessionId);
      return events;
    }
    const out: ThoughtEvent[] = [];
    for (const queue of this.held.values()) for (const e of queue.take()) out.push(e);
    this.held.clear();
    return out;
  }
}

/** What the host knows of a webview's progress: the last version posted to it (and when), the last it said it applied. */
export interface ViewProgress { ready: boolean; posted: number; postedAt: number; applied: number }

/**
 * Flow control for patches: 0 when the next patch may go now, else the time (same clock as `now`)
 * until which it waits for a ready webview to apply the last one; a webview silent for `waitMs`
 * no longer holds it up.
 */
export function patchHeldUntil(views: Iterable<ViewProgress>, now: number, waitMs: number): number {
  let until = 0;
  for (const v of views) if (v.ready && v.applied < v.posted && now - v.postedAt < waitMs) until = Math.max(until, v.postedAt + waitMs);
  return until;
}
