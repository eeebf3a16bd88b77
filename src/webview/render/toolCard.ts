/**
 * A tool call's card: kind icon, title, a status badge (icon + text, never colour alone), the
 * permission buttons while the agent waits for an answer, and — in a collapsible body built only
 * when open — locations, content blocks, diff summaries with "Open diff", a terminal preview with
 * "Show terminal", and raw input/output as pretty JSON behind disclosures.
 */
import { truncatedNote } from "../../shared/bound";
import type { ContentBlock, Cuts, ToolContent, ToolKind } from "../../shared/events";
import type { Entry, ToolEntry, ToolViewStatus } from "../../shared/viewModel";
import { button, cleanBlock, cleanInline, displayPath, h, icon, setAttr, setText, stripAnsi, toggleHidden, uid } from "../dom";
import { cachedLineDiffStats } from "../../shared/lineDiff";
import { entryKey, type RenderCtx } from "./context";
import { OPTION_ICON, optionButton } from "./permissionOption";
import { entryShell, type EntryComp } from "./entryBase";

const KIND_ICON: Record<ToolKind, string> = {
  read: "go-to-file", edit: "edit", delete: "trash", move: "arrow-swap", search: "search", execute: "terminal",
  think: "lightbulb", fetch: "globe", switch_mode: "arrow-both", other: "tools",
};

const TOOL_STATUS: Record<ToolViewStatus, { icon: string; label: string }> = {
  pending: { icon: "circle-large-outline", label: "Pending" },
  awaiting_permission: { icon: "shield", label: "Awaiting permission" },
  in_progress: { icon: "loading codicon-modifier-spin", label: "Running" },
  completed: { icon: "check", label: "Done" },
  failed: { icon: "error", label: "Failed" },
  rejected: { icon: "circle-slash", label: "Rejected" },
  canceled: { icon: "close", label: "Canceled" },
};

const CUT_FIELD: Record<keyof Cuts, string> = {
  title: "title", rawInput: "raw input", rawOutput: "raw output", content: "content", locations: "locations",
  entries: "entries", options: "options", raw: "raw data", usage: "usage",
};

/** The marker text for a tool call's cuts ("… truncated: raw output: 19,983,616 more characters; …"). */
export function cutsText(cuts: Cuts): string {
  return truncatedNote((Object.keys(cuts) as (keyof Cuts)[]).map((f) => `${CUT_FIELD[f]} ${cuts[f] ?? ""}`).join("; "));
}

const OUTCOME_TEXT = { allow_once: "Allowed once", allow_always: "Always allowed", reject_once: "Rejected", reject_always: "Always rejected" } as const;

/** "Not drawn yet" (distinct from every value an entry field can hold, including undefined). */
const UNSET = Symbol("unset");

/** Text blocks and raw JSON are cut here (with a note). */
export const TEXT_LIMIT = 20_000;
const TERMINAL_LINES = 15;
export const MAX_LOCATIONS = 8;

