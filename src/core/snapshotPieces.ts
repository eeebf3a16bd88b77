/**
 * A large snapshot sent in pieces. Posting a message serialises it whole on the extension host's
 * thread (about 50 ms a megabyte here), and the webview shows nothing before all of it has
 * arrived: a panel opened on long sessions would hold the host for hundreds of milliseconds and
 * stay blank for seconds. So the snapshot's first message has every session with only its newest
 * turns (the shown session's up to a piece, the others' up to a sixteenth of one), each marked with
 * how many earlier turns are to come (`earlier`), and the rest follows in pieces of whole turns,
 * newest first, the shown session's first. The pieces are of the state the snapshot was taken
 * from (the reducer never changes a state it was given), so they fit whatever came before them.
 */
import { withTurns, type SessionView, type TurnView, type ViewState } from "../shared/viewModel";

/** One piece: earlier turns of a session, to be put before those the webview has (`prependTurns`); `done`: they are its first. */
export interface SnapshotPiece {
  sessionId: string;
  turns: TurnView[];
  done: boolean;
}

export interface SnapshotPlan {
  /** The first message's state; the very state given when nothing is left out (then there are no pieces). */
  head: ViewState;
  /** The rest, made (and measured) one at a time as they are taken. */
  pieces: Generator<SnapshotPiece, void, undefined>;
}

/** A title's worth of the first prompt for a view whose first turn is still to come. */
const PROMPT_CHARS = 1_000;

/**
 * About how long `value` is as JSON: its strings and keys, and a few characters for each value;
 * counted only until it is past `limit` (a huge turn costs no more to measure than a piece).
 */
export function jsonLengthPast(value: unknown, limit: number): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && n <= limit) {
    const x = stack.pop();
    if (typeof x === "string") n += x.length + 2;
    else if (Array.isArray(x)) {
      n += 2;
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i]);
    } else if (x !== null && typeof x === "object") {
      n += 2;
      for (const [k, y] of Object.entries(x)) {
        n += k.length + 4;
        stack.push(y);
      }
    } else n += 6;
  }
  return n;
}

/** Where the newest turns of `turns` that fit in `budget` start (at least `least` of them, if there are). */
function newestWithin(turns: readonly TurnView[], end: number, budget: number, least: number): number {
  let size = 0;
  let start = end;
  while (start > 0) {
    const next = jsonLengthPast(turns[start - 1], budget - size);
    if (end - start >= least && size + next > budget) break;
    size += next;
    start--;
  }
  return start;
}

export function planSnapshot(state: ViewState, shownId: string | undefined, pieceChars: number): SnapshotPlan {
  const cuts = new Map<string, number>();
  let sessions: Record<string, SessionView> | undefined;
  for (const id of state.order) {
    const s = state.sessions[id];
    if (!s || s.turns.length === 0) continue;
    const shown = id === shownId;
    const cut = newestWithin(s.turns, s.turns.length, shown ? pieceChars : pieceChars / 16, shown ? 1 : 0);
    if (cut === 0) continue;
    cuts.set(id, cut);
    sessions ??= { ...state.sessions };
    const last = s.turns[s.turns.length - 1]!;
    sessions[id] = { ...withTurns(s, s.turns.slice(cut)), earlier: { turns: cut, prompt: s.turns[0]!.prompt.slice(0, PROMPT_CHARS), lastAt: last.endedAt ?? last.startedAt } };
  }
  const head = sessions ? { ...state, sessions } : state;
  // The shown session's first, then the others, the newest first.
  const order = [...cuts.keys()].sort((a, b) => (a === shownId ? -1 : b === shownId ? 1 : state.order.indexOf(b) - state.order.indexOf(a)));
  function* pieces(): Generator<SnapshotPiece, void, undefined> {
    for (const sessionId of order) {
      const turns = state.sessions[sessionId]!.turns;
      let end = cuts.get(sessionId)!;
      while (end > 0) {
        const start = newestWithin(turns, end, pieceChars, 1);
        yield { sessionId, turns: turns.slice(start, end), done: start === 0 };
        end = start;
      }
    }
  }
  return { head, pieces: pieces() };
}
