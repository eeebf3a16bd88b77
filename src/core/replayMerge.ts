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
  /** What will be mapped, in order: session-level updates and the turns the panel does not show. */
  private readonly kept: ReplayStep[] = [];
  private readonly budget = new OutputBudget(REPLAY_TURNS * TURN_TEXT_LIMIT, REPLAY_TURNS * TURN_UPDATE_LIMIT, REPLAY_TURNS * TURN_ENTRY_LIMIT);
  private readonly shown: string[];
  /** The replayed turn the updates now belong to (0: before the first user message). */
  private turn = 0;
  private lastWasUser = false;
  /** Whether the lining up is over (a turn did not match, or the shown prompts ran out). */
  private lined = false;
  /**
   * The last replayed turn the panel shows already (its updates are not kept), decided as each
   * turn starts: while lining up, the leading turns that matched the shown prompts in order.
   */
  private known = 0;
  /** The last added turn that has a step yet (its first one starts it). */
  private started = 0;
  /** Updates dropped beyond MAX_REPLAY_UPDATES or the budget. */
  overflow = 0;
  /** Turns added (beyond the shown ones) and replayed updates dropped as already shown. */
  added = 0;
  skipped = 0;

  /** `shownPrompts`: the prompts of the turns the panel shows, oldest first. */
  constructor(shownPrompts: readonly string[]) {
    this.shown = shownPrompts.map(norm);
  }

  /**
   * A replayed update; `line`: its JSON as read from the wire, or its weight (see
   * OutputBudget.take). Whether its turn is one the panel shows is decided as the turn starts (the
   * lining up goes by each turn's first user text), so an update of a shown turn is not kept at
   * all, and the limits fall on what is added.
   */
  push(update: unknown, line: string | number = stringifyJson(update)): void {
    const kind = kindOf(update);
    const sessionLevel = kind !== undefined && SESSION_LEVEL.has(kind);
    if (!sessionLevel) {
      const user = kind === "user_message_chunk";
      if (user && !this.lastWasUser) this.startTurn(userText(update));
      this.lastWasUser = user;
      // Before the first user message, or a turn the panel shows: already there.
      if (this.turn <= this.known) {
        this.skipped++;
        return;
      }
    }
    if (this.kept.length >= MAX_REPLAY_UPDATES || this.budget.take(update, line) !== "keep") {
      this.overflow++;
      return;
    }
    const newTurn = !sessionLevel && this.turn > this.started;
    if (newTurn) {
      this.started = this.turn;
      this.added++;
    }
    this.kept.push({ update, newTurn });
  }

  /**
   * A replayed turn starts with this first user text. Shown turns are the leading replayed turns
   * that match the shown prompts in order; when the first does not match (an agent that rewrites
   * prompts), the first turns are taken as the shown ones by count.
   */
  private startTurn(first: string): void {
    const t = ++this.turn;
    if (this.lined || t > this.shown.length) {
      this.lined = true;
      return;
    }
    if (samePrompt(first, this.shown[t - 1]!)) {
      this.known = t;
      return;
    }
    this.lined = true;
    // None matched: as many turns as the panel shows are its turns, by count.
    if (this.known === 0) this.known = this.shown.length;
  }

  /** What to map, in order, once the replay is complete. */
  steps(): ReplayStep[] {
    return this.kept;
  }
}
