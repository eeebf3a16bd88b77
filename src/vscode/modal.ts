/**
 * The one way Agent Thoughts asks a yes/no question that must not be missed (an access outside
 * the workspace, undoing text only the agent vouches for): a modal dialog whose agent-supplied
 * words stay text. A dialog that cannot be shown counts as "no". Every question and its answer is
 * kept (the last few) for the log and for tests, which cannot click a dialog.
 */
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import { plainText } from "../core/plainText";

export interface AskedQuestion { message: string; detail: string; answer: string | undefined }

const KEEP = 20;
const TEST_MODE = !!process.env.AGENT_THOUGHTS_TEST_MODE;

export class Modal {
  /** The latest questions, oldest first. */
  readonly asked: AskedQuestion[] = [];

  /**
   * TEST ONLY — answers the tests give in place of the user (code-server refuses every dialog in
   * extension tests), taken one per question; honoured only when AGENT_THOUGHTS_TEST_MODE is set.
   */
  readonly testAnswers: string[] = [];

  constructor(private readonly logger: Logger) {}

  /** Asks; resolves the chosen action, or undefined for no (dismissed, or no dialog could be shown). */
  async ask(message: string, detail: string, ...actions: string[]): Promise<string | undefined> {
    let answer: string | undefined;
    if (TEST_MODE && this.testAnswers.length > 0) {
      answer = this.testAnswers.shift();
      this.asked.push({ message, detail, answer });
      return answer;
    }
    try {
      answer = await vscode.window.showWarningMessage(plainText(message), { modal: true, detail: plainText(detail) }, ...actions);
    } catch (err) {
      // No dialog could be shown (e.g. tests): that is a refusal, not a failure.
      this.logger.warn(`Could not ask "${message.slice(0, 200)}": ${err instanceof Error ? err.message : String(err)}`);
    }
    this.asked.push({ message, detail, answer });
    this.asked.splice(0, Math.max(0, this.asked.length - KEEP));
    return answer;
  }
}
