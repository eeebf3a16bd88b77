/**
 * What every transcript entry component shares: the `EntryComp` contract (keep the entry last
 * drawn, return at once for the same object) and the shell element carrying the test hooks.
 */
import type { Entry } from "../../shared/viewModel";
import { h } from "../dom";
import type { RenderCtx } from "./context";

export interface EntryComp {
  readonly el: HTMLElement;
  update(entry: Entry, ctx: RenderCtx): void;
  dispose(): void;
}

/** The element every entry renders into, with the hooks tests and styles use. */
export function entryShell(entry: Entry, extraClass = ""): HTMLElement {
  return h("div", { class: `entry entry-${entry.type}${extraClass ? ` ${extraClass}` : ""}`, attrs: { "data-entry-id": entry.id, "data-entry-type": entry.type } });
}

/** The turns of the session shown before, until the frame that shows another one is drawn (Transcript.reset). */
export const LEAVING = "leaving";

/** The drawn entry with this id under `root`, if drawn (not one leaving the page). */
export function entryElement(root: ParentNode, id: string): HTMLElement | null {
  return root.querySelector<HTMLElement>(`.entry[data-entry-id="${CSS.escape(id)}"]:not(.${LEAVING} *)`);
}

/** True when `next` is `prev` with more text appended (checked at the seam only: these texts only grow). */
export function extendsText(prev: string, next: string): boolean {
  const n = prev.length;
  if (next.length < n) return false;
  const k = Math.min(n, 64);
  return next.slice(n - k, n) === prev.slice(n - k);
}

