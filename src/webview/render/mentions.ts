/**
 * @-mentions in the prompt box, the webview's part: a row of the completion list (what it is, its
 * name and where it lives) and the chips a pick becomes above the text, each with × to remove it
 * (a button: Tab reaches it, Enter or Space removes the chip; its label names the kind).
 * Labels come from the host (workspace paths) but are shown as untrusted text all the same.
 */
import type { MentionItem, MentionKind, MentionRef } from "../../shared/mentions";
import { button, cleanInline, h, icon } from "../dom";

const ICON: Record<MentionKind, string> = {
  file: "file", folder: "folder", symbol: "symbol-method", editor: "file-code", selection: "selection", problems: "warning",
  workspaceProblems: "warning", terminal: "terminal", changes: "git-compare",
};
const KIND: Record<MentionKind, string> = {
  file: "File", folder: "Folder", symbol: "Symbol", editor: "Open editor", selection: "Selection", problems: "Problems",
  workspaceProblems: "Problems", terminal: "Terminal output", changes: "Changes",
};

/** One option of the list: `id` for aria-activedescendant. */
export function mentionOption(item: MentionItem, id: string): HTMLElement {
  const label = cleanInline(item.label, 120);
  const detail = cleanInline(item.detail, 300);
  return h("li", { id, class: `completion mention-option mention-${item.kind}`, attrs: { role: "option", "aria-selected": "false", "aria-label": `${KIND[item.kind]} ${label}, ${detail}`, "data-mention-kind": item.kind } },
    icon(ICON[item.kind]),
    h("span", { class: "cmd-name mention-name" }, label),
    h("span", { class: "cmd-hint mention-detail" }, detail));
}

/** The chips in the box, each removable; an empty list hides the row. */
export function drawMentionChips(row: HTMLElement, list: readonly MentionRef[], remove: (index: number) => void): void {
  row.hidden = list.length === 0;
  row.replaceChildren(...list.map((ref, i) => {
    const label = cleanInline(ref.label, 80);
    const x = button({ class: "icon-button chip-remove", icon: "close", label: `Remove ${KIND[ref.kind]} ${label}`, labelHidden: true, title: `Remove ${label}` });
    x.type = "button";
    x.addEventListener("mousedown", (ev) => ev.preventDefault());
    x.addEventListener("click", () => remove(i));
    return h("span", { class: `chip chip-mention mention-${ref.kind}`, attrs: { role: "listitem", "aria-label": `${KIND[ref.kind]} ${label}`, title: `${KIND[ref.kind]}: ${cleanInline(ref.uri, 500)}`, "data-mention": String(i) } },
      icon(ICON[ref.kind]), h("span", { class: "chip-label ut" }, label), x);
  }));
}
