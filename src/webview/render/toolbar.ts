/**
 * The filter bar: toggle buttons for entry kinds (thoughts, messages, tools, plans, errors and
 * notices) and the find box — its text is found in place (render/finder.ts) with "3 of 17",
 * previous / next (Shift+Enter / Enter, Shift+F3 / F3, the arrows), and a toggle that hides
 * the entries without a match. Ctrl+F (⌘F) anywhere in the panel puts the cursor in it.
 */
import { button, h, icon, setAttr, setText, toggleHidden, uid } from "../dom";
import { FILTER_GROUPS, type FilterGroup, type UiState } from "../uiState";
import type { FindStatus } from "./finder";

const GROUPS: Record<FilterGroup, { icon: string; label: string }> = {
  thought: { icon: "lightbulb", label: "Thoughts" },
  message: { icon: "comment", label: "Messages" },
  tool: { icon: "tools", label: "Tools" },
  plan: { icon: "checklist", label: "Plans" },
  error: { icon: "warning", label: "Errors" },
};

const IS_MAC = /Mac/.test(navigator.platform);

export class Toolbar {
  readonly el: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly live: HTMLElement;
  private readonly prev: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private readonly only: HTMLButtonElement;
  private readonly toggles = new Map<FilterGroup, HTMLButtonElement>();
  private lastAnnounced = "";

  constructor(private readonly ui: UiState, private readonly invalidate: () => void, private readonly step: (dir: 1 | -1) => void) {
    const countId = uid("find-count");
    this.input = h("input", { id: "search", class: "search-input", attrs: { type: "search", placeholder: "Find", "aria-label": "Find in the transcript", "aria-describedby": countId, spellcheck: "false", title: `Find (${IS_MAC ? "⌘F" : "Ctrl+F"}): Enter for the next match, Shift+Enter for the previous` } });
    this.input.value = ui.search;
    this.input.addEventListener("input", () => {
      this.ui.setSearch(this.input.value);
      this.invalidate();
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && this.input.value) {
        e.preventDefault();
        this.input.value = "";
        this.ui.setSearch("");
        this.invalidate();
      } else if (e.key === "Enter" && !e.isComposing) {
        e.preventDefault();
        this.step(e.shiftKey ? -1 : 1);
      }
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "F3" && !e.altKey && !e.ctrlKey && !e.metaKey) {
        if (!this.ui.query) return;
        e.preventDefault();
        this.step(e.shiftKey ? -1 : 1);
      } else if ((e.key === "f" || e.key === "F") && (IS_MAC ? e.metaKey : e.ctrlKey) && !e.altKey && !e.shiftKey) {
        // Not passed on to VS Code either (the webview hands keys to the workbench as they reach its
        // window): its own Find would run on an open editor and take the cursor there.
        e.preventDefault();
        e.stopPropagation();
        this.input.focus();
        this.input.select();
      }
    });
    this.count = h("span", { class: "match-count", id: countId });
    // Announced only when the reader acts (types, steps), not each time streaming adds a match.
    this.live = h("span", { id: "find-live", class: "visually-hidden", attrs: { "aria-live": "polite", role: "status" } });
    this.prev = button({ class: "icon-button find-prev", icon: "arrow-up", label: "Previous match", labelHidden: true, title: "Previous Match (Shift+Enter, Shift+F3)" });
    this.next = button({ class: "icon-button find-next", icon: "arrow-down", label: "Next match", labelHidden: true, title: "Next Match (Enter, F3)" });
    this.prev.addEventListener("click", () => this.step(-1));
    this.next.addEventListener("click", () => this.step(1));
    this.only = button({ class: "icon-button toggle find-only", icon: "filter", label: "Only entries that match", labelHidden: true, title: "Show only the entries that match" });
    this.only.addEventListener("click", () => {
      this.ui.setSearchFilter(!this.ui.searchFilter);
      this.invalidate();
    });
    const buttons = FILTER_GROUPS.map((g) => {
      const spec = GROUPS[g];
      const b = h("button", { class: "icon-button toggle", attrs: { type: "button", "data-filter": g, title: g === "error" ? "Errors and notices" : spec.label, "aria-label": spec.label } }, icon(spec.icon));
      b.addEventListener("click", () => {
        this.ui.setFilter(g, !this.ui.filters[g]);
        this.invalidate();
      });
      this.toggles.set(g, b);
      return b;
    });
    this.el = h("div", { class: "toolbar", attrs: { role: "search", "aria-label": "Find and filter the transcript" } },
      h("div", { class: "search-box" }, icon("search", "search-icon"), this.input, this.count, this.prev, this.next, this.only, this.live),
      h("div", { class: "filters", attrs: { role: "group", "aria-label": "Show" } }, ...buttons));
    this.showFind({ active: false, pending: false, index: -1, total: 0 }, false);
  }

  render(): void {
    for (const [g, b] of this.toggles) {
      const on = this.ui.filters[g];
      if (b.getAttribute("aria-pressed") !== String(on)) b.setAttribute("aria-pressed", String(on));
    }
    const only = String(this.ui.searchFilter);
    if (this.only.getAttribute("aria-pressed") !== only) this.only.setAttribute("aria-pressed", only);
  }

  /** The find status: "3 of 17" (or "No results"); announced when the reader's action changed it. */
  showFind(s: FindStatus, announce: boolean): void {
    toggleHidden(this.count, !s.active);
    for (const b of [this.prev, this.next, this.only]) toggleHidden(b, !s.active);
    const text = !s.active ? "" : s.pending ? "…" : s.total === 0 ? "No results" : `${s.index >= 0 ? s.index + 1 : "?"} of ${s.total}`;
    setText(this.count, text);
    setAttr(this.prev, "disabled", s.total === 0);
    setAttr(this.next, "disabled", s.total === 0);
    if (!announce || !s.active || s.pending) return;
    let say = s.total === 0 ? "No results" : `${text} matches`;
    // The same words twice in a row are not read again; make them differ.
    if (say === this.lastAnnounced) say += "\u00a0";
    this.lastAnnounced = say;
    setText(this.live, say);
  }
}
