/**
 * How much an agent may send in one turn before the rest is dropped. Everything an agent sends is
 * kept (the session log keeps events whole; the view state and the panel's replica keep what they
 * show), so an agent that floods — hostile, or steered into it — would otherwise grow the
 * extension host and the panel's renderer until one of them dies. Real turns stay far below the
 * limits: the bench's largest thought is 4.9 MB; recorded turns of real agents send a few hundred
 * kilobytes.
 *
 * Three measures, since what is held differs:
 * - text: the characters of thought and message chunks. A chunk that goes on the run before it
 *   (same kind and message, plain text) costs only its text: the log and the panel join runs.
 * - other: for everything else (and a chunk that starts a run), the update's weight (`jsonWeight`
 *   of its line: its characters, and more for each object, array and element, which take far more
 *   memory parsed than as text), plus EVENT_OVERHEAD for the event it becomes.
 * - entries: what becomes an entry of its own in the panel (a run of text, a tool call).
 */

/** Characters of thought and message text one turn may bring. The panel draws a long thought as blocks of 2 KB (about 600 elements a megabyte): at this limit, under 5,000. */
export const TURN_TEXT_LIMIT = 8 * 1024 * 1024;
/** The weight of one turn's other updates (tool calls, plans, …; see `jsonWeight`). */
export const TURN_UPDATE_LIMIT = 64 * 1024 * 1024;
/** Entries one turn may make: runs of text and tool calls. */
export const TURN_ENTRY_LIMIT = 20_000;
/** What an event costs beyond its update's weight (the event object and its place in the log). */
export const EVENT_OVERHEAD = 96;
/** What a chunk that goes on a run costs beyond its text (an API stream keeps each chunk's event; a flood of empty ones must cost something). */
export const JOINED_CHUNK_COST = 32;
/**
 * The JSON-RPC envelope of a `session/update` line (`jsonrpc`, `method`, `params`, `sessionId`),
 * which is not kept: taken off a line's weight (a line is never weighed below nothing).
 */
export const ENVELOPE_WEIGHT = 160;

/** Weight of a container and of an element in it, beyond its characters: a parsed `[{},{},…]` took about 19 times its text's size in V8. */
const CONTAINER_WEIGHT = 32;
const ELEMENT_WEIGHT = 16;

/**
 * What a JSON text weighs when parsed, roughly: its length, plus CONTAINER_WEIGHT for each object
 * or array and ELEMENT_WEIGHT for each comma outside strings. Strings are skipped with indexOf (a
 * text-heavy line costs little more than finding its quotes); no allocation.
 */
export function jsonWeight(text: string): number {
  let containers = 0;
  let elements = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // To the closing quote: one not preceded by an odd number of backslashes.
      let end = text.indexOf('"', i + 1);
      for (;;) {
        if (end < 0) return text.length + containers * CONTAINER_WEIGHT + elements * ELEMENT_WEIGHT;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92 /* \ */) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) containers++;
    else if (c === 44 /* , */) elements++;
  }
  return text.length + containers * CONTAINER_WEIGHT + elements * ELEMENT_WEIGHT;
}

/**
 * A text chunk of the agent's that the update mapper takes as it is (plain text, a string message
 * id or none) and the log joins to a run: its kind, text and message. (The user's chunks never join.)
 */
function plainChunk(update: unknown): { kind: string; text: string; messageId: string | undefined } | undefined {
  if (typeof update !== "object" || update === null) return undefined;
  const u = update as { sessionUpdate?: unknown; content?: unknown; messageId?: unknown };
  const kind = u.sessionUpdate;
  if (kind !== "agent_thought_chunk" && kind !== "agent_message_chunk") return undefined;
  const c = u.content as { type?: unknown; text?: unknown } | null | undefined;
  if (typeof c !== "object" || c === null || c.type !== "text" || typeof c.text !== "string") return undefined;
  if (u.messageId !== undefined && u.messageId !== null && typeof u.messageId !== "string") return undefined;
  return { kind, text: c.text, messageId: typeof u.messageId === "string" ? u.messageId : undefined };
}

