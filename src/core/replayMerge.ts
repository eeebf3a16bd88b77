/**
 * Merging an agent's replay into what the panel already shows. `session/load` makes the agent send
 * the whole conversation again as `session/update`s before it answers; the panel has most of it
 * from the saved transcript. The replay is cut into turns (a user message after anything else
 * starts one) and lined up with the prompts the panel shows, in order: a replayed turn whose first
 * user text is the next shown prompt is dropped; from the first one that is not (a turn asked in
 * the agent's own CLI meanwhile, one lost in a crash) every later turn is added. When no replayed
 * turn matches at all (an agent that rewrites prompts when it replays them), the first turns are
 * taken as the shown ones by count. Updates that describe the session rather than a turn
 * (commands, mode, config options, title, usage) always apply: they are the agent's current state.
 */

import { stringifyJson } from "./json";
import { OutputBudget, TURN_ENTRY_LIMIT, TURN_TEXT_LIMIT, TURN_UPDATE_LIMIT } from "./outputBudget";

/** `session/update` kinds that describe the session, not a turn's content. */
const SESSION_LEVEL: ReadonlySet<string> = new Set([
  "available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update",
]);

/** Replayed updates kept for one load; beyond this the rest is dropped (and counted). */
export const MAX_REPLAY_UPDATES = 200_000;
/** A replay is a whole conversation: it may bring this many turns' worth of output (see OutputBudget) before the rest is dropped. */
const REPLAY_TURNS = 4;

/** Characters of a prompt compared when lining the replay up. */
const COMPARE_CHARS = 200;

export type ReplayStep =
  /** Session state, or the next update of an added turn: map it as usual. */
  | { update: unknown; newTurn: false }
  /** The first update of a turn the panel does not have: start a turn, then map it. */
  | { update: unknown; newTurn: true };

function kindOf(update: unknown): string | undefined {
  const kind = typeof update === "object" && update !== null ? (update as { sessionUpdate?: unknown }).sessionUpdate : undefined;
  return typeof kind === "string" ? kind : undefined;
}

/** The text of a user chunk, whitespace collapsed; "" for one without text (an attachment). */
function userText(update: unknown): string {
  const content = (update as { content?: { type?: unknown; text?: unknown } }).content;
  return content?.type === "text" && typeof content.text === "string" ? norm(content.text) : "";
}

function norm(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, COMPARE_CHARS);
}

/** Whether a replayed turn's first user text is this shown prompt (a chunk may be the start of it). */
function samePrompt(replayed: string, shown: string): boolean {
  if (replayed === shown) return true;
  const [short, long] = replayed.length < shown.length ? [replayed, shown] : [shown, replayed];
  return short.length >= Math.min(20, long.length) && short.length > 0 && long.startsWith(short);
}

export class ReplayMerge {
  private readonly updates: unknown[] = [];
  private readonly budget = new OutputBudget(REPLAY_TURNS * TURN_TEXT_LIMIT, REPLAY_TURNS * TURN_UPDATE_LIMIT, REPLAY_TURNS * TURN_ENTRY_LIMIT);
  /** Updates dropped beyond MAX_REPLAY_UPDATES or the budget. */
  overflow = 0;
  /** Turns added (beyond the shown ones) and replayed updates dropped as already shown. */
  added = 0;
  skipped = 0;

  /** `shownPrompts`: the prompts of the turns the panel shows, oldest first. */
  constructor(private readonly shownPrompts: readonly string[]) {}

  /** A replayed update; `line`: its JSON as read from the wire, or its weight (see OutputBudget.take). */
  push(update: unknown, line: string | number = stringifyJson(update)): void {
    if (this.updates.length >= MAX_REPLAY_UPDATES || this.budget.take(update, line) !== "keep") this.overflow++;
    else this.updates.push(update);
  }

  /** What to map, in order, once the replay is complete. */
  steps(): ReplayStep[] {
    // Cut into turns: index of each turn's first update.
    const turnOf: number[] = [];
    const firstText: string[] = [];
    let turn = 0;
    let lastWasUser = false;
    for (const u of this.updates) {
      const kind = kindOf(u);
      if (kind !== undefined && SESSION_LEVEL.has(kind)) {
        turnOf.push(-1);
        continue;
      }
      const user = kind === "user_message_chunk";
      if (user && !lastWasUser) firstText[++turn] = userText(u);
      lastWasUser = user;
      turnOf.push(turn);
    }
    const shown = this.shownPrompts.map(norm);
    // Line up by text: shown turns are the leading replayed turns that match the prompts in order.
    let matched = 0;
    while (matched < shown.length && matched + 1 <= turn && samePrompt(firstText[matched + 1]!, shown[matched]!)) matched++;
    const known = matched > 0 || shown.length === 0 ? matched : Math.min(shown.length, turn);
    const out: ReplayStep[] = [];
    let started = 0;
    this.updates.forEach((u, i) => {
      const t = turnOf[i]!;
      if (t === -1) {
        out.push({ update: u, newTurn: false });
        return;
      }
      // Before the first user message, or a turn the panel shows: already there.
      if (t <= known) {
        this.skipped++;
        return;
      }
      const newTurn = t > started;
      if (newTurn) {
        started = t;
        this.added++;
      }
      out.push({ update: u, newTurn });
    });
    return out;
  }
}
