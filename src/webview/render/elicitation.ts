/**
 * The agent's open form question (`elicitation/create`), pinned above the prompt box where the
 * permission question is: the agent's message as plain text, one labelled input per field (text,
 * number with its bounds, checkbox, select, a group of checkboxes for a multi-select), required
 * ones marked and defaults filled in, each checked as the user types with the same
 * `fieldProblem` the host checks the answer with again. Submit is enabled only when every field
 * fits; Enter in a field submits, Decline and Cancel answer without content. Everything drawn
 * from the agent goes in as text (never HTML), from fields the host already bounded.
 *
 * A URL question shows the page's origin large and the whole address below it; nothing opens
 * until the user clicks "Open <origin>", and then the host opens it (checking the scheme again).
 *
 * Like the permission question it takes answers only after ANSWER_DELAY_MS on screen, and the
 * inputs are built once per question, so a redraw never loses what the user typed.
 */
import { defaultsOf, fieldProblem, type ElicitContent, type ElicitField, type ElicitValue } from "../../shared/elicitation";
import type { WebviewMessage } from "../../shared/protocol";
import type { SessionView } from "../../shared/viewModel";
import { cleanBlock, cleanInline, h, icon, setText, toggleHidden } from "../dom";
import { SeenReporter } from "./seen";

const ANSWER_DELAY_MS = 400;
const INPUT_TYPE: Record<string, string> = { email: "email", uri: "url", date: "date" };

/** One drawn field: how to read its value and where its problem shows. */
interface Drawn { field: ElicitField; read: () => ElicitValue | undefined; problem: HTMLElement; touched: boolean; control: HTMLElement }

export class PinnedForm {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly message: HTMLElement;
  private readonly notes: HTMLElement;
  private readonly form: HTMLFormElement;
  private readonly fieldsEl: HTMLElement;
  private readonly submit: HTMLButtonElement;
  private readonly submitLabel: HTMLElement;
  private readonly page: HTMLElement;
  private readonly decline: HTMLButtonElement;
  private readonly cancel: HTMLButtonElement;
  private drawn: { sessionId: string; requestId: string; fields: Drawn[] } | undefined;
  private ready = false;
  private sending = false;
  private readyTimer: ReturnType<typeof setTimeout> | undefined;
  /** Tells the host once the question is in front of the user. */
  private readonly seen: SeenReporter;

