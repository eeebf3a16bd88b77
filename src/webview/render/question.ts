/**
 * The open question, pinned above the prompt box: the oldest permission request of the session
 * the panel shows, with the tool's title, why it always asks (if it does) and the agent's options
 * — where the user's eyes are, however far the transcript has scrolled. Keys answer it: 1–9 pick
 * an option while focus is in the question or nowhere in particular; in the question, Enter allows
 * once and Escape rejects. "Always" options look different from "once" options. The card in the
 * transcript keeps its own buttons; both answer the same request.
 *
 * Once at least half of it is on screen in a visible view, it tells the host which requests it
 * stands for (the drawn one and those "+N more waiting"), so the host sends no notification;
 * a request the panel does not put on screen in time gets one.
 *
 * A question takes answers only once it has been on screen for ANSWER_DELAY_MS (`data-ready`):
 * the next question appears where the last one was answered, and a double click, a held key or a
 * key pressed twice must not answer one nobody has seen.
 */
import type { PermissionOption } from "../../shared/events";
import { toolEntryIn, type SessionView, type ToolEntry } from "../../shared/viewModel";
import type { WebviewMessage } from "../../shared/protocol";
import { cleanInline, h, icon, setText, toggleHidden } from "../dom";
import { optionButton } from "./permissionOption";
import { SeenReporter } from "./seen";

const MAX_KEYED = 9;
const ANSWER_DELAY_MS = 400;

/** The oldest open request of a session and its tool card. */
function oldestRequest(session: SessionView): { tool: ToolEntry; requestId: string; waiting: number } | undefined {
  const open = Object.entries(session.pendingPermissions);
  for (const [requestId, toolCallId] of open) {
    const entry = toolEntryIn(session, toolCallId);
    if (entry?.permission?.requestId === requestId && !entry.permission.outcome) return { tool: entry, requestId, waiting: open.length };
  }
  return undefined;
}

export class PinnedQuestion {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly more: HTMLElement;
  private readonly guard: HTMLElement;
  private readonly buttons: HTMLElement;
  /** What is drawn: the session and request (redrawn only when they change). */
  private drawn: { sessionId: string; requestId: string; options: readonly PermissionOption[]; title: string; guard: string | undefined } | undefined;
  private sending = false;
  /** Whether the drawn question takes answers yet (see ANSWER_DELAY_MS). */
  private ready = false;
  private readyTimer: ReturnType<typeof setTimeout> | undefined;
  /** Tells the host once the question is in front of the user. */
  private readonly seen: SeenReporter;

  constructor(private readonly post: (m: WebviewMessage) => void) {
    this.title = h("span", { class: "question-title" });
    this.more = h("span", { class: "question-more" });
    this.guard = h("div", { class: "perm-guard", attrs: { role: "note" } });
    this.buttons = h("div", { class: "perm-buttons" });
    this.el = h("section", { id: "question", class: "question", attrs: { role: "group", "aria-label": "The agent asks for permission", tabindex: "0" } },
      h("div", { class: "question-head" }, icon("shield"), this.title, this.more),
      this.guard,
      this.buttons,
    );
    this.el.hidden = true;
    this.el.addEventListener("keydown", (ev) => {
      if (ev.repeat) return;
      if (ev.key === "Enter" && !(ev.target instanceof HTMLButtonElement)) this.answerKind(ev, ["allow_once"]);
      else if (ev.key === "Escape") this.answerKind(ev, ["reject_once", "reject_always"]);
    });
    this.seen = new SeenReporter(this.el, post);
    document.addEventListener("keydown", (ev) => {
      if (!this.drawn || ev.repeat || ev.altKey || ev.ctrlKey || ev.metaKey || ev.isComposing) return;
      // Not while focus is on something else (a button in the transcript, the prompt, a select): a stray digit must not allow a command.
      const t = ev.target;
      if (!(t instanceof Node) || !(this.el.contains(t) || t === document.body || t === document.documentElement)) return;
      const n = Number(ev.key);
      if (!Number.isInteger(n) || n < 1 || n > Math.min(MAX_KEYED, this.drawn.options.length)) return;
      ev.preventDefault();
      this.answer(this.drawn.options[n - 1]!);
    });
  }

  render(session: SessionView | undefined): void {
    const open = session ? oldestRequest(session) : undefined;
    toggleHidden(this.el, !open);
    if (!session || !open) {
      this.drawn = undefined;
      this.seen.shows(undefined);
      return;
    }
    this.seen.shows({ sessionId: session.sessionId, requestIds: Object.keys(session.pendingPermissions) });
    const p = open.tool.permission!;
    setText(this.more, open.waiting > 1 ? `+${open.waiting - 1} more waiting` : "");
    const d = this.drawn;
    if (d && d.sessionId === session.sessionId && d.requestId === open.requestId && d.options === p.options && d.title === open.tool.title && d.guard === p.guard) return;
    this.drawn = { sessionId: session.sessionId, requestId: open.requestId, options: p.options, title: open.tool.title, guard: p.guard };
    this.sending = false;
    this.ready = false;
    this.el.removeAttribute("data-ready");
    clearTimeout(this.readyTimer);
    this.readyTimer = setTimeout(() => {
      this.ready = true;
      this.el.setAttribute("data-ready", "");
      if (!this.sending) for (const b of this.buttons.querySelectorAll("button")) b.disabled = false;
    }, ANSWER_DELAY_MS);
    const title = `${cleanInline(session.agentName, 60)} asks: ${cleanInline(open.tool.title, 200)}`;
    setText(this.title, title);
    this.title.title = title;
    toggleHidden(this.guard, !p.guard);
    this.guard.replaceChildren(...(p.guard ? [icon("warning"), h("span", null, `Always asked: ${cleanInline(p.guard, 300)}. Check the diff in its card before you allow it.`)] : []));
    this.buttons.replaceChildren(...p.options.map((o, i) => {
      const b = optionButton(o);
      b.disabled = true; // until the question is ready
      b.setAttribute("data-answer", o.optionId);
      if (i < MAX_KEYED) {
        b.setAttribute("aria-keyshortcuts", String(i + 1));
        b.append(h("kbd", { class: "key", attrs: { "aria-hidden": "true" } }, String(i + 1)));
      }
      b.title = `${o.kind.replace("_", " ")}${i < MAX_KEYED ? ` (${i + 1})` : ""}`;
      b.addEventListener("click", () => this.answer(o));
      return b;
    }));
  }

  private answerKind(ev: KeyboardEvent, kinds: readonly PermissionOption["kind"][]): void {
    const option = this.drawn && kinds.map((k) => this.drawn!.options.find((o) => o.kind === k)).find((o) => o !== undefined);
    if (!option) return;
    ev.preventDefault();
    this.answer(option);
  }

  private answer(option: PermissionOption): void {
    const d = this.drawn;
    if (!d || this.sending || !this.ready) return;
    this.sending = true;
    for (const b of this.buttons.querySelectorAll("button")) {
      b.disabled = true;
      if (b.getAttribute("data-answer") === option.optionId) b.classList.add("chosen");
    }
    this.post({ type: "resolvePermission", sessionId: d.sessionId, requestId: d.requestId, optionId: option.optionId });
  }
}
