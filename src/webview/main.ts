/**
 * The thought panel's webview entry point: wires the VS Code channel, the replica state and the
 * renderer.
 *
 * The host owns the view state. On load the webview says `ready`, replaces its replica with the
 * `snapshot` it gets back, and then folds every `patch` with the same pure `reduce` the host uses
 * (and puts in the session views and earlier turns that `sessions` and `turns` carry, as a saved
 * session is read back) — a patch whose `from` is not our version means a gap, so it is dropped and a snapshot is
 * asked for (the decision is `apply` in `shared/replica.ts`). Rendering happens at most once per
 * animation frame, whatever the number of messages.
 * Only UI state (draft, folding, filters, scroll) is kept in `setState`.
 *
 * Safety: agent text reaches the DOM as text nodes, except markdown, which goes through
 * markdown-it (no raw HTML) and DOMPurify (see `markdown.ts`). Links never navigate the webview:
 * clicks are intercepted and handed to the host (`openLink`), which checks the scheme.
 *
 * Test hooks: `#root`, `#transcript` (entries carry `data-entry-id`/`data-entry-type`),
 * `.thought-text`, `.message-body`, `#plan` (items `data-status`), tool cards
 * `[data-tool-call-id][data-status]` with permission buttons `[data-option-id]`, `#prompt`,
 * `#send`, `#stop`, `#jump-latest`, `.banner`, `#live`, `#session-status[data-status]`; and
 * `window.__agentThoughtsFrameProbe`, which the bench sets to learn when a frame has drawn a state.
 */
import type { HostInfo, HostMessage, WebviewMessage } from "../shared/protocol";
import { apply, EMPTY_REPLICA, type Replica } from "../shared/replica";
import { trackTextGrowth } from "../shared/viewModel";
import { connect } from "./bridge";
import { h } from "./dom";
import { Panel } from "./render/panel";
import { UiState } from "./uiState";

/** How long to wait for an asked-for snapshot before asking again. */
const SNAPSHOT_RETRY_MS = 3000;
const TICK_MS = 100;
/** How long a session the user picked is shown before the host names it; after that the host's choice stands. */
const PICK_WAIT_MS = 3000;

function isHostMessage(data: unknown): data is HostMessage {
  if (!data || typeof data !== "object") return false;
  const t = (data as { type?: unknown }).type;
  return t === "snapshot" || t === "patch" || t === "sessions" || t === "turns" || t === "host" || t === "focusPrompt" || t === "reveal" || t === "mentions" || t === "attach";
}

const bridge = connect();
const ui = new UiState(bridge);
const root = document.getElementById("root") ?? document.body.appendChild(h("div", { id: "root" }));

let replica: Replica = EMPTY_REPLICA;
// Long thoughts are drawn from what each patch appended (see appendedSince).
trackTextGrowth();
let askedAt = 0;
let retry: ReturnType<typeof setTimeout> | undefined;
let frame = 0;
/** The last version this webview told the host it has (flow control: the host paces its patches by it). */
let acked = 0;
let ticker: ReturnType<typeof setInterval> | undefined;

/**
 * A session the user picked that the host has not named as shown yet: the panel shows it at once
 * (it has every session's text, held back at most a moment), not one round trip later.
 */
let picked: { sessionId: string; at: number } | undefined;

/** The host's facts, with the session just picked as the one shown until the host says so (or does not, for PICK_WAIT_MS). */
function shownHost(): HostInfo {
  settlePick();
  return picked ? { ...replica.host, activeSessionId: picked.sessionId } : replica.host;
}

/** The pick stops standing in for the host's choice once the host names it (checked as each host message lands, so a later choice of the host's wins), is gone, or is too old. */
function settlePick(): void {
  if (picked && (replica.host.activeSessionId === picked.sessionId || !replica.state.sessions[picked.sessionId] || Date.now() - picked.at > PICK_WAIT_MS)) picked = undefined;
}

function post(m: WebviewMessage): void {
  if (m.type === "selectSession") {
    picked = { sessionId: m.sessionId, at: Date.now() };
    requestRender();
    // The host's choice is drawn again when the pick expires, even with nothing else to draw.
    setTimeout(requestRender, PICK_WAIT_MS + 50);
  }
  bridge.post(m);
}

function requestRender(): void {
  if (frame === 0) frame = requestAnimationFrame(render);
}

