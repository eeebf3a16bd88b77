/**
 * What the terminals Agent Thoughts runs for an agent (`terminal/create`) print, as events of the
 * tool call that shows each one: `tool_update`s whose `terminal` carries the output (marked
 * `client`) and, when the command ends, its exit. They are the events an agent that runs commands
 * itself streams, so the card's preview, the transcript and exports show both alike. The
 * pseudoterminal is fed apart, live and whole (vscode/terminalMirrors.ts); these events are
 * bounded for the log: at most one per terminal every `FLUSH_MS` (`FLOOD_FLUSH_MS` while it
 * floods), each with at most `EVENT_CHARS` (a longer stretch is replaced by its tail).
 *
 * A terminal belongs to a tool call once an update shows it (`content` of type `terminal`); what
 * it printed before is reported right after that update, and nothing is reported for a terminal
 * no update shows.
 */
import type { TerminalMeta, ThoughtEventBody } from "../shared/events";
import { TailBuffer } from "./tailBuffer";

/** Output is gathered this long before it is reported (a preview needs no more than a few updates a second). */
export const FLUSH_MS = 200;
/** …and this long after a report that had to skip output. */
export const FLOOD_FLUSH_MS = 1000;
/** Characters one report carries at most: the tail the card shows, and more. */
export const EVENT_CHARS = 64 * 1024;
/** Terminals no update has shown yet that are remembered after they ended (the oldest are forgotten). */
const MAX_UNSHOWN = 50;

interface Term {
  toolCallId?: string;
  /** Output since the last report. */
  pending: TailBuffer;
  exit?: { exitCode: number | null; signal: string | null };
  /** The last report skipped output: the next one waits longer. */
  flooded: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export class ClientTerminalOutput {
  private readonly terms = new Map<string, Term>();

  constructor(
    /** Appends a report to the session's log (called from timers and terminal callbacks). */
    private readonly emit: (body: ThoughtEventBody) => void,
  ) {}

  /** A terminal this session runs. */
  created(terminalId: string): void {
    this.terms.set(terminalId, { pending: new TailBuffer(EVENT_CHARS), flooded: false });
    this.forgetOld();
  }

  output(terminalId: string, text: string): void {
    const t = this.terms.get(terminalId);
    if (!t || t.exit) return;
    t.pending.append(text);
    if (t.toolCallId && !t.timer) {
      t.timer = setTimeout(() => {
        t.timer = undefined;
        const r = this.report(terminalId, t);
        if (r) this.emit(r);
      }, t.flooded ? FLOOD_FLUSH_MS : FLUSH_MS);
    }
  }

  /** The command ended (all its output read): reported at once, with what it printed last. */
  exited(terminalId: string, exit: { exitCode: number | null; signal: string | null }): void {
    const t = this.terms.get(terminalId);
    if (!t || t.exit) return;
    t.exit = exit;
    if (!t.toolCallId) return;
    const r = this.report(terminalId, t);
    this.terms.delete(terminalId);
    if (r) this.emit(r);
  }

  /**
   * Links the terminals these events show to their tool calls; returns the reports of what they
   * printed so far, to be logged right after the events.
   */
  link(bodies: readonly ThoughtEventBody[]): ThoughtEventBody[] {
    const out: ThoughtEventBody[] = [];
    for (const b of bodies) {
      if ((b.kind !== "tool_start" && b.kind !== "tool_update") || !b.content) continue;
      for (const c of b.content) {
        if (c.type !== "terminal") continue;
        const t = this.terms.get(c.terminalId);
        if (!t || t.toolCallId === b.toolCallId) continue;
        t.toolCallId = b.toolCallId;
        const r = this.report(c.terminalId, t);
        if (r) out.push(r);
        if (t.exit) this.terms.delete(c.terminalId);
      }
    }
    return out;
  }

  /** The report of what `t` printed since the last one (and its exit), if there is anything to say; clears it. */
  private report(terminalId: string, t: Term): ThoughtEventBody | undefined {
    clearTimeout(t.timer);
    t.timer = undefined;
    const text = t.pending.text();
    if (!t.toolCallId || (!text && !t.exit)) return undefined;
    const cut = t.pending.skipped > 0;
    t.flooded = cut;
    t.pending.clear();
    const terminal: TerminalMeta = { terminalId, client: true, ...(text ? { output: text } : {}), ...(cut ? { replace: true } : {}), ...(t.exit ? { exit: t.exit } : {}) };
    return { kind: "tool_update", toolCallId: t.toolCallId, terminal };
  }

  /** Forgets the oldest terminals that ended before any update showed them. */
  private forgetOld(): void {
    let unshown = 0;
    for (const t of this.terms.values()) if (!t.toolCallId && t.exit) unshown++;
    for (const [id, t] of this.terms) {
      if (unshown <= MAX_UNSHOWN) break;
      if (t.toolCallId || !t.exit) continue;
      this.terms.delete(id);
      unshown--;
    }
  }

  /** No more reports (the session ended). */
  dispose(): void {
    for (const t of this.terms.values()) clearTimeout(t.timer);
    this.terms.clear();
  }
}