  constructor(private readonly post: (m: WebviewMessage) => void) {
    this.title = h("span", { class: "question-title" });
    this.message = h("div", { class: "elicit-message" });
    this.notes = h("div", { class: "perm-guard", attrs: { role: "note" } });
    this.fieldsEl = h("div", { class: "elicit-fields" });
    this.submitLabel = h("span", null, "Submit");
    this.submit = h("button", { class: "perm-btn allow", attrs: { type: "submit", "data-action": "accept" } }, icon("check"), this.submitLabel);
    this.page = h("div", { class: "elicit-page" });
    this.decline = h("button", { class: "perm-btn reject", attrs: { type: "button", "data-action": "decline" } }, icon("close"), h("span", null, "Decline"));
    this.cancel = h("button", { class: "perm-btn", attrs: { type: "button", "data-action": "cancel" } }, h("span", null, "Cancel"));
    this.submit.title = "Send these answers to the agent";
    this.decline.title = "Tell the agent you will not answer";
    this.cancel.title = "Dismiss the question without answering";
    this.form = h("form", { class: "elicit-form", attrs: { novalidate: "" } }, this.fieldsEl, h("div", { class: "perm-buttons" }, this.submit, this.decline, this.cancel));
    this.el = h("section", { id: "elicitation", class: "question elicitation", attrs: { role: "group", "aria-label": "The agent asks you to fill in a form" } },
      h("div", { class: "question-head" }, icon("question"), this.title),
      this.message,
      this.page,
      this.notes,
      this.form,
    );
    this.el.hidden = true;
    this.seen = new SeenReporter(this.el, post);
    this.form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.answer("accept");
    });
    this.form.addEventListener("input", () => this.check(false));
    this.form.addEventListener("change", () => this.check(false));
    this.decline.addEventListener("click", () => this.answer("decline"));
    this.cancel.addEventListener("click", () => this.answer("cancel"));
  }

  render(session: SessionView | undefined): void {
    const q = session?.elicitation;
    toggleHidden(this.el, !q);
    if (!session || !q) {
      this.drawn = undefined;
      this.seen.shows(undefined);
      return;
    }
    this.seen.shows({ sessionId: session.sessionId, requestIds: [q.requestId] });
    if (this.drawn?.sessionId === session.sessionId && this.drawn.requestId === q.requestId) return;
    const title = `${cleanInline(session.agentName, 60)} asks you`;
    setText(this.title, title);
    setText(this.message, cleanBlock(q.message));
    toggleHidden(this.notes, !q.problems?.length);
    this.notes.replaceChildren(...(q.problems?.length ? [icon("warning"), h("span", null, cleanInline(q.problems.join("; "), 1000))] : []));
    toggleHidden(this.page, !q.url);
    this.page.replaceChildren(...(q.url && q.origin ? [
      h("div", { class: "elicit-origin" }, icon("link-external"), h("span", null, cleanInline(q.origin, 200))),
      h("div", { class: "elicit-url" }, cleanInline(q.url, 2000)),
    ] : []));
    setText(this.submitLabel, q.origin ? `Open ${cleanInline(q.origin, 100)}` : "Submit");
    this.submit.title = q.origin ? "Open this page in your browser and tell the agent you did" : "Send these answers to the agent";
    const defaults = defaultsOf(q.fields);
    const fields = q.fields.map((f, i) => this.field(f, i, defaults[f.name]));
    this.fieldsEl.replaceChildren(...fields.map((d) => d.control));
    this.drawn = { sessionId: session.sessionId, requestId: q.requestId, fields };
    this.sending = false;
    this.ready = false;
    this.el.removeAttribute("data-ready");
    for (const b of [this.submit, this.decline, this.cancel]) b.disabled = true;
    clearTimeout(this.readyTimer);
    this.readyTimer = setTimeout(() => {
      this.ready = true;
      this.el.setAttribute("data-ready", "");
      this.check(false);
    }, ANSWER_DELAY_MS);
  }

  /** The label, input and problem line of one field. */
  private field(f: ElicitField, i: number, initial: ElicitValue | undefined): Drawn {
    const id = `elicit-f${i}`;
    const problem = h("div", { class: "elicit-problem", attrs: { id: `${id}-problem`, "aria-live": "polite" } });
    const label = (forId?: string) => h(forId ? "label" : "span", { class: "elicit-label", attrs: forId ? { for: forId } : {} },
      cleanInline(f.title, 200), ...(f.required ? [h("span", { class: "elicit-required", attrs: { title: "Required" } }, " *")] : []));
    const described = (el: HTMLElement) => { el.setAttribute("aria-describedby", `${id}-problem${f.description ? ` ${id}-desc` : ""}`); el.setAttribute("data-field", f.name); if (f.required) el.setAttribute("aria-required", "true"); return el; };
    const desc = f.description ? [h("div", { class: "elicit-desc", attrs: { id: `${id}-desc` } }, cleanInline(f.description, 2000))] : [];
    const wrap = (...children: HTMLElement[]) => h("div", { class: "elicit-field" }, ...children, ...desc, problem);
    switch (f.type) {
      case "text": {
        const input = described(h("input", { attrs: { id, type: (f.format && INPUT_TYPE[f.format]) ?? "text", ...(f.maxLength !== undefined ? { maxlength: String(Math.min(f.maxLength, 10_000)) } : { maxlength: "10000" }), ...(f.format === "date-time" ? { placeholder: "2026-01-31T12:00:00Z" } : {}) } })) as HTMLInputElement;
        if (typeof initial === "string") input.value = initial;
        return { field: f, problem, touched: false, control: wrap(label(id), input), read: () => input.value };
      }
      case "number": {
        const input = described(h("input", { attrs: { id, type: "number", step: f.integer ? "1" : "any", ...(f.minimum !== undefined ? { min: String(f.minimum) } : {}), ...(f.maximum !== undefined ? { max: String(f.maximum) } : {}) } })) as HTMLInputElement;
        if (typeof initial === "number") input.value = String(initial);
        return { field: f, problem, touched: false, control: wrap(label(id), input), read: () => (input.value.trim() === "" ? (input.validity.badInput ? Number.NaN : undefined) : Number(input.value)) };
      }
      case "boolean": {
        const input = described(h("input", { attrs: { id, type: "checkbox" } })) as HTMLInputElement;
        input.checked = initial === true;
        return { field: f, problem, touched: false, control: wrap(h("div", { class: "elicit-check" }, input, label(id))), read: () => input.checked };
      }
      case "select": {
        const select = described(h("select", { attrs: { id } })) as HTMLSelectElement;
        select.append(h("option", { attrs: { value: "" } }, f.required ? "Choose…" : "(none)"));
        for (const c of f.choices) {
          const o = h("option", null, cleanInline(c.title, 200));
          o.value = c.value;
          select.append(o);
        }
        select.value = typeof initial === "string" ? initial : "";
        return { field: f, problem, touched: false, control: wrap(label(id), select), read: () => select.value };
      }
      case "multiselect": {
        const chosen = new Set(Array.isArray(initial) ? initial : []);
        const boxes = f.choices.map((c, j) => {
          const box = h("input", { attrs: { id: `${id}-${j}`, type: "checkbox" } });
          box.value = c.value;
          box.checked = chosen.has(c.value);
          return { box, row: h("div", { class: "elicit-check" }, box, h("label", { attrs: { for: `${id}-${j}` } }, cleanInline(c.title, 200))) };
        });
        const group = described(h("fieldset", { class: "elicit-group" }, h("legend", { class: "elicit-label" }, cleanInline(f.title, 200), ...(f.required ? [h("span", { class: "elicit-required", attrs: { title: "Required" } }, " *")] : [])), ...boxes.map((b) => b.row)));
        return { field: f, problem, touched: false, control: wrap(group), read: () => boxes.filter((b) => b.box.checked).map((b) => b.box.value) };
      }
    }
  }

  /** Checks every field; shows the problems of those touched (all when `all`); enables Submit when none has one. */
  private check(all: boolean): ElicitContent | undefined {
    const d = this.drawn;
    if (!d) return undefined;
    const content: ElicitContent = {};
    let ok = true;
    for (const f of d.fields) {
      const v = f.read();
      const problem = fieldProblem(f.field, v);
      if (problem) ok = false;
      else if (v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0)) content[f.field.name] = v;
      if (all || (f.touched ||= document.activeElement !== null && f.control.contains(document.activeElement))) {
        setText(f.problem, problem ? `${cleanInline(f.field.title, 100)} ${problem}` : "");
        f.control.classList.toggle("invalid", problem !== undefined);
      }
    }
    if (!this.sending) {
      this.submit.disabled = !this.ready || !ok;
      this.decline.disabled = this.cancel.disabled = !this.ready;
    }
    return ok ? content : undefined;
  }

  private answer(action: "accept" | "decline" | "cancel"): void {
    const d = this.drawn;
    if (!d || this.sending || !this.ready) return;
    const content = action === "accept" ? this.check(true) : undefined;
    if (action === "accept" && !content) return;
    this.sending = true;
    for (const b of [this.submit, this.decline, this.cancel]) b.disabled = true;
    this.post({ type: "answerElicitation", sessionId: d.sessionId, requestId: d.requestId, action, ...(content ? { content } : {}) });
  }
}