/** The tool call an update makes or changes, if it is one. */
function toolCallOf(update: unknown): string | undefined {
  if (typeof update !== "object" || update === null) return undefined;
  const u = update as { sessionUpdate?: unknown; toolCallId?: unknown };
  return (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && typeof u.toolCallId === "string" ? u.toolCallId : undefined;
}

/** `take`'s verdict: keep it; keep nothing from now on (this one crossed a limit); or drop it (one was crossed before). */
export type BudgetVerdict = "keep" | "crossed" | "drop";

export type BudgetMeasure = "text" | "other" | "entries";

/** The output of one turn against the limits; `reset` at each turn's start. */
export class OutputBudget {
  private text = 0;
  private other = 0;
  private entries = 0;
  /** The run of text chunks the last update went on (its kind and message). */
  private run: { kind: string; messageId: string | undefined } | undefined;
  /** Tool calls seen this turn (each an entry once). */
  private readonly tools = new Set<string>();
  private over: BudgetMeasure | undefined;
  /** What was dropped since the limit was crossed. */
  dropped = 0;

  constructor(readonly textLimit = TURN_TEXT_LIMIT, readonly updateLimit = TURN_UPDATE_LIMIT, readonly entryLimit = TURN_ENTRY_LIMIT) {}

  /** Which limit was crossed this turn, if any. */
  get crossed(): BudgetMeasure | undefined {
    return this.over;
  }

  reset(): void {
    this.text = 0;
    this.other = 0;
    this.entries = 0;
    this.run = undefined;
    this.tools.clear();
    this.over = undefined;
    this.dropped = 0;
  }

  /**
   * Counts an update of the agent's: `line` is its `session/update` line, weighed only when the
   * update does not go on a run of text (see `jsonWeight`; its envelope is not kept, so not
   * counted), or its weight. `held`: the update is kept whole as it came for a while (while a
   * replay drains), so it never counts as going on a run. The one that takes a measure past its
   * limit is the first not kept.
   */
  take(update: unknown, line: string | number, held = false): BudgetVerdict {
    if (this.over) {
      this.dropped++;
      return "drop";
    }
    const chunk = plainChunk(update);
    if (!held && chunk && this.run && chunk.kind === this.run.kind && chunk.messageId === this.run.messageId) {
      this.text += chunk.text.length;
      this.other += JOINED_CHUNK_COST;
    } else {
      const weight = typeof line === "number" ? line : Math.max(0, jsonWeight(line) - ENVELOPE_WEIGHT);
      this.other += Math.max(0, weight - (chunk?.text.length ?? 0)) + EVENT_OVERHEAD;
      if (chunk) {
        this.text += chunk.text.length;
        this.entries++;
      }
      this.run = chunk ? { kind: chunk.kind, messageId: chunk.messageId } : undefined;
      const tool = toolCallOf(update);
      if (tool !== undefined && !this.tools.has(tool)) {
        this.tools.add(tool);
        this.entries++;
      }
    }
    return this.verdict();
  }

  /** Counts something else the agent caused that is kept as an event (a permission request, a line of noise), of `weight`. */
  takeOther(weight: number): BudgetVerdict {
    if (this.over) {
      this.dropped++;
      return "drop";
    }
    this.other += weight + EVENT_OVERHEAD;
    this.run = undefined;
    return this.verdict();
  }

  private verdict(): BudgetVerdict {
    const over: BudgetMeasure | undefined = this.text > this.textLimit ? "text" : this.other > this.updateLimit ? "other" : this.entries > this.entryLimit ? "entries" : undefined;
    if (!over) return "keep";
    this.over = over;
    this.dropped = 1;
    return "crossed";
  }
}

/** "8 MB" (MiB, as the limits are written). */
export function megabytes(chars: number): string {
  return `${Math.round(chars / (1024 * 1024))} MB`;
}

/** What the agent went past, for a notice: "more than 8 MB of text". */
export function pastLimit(measure: BudgetMeasure): string {
  switch (measure) {
    case "text": return `more than ${megabytes(TURN_TEXT_LIMIT)} of text`;
    case "other": return `more than ${megabytes(TURN_UPDATE_LIMIT)} of updates`;
    case "entries": return `more than ${TURN_ENTRY_LIMIT.toLocaleString("en")} separate entries`;
  }
}
