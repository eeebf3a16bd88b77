/**
 * The agent's plan as a checklist: the card inside a turn (`PlanCard`) and the pinned copy of the
 * current plan above the transcript while a turn runs (`PinnedPlan`, `#plan`), with progress
 * ("3 of 7 done"), status icons with text for screen readers, and priority tags.
 */
import { truncatedNote } from "../../core/bound";
import type { PlanEntry } from "../../core/events";
import type { Entry, SessionView } from "../../core/viewModel";
import { cleanInline, h, icon, setText, toggleHidden } from "../dom";
import type { UiState } from "../uiState";
import { entryShell, type EntryComp } from "./entryBase";

const STATUS: Record<PlanEntry["status"], { icon: string; label: string }> = {
  pending: { icon: "circle-large-outline", label: "Pending" },
  in_progress: { icon: "arrow-circle-right", label: "In progress" },
  completed: { icon: "pass-filled", label: "Completed" },
};

const PRIORITY: Record<PlanEntry["priority"], string> = { high: "High", medium: "Med", low: "Low" };

/** The marker under a plan the panel cut. */
function cutNote(cut: string | undefined): HTMLElement | string {
  return cut ? h("div", { class: "note truncated-note", attrs: { role: "note" } }, truncatedNote(cut)) : "";
}

function checklist(entries: readonly PlanEntry[]): HTMLElement {
  const list = h("ol", { class: "plan-list" });
  for (const p of entries) {
    const st = STATUS[p.status] ?? STATUS.pending;
    list.append(h("li", { class: `plan-item status-${p.status}`, attrs: { "data-status": p.status, "data-priority": p.priority } },
      icon(st.icon, "plan-icon"),
      h("span", { class: "visually-hidden" }, `${st.label}: `),
      h("span", { class: "plan-text ut" }, cleanInline(p.content, 2000)),
      h("span", { class: `tag prio-${p.priority}`, attrs: { title: `${PRIORITY[p.priority] ?? p.priority} priority` } }, PRIORITY[p.priority] ?? String(p.priority))));
  }
  return list;
}

function progress(entries: readonly PlanEntry[]): string {
  const done = entries.filter((p) => p.status === "completed").length;
  return `${done} of ${entries.length} done`;
}

export class PlanCard implements EntryComp {
  readonly el: HTMLElement;
  private readonly count: HTMLElement;
  private entry: Extract<Entry, { type: "plan" }>;

  constructor(entry: Extract<Entry, { type: "plan" }>) {
    this.entry = entry;
    this.count = h("span", { class: "plan-count" });
    this.el = entryShell(entry);
    this.draw();
  }

  update(entry: Entry): void {
    if (entry.type !== "plan" || entry === this.entry) return;
    const changed = entry.entries !== this.entry.entries || entry.cut !== this.entry.cut;
    this.entry = entry;
    if (changed) this.draw();
  }

  private draw(): void {
    setText(this.count, progress(this.entry.entries));
    this.el.replaceChildren(h("div", { class: "plan-head" }, icon("checklist"), h("span", { class: "plan-title" }, "Plan"), this.count), checklist(this.entry.entries), cutNote(this.entry.cut));
  }

  dispose(): void {}
}

/** `#plan`: the current plan, pinned while a turn runs; collapsible. */
export class PinnedPlan {
  readonly el: HTMLElement;
  private readonly head: HTMLButtonElement;
  private readonly count: HTMLElement;
  private readonly body: HTMLElement;
  private plan: readonly PlanEntry[] | undefined;

  constructor(private readonly ui: UiState) {
    this.count = h("span", { class: "plan-count" });
    this.body = h("div", { class: "plan-body", id: "plan-body" });
    this.head = h("button", { class: "plan-head pinned-head", attrs: { type: "button", "aria-controls": "plan-body" } },
      icon("chevron-right", "chevron"), icon("checklist"), h("span", { class: "plan-title" }, "Plan"), this.count);
    this.el = h("section", { id: "plan", class: "pinned-plan", attrs: { "aria-label": "Current plan" } }, this.head, this.body);
    this.el.hidden = true;
    this.head.addEventListener("click", () => {
      this.ui.planOpen = !this.ui.planOpen;
      this.ui.save();
      this.syncOpen();
    });
    this.syncOpen();
  }

  render(session: SessionView | undefined): void {
    const plan = session?.plan;
    const running = session?.status === "running" || session?.status === "awaiting_permission";
    toggleHidden(this.el, !plan || plan.length === 0 || !running);
    if (plan === this.plan) return;
    this.plan = plan;
    setText(this.count, plan ? progress(plan) : "");
    this.body.replaceChildren(plan ? checklist(plan) : "", cutNote(session?.planCut));
  }

  private syncOpen(): void {
    this.el.classList.toggle("open", this.ui.planOpen);
    this.head.setAttribute("aria-expanded", String(this.ui.planOpen));
    toggleHidden(this.body, !this.ui.planOpen);
  }
}
