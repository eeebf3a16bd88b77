/**
 * The filter bar: toggle buttons for entry kinds (thoughts, messages, tools, plans, errors and
 * notices) and a search box that filters entries by text, with the match count.
 */
import { h, icon, setText, toggleHidden } from "../dom";
import { FILTER_GROUPS, type FilterGroup, type UiState } from "../uiState";

const GROUPS: Record<FilterGroup, { icon: string; label: string }> = {
  thought: { icon: "lightbulb", label: "Thoughts" },
  message: { icon: "comment", label: "Messages" },
  tool: { icon: "tools", label: "Tools" },
  plan: { icon: "checklist", label: "Plans" },
  error: { icon: "warning", label: "Errors" },
};

export class Toolbar {
  readonly el: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly toggles = new Map<FilterGroup, HTMLButtonElement>();

  constructor(private readonly ui: UiState, private readonly invalidate: () => void) {
    this.input = h("input", { id: "search", class: "search-input", attrs: { type: "search", placeholder: "Search", "aria-label": "Search the transcript", spellcheck: "false" } });
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
      }
    });
    this.count = h("span", { class: "match-count", attrs: { "aria-live": "polite" } });
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
    this.el = h("div", { class: "toolbar", attrs: { role: "search", "aria-label": "Filter the transcript" } },
      h("div", { class: "search-box" }, icon("search", "search-icon"), this.input, this.count),
      h("div", { class: "filters", attrs: { role: "group", "aria-label": "Show" } }, ...buttons));
  }

  render(matches: number): void {
    for (const [g, b] of this.toggles) {
      const on = this.ui.filters[g];
      if (b.getAttribute("aria-pressed") !== String(on)) b.setAttribute("aria-pressed", String(on));
    }
    const q = this.ui.search.trim();
    toggleHidden(this.count, !q);
    setText(this.count, q ? (matches === 0 ? "No matches" : `${matches} match${matches === 1 ? "" : "es"}`) : "");
  }
}
