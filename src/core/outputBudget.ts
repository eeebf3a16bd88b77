/**
 * How much an agent may send in one turn before the rest is dropped. Everything an agent sends is
 * kept whole (the session log, the view state, the panel's replica), so an agent that floods —
 * hostile, or steered into it — would otherwise grow the extension host and the panel's renderer
 * until one of them dies. Real turns stay far below the limits: the bench's largest thought is
 * 4.9 MB; recorded turns of real agents send a few hundred kilobytes.
 *
 * Two measures, since what is held differs: the characters of thought and message text (chunks
 * of a run are joined, so a chunk costs its text, not its envelope), and the JSON of every other
 * update (kept as it came: a diff carries whole files).
 */

/**
 * Characters of thought and message text one turn may bring. The panel draws a long thought as
 * blocks of 2 KB (about 600 elements a megabyte): at this limit, under 5,000.
 */
export const TURN_TEXT_LIMIT = 8 * 1024 * 1024;
/** Characters of JSON of its other updates (tool calls, plans, …) one turn may bring. */
export const TURN_UPDATE_LIMIT = 64 * 1024 * 1024;

/** What an update costs: its text, for a text chunk of the agent's; else its JSON's length (`size`, as read from the wire). */
export function outputCost(update: unknown, size: number): { text: number; other: number } {
  if (typeof update === "object" && update !== null) {
    const u = update as { sessionUpdate?: unknown; content?: unknown };
    if (u.sessionUpdate === "agent_thought_chunk" || u.sessionUpdate === "agent_message_chunk") {
      const c = u.content as { type?: unknown; text?: unknown } | null | undefined;
      if (c?.type === "text" && typeof c.text === "string") return { text: c.text.length, other: 0 };
    }
  }
  return { text: 0, other: size };
}

/** `take`'s verdict: keep the update, keep none from now on (this one crossed a limit), or drop it (one was crossed before). */
export type BudgetVerdict = "keep" | "crossed" | "drop";

/** The output of one turn against the limits; `reset` at each turn's start. */
export class OutputBudget {
  private text = 0;
  private other = 0;
  private over: "text" | "other" | undefined;
  /** Updates dropped since the limit was crossed. */
  dropped = 0;

  constructor(readonly textLimit = TURN_TEXT_LIMIT, readonly updateLimit = TURN_UPDATE_LIMIT) {}

  /** Which limit was crossed this turn, if any. */
  get crossed(): "text" | "other" | undefined {
    return this.over;
  }

  reset(): void {
    this.text = 0;
    this.other = 0;
    this.over = undefined;
    this.dropped = 0;
  }

  /** Counts an update (see `outputCost`). The one that takes a measure past its limit is the first not kept. */
  take(update: unknown, size: number): BudgetVerdict {
    if (this.over) {
      this.dropped++;
      return "drop";
    }
    const cost = outputCost(update, size);
    this.text += cost.text;
    this.other += cost.other;
    if (this.text <= this.textLimit && this.other <= this.updateLimit) return "keep";
    this.over = this.text > this.textLimit ? "text" : "other";
    this.dropped = 1;
    return "crossed";
  }
}

/** "8 MB" (MiB, as the limits are written). */
export function megabytes(chars: number): string {
  return `${Math.round(chars / (1024 * 1024))} MB`;
}
