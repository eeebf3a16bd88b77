/**
 * Merging an agent's replay into what the panel already shows. `session/load` makes the agent send
 * the whole conversation again as `session/update`s before it answers; the panel has most of it
 * from the saved transcript. The replay is cut into turns (a user message after anything else
 * starts one); the first `knownTurns` turns are the ones already shown and are dropped, later
 * ones (what happened while we were not watching: the agent's CLI, a crash before the transcript
 * was written) are added as turns. Updates that describe the session rather than a turn (commands,
 * mode, config options, title, usage) always apply: they are the agent's current state.
 */

/** `session/update` kinds that describe the session, not a turn's content. */
const SESSION_LEVEL: ReadonlySet<string> = new Set([
  "available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update",
]);

export type ReplayStep =
  /** Already shown (a turn the panel has): drop it. */
  | "skip"
  /** Session state, or the next update of an added turn: map it as usual. */
  | "apply"
  /** The first update of a turn the panel does not have: start a turn, then map it. */
  | "newTurn";

export class ReplayMerge {
  /** Replayed turns seen so far (0 before the first user message). */
  private turn = 0;
  private lastWasUser = false;
  /** Turns added (beyond the known ones) and replayed updates dropped. */
  added = 0;
  skipped = 0;

  constructor(private readonly knownTurns: number) {}

  step(update: unknown): ReplayStep {
    const kind = typeof update === "object" && update !== null ? (update as { sessionUpdate?: unknown }).sessionUpdate : undefined;
    if (typeof kind === "string" && SESSION_LEVEL.has(kind)) return "apply";
    const user = kind === "user_message_chunk";
    const starts = user && !this.lastWasUser;
    this.lastWasUser = user;
    if (starts) this.turn++;
    if (this.turn <= this.knownTurns) {
      this.skipped++;
      return "skip";
    }
    if (starts) {
      this.added++;
      return "newTurn";
    }
    return "apply";
  }
}
