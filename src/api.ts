/**
 * The public API other extensions get from `vscode.extensions.getExtension("agent-thoughts.agent-thoughts").exports`.
 * Plain types only (no `vscode` import) so consumers can copy this file as their typings.
 */
import type { ContentBlock, ThoughtEvent, ThoughtEventKind } from "./shared/events";
import type { EventFilter, StreamOptions, ThoughtStream, TurnResult } from "./core/thoughtStream";

export type { ContentBlock, EventFilter, StreamOptions, ThoughtEvent, ThoughtEventKind, ThoughtStream, TurnResult };

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
