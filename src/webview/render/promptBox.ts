/**
 * The prompt box: a growing textarea (`#prompt`; Enter sends, Shift+Enter breaks the line, IME
 * composition is left alone), Send (`#send`) and Stop (`#stop`), slash-command completion from
 * the session's commands (a listbox driven by Up/Down/Tab/Enter/Escape), and the session's mode
 * and config options (model first) as selects and checkboxes. The draft survives a reload.
 *
 * ↑ on the first line and ↓ on the last walk the sent prompts (PromptHistory); "Edit" on the last
 * prompt in the transcript puts it back here to change and send again. A prompt sent while its
 * session's turn runs is queued (listed above the box, editable and removable) and sent when the
 * turn ends, one per turn, in order; the queue and the history survive a reload.
 *
 * `@` opens the same list with what can be mentioned (the host answers `mentionQuery`, debounced);
 * a pick becomes a chip above the text (× or Backspace at the start removes it), sent with the prompt.
 *
 * Images join the same row as chips with a thumbnail: pasted (Ctrl+V), picked with Attach Image
 * (the host's file picker), or dropped; files dragged from the Explorer or an editor tab become
 * file chips (the host keeps workspace files only). What is refused is said under the box.
 * Chips alone can be sent; they survive a reload with the draft and come back with the text when
 * the agent fails to start.
 */
import type { AvailableCommand, ConfigOption } from "../../shared/events";
import { isWorking, nextAgent, readOnlyReason, sessionSummary, type SessionView, type ViewState } from "../../shared/viewModel";
import type { HostInfo, WebviewMessage } from "../../shared/protocol";
import { button, cleanInline, h, icon, setAttr, toggleHidden } from "../dom";
import { PromptHistory } from "../promptHistory";
import { addMention, mentionAt, removeMention, withoutMention, type MentionItem, type MentionRef } from "../../shared/mentions";
import { drawMentionChips, mentionOption } from "./mentions";
import { cleanImage, imageTypeOf, MAX_DROPPED, MAX_IMAGES, TOO_MANY_IMAGES, type PromptImage } from "../../shared/images";
import { dragCarriesFiles, droppedUris, imageChips, imageFromFile, thumbnailOf } from "./imageChips";
import { MAX_QUEUED, type QueuedPrompt, type UiState } from "../uiState";

