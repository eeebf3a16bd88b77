/**
 * The thought panel's patches, as pure functions: the events that arrived during one frame are
 * coalesced (runs of text chunks become one event), bounded for the panel, and folded into the
 * view state; the patch carries them from the old version to the new one.
 */
import { boundEvent } from "../shared/bound";
import type { ThoughtEvent } from "../shared/events";
import type { HostMessage } from "../shared/protocol";
import { reduce, type ViewState } from "../shared/viewModel";

export type PatchMessage = Extract<HostMessage, { type: "patch" }>;

/** Merges runs of text chunks (same session, turn, kind, message) into one event. */
export function coalesce(events: readonly ThoughtEvent[]): ThoughtEvent[] {
  const out: ThoughtEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (last && (e.kind === "thought" || e.kind === "message") && last.kind === e.kind && last.sessionId === e.sessionId && last.turnId === e.turnId
      && (e.kind !== "message" || last.kind !== "message" || last.messageId === e.messageId)) {
      out[out.length - 1] = { ...last, text: last.text + e.text, content: { type: "text", text: last.text + e.text } };
      continue;
    }
    out.push(e);
  }
  return out;
}

/**
 * Folds the events pending since the last patch into `state`. The panel gets bounded events
 * (huge or deeply nested raw data, plans, lists are cut with a marker); the session log, the
 * transcript and exports keep the whole ones. Undefined when nothing is pending.
 */
export function nextPatch(state: ViewState, pending: readonly ThoughtEvent[]): { state: ViewState; patch: PatchMessage } | undefined {
  if (pending.length === 0) return undefined;
  const events = coalesce(pending).map(boundEvent);
  const next = reduce(state, events);
  return { state: next, patch: { type: "patch", from: state.version, to: next.version, events } };
}
