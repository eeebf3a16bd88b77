/**
 * The prompt box: a growing textarea (`#prompt`; Enter sends, Shift+Enter breaks the line, IME
 * composition is left alone), Send (`#send`) and Stop (`#stop`), slash-command completion from
 * the session's commands (a listbox driven by Up/Down/Tab/Enter/Escape), and the session's mode
 * and config options (model first) as selects and checkboxes. The draft survives a reload.
 */
import type { AvailableCommand, ConfigOption } from "../../shared/events";
import { nextAgent, type SessionView } from "../../shared/viewModel";
import type { HostInfo, WebviewMessage } from "../../shared/protocol";
import { button, cleanInline, h, setAttr, toggleHidden } from "../dom";
import type { UiState } from "../uiState";

const MAX_COMPLETIONS = 50;

function modelFirst(a: ConfigOption, b: ConfigOption): number {
  const rank = (o: ConfigOption): number => (o.category === "model" || o.id === "model" ? 0 : 1);
  return rank(a) - rank(b);
}

export class PromptBox {
  readonly el: HTMLFormElement;
  private readonly textarea: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  private readonly list: HTMLElement;
  private readonly controls: HTMLElement;
  private session: SessionView | undefined;
  private items: AvailableCommand[] = [];
  private active = -1;
  private composing = false;
  private controlsKey: unknown[] = [];
  private placeholder = "";
  /** The last prompt sent, until a turn shows it arrived; put back if the agent fails to start instead. */
  private unconfirmed: { text: string; errorBefore: string | undefined; errorCleared: boolean; turnsBefore: number } | undefined;
  private host: HostInfo | undefined;

  constructor(private readonly ui: UiState, private readonly post: (m: WebviewMessage) => void) {
    this.list = h("ul", { id: "slash-list", class: "completions", attrs: { role: "listbox", "aria-label": "Commands" } });
    this.list.hidden = true;
    this.textarea = h("textarea", {
      id: "prompt",
      attrs: { rows: 1, "aria-label": "Prompt", "aria-autocomplete": "list", "aria-controls": "slash-list", spellcheck: "true" },
    });
    this.textarea.value = ui.draft;
    this.send = button({ class: "icon-button primary send", icon: "send", label: "Send", labelHidden: true, id: "send", title: "Send (Enter)" });
    this.stop = button({ class: "secondary stop", icon: "debug-stop", label: "Stop", id: "stop", title: "Stop the running turn" });
    this.stop.hidden = true;
    this.controls = h("div", { class: "prompt-controls" });
    this.el = h("form", { class: "prompt-box", attrs: { "aria-label": "Prompt" } },
      this.list,
      h("div", { class: "prompt-frame" },
        this.textarea,
        h("div", { class: "prompt-row" }, this.controls, h("span", { class: "spacer" }), this.stop, this.send)));

    this.el.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    this.send.addEventListener("click", () => this.submit());
    this.stop.addEventListener("click", () => {
      if (this.session) this.post({ type: "cancelTurn", sessionId: this.session.sessionId });
    });
    this.textarea.addEventListener("compositionstart", () => { this.composing = true; });
    this.textarea.addEventListener("compositionend", () => { this.composing = false; });
    this.textarea.addEventListener("input", () => {
      this.ui.draft = this.textarea.value;
      this.ui.save();
      this.syncSend();
      this.complete();
    });
    this.textarea.addEventListener("keydown", (e) => this.onKey(e));
    this.textarea.addEventListener("click", () => this.complete());
    this.textarea.addEventListener("blur", () => this.close());
    this.syncSend();
  }

  focus(): void {
    this.textarea.focus();
  }