function pretty(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A `pre` of untrusted text, cut at `TEXT_LIMIT` with a note. */
function preBlock(text: string, cls: string): HTMLElement {
  const cut = text.length > TEXT_LIMIT;
  const pre = h("pre", { class: cls, attrs: { tabindex: "0" } }, cleanBlock(cut ? text.slice(0, TEXT_LIMIT) : text));
  if (!cut) return pre;
  return h("div", null, pre, h("div", { class: "note" }, `Truncated: showing ${Math.round(TEXT_LIMIT / 1000)} KB of ${Math.round(text.length / 1000)} KB.`));
}

/** The last lines of terminal output, without ANSI codes or overwritten progress text. */
/** A tool card's title as it shows (find counts the same): a title of blanks reads as none. */
export function toolTitle(e: ToolEntry): string {
  return cleanInline(e.title.trim() || "Tool call", 300);
}

export function terminalTail(output: string, n = TERMINAL_LINES): string {
  const tail = output.length > 16_384 ? output.slice(-16_384) : output;
  const lines = stripAnsi(tail).replace(/\r\n/g, "\n").split("\n").map((l) => {
    const cr = l.lastIndexOf("\r");
    return cr >= 0 ? l.slice(cr + 1) : l;
  });
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.slice(-n).join("\n");
}

export class ToolCard implements EntryComp {
  readonly el: HTMLElement;
  private readonly toggleBtn: HTMLButtonElement;
  private readonly chevron: HTMLElement;
  private readonly kindIcon: HTMLElement;
  private readonly title: HTMLElement;
  private readonly status: HTMLElement;
  private readonly bodyId = uid("tool");
  /** Built on first need: most cards never show either. */
  private permission: HTMLElement | undefined;
  private body: HTMLElement | undefined;
  private entry: ToolEntry;
  private ctx: RenderCtx;
  private open: boolean | undefined;
  /** What each body section last drew (identities), so a section is rebuilt only when its input changed. */
  private drawn: { locations: unknown; content: unknown; terminal?: { output: unknown; exit: unknown; has: boolean }; rawIn: unknown; rawOut: unknown; permission: unknown; cuts: unknown; kind?: string } =
    { locations: UNSET, content: UNSET, rawIn: UNSET, rawOut: UNSET, permission: UNSET, cuts: UNSET };
  /** The "truncated" marker under the head, when the panel cut some of this call's data. */
  private cutNote: HTMLElement | undefined;
  private sections: { locations: HTMLElement; content: HTMLElement; terminal: HTMLElement; rawIn: HTMLDetailsElement; rawOut: HTMLDetailsElement } | undefined;
  private sending = false;

  constructor(entry: ToolEntry, ctx: RenderCtx) {
    this.entry = entry;
    this.ctx = ctx;
    this.chevron = icon("chevron-right", "chevron");
    this.kindIcon = icon(KIND_ICON[entry.toolKind] ?? "tools", "kind-icon");
    this.title = h("span", { class: "tool-title ut" });
    this.toggleBtn = h("button", { class: "entry-head tool-toggle", attrs: { type: "button" } }, this.chevron, this.kindIcon, this.title);
    this.status = h("span", { class: "tool-status" });
    this.el = entryShell(entry, "tool-card");
    this.el.setAttribute("data-tool-call-id", entry.toolCallId);
    this.el.append(h("div", { class: "tool-head" }, this.toggleBtn, this.status));
    this.toggleBtn.addEventListener("click", () => {
      this.ctx.ui.entryOpen.set(entryKey(this.ctx, this.entry.id), !this.open);
      this.draw();
    });
    this.draw();
  }

  update(entry: Entry, ctx: RenderCtx): void {
    if (entry.type !== "tool" || (entry === this.entry && ctx.sessionId === this.ctx.sessionId)) return;
    this.entry = entry;
    this.ctx = ctx;
    this.draw();
  }

  private hasTerminal(): boolean {
    const e = this.entry;
    return e.terminalOutput !== undefined || e.content.some((c) => c.type === "terminal");
  }

  private hasBody(): boolean {
    const e = this.entry;
    return e.locations.length > 0 || e.content.length > 0 || this.hasTerminal() || e.rawInput !== undefined || e.rawOutput !== undefined;
  }

  private defaultOpen(): boolean {
    const e = this.entry;
    // Finished commands fold like the rest (their output is one click away); diffs stay visible.
    if (e.content.some((c) => c.type === "diff")) return true;
    return e.status === "failed" || e.status === "in_progress" || e.status === "awaiting_permission" || (e.status === "pending" && (e.content.length > 0 || this.hasTerminal()));
  }

  private draw(): void {
    const e = this.entry;
    const kind = e.toolKind;
    if (this.drawn.kind !== kind) {
      this.drawn.kind = kind;
      this.kindIcon.className = `codicon codicon-${KIND_ICON[kind] ?? "tools"} kind-icon`;
    }
    setText(this.title, toolTitle(e));
    setAttr(this.title, "title", e.title.length > 300 || e.title.includes("\n") ? cleanInline(e.title, 2000) : undefined);
    if (this.el.getAttribute("data-status") !== e.status) {
      this.el.setAttribute("data-status", e.status);
      const st = TOOL_STATUS[e.status] ?? TOOL_STATUS.pending;
      this.status.setAttribute("data-status", e.status);
      this.status.className = `tool-status status-${e.status}`;
      this.status.replaceChildren(icon(st.icon), st.label);
    }
    this.drawPermission();
    this.drawCuts();

    const hasBody = this.hasBody();
    const open = hasBody && (this.ctx.ui.entryOpen.get(entryKey(this.ctx, e.id)) ?? this.defaultOpen());
    if (open !== this.open) {
      this.open = open;
      this.el.classList.toggle("open", open);
      if (open && !this.body) {
        this.body = h("div", { class: "tool-body", id: this.bodyId });
        this.el.append(this.body);
      }
      if (this.body) toggleHidden(this.body, !open);
    }
    toggleHidden(this.chevron, !hasBody);
    setAttr(this.toggleBtn, "aria-expanded", hasBody ? String(open) : undefined);
    setAttr(this.toggleBtn, "aria-controls", this.body ? this.bodyId : undefined);
    setAttr(this.toggleBtn, "aria-disabled", hasBody ? undefined : "true");
    if (open) this.drawBody();
    this.ctx.rows.mark(this.el, "tool", !open && !this.permission && !this.cutNote);
  }

  private drawPermission(): void {
    const p = this.entry.permission;
    if (p === this.drawn.permission) return;
    this.drawn.permission = p;
    this.sending = false;
    if (!p) {
      this.permission?.remove();
      this.permission = undefined;
      return;
    }
    if (!this.permission) {
      this.permission = h("div", { class: "tool-permission", attrs: { role: "group", "aria-label": "Permission" } });
      this.el.querySelector(":scope > .tool-head")?.after(this.permission);
    }
    const box = this.permission;
    if (!p.outcome) {
      const buttons = p.options.map((o) => {
        const b = optionButton(o);
        b.setAttribute("data-option-id", o.optionId);
        b.addEventListener("click", () => this.answer(p.requestId, o.optionId, b));
        return b;
      });
      box.className = "tool-permission pending";
      box.replaceChildren(
        h("div", { class: "perm-prompt" }, icon("shield"), h("span", null, "The agent asks for permission to run this.")),
        ...(p.guard ? [h("div", { class: "perm-guard", attrs: { role: "note" } }, icon("warning"), h("span", null, `Always asked: ${cleanInline(p.guard, 400)}. Check the diff before you allow it.`))] : []),
        h("div", { class: "perm-buttons" }, ...buttons),
      );
      return;
    }
    let text: string;
    let iconName: string;
    if (p.outcome.outcome === "cancelled") {
      text = "Cancelled";
      iconName = "close";
    } else {
      const chosen = p.options.find((o) => o.optionId === (p.outcome as { optionId: string }).optionId);
      text = chosen ? OUTCOME_TEXT[chosen.kind] ?? cleanInline(chosen.name, 80) : "Answered";
      iconName = chosen ? OPTION_ICON[chosen.kind] : "check";
    }
    if (p.by === "policy") text += " (by policy)";
    else if (p.by === "cancel" && p.outcome.outcome === "cancelled") text += " (turn cancelled)";
    box.className = "tool-permission answered";
    box.replaceChildren(h("span", { class: "perm-outcome", attrs: { "data-outcome": p.outcome.outcome } }, icon(iconName), h("span", null, text)));
  }

  private drawCuts(): void {
    const cuts = this.entry.cuts;
    if (cuts === this.drawn.cuts) return;
    this.drawn.cuts = cuts;
    if (!cuts || Object.keys(cuts).length === 0) {
      this.cutNote?.remove();
      this.cutNote = undefined;
      return;
    }
    if (!this.cutNote) {
      this.cutNote = h("div", { class: "note truncated-note", attrs: { role: "note" } });
      this.el.querySelector(":scope > .tool-head")?.after(this.cutNote);
    }
    setText(this.cutNote, cleanInline(cutsText(cuts), 600));
  }

  private answer(requestId: string, optionId: string, chosen: HTMLButtonElement): void {
    if (this.sending) return;
    this.sending = true;
    for (const b of this.permission?.querySelectorAll("button") ?? []) b.disabled = true;
    chosen.classList.add("chosen");
    this.ctx.post({ type: "resolvePermission", sessionId: this.ctx.sessionId, requestId, optionId });
  }

  private drawBody(): void {
    const e = this.entry;
    if (!this.body) return;
    if (!this.sections) {
      const rawIn = h("details", { class: "tool-raw" }, h("summary", null, "Raw input"));
      const rawOut = h("details", { class: "tool-raw" }, h("summary", null, "Raw output"));
      rawIn.addEventListener("toggle", () => this.fillRaw(rawIn, this.entry.rawInput));
      rawOut.addEventListener("toggle", () => this.fillRaw(rawOut, this.entry.rawOutput));
      this.sections = { locations: h("div", { class: "tool-locations" }), content: h("div", { class: "tool-content" }), terminal: h("div", { class: "tool-terminal" }), rawIn, rawOut };
      this.body.append(this.sections.locations, this.sections.content, this.sections.terminal, rawIn, rawOut);
    }
    const s = this.sections;
    if (this.drawn.locations !== e.locations) {
      this.drawn.locations = e.locations;
      this.drawLocations(s.locations);
    }
    if (this.drawn.content !== e.content) {
      this.drawn.content = e.content;
      this.drawContent(s.content);
    }
    const hasTerminal = this.hasTerminal();
    const t = this.drawn.terminal;
    if (!t || t.output !== e.terminalOutput || t.exit !== e.terminalExit || t.has !== hasTerminal) {
      this.drawn.terminal = { output: e.terminalOutput, exit: e.terminalExit, has: hasTerminal };
      this.drawTerminal(s.terminal);
    }
    if (this.drawn.rawIn !== e.rawInput) {
      this.drawn.rawIn = e.rawInput;
      toggleHidden(s.rawIn, e.rawInput === undefined);
      if (s.rawIn.open) this.fillRaw(s.rawIn, e.rawInput);
    }
    if (this.drawn.rawOut !== e.rawOutput) {
      this.drawn.rawOut = e.rawOutput;
      toggleHidden(s.rawOut, e.rawOutput === undefined);
      if (s.rawOut.open) this.fillRaw(s.rawOut, e.rawOutput);
    }
  }

  private drawLocations(box: HTMLElement): void {
    const locs = this.entry.locations;
    toggleHidden(box, locs.length === 0);
    box.replaceChildren(...locs.slice(0, MAX_LOCATIONS).map((l) => {
      const line = typeof l.line === "number" && Number.isInteger(l.line) && l.line >= 1 ? l.line : undefined;
      const label = `${cleanInline(displayPath(l.path, this.ctx.session.cwd), 300)}${line ? `:${line}` : ""}`;
      const b = button({ class: "link location", icon: "file", label, title: cleanInline(l.path, 2000) });
      b.addEventListener("click", () => this.ctx.post({ type: "openLocation", path: l.path, ...(line ? { line } : {}) }));
      return b;
    }), locs.length > MAX_LOCATIONS ? h("span", { class: "note" }, `+${locs.length - MAX_LOCATIONS} more`) : "");
  }

  private drawContent(box: HTMLElement): void {
    const content = this.entry.content;
    const parts: HTMLElement[] = [];
    content.forEach((c, index) => {
      const el = this.contentItem(c, index);
      if (el) parts.push(el);
    });
    toggleHidden(box, parts.length === 0);
    box.replaceChildren(...parts);
  }

  private contentItem(c: ToolContent, index: number): HTMLElement | undefined {
    switch (c.type) {
      case "content": return this.block(c.content);
      case "diff": {
        const stats = cachedLineDiffStats(c, c.oldText, c.newText);
        const open = button({ class: "secondary small", icon: "diff", label: "Open diff" });
        open.addEventListener("click", () => this.ctx.post({ type: "openDiff", sessionId: this.ctx.sessionId, toolCallId: this.entry.toolCallId, index }));
        return h("div", { class: "diff-row" },
          icon("diff-single", "diff-icon"),
          h("span", { class: "diff-path ut", attrs: { title: cleanInline(c.path, 2000) } }, cleanInline(displayPath(c.path, this.ctx.session.cwd), 300)),
          c.oldText === null ? h("span", { class: "tag" }, "new") : null,
          h("span", { class: "diff-stat" },
            h("span", { class: "added", attrs: { "aria-label": `${stats.added} lines added` } }, `${stats.approximate ? "≈" : ""}+${stats.added}`),
            " ",
            h("span", { class: "removed", attrs: { "aria-label": `${stats.removed} lines removed` } }, `−${stats.removed}`)),
          open);
      }
      case "terminal": return undefined; // shown by the terminal section
    }
  }

  private block(b: ContentBlock): HTMLElement {
    switch (b.type) {
      case "text": return preBlock(b.text, "tool-text");
      case "resource_link": return this.link(b.uri, b.title ?? b.name);
      case "resource":
        return b.resource.text !== undefined ? preBlock(b.resource.text, "tool-text") : this.link(b.resource.uri, b.resource.uri);
      case "image":
      case "audio": return h("span", { class: "note" }, `[${b.type} ${cleanInline(b.mimeType, 80)}]`);
    }
  }

  private link(uri: string, name: string): HTMLElement {
    const b = button({ class: "link", icon: "link", label: cleanInline(name, 300), title: cleanInline(uri, 2000) });
    b.addEventListener("click", () => this.ctx.post({ type: "openLink", href: uri }));
    return b;
  }

  private drawTerminal(box: HTMLElement): void {
    const e = this.entry;
    if (!this.hasTerminal()) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.hidden = false;
    const show = button({ class: "secondary small", icon: "terminal", label: "Show terminal" });
    show.addEventListener("click", () => this.ctx.post({ type: "revealTerminal", sessionId: this.ctx.sessionId, toolCallId: this.entry.toolCallId }));
    const exit = e.terminalExit;
    const exitText = exit ? (exit.signal ? `Killed by ${cleanInline(exit.signal, 40)}` : `Exit code ${exit.exitCode ?? "?"}`) : undefined;
    const tail = e.terminalOutput ? terminalTail(e.terminalOutput) : "";
    box.replaceChildren(
      tail ? h("pre", { class: "terminal-preview", attrs: { tabindex: "0", "aria-label": "Terminal output (last lines)" } }, cleanBlock(tail)) : "",
      h("div", { class: "terminal-actions" }, show,
        exitText ? h("span", { class: `exit ${exit?.exitCode === 0 && !exit.signal ? "ok" : "bad"}` }, exitText) : null),
    );
  }

  private fillRaw(d: HTMLDetailsElement, value: unknown): void {
    const old = d.querySelector(":scope > .raw-body");
    if (!d.open) {
      old?.remove();
      return;
    }
    const el = h("div", { class: "raw-body" }, preBlock(pretty(value), "raw-json"));
    if (old) old.replaceWith(el);
    else d.append(el);
  }

  dispose(): void {}
}