const MAX_COMPLETIONS = 50;
/** Typing pauses this long before the host is asked what an `@query` can mention. */
const MENTION_DEBOUNCE_MS = 120;

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
  /** What the open list offers: commands (`items`) or mentions (`mentionItems`). */
  private listKind: "slash" | "mention" = "slash";
  private mentionItems: MentionItem[] = [];
  /** The chips in the box, sent with the next prompt. */
  private mentions: MentionRef[] = [];
  /** The image chips in the box (not kept across a reload: they can be megabytes). */
  private images: PromptImage[] = [];
  private readonly chipRow: HTMLElement;
  /** What was not attached, and why (read out politely). */
  private readonly attachNotice: HTMLElement;
  private mentionRequest = 0;
  private mentionTimer: ReturnType<typeof setTimeout> | undefined;
  private active = -1;
  private composing = false;
  private controlsKey: unknown[] = [];
  private placeholder = "";
  /** The last prompt sent, until a turn shows it arrived; put back if the agent fails to start instead. */
  private unconfirmed: { text: string; mentions: MentionRef[]; images: PromptImage[]; errorBefore: string | undefined; errorCleared: boolean; turnsBefore: number } | undefined;
  private host: HostInfo | undefined;
  private readonly history: PromptHistory;
  /** The queued prompts' list above the box. */
  private readonly queued: HTMLElement;
  private queuedKey = "";
  /** Sessions a queued prompt was just sent to, with their turn count then (one in flight per session). */
  private readonly inFlight = new Map<string, number>();
  /** Why the shown session cannot be continued (read-only history), with Continue in a new session. */
  private readonly readOnly: HTMLElement;
  private readonly readOnlyText: HTMLElement;
  private readOnlyReason: string | undefined;

  constructor(private readonly ui: UiState, private readonly post: (m: WebviewMessage) => void) {
    this.list = h("ul", { id: "slash-list", class: "completions", attrs: { role: "listbox", "aria-label": "Commands" } });
    this.list.hidden = true;
    this.textarea = h("textarea", {
      id: "prompt",
      attrs: { rows: 1, "aria-label": "Prompt", "aria-autocomplete": "list", "aria-controls": "slash-list", spellcheck: "true" },
    });
    this.textarea.value = ui.draft;
    this.chipRow = h("div", { class: "chips prompt-chips", attrs: { role: "list", "aria-label": "Attached to the prompt" } });
    this.chipRow.hidden = true;
    this.attachNotice = h("div", { class: "attach-notice", attrs: { role: "status", "aria-live": "polite" } });
    this.attachNotice.hidden = true;
    const attach = button({ class: "icon-button attach-image", icon: "file-media", label: "Attach image", labelHidden: true, id: "attach-image", title: "Attach images (PNG, JPEG, GIF or WebP, up to 5 MB each); or paste one, or drop files here" });
    attach.addEventListener("click", () => this.post({ type: "pickImages" }));
    this.send = button({ class: "icon-button primary send", icon: "send", label: "Send", labelHidden: true, id: "send", title: "Send (Enter)" });
    this.stop = button({ class: "secondary stop", icon: "debug-stop", label: "Stop", id: "stop", title: "Stop the running turn" });
    this.stop.hidden = true;
    this.controls = h("div", { class: "prompt-controls" });
    this.history = new PromptHistory(ui.history);
    this.queued = h("ul", { class: "queued", attrs: { "aria-label": "Queued prompts" } });
    this.queued.hidden = true;
    this.readOnlyText = h("span", { class: "read-only-text" });
    const fresh = button({ class: "secondary continue-new", icon: "debug-continue", label: "Continue in a new session", title: "Put a summary of this session in the box, to edit and send to a new session" });
    fresh.type = "button";
    fresh.addEventListener("click", () => {
      if (!this.session) return;
      const typed = this.textarea.value.trim();
      this.setText(sessionSummary(this.session) + typed);
      this.textarea.focus();
      this.textarea.setSelectionRange(this.textarea.value.length, this.textarea.value.length);
    });
    this.readOnly = h("div", { class: "read-only", attrs: { role: "note" } }, icon("lock"), this.readOnlyText, fresh);
    this.readOnly.hidden = true;
    this.el = h("form", { class: "prompt-box", attrs: { "aria-label": "Prompt" } },
      this.list,
      this.queued,
      this.readOnly,
      h("div", { class: "prompt-frame" },
        this.chipRow,
        this.textarea,
        h("div", { class: "prompt-row" }, this.controls, h("span", { class: "spacer" }), attach, this.stop, this.send)),
      this.attachNotice);

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
      this.history.reset();
      this.ui.draft = this.textarea.value;
      this.ui.save();
      this.syncSend();
      this.complete();
    });
    this.textarea.addEventListener("keydown", (e) => this.onKey(e));
    this.textarea.addEventListener("click", () => this.complete());
    this.textarea.addEventListener("blur", () => this.close());
    this.textarea.addEventListener("paste", (e) => this.onPaste(e));
    this.el.addEventListener("dragover", (e) => {
      if (!dragCarriesFiles(e.dataTransfer)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
      this.el.classList.add("drop-target");
    });
    this.el.addEventListener("dragleave", (e) => {
      if (!(e.relatedTarget instanceof Node && this.el.contains(e.relatedTarget))) this.el.classList.remove("drop-target");
    });
    this.el.addEventListener("drop", (e) => this.onDrop(e));
    this.setMentions(ui.mentions);
  }

  /** An image pasted from the clipboard becomes a chip (text pastes as usual). */
  private onPaste(e: ClipboardEvent): void {
    const files = [...(e.clipboardData?.files ?? [])];
    if (files.length === 0) return;
    e.preventDefault();
    void this.addImageFiles(files, "Pasted image");
  }

  /**
   * Files dragged from VS Code (URIs, no file contents) go to the host, which keeps workspace files
   * only; images dropped from the desktop's file manager (which hands over their contents) are read
   * here like pasted ones, and its other files go to the host by URI like VS Code's.
   */
  private onDrop(e: DragEvent): void {
    this.el.classList.remove("drop-target");
    const data = e.dataTransfer;
    if (!data) return;
    const images = [...data.files].filter((f) => f.type.startsWith("image/"));
    const uris = droppedUris(data).filter((u) => images.length === 0 || !imageTypeOf(u));
    if (uris.length === 0 && images.length === 0) return;
    e.preventDefault();
    if (uris.length > 0) this.post({ type: "dropUris", uris: uris.slice(0, MAX_DROPPED) });
    if (images.length > 0) void this.addImageFiles(images, "Dropped image");
    this.textarea.focus();
  }

  private async addImageFiles(files: readonly File[], fallbackName: string): Promise<void> {
    const refused: string[] = [];
    const added: PromptImage[] = [];
    for (const file of files) {
      const got = await imageFromFile(file, fallbackName);
      if ("refused" in got) refused.push(got.refused);
      else added.push(got);
    }
    this.attach([], added, refused);
  }

  /** The host's answer to Attach Image or a drop: chips added (the thumbnails drawn here), and what it refused. */
  async onAttach(mentions: readonly MentionRef[], images: readonly PromptImage[], refused: readonly string[]): Promise<void> {
    const drawn = await Promise.all(images.map(async (img) => {
      const thumbnail = img.thumbnail ?? await thumbnailOf(img.mimeType, img.data);
      return thumbnail ? { ...img, thumbnail } : img;
    }));
    this.attach(mentions, drawn, refused);
    this.textarea.focus();
  }

  private attach(mentions: readonly MentionRef[], images: readonly PromptImage[], refused: readonly string[]): void {
    const why = [...refused];
    let list = this.mentions;
    for (const m of mentions) list = addMention(list, m);
    const room = MAX_IMAGES - this.images.length;
    if (images.length > room) why.push(`${TOO_MANY_IMAGES}: ${images.length - Math.max(room, 0)} not attached`);
    this.setChips(list, [...this.images, ...images.slice(0, Math.max(room, 0)).map(cleanImage)]);
    this.say(why.length ? `Not attached: ${why.join("; ")}.` : "");
  }

  /** Says (or clears) why something is not in the box. */
  private say(text: string): void {
    this.attachNotice.textContent = text;
    toggleHidden(this.attachNotice, !text);
  }

  focus(): void {
    this.textarea.focus();
  }

  /** Puts a prompt in the box to change and send again (after what is typed there, if anything). */
  edit(text: string): void {
    const current = this.textarea.value.trim();
    this.setText(current ? `${current}\n\n${text}` : text);
    this.textarea.focus();
    this.textarea.setSelectionRange(this.textarea.value.length, this.textarea.value.length);
  }

  render(session: SessionView | undefined, host: HostInfo, sessions: ViewState["sessions"]): void {
    this.session = session;
    this.host = host;
    this.settlePrompt(session, host);
    this.dispatch(sessions);
    this.drawQueue(session);
    const next = nextAgent(session, host.defaultAgent);
    const agent = cleanInline(next.name, 60);
    const reason = next.switched ? undefined : readOnlyReason(session, session ? host.cannotContinue?.[session.sessionId] : undefined);
    if (reason !== this.readOnlyReason) {
      this.readOnlyReason = reason;
      this.readOnlyText.textContent = reason ? `Read-only: ${reason}.` : "";
      toggleHidden(this.readOnly, !reason);
    }
    const resting = !!session && !next.switched && !isWorking(session) && (session.status === "ended" || !!session.restored);
    const placeholder = next.switched || reason ? `Ask ${agent}… (starts a new session)` : resting ? `Ask ${agent}… (continues this session)` : `Ask ${agent}… (/ for commands)`;
    if (placeholder !== this.placeholder) {
      this.placeholder = placeholder;
      this.textarea.placeholder = placeholder;
    }
    const running = isWorking(session);
    toggleHidden(this.stop, !running);
    this.el.classList.toggle("running", running);
    const key = [session?.sessionId, session?.modes, session?.configOptions];
    if (key.some((k, i) => k !== this.controlsKey[i])) {
      this.controlsKey = key;
      this.drawControls(session);
    }
  }

  private syncSend(): void {
    const empty = this.textarea.value.trim() === "" && this.mentions.length === 0 && this.images.length === 0;
    if (this.send.disabled !== empty) this.send.disabled = empty;
  }

  private setText(text: string): void {
    this.textarea.value = text;
    this.ui.draft = text;
    this.ui.save();
    this.syncSend();
  }

  private submit(): void {
    const text = this.textarea.value.trim();
    if (!text && this.mentions.length === 0 && this.images.length === 0) return;
    const s = this.session;
    const next = s ? nextAgent(s, this.host?.defaultAgent ?? s.agentName) : undefined;
    if (s && isWorking(s) && next && !next.switched) {
      // The turn runs: queue it for when the turn ends (the box keeps it if the queue is full).
      // Images are not queued (the queue is kept in the webview's saved state, which they would swell).
      if (this.images.length > 0) {
        this.say("Images go with a prompt sent when the turn has ended: send this one then.");
        return;
      }
      if (this.ui.queue.length >= MAX_QUEUED) return;
      this.ui.queue = [...this.ui.queue, { sessionId: s.sessionId, text, ...(this.mentions.length ? { mentions: this.mentions } : {}) }];
    } else {
      // A session that is not running is continued by its agent; read-only history starts a new one.
      this.post({ type: "sendPrompt", text, ...(s ? { sessionId: s.sessionId } : {}), ...(this.readOnlyReason ? { newSession: true as const } : {}), ...(this.mentions.length ? { mentions: this.mentions } : {}), ...(this.images.length ? { images: this.images } : {}) });
      this.unconfirmed = { text, mentions: this.mentions, images: this.images, errorBefore: this.host?.hostError, errorCleared: false, turnsBefore: s?.turns.length ?? 0 };
    }
    if (text) this.history.record(text);
    this.ui.history = [...this.history.list];
    this.setText("");
    this.setChips([], []);
    this.say("");
    this.close();
    this.drawQueue(s);
  }

  /** Sends the next queued prompt of each session whose turn has ended (one at a time). */
  private dispatch(sessions: ViewState["sessions"]): void {
    for (const [sid, turns] of this.inFlight) {
      const s = sessions[sid];
      if (!s || s.turns.length > turns || s.status === "ended") this.inFlight.delete(sid);
    }
    if (this.ui.queue.length === 0) return;
    const tried = new Set<string>();
    const sent = new Set<QueuedPrompt>();
    for (const q of this.ui.queue) {
      if (tried.has(q.sessionId)) continue;
      tried.add(q.sessionId);
      const s = sessions[q.sessionId];
      if (!s || s.status !== "idle" || this.inFlight.has(s.sessionId)) continue;
      this.post({ type: "sendPrompt", text: q.text, sessionId: s.sessionId, ...(q.mentions?.length ? { mentions: q.mentions } : {}) });
      this.inFlight.set(s.sessionId, s.turns.length);
      sent.add(q);
    }
    if (sent.size === 0) return;
    this.ui.queue = this.ui.queue.filter((q) => !sent.has(q));
    this.ui.save();
  }

  /** The shown session's queued prompts above the box; "not sent" once its session ended. */
  private drawQueue(session: SessionView | undefined): void {
    const mine = session ? this.ui.queue.filter((q) => q.sessionId === session.sessionId) : [];
    const ended = !!session && session.status === "ended";
    const key = `${session?.sessionId}\u0000${ended}\u0000${mine.map((q) => q.text).join("\u0000")}`;
    if (key === this.queuedKey) return;
    this.queuedKey = key;
    toggleHidden(this.queued, mine.length === 0);
    this.queued.replaceChildren(...mine.map((q, i) => {
      const editB = button({ class: "icon-button", icon: "edit", label: "Edit", labelHidden: true, title: "Edit: put it back in the box (it leaves the queue)" });
      editB.addEventListener("click", () => { this.unqueue(q); this.edit(q.text); });
      const removeB = button({ class: "icon-button", icon: "close", label: "Remove", labelHidden: true, title: "Remove from the queue" });
      removeB.addEventListener("click", () => this.unqueue(q));
      const state = ended ? "Not sent: the session ended" : i === 0 ? "Sent when the turn ends" : `Sent after ${i} more`;
      return h("li", { class: `queued-item${ended ? " stale" : ""}`, attrs: { "data-queued": String(i), title: state } },
        icon(ended ? "warning" : "clock"),
        h("span", { class: "queued-text ut", attrs: { title: cleanInline(q.text, 2000) } }, cleanInline(q.text || (q.mentions ?? []).map((r) => r.label).join(", "), 300)),
        h("span", { class: "queued-state" }, state),
        editB, removeB);
    }));
  }

  private unqueue(q: QueuedPrompt): void {
    this.ui.queue = this.ui.queue.filter((x) => x !== q);
    this.ui.save();
    this.drawQueue(this.session);
  }

  /** A sent prompt either starts a turn (done) or meets a new host error (the agent did not start): then it goes back in the box. */
  private settlePrompt(session: SessionView | undefined, host: HostInfo): void {
    const u = this.unconfirmed;
    if (!u) return;
    if (session && (isWorking(session) || session.turns.length > u.turnsBefore)) {
      this.unconfirmed = undefined;
      return;
    }
    if (!host.hostError) {
      u.errorCleared = true;
      return;
    }
    if (!u.errorCleared && host.hostError === u.errorBefore) return;
    this.unconfirmed = undefined;
    if (this.textarea.value.trim() || this.mentions.length || this.images.length) return; // the user is writing something else
    // Refused (an agent that takes no images) or not started: the prompt and its chips come back.
    this.setText(u.text);
    this.setChips(u.mentions, u.images);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing || this.composing || e.keyCode === 229) return;
    if (!this.list.hidden) {
      switch (e.key) {
        case "ArrowDown":
        case "ArrowUp": {
          e.preventDefault();
          const n = this.listKind === "mention" ? this.mentionItems.length : this.items.length;
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
      return;
    }
    if (e.key === "Backspace" && (this.mentions.length > 0 || this.images.length > 0) && this.textarea.selectionStart === 0 && this.textarea.selectionEnd === 0) {
      e.preventDefault();
      // The last chip of the row: images come after the mentions.
      if (this.images.length > 0) this.setChips(this.mentions, this.images.slice(0, -1));
      else this.setChips(this.mentions.slice(0, -1), this.images);
      return;
    }
    if ((e.key === "ArrowUp" || e.key === "ArrowDown") && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const t = this.textarea;
      if (t.selectionStart !== t.selectionEnd) return;
      const up = e.key === "ArrowUp";
      const onEdge = up ? t.value.lastIndexOf("\n", t.selectionStart - 1) === -1 : t.value.indexOf("\n", t.selectionStart) === -1;
      if (!onEdge) return;
      const text = up ? this.history.older(t.value) : this.history.newer();
      if (text === undefined) return;
      e.preventDefault();
      this.setText(text);
      const caret = up ? 0 : text.length;
      t.setSelectionRange(caret, caret);
    }
  }

  /** Opens, refreshes or closes the command or mention list for the text before the caret. */
  private complete(): void {
    const value = this.textarea.value;
    const mention = this.textarea.selectionStart === this.textarea.selectionEnd ? mentionAt(value, this.textarea.selectionStart) : undefined;
    clearTimeout(this.mentionTimer);
    if (mention) {
      const requestId = ++this.mentionRequest;
      this.mentionTimer = setTimeout(() => this.post({ type: "mentionQuery", requestId, query: mention.query }), MENTION_DEBOUNCE_MS);
      return;
    }
    this.mentionRequest++;
    if (this.listKind === "mention") this.close();
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
    this.listKind = "slash";
    this.list.setAttribute("aria-label", "Commands");
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

  /** The host's answer to the last `@query`: shown if the caret is still in that query. */
  onMentions(requestId: number, items: readonly MentionItem[]): void {
    if (requestId !== this.mentionRequest || document.activeElement !== this.textarea) return;
    if (items.length === 0) {
      this.close();
      return;
    }
    this.mentionItems = items.slice(0, MAX_COMPLETIONS);
    this.listKind = "mention";
    this.list.setAttribute("aria-label", "Mention a file, folder, symbol, editor, selection, problems, terminal output or changes");
    this.list.replaceChildren(...this.mentionItems.map((item, i) => {
      const li = mentionOption(item, `slash-opt-${i}`);
      li.addEventListener("mousedown", (ev) => ev.preventDefault());
      li.addEventListener("click", () => this.accept(i));
      return li;
    }));
    this.list.hidden = false;
    this.setActive(0);
  }

  private setMentions(list: MentionRef[]): void {
    this.setChips(list, this.images);
  }

  /** The row of chips: mentions, then images (each with ×); hidden when empty. */
  private setChips(mentions: MentionRef[], images: PromptImage[]): void {
    this.mentions = mentions;
    this.images = images;
    this.ui.mentions = mentions;
    // Saved at once (chips change on a pick, not per keystroke): a reload right after keeps them.
    this.ui.flush();
    this.syncSend();
    drawMentionChips(this.chipRow, mentions, (i) => {
      this.setMentions(removeMention(this.mentions, i));
      this.textarea.focus();
    });
    this.chipRow.append(...imageChips(images, (i) => {
      this.setChips(this.mentions, this.images.filter((_, j) => j !== i));
      this.textarea.focus();
    }));
    toggleHidden(this.chipRow, mentions.length === 0 && images.length === 0);
  }

  private acceptMention(i: number): void {
    const item = this.mentionItems[i];
    const at = mentionAt(this.textarea.value, this.textarea.selectionStart);
    if (!item || !at) return;
    const { value, caret } = withoutMention(this.textarea.value, at.start, at.end);
    this.setText(value);
    this.textarea.setSelectionRange(caret, caret);
    this.setMentions(addMention(this.mentions, item));
    this.mentionRequest++;
    this.close();
  }

  private accept(i: number): void {
    if (this.listKind === "mention") {
      this.acceptMention(i);
      return;
    }
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
    this.mentionItems = [];
    this.listKind = "slash";
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
