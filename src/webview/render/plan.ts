/**
 * The agent's plan as a checklist: the card inside a turn (`PlanCard`) and the pinned copy of the
 * current plan above the transcript while a turn runs (`PinnedPlan`, `#plan`), with progress
 * ("3 of 7 done"), status icons with text for screen readers, and priority tags.
 */
import { truncatedNote } from "../../shared/bound";
import type { PlanEntry } from "../../shared/events";
import { isWorking, type Entry, type SessionView } from "../../shared/viewModel";
import { cleanInline, h, icon, setText, toggleHidden } from "../dom";
import type { UiState } from "../uiState";
import { entryShell, type EntryComp } from "./entryBase";

const STATUS: Record<PlanEntry["status"], { icon: string; label: string }> = {
  pending: { icon: "circle-large-outline", label: "Pending" },
  in_progress: { icon: "arrow-circle-right", label: "In progress" },
  completed: { icon: "pass-filled", label: "Completed" },
};

const PRIORITY: Record<PlanEntry["priority"], string> = { high: "High", medium: "Med", low: "Low" };

/** The marker under a plan the panel cut (hidden when nothing was). */
function syncCutNote(note: HTMLElement, cut: string | undefined): void {
  toggleHidden(note, !cut);
  setText(note, cut ? truncatedNote(cut) : "");
}

function item(p: PlanEntry): HTMLElement {
  const st = STATUS[p.status] ?? STATUS.pending;
  return h("li", { class: `plan-item status-${p.status}`, attrs: { "data-status": p.status, "data-priority": p.priority } },
    icon(st.icon, "plan-icon"),
    h("span", { class: "visually-hidden" }, `${st.label}: `),
    h("span", { class: "plan-text ut" }, cleanInline(p.content, 2000)),
    h("span", { class: `tag prio-${p.priority}`, attrs: { title: `${PRIORITY[p.priority] ?? p.priority} priority` } }, PRIORITY[p.priority] ?? String(p.priority)));
}

const same = (a: PlanEntry | undefined, b: PlanEntry): boolean => !!a && a.content === b.content && a.status === b.status && a.priority === b.priority;

/**
 * Brings a checklist from `prev` to `next`, replacing only the items that changed: agents resend
 * the whole plan on every step, and rebuilding it each time costs layout the reader never sees.
 */
function syncChecklist(list: HTMLElement, prev: readonly PlanEntry[], next: readonly PlanEntry[]): void {
  const items = list.children;
  next.forEach((p, i) => {
    const old = items[i];
    if (!old) list.append(item(p));
    else if (!same(prev[i], p)) old.replaceWith(item(p));
  });
  while (items.length > next.length) items[items.length - 1]!.remove();
}

function planList(): HTMLElement {
  return h("ol", { class: "plan-list" });
}

function cutNoteEl(): HTMLElement {
  const note = h("div", { class: "note truncated-note", attrs: { role: "note" } });
  note.hidden = true;
  return note;
}

function progress(entries: readonly PlanEntry[]): string {
  const done = entries.filter((p) => p.status === "completed").length;
  return `${done} of ${entries.length} done`;
}

export class PlanCard implements EntryComp {
  readonly el: HTMLElement;
  private readonly count: HTMLElement;
  private readonly list = planList();
  private readonly note = cutNoteEl();
  private entry: Extract<Entry, { type: "plan" }>;
  private shown: readonly PlanEntry[] = [];

  constructor(entry: Extract<Entry, { type: "plan" }>) {
    this.entry = entry;
    this.count = h("span", { class: "plan-count" });
    this.el = entryShell(entry);
    this.el.append(h("div", { class: "plan-head" }, icon("checklist"), h("span", { class: "plan-title" }, "Plan"), this.count), this.list, this.note);
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
    syncChecklist(this.list, this.shown, this.entry.entries);
    this.shown = this.entry.entries;
    syncCutNote(this.note, this.entry.cut);
  }

  dispose(): void {}
}

/** `#plan`: the current plan, pinned while a turn runs; collapsible. */
export class PinnedPlan {
  readonly el: HTMLElement;
  private readonly head: HTMLButtonElement;
  private readonly count: HTMLElement;
  private readonly body: HTMLElement;
  private readonly list = planList();
  private readonly note = cutNoteEl();
  private plan: readonly PlanEntry[] | undefined;

  constructor(private readonly ui: UiState) {
    this.count = h("span", { class: "plan-count" });
    this.body = h("div", { class: "plan-body", id: "plan-body" }, this.list, this.note);
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
    const running = isWorking(session);
    toggleHidden(this.el, !plan || plan.length === 0 || !running);
    if (plan === this.plan && this.note.textContent === (session?.planCut ? truncatedNote(session.planCut) : "")) return;
    syncChecklist(this.list, this.plan ?? [], plan ?? []);
    this.plan = plan;
    setText(this.count, plan ? progress(plan) : "");
    syncCutNote(this.note, session?.planCut);
  }

  private syncOpen(): void {
    this.el.classList.toggle("open", this.ui.planOpen);
    this.head.setAttribute("aria-expanded", String(this.ui.planOpen));
    toggleHidden(this.body, !this.ui.planOpen);
  }
}
