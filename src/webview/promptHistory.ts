/**
 * The prompt box's history, as in a shell or VS Code's chat: ↑ on the first line recalls older
 * prompts, ↓ on the last line newer ones and finally what was being typed. Typing ends the walk.
 * Pure (no DOM), so it is unit-tested.
 */
export const MAX_HISTORY = 100;

export class PromptHistory {
  /** Oldest first. */
  private readonly items: string[];
  /** Position while walking (an index into items), or -1. */
  private at = -1;
  /** What was in the box when the walk began. */
  private stash = "";

  constructor(items: readonly string[] = []) {
    this.items = items.filter((t) => typeof t === "string" && t.trim() !== "").slice(-MAX_HISTORY);
  }

  get list(): readonly string[] {
    return this.items;
  }

  /** A sent prompt (a repeat of the newest is not added twice). */
  record(text: string): void {
    this.at = -1;
    if (!text.trim() || this.items[this.items.length - 1] === text) return;
    this.items.push(text);
    if (this.items.length > MAX_HISTORY) this.items.splice(0, this.items.length - MAX_HISTORY);
  }

  /** The prompt before the one shown, or undefined at the oldest. */
  older(current: string): string | undefined {
    if (this.items.length === 0) return undefined;
    if (this.at === -1) {
      this.stash = current;
      this.at = this.items.length - 1;
    } else if (this.at > 0) {
      this.at--;
    } else {
      return undefined;
    }
    return this.items[this.at];
  }

  /** The prompt after the one shown, then what was being typed; undefined when not walking. */
  newer(): string | undefined {
    if (this.at === -1) return undefined;
    this.at++;
    if (this.at < this.items.length) return this.items[this.at];
    this.at = -1;
    return this.stash;
  }

  /** The user typed: the walk is over. */
  reset(): void {
    this.at = -1;
  }
}
