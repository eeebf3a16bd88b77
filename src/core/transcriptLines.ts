/**
 * The lines of a saved transcript, and what the history index keeps about a session, as pure
 * functions (the files themselves are `vscode/transcripts.ts`'s).
 *
 * A text chunk (`thought`, `message`, `user_message`) carries its text twice: as `text` and as the
 * content block `{type: "text", text}` the agent sent. A line keeps the text once — the content
 * block is written only when it is something else (a resource, an image) — and reading puts the
 * block back, so lines written before (which have both) read the same.
 */
import { packEvent, type SessionAbilities, type ThoughtEvent } from "../shared/events";
import type { SavedSession } from "../shared/viewModel";
import { boundEvent } from "../shared/bound";
import { pairSafeEnd } from "../shared/utf16";
import { parseThoughtEvent } from "./eventSchema";
import { stringifyJson } from "./json";

/** Characters of a title or first prompt the index keeps. */
export const SAVED_TEXT_MAX = 200;
/** Characters of an agent name, agent id or folder the index keeps. */
const SAVED_NAME_MAX = 1_000;
/** An agent session id longer than this is left out of the index (the transcript has it). */
const SAVED_ID_MAX = 4_096;

/** The transcript line of an event: JSON, with a text chunk's text once. */
export function transcriptLine(e: ThoughtEvent): string {
  // A prompt's images are written as their type and thumbnail, not their data (see README, Transcripts).
  if (e.kind === "user_message" || e.kind === "turn_start") e = boundEvent(e);
  return stringifyJson(packEvent(e));
}

/** A transcript line read back: JSON, the text chunk's content block put back, checked against the event vocabulary. */
export function eventFromLine(line: string): { event: ThoughtEvent } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: "not JSON" };
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if ((o.kind === "thought" || o.kind === "message" || o.kind === "user_message") && o.content === undefined && typeof o.text === "string") {
      o.content = { type: "text", text: o.text };
    }
  }
  return parseThoughtEvent(value);
}

/** `s` cut to `max` characters (not splitting a surrogate pair), with an ellipsis when cut. */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  return `${s.slice(0, pairSafeEnd(s, max - 1))}…`;
}

function cleanAbilities(a: SessionAbilities): SessionAbilities {
  const out: SessionAbilities = {};
  for (const k of ["load", "resume", "list", "close", "delete", "fork"] as const) if (typeof a[k] === "boolean") out[k] = a[k];
  return out;
}

/** The index entry of a session whose first event is `e`, before anything is known of it. */
export function emptySaved(e: ThoughtEvent): SavedSession {
  return { sessionId: e.sessionId, agentName: "agent", cwd: "", startedAt: e.at, lastAt: e.at, bytes: 0, turns: 0 };
}

/**
 * What an event tells the index about its session (in place): the agent and folder from its
 * start, the title, the first prompt, the number of turns and the last event's time. Bounded: the
 * index holds every saved session of a workspace and agent text can be any size.
 */
export function noteEvent(s: SavedSession, e: ThoughtEvent): void {
  s.lastAt = Math.max(s.lastAt, e.at);
  s.startedAt = Math.min(s.startedAt, e.at);
  if (e.turnId !== undefined) s.turns = Math.max(s.turns, e.turnId);
  switch (e.kind) {
    case "session_start":
      s.agentName = cut(e.agentName, SAVED_NAME_MAX);
      if (e.agentId !== undefined) s.agentId = cut(e.agentId, SAVED_NAME_MAX);
      s.cwd = cut(e.cwd, SAVED_NAME_MAX);
      if (e.agentSessionId !== undefined && e.agentSessionId.length <= SAVED_ID_MAX) s.agentSessionId = e.agentSessionId;
      if (e.abilities) s.abilities = cleanAbilities(e.abilities);
      return;
    case "turn_start":
      s.turns = Math.max(s.turns, e.turnId);
      if (s.prompt === undefined) {
        const text = e.prompt.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ").replace(/\s+/g, " ").trim();
        if (text) s.prompt = cut(text, SAVED_TEXT_MAX);
      }
      return;
    case "session_info":
      if (e.title === null) delete s.title;
      else if (e.title !== undefined) s.title = cut(e.title, SAVED_TEXT_MAX);
      return;
    default:
      return;
  }
}
