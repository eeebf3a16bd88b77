/**
 * The screen-reader announcements (`#live`, a visually hidden polite live region): a new message
 * from the agent, a permission request, the end of a turn, an agent error. Driven by the events
 * of each patch (never by a snapshot, which would announce history), flushed once per frame.
 */
import type { ThoughtEvent } from "../../shared/events";
import type { ViewState } from "../../shared/viewModel";
import { cleanInline, h } from "../dom";

const STOP_TEXT: Record<string, string> = {
  end_turn: "Turn ended",
  cancelled: "Turn cancelled",
  max_tokens: "Turn stopped: max tokens",
  max_turn_requests: "Turn stopped: too many model requests",
  refusal: "The agent refused",
};

export class Announcer {
  readonly el: HTMLElement;
  private readonly lastKind = new Map<string, string>();
  private pending: string[] = [];
  private last = "";

  constructor() {
    this.el = h("div", { id: "live", class: "visually-hidden", attrs: { "aria-live": "polite", "aria-atomic": "true", role: "status" } });
  }

  /** Notes what a patch brought for the session on screen. */
  observe(events: readonly ThoughtEvent[], state: ViewState, sessionId: string | undefined): void {
    for (const e of events) {
      const prev = this.lastKind.get(e.sessionId);
      this.lastKind.set(e.sessionId, e.kind);
      if (e.sessionId !== sessionId) continue;
      const agent = cleanInline(state.sessions[e.sessionId]?.agentName ?? "the agent", 60);
      switch (e.kind) {
        case "message":
          if (prev !== "message") this.pending.push(`New message from ${agent}`);
          break;
        case "permission_request":
          this.pending.push(`Permission requested: ${cleanInline(e.title, 200)}`);
          break;
        case "turn_end":
          this.pending.push(STOP_TEXT[e.stopReason] ?? "Turn ended");
          break;
        case "error":
          this.pending.push(`${e.fatal ? "Agent stopped" : "Error"}: ${cleanInline(e.message, 200)}`);
          break;
        default:
          break;
      }
    }
  }

  /** Forgets the per-session history (after a snapshot). */
  reset(): void {
    this.lastKind.clear();
    this.pending = [];
  }

  flush(): void {
    if (this.pending.length === 0) return;
    let text = this.pending.slice(-3).join(". ");
    this.pending = [];
    // The same text twice in a row is not re-announced; make it differ.
    if (text === this.last) text += "\u00a0";
    this.last = text;
    this.el.textContent = text;
  }
}
