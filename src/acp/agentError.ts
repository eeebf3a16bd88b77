/**
 * `AgentError`: a failure of the agent itself (it could not start, crashed, hung, spoke another
 * protocol), worded for the user with what to do next. Its own module, so code recognises it by
 * its class, never by its message text.
 */

/** A failure of the agent itself, worded for the user: what happened and what to do. */
export class AgentError extends Error {
  constructor(readonly agentName: string, readonly what: string, readonly hint: string, readonly stderrTail = "") {
    super(`Agent "${agentName}" ${what}`);
    this.name = "AgentError";
  }

  /** The same failure with different advice. */
  withHint(hint: string): AgentError {
    return new AgentError(this.agentName, this.what, hint, this.stderrTail);
  }

  /** Message plus hint, for notifications. */
  get userMessage(): string {
    return `${this.message}. ${this.hint}`;
  }
}

/** What to tell the user about a failure: an agent error with its hint, or the error's message. */
export function userMessage(err: unknown): string {
  return err instanceof AgentError ? err.userMessage : err instanceof Error ? err.message : String(err);
}