  render(session: SessionView | undefined, host: HostInfo): void {
    this.session = session;
    this.host = host;
    this.settlePrompt(session, host);
    const next = nextAgent(session, host.defaultAgent);
    const agent = cleanInline(next.name, 60);
    const placeholder = next.switched ? `Ask ${agent}… (starts a new session)` : `Ask ${agent}… (/ for commands)`;
    if (placeholder !== this.placeholder) {
      this.placeholder = placeholder;
      this.textarea.placeholder = placeholder;
    }
    const running = session?.status === "running" || session?.status === "awaiting_permission";
    toggleHidden(this.stop, !running);
    this.el.classList.toggle("running", running);
    const key = [session?.sessionId, session?.modes, session?.configOptions];
    if (key.some((k, i) => k !== this.controlsKey[i])) {
      this.controlsKey = key;
      this.drawControls(session);
    }
  }

  private syncSend(): void {
    const empty = this.textarea.value.trim() === "";
    if (this.send.disabled !== empty) this.send.disabled = empty;
  }

  private submit(): void {
    const text = this.textarea.value.trim();
    if (!text) return;
    const s = this.session;
    this.post({ type: "sendPrompt", text, ...(s && s.status !== "ended" ? { sessionId: s.sessionId } : {}) });
    this.unconfirmed = { text, errorBefore: this.host?.hostError, errorCleared: false, turnsBefore: s?.turns.length ?? 0 };
    this.textarea.value = "";
    this.ui.draft = "";
    this.ui.save();
    this.syncSend();
    this.close();
  }

  /** A sent prompt either starts a turn (done) or meets a new host error (the agent did not start): then it goes back in the box. */
  private settlePrompt(session: SessionView | undefined, host: HostInfo): void {
    const u = this.unconfirmed;
    if (!u) return;
    if (session && (session.status === "running" || session.status === "awaiting_permission" || session.turns.length > u.turnsBefore)) {
      this.unconfirmed = undefined;
      return;
    }
    if (!host.hostError) {
      u.errorCleared = true;
      return;
    }
    if (!u.errorCleared && host.hostError === u.errorBefore) return;
    this.unconfirmed = undefined;
    if (this.textarea.value.trim()) return; // the user is typing something else
    this.textarea.value = u.text;
    this.ui.draft = u.text;
    this.ui.save();
    this.syncSend();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing || this.composing || e.keyCode === 229) return;
    if (!this.list.hidden) {
      switch (e.key) {
        case "ArrowDown":
        case "ArrowUp": {
          e.preventDefault();
          const n = this.items.length;
          this.setActive(((this.active + (e.key === "ArrowDown" ? 1 : -1)) % n + n) % n);
          return;
        }
        case "Tab":
        case "Enter":
          if (e.shiftKey || this.active < 0) break;
          e.preventDefault();
          this.accept(this.active);
          return;
        case "Escape":
          e.preventDefault();
          this.close();
          return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.altKey) {
      e.preventDefault();
      this.submit();
    }
  }

