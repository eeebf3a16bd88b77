/**
 * The public API other extensions get from `vscode.extensions.getExtension("agent-thoughts.agent-thoughts").exports`.
 * Plain types only (no `vscode` import) so consumers can copy this file as their typings.
 */
import type { ContentBlock, ThoughtEvent, ThoughtEventKind } from "./core/events";
import type { EventFilter, ThoughtStream, TurnResult } from "./core/thoughtStream";

export type { ContentBlock, EventFilter, ThoughtEvent, ThoughtEventKind, ThoughtStream, TurnResult };

export interface StreamOptions {
  /** Agent name from `agentThoughts.agents` (or "Demo"); default: `agentThoughts.defaultAgent`. */
  agent?: string;
  /** Start a fresh session instead of continuing the agent's current one. */
  newSession?: boolean;
  /** Continue this session (from a `ThoughtEvent.sessionId`); takes precedence over `agent`. */
  sessionId?: string;
  /** Only these event kinds (or events passing this predicate) are yielded by iteration. */
  include?: EventFilter;
  /** Aborting cancels the turn (`session/cancel`); pending permission requests resolve as cancelled. */
  signal?: AbortSignal;
}

export interface AgentThoughtsApi {
  /** API version; bumped on breaking changes. */
  readonly apiVersion: 1;
  /**
   * Runs one prompt turn now (eagerly: it runs whether or not you iterate or await) and returns
   * its events as an async iterable plus a `result` promise.
   */
  stream(prompt: string | ContentBlock[], options?: StreamOptions): ThoughtStream;
  /** Names of the configured agents (the built-in demo agent included). */
  agents(): string[];
  /** Every event of every session, as it is recorded; returns a disposer. */
  onEvent(listener: (event: ThoughtEvent) => void): { dispose(): void };
}
