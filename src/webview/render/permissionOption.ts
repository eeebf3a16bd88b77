/** One of the agent's answers to a permission request, as a button (in its card and in the pinned question alike). */
import type { PermissionOption } from "../../shared/events";
import { button, cleanInline } from "../dom";

export const OPTION_ICON: Record<PermissionOption["kind"], string> = { allow_once: "check", allow_always: "check-all", reject_once: "close", reject_always: "circle-slash" };

/** Allow-once is the primary button; "always" options are drawn apart from "once" ones (never primary); rejects are secondary. */
export function optionButton(o: PermissionOption): HTMLButtonElement {
  const allow = o.kind.startsWith("allow");
  const always = o.kind.endsWith("always");
  const b = button({ class: `perm-btn ${allow && !always ? "primary" : "secondary"}${always ? " always" : ""}${allow ? "" : " reject"}`, icon: OPTION_ICON[o.kind], label: cleanInline(o.name, 80) });
  b.setAttribute("data-kind", o.kind);
  return b;
}