  /** Opens, refreshes or closes the command list for the text before the caret. */
  private complete(): void {
    const value = this.textarea.value;
    const commands = this.session?.commands ?? [];
    const tokenEnd = value.search(/\s/);
    const end = tokenEnd < 0 ? value.length : tokenEnd;
    if (!value.startsWith("/") || commands.length === 0 || this.textarea.selectionStart > end) {
      this.close();
      return;
    }
    const q = value.slice(1, end).toLowerCase();
    const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
    const contains = q ? commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q)) : [];
    const items = [...starts, ...contains].slice(0, MAX_COMPLETIONS);
    if (items.length === 0 || (items.length === 1 && items[0]?.name.toLowerCase() === q && tokenEnd >= 0)) {
      this.close();
      return;
    }
    this.items = items;
    this.list.replaceChildren(...items.map((c, i) => {
      const li = h("li", { id: `slash-opt-${i}`, class: "completion", attrs: { role: "option", "aria-selected": "false" } },
        h("span", { class: "cmd-name" }, `/${cleanInline(c.name, 80)}`),
        c.hint ? h("span", { class: "cmd-hint" }, cleanInline(c.hint, 120)) : null,
        c.description ? h("span", { class: "cmd-desc" }, cleanInline(c.description, 300)) : null);
      // Keep the focus in the textarea while picking with the mouse.
      li.addEventListener("mousedown", (ev) => ev.preventDefault());
      li.addEventListener("click", () => this.accept(i));
      return li;
    }));
    this.list.hidden = false;
    this.setActive(0);
  }

  private setActive(i: number): void {
    this.list.querySelector("[aria-selected=true]")?.setAttribute("aria-selected", "false");
    this.active = i;
    const li = this.list.querySelector(`#slash-opt-${i}`);
    if (!li) return;
    li.setAttribute("aria-selected", "true");
    this.textarea.setAttribute("aria-activedescendant", li.id);
    li.scrollIntoView({ block: "nearest" });
  }

  private accept(i: number): void {
    const c = this.items[i];
    if (!c) return;
    const value = this.textarea.value;
    const tokenEnd = value.search(/\s/);
    const rest = tokenEnd < 0 ? "" : value.slice(tokenEnd).replace(/^\s+/, "");
    this.textarea.value = `/${c.name} ${rest}`;
    const caret = c.name.length + 2;
    this.textarea.setSelectionRange(caret, caret);
    this.ui.draft = this.textarea.value;
    this.ui.save();
    this.syncSend();
    this.close();
  }

  private close(): void {
    if (this.list.hidden) return;
    this.list.hidden = true;
    this.list.replaceChildren();
    this.items = [];
    this.active = -1;
    this.textarea.removeAttribute("aria-activedescendant");
  }

  private drawControls(session: SessionView | undefined): void {
    const parts: HTMLElement[] = [];
    if (session) {
      const sid = session.sessionId;
      const modes = session.modes;
      if (modes && modes.availableModes.length > 0) {
        const sel = h("select", { class: "mode-select", attrs: { "aria-label": "Mode", title: "Mode" } },
          ...modes.availableModes.map((m) => {
            const o = h("option", { attrs: { value: m.id, title: m.description ? cleanInline(m.description, 300) : undefined } }, cleanInline(m.name, 60));
            o.selected = m.id === modes.currentModeId;
            return o;
          }));
        sel.addEventListener("change", () => this.post({ type: "setMode", sessionId: sid, modeId: sel.value }));
        parts.push(sel);
      }
      for (const opt of [...session.configOptions].sort(modelFirst)) {
        if (opt.type === "select" && opt.options && opt.options.length > 0) {
          const groups = new Map<string, HTMLElement>();
          const sel = h("select", { class: "config-select", attrs: { "aria-label": cleanInline(opt.name, 60), title: cleanInline(opt.description ?? opt.name, 300), "data-config-id": opt.id } });
          for (const choice of opt.options) {
            const o = h("option", { attrs: { value: choice.value, title: choice.description ? cleanInline(choice.description, 300) : undefined } }, cleanInline(choice.name, 80));
            o.selected = choice.value === opt.currentValue;
            if (choice.group) {
              let g = groups.get(choice.group);
              if (!g) {
                g = h("optgroup", { attrs: { label: cleanInline(choice.group, 60) } });
                groups.set(choice.group, g);
                sel.append(g);
              }
              g.append(o);
            } else {
              sel.append(o);
            }
          }
          sel.addEventListener("change", () => this.post({ type: "setConfigOption", sessionId: sid, configId: opt.id, value: sel.value }));
          parts.push(sel);
        } else if (opt.type === "boolean") {
          const box = h("input", { attrs: { type: "checkbox", "data-config-id": opt.id } });
          box.checked = opt.currentValue === true;
          box.addEventListener("change", () => this.post({ type: "setConfigOption", sessionId: sid, configId: opt.id, value: box.checked }));
          const label = h("label", { class: "config-check", attrs: { title: opt.description ? cleanInline(opt.description, 300) : undefined } }, box, cleanInline(opt.name, 60));
          parts.push(label);
        }
      }
    }
    this.controls.replaceChildren(...parts);
    setAttr(this.controls, "hidden", parts.length === 0);
  }
}
