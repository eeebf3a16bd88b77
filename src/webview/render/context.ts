/**
 * What every renderer receives for one frame: the session shown, host facts, UI state, the way
 * to post verbs, and the registry of live timers ("Thinking… 2.1 s") that tick between frames.
 */
import type { Entry, SessionView } from "../../shared/viewModel";
import type { HostInfo, WebviewMessage } from "../../shared/protocol";
import type { UiState } from "../uiState";
import type { Nearby } from "./nearby";
import type { Rows } from "./rows";

/** Something showing elapsed time that must refresh while nothing else changes. */
export interface Ticker {
  tick(now: number): void;
}

export interface RenderCtx {
  readonly session: SessionView;
  readonly sessionId: string;
  readonly host: HostInfo;
  readonly ui: UiState;
  /** Entry visibility under the current filters; undefined when nothing is filtered. */
  readonly matcher: ((e: Entry) => boolean) | undefined;
  /** Changes whenever something all entries depend on changes (filters, thinking display). */
  readonly version: number;
  readonly tickers: Set<Ticker>;
  /** Entries say here whether they are one row (drawn only near the view: rows.ts). */
  readonly rows: Rows;
  /** Entries put off drawing here until they are near the view (nearby.ts). */
  readonly nearby: Nearby;
  post(message: WebviewMessage): void;
  /** Asks for a render in the next frame (after a UI-only change). */
  invalidate(): void;
  /** Puts a prompt back in the prompt box to change and send again. */
  editPrompt(text: string): void;
}

/** Key for per-entry UI state. */
export function entryKey(ctx: RenderCtx, entryId: string): string {
  return `${ctx.sessionId}/${entryId}`;
}

/** Key for per-turn UI state. */
export function turnKey(sessionId: string, turnId: number): string {
  return `${sessionId}:${turnId}`;
}