const panel = new Panel(root, ui, post, requestRender);

/** The bench's probe (test/bench/lag.ts): told each frame's state once the frame's DOM is written. */
type FrameProbe = (state: Replica["state"]) => void;

function render(): void {
  frame = 0;
  panel.render(replica.state, shownHost());
  (window as Window & { __agentThoughtsFrameProbe?: FrameProbe }).__agentThoughtsFrameProbe?.(replica.state);
  // Elapsed-time labels ("Thinking… 2.1 s") tick between frames, only while something streams.
  if (panel.tickers.size > 0 && ticker === undefined) {
    ticker = setInterval(() => {
      const now = Date.now();
      for (const t of panel.tickers) t.tick(now);
      if (panel.tickers.size === 0) {
        clearInterval(ticker);
        ticker = undefined;
      }
    }, TICK_MS);
  }
}

/**
 * Tells the host which version the replica holds, as each patch lands (before it is drawn): the
 * host sends the next one then, so one patch at a time is on its way and the next frame draws all
 * that came meanwhile. A renderer busy drawing handles messages later, so it is sent fewer, larger
 * patches, never a backlog.
 */
function ack(): void {
  if (replica.version === acked) return;
  acked = replica.version;
  bridge.post({ type: "applied", version: acked });
}

/** Asks for a snapshot after a gap — once per `SNAPSHOT_RETRY_MS` until one arrives. */
function askForSnapshot(): void {
  const now = Date.now();
  if (now - askedAt < SNAPSHOT_RETRY_MS) return;
  askedAt = now;
  bridge.post({ type: "requestSnapshot", have: replica.version });
  clearTimeout(retry);
  retry = setTimeout(askForSnapshot, SNAPSHOT_RETRY_MS);
}

window.addEventListener("message", (ev: MessageEvent<unknown>) => {
  const msg = ev.data;
  if (!isHostMessage(msg)) return;
  switch (msg.type) {
    case "snapshot":
    case "patch":
    case "sessions":
    case "turns":
    case "host": {
      const r = apply(replica, msg);
      replica = r.replica;
      if (msg.type === "host" || msg.type === "snapshot") settlePick();
      // The host sends the next patch once this one is here (flow control); ack() says only a new version.
      ack();
      switch (r.outcome) {
        case "replaced":
          askedAt = 0;
          clearTimeout(retry);
          retry = undefined;
          panel.resetAnnouncements();
          requestRender();
          return;
        case "applied":
          panel.observe(r.events, replica.state, shownHost());
          requestRender();
          return;
        case "sessions":
        case "host":
          requestRender();
          return;
        case "resync":
          askForSnapshot();
          return;
        case "ignored":
          return;
      }
      return;
    }
    case "focusPrompt":
      panel.focusPrompt();
      return;
    case "mentions":
      panel.mentions(msg.requestId, msg.items);
      return;
    case "attach":
      panel.attach(msg.mentions, msg.images, msg.refused);
      return;
    case "reveal":
      panel.reveal(replica.state, shownHost(), { sessionId: msg.sessionId, ...(msg.entryId ? { entryId: msg.entryId } : {}), ...(msg.toolCallId ? { toolCallId: msg.toolCallId } : {}) });
      return;
  }
});

// Links in agent markdown never navigate the webview and carry no href (see markdown.ts); the host decides whether to open them.
function linkFrom(e: Event): HTMLElement | null {
  return e.target instanceof Element ? e.target.closest<HTMLElement>("a") : null;
}
function openLink(a: HTMLElement): void {
  const href = a.dataset.href;
  if (href && href.length <= 8192) bridge.post({ type: "openLink", href });
}
document.addEventListener("click", (e) => {
  const a = linkFrom(e);
  if (!a) return;
  e.preventDefault();
  openLink(a);
}, true);
document.addEventListener("auxclick", (e) => {
  if (linkFrom(e)) e.preventDefault();
}, true);
document.addEventListener("keydown", (e) => {
  const a = e.key === "Enter" ? linkFrom(e) : null;
  if (!a?.dataset.href) return;
  e.preventDefault();
  openLink(a);
});
window.addEventListener("pagehide", () => ui.flush());

bridge.post({ type: "ready", version: replica.version });
// Should the snapshot answering `ready` go missing, ask again.
retry = setTimeout(askForSnapshot, SNAPSHOT_RETRY_MS);
requestRender();
