/**
 * The panel's header and banners. Header: agent name, session status (`#session-status`, icon +
 * text), title, the context-usage meter, a session switcher when there are several sessions and
 * "New session". Banners (`.banner`): notices and errors outside turns, the session's fatal
 * error, the host's error and "starting" state, styled by severity and dismissible.
 */
import { agentIdOf, isLoading, nextAgent, sessionFacts, type SessionStatus, type SessionView, type ViewState } from "../../shared/viewModel";
import type { HostInfo, WebviewMessage } from "../../shared/protocol";
import { button, cleanInline, h, icon, setAttr, setText, toggleHidden } from "../dom";
import type { UiState } from "../uiState";
import { severityOf } from "./entries";

type StatusKey = SessionStatus | "starting" | "loading" | "none";

const STATUS: Record<StatusKey, { icon: string; label: string }> = {
  idle: { icon: "circle-large-outline", label: "Idle" },
  running: { icon: "loading codicon-modifier-spin", label: "Thinking…" },
  awaiting_permission: { icon: "shield", label: "Awaiting permission" },
  ended: { icon: "circle-slash", label: "Ended" },
  starting: { icon: "loading codicon-modifier-spin", label: "Starting…" },
  loading: { icon: "loading codicon-modifier-spin", label: "Loading…" },
  none: { icon: "circle-large-outline", label: "No session" },
};

function compact(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(n >= 10_000 ? 0 : 1)}k`;
  return String(Math.round(n));
}

function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency, maximumFractionDigits: amount < 1 ? 4 : 2 }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${cleanInline(currency, 10)}`;
  }
}

/** A size on disk, short: "840 KB", "24 MB". */
function sizeText(bytes: number): string {
  if (bytes >= 1_048_576) return `${(bytes / 1_048_576).toFixed(bytes >= 10_485_760 ? 0 : 1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** One formatter for every label: the switcher's are computed each frame, for up to 200 saved sessions. */
const WHEN = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

/** A date and time, short: "3 Jun, 14:02". */
function whenText(at: number): string {
  return WHEN.format(at);
}

/**
 * What tells sessions apart comes first (a narrow switcher shows only the start): title or first
 * prompt, then the agent; a saved session adds when it was last active and its size.
 */
function sessionLabel(s: SessionView, index: number): string {
  const facts = sessionFacts(s);
  const title = facts.title ? cleanInline(facts.title, 60) : `Session ${index + 1}`;
  const saved = s.restored && facts.bytes !== undefined ? ` · ${facts.lastAt !== undefined ? `${whenText(facts.lastAt)} · ` : ""}${sizeText(facts.bytes)}` : "";
  const state = s.status === "awaiting_permission" ? " — waiting for you" : s.status === "running" ? " — working" : s.restored ? " (history)" : s.status === "ended" ? " (ended)" : "";
  return `${s.status === "awaiting_permission" ? "● " : ""}${title} · ${cleanInline(s.agentName, 40)}${saved}${state}`;
}

export class Header {
  readonly el: HTMLElement;
  private readonly agent: HTMLElement;
  private readonly status: HTMLElement;
  private readonly title: HTMLElement;
  private readonly usage: HTMLElement;
  private readonly usageFill: HTMLElement;
  private readonly usageBar: HTMLElement;
  private readonly usageText: HTMLElement;
  private readonly select: HTMLSelectElement;
  /** The MCP servers the agent got: a count, the names in the tooltip. */
  private readonly mcp: HTMLElement;
  private readonly mcpCount: HTMLElement;
  private statusKey = "";
  private selectKey = "";

  constructor(private readonly post: (m: WebviewMessage) => void) {
    this.agent = h("span", { class: "agent-name ut" });
    this.status = h("span", { id: "session-status" });
    this.title = h("div", { class: "session-title ut" });
    this.usageFill = h("div", { class: "usage-fill" });
    this.usageBar = h("div", { class: "usage-bar", attrs: { role: "meter", "aria-label": "Context window used", "aria-valuemin": "0" } }, this.usageFill);
    this.usageText = h("span", { class: "usage-text" });
    this.usage = h("div", { class: "usage" }, this.usageBar, this.usageText);
    this.select = h("select", { class: "session-select", attrs: { "aria-label": "Session" } });
    this.select.addEventListener("change", () => {
      if (this.select.value) this.post({ type: "selectSession", sessionId: this.select.value });
    });
    const newSession = button({ class: "icon-button", icon: "add", label: "New session", labelHidden: true, id: "new-session" });
    newSession.addEventListener("click", () => this.post({ type: "newSession" }));
    this.mcpCount = h("span", null);
    this.mcp = h("span", { class: "mcp-servers" }, icon("plug"), this.mcpCount);
    this.el = h("header", { class: "header", attrs: { role: "banner" } },
      h("div", { class: "header-row" }, this.agent, this.status, h("span", { class: "spacer" }), this.select, newSession),
      h("div", { class: "header-row sub" }, this.title, this.mcp, this.usage));
  }

  render(state: ViewState, session: SessionView | undefined, host: HostInfo): void {
    // After Select Agent, the header names the agent the next prompt goes to at once.
    const next = nextAgent(session, host.defaultAgent);
    setText(this.agent, cleanInline(session && !next.switched ? session.agentName : host.starting ?? next.name, 60));
    this.agent.title = next.switched && session ? `Next prompt: a new session with ${cleanInline(next.name, 60)} (this transcript is ${cleanInline(session.agentName, 60)}'s)` : "";
    const key: StatusKey = host.starting && (!session || session.status === "ended") ? "starting" : isLoading(session) ? "loading" : session?.status ?? "none";
    if (key !== this.statusKey) {
      this.statusKey = key;
      const st = STATUS[key];
      this.status.setAttribute("data-status", key);
      this.status.className = `session-status status-${key}`;
      this.status.title = st.label; // the text hides in a narrow header
      this.status.replaceChildren(icon(st.icon), h("span", null, st.label));
    }
    setText(this.title, session?.title ? cleanInline(session.title, 300) : "");
    setAttr(this.title, "title", session?.title ? cleanInline(session.title, 2000) : undefined);
    toggleHidden(this.title, !session?.title);

    const servers = session?.mcpServers ?? [];
    toggleHidden(this.mcp, servers.length === 0);
    setText(this.mcpCount, servers.length ? String(servers.length) : "");
    const names = servers.map((n) => cleanInline(n, 100)).join(", ");
    setAttr(this.mcp, "title", servers.length ? `MCP servers ${cleanInline(session?.agentName ?? "", 60)} got: ${names}` : undefined);
    setAttr(this.mcp, "aria-label", servers.length ? `${servers.length} MCP server${servers.length === 1 ? "" : "s"}: ${names}` : undefined);

    const u = session?.usage;
    toggleHidden(this.usage, !u);
    if (u) {
      const pct = u.size > 0 ? Math.min(100, Math.max(0, (u.used / u.size) * 100)) : 0;
      this.usageFill.style.width = `${pct.toFixed(1)}%`;
      this.usage.classList.toggle("high", pct >= 80);
      this.usageBar.setAttribute("aria-valuemax", String(u.size));
      this.usageBar.setAttribute("aria-valuenow", String(Math.min(u.used, u.size)));
      this.usageBar.setAttribute("aria-valuetext", `${Math.round(pct)}% of the context window`);
      setText(this.usageText, `${compact(u.used)} / ${compact(u.size)}${u.cost ? ` · ${money(u.cost.amount, u.cost.currency)}` : ""}`);
      this.usage.title = `Context: ${u.used.toLocaleString()} of ${u.size.toLocaleString()} tokens (${pct.toFixed(1)}%)`;
    }

    const sessions = state.order.map((id) => state.sessions[id]).filter((s): s is SessionView => !!s);
    const selectKey = sessions.length > 1 ? `${session?.sessionId}\u0000${sessions.map((s, i) => `${s.sessionId}\u0001${sessionLabel(s, i)}`).join("\u0000")}` : "";
    if (selectKey !== this.selectKey) {
      this.selectKey = selectKey;
      this.select.replaceChildren(...sessions.map((s, i) => {
        const o = h("option", { attrs: { value: s.sessionId } }, sessionLabel(s, i));
        o.selected = s.sessionId === session?.sessionId;
        return o;
      }));
    }
    toggleHidden(this.select, sessions.length < 2);
  }
}

interface BannerAction { label: string; icon: string; message: WebviewMessage; primary?: boolean }
interface BannerSpec { id: string; severity: "info" | "warning" | "error"; title: string; detail?: string; dismissible: boolean; actions?: BannerAction[] }

const MAX_BANNERS = 5;

export class Banners {
  readonly el: HTMLElement;
  private key = "";

  constructor(private readonly ui: UiState, private readonly invalidate: () => void, private readonly post: (m: WebviewMessage) => void) {
    this.el = h("div", { class: "banners", attrs: { role: "region", "aria-label": "Notices" } });
  }

  render(session: SessionView | undefined, host: HostInfo): void {
    const specs: BannerSpec[] = [];
    if (host.hostError) {
      // Starting an agent failed: usually its command or settings; retrying restarts it.
      const actions: BannerAction[] = host.hostErrorAgent
        ? [{ label: "Retry", icon: "debug-restart", message: { type: "restartAgent", agentName: host.hostErrorAgent }, primary: true }, { label: "Agent Settings", icon: "settings-gear", message: { type: "openAgentSettings" } }]
        : [];
      specs.push({ id: `host:${host.hostError}`, severity: "error", title: host.hostError, dismissible: true, actions: [...actions, { label: "Show Log", icon: "output", message: { type: "showLog" } }] });
    }
    if (host.starting) specs.push({ id: "starting", severity: "info", title: `Starting ${host.starting}…`, dismissible: false });
    if (session?.fatalError) {
      specs.push({
        id: `fatal:${session.sessionId}`, severity: "error", title: session.fatalError, ...(session.fatalHint ? { detail: session.fatalHint } : {}), dismissible: false,
        actions: [{ label: "Restart Agent", icon: "debug-restart", message: { type: "restartAgent", agentName: agentIdOf(session) }, primary: true }, { label: "Show Log", icon: "output", message: { type: "showLog" } }],
      });
    }
    if (session) {
      const list: BannerSpec[] = [];
      for (const e of session.banners) {
        const id = `${session.sessionId}/${e.id}`;
        if (this.ui.dismissed.has(id)) continue;
        if (e.type === "notice") list.push({ id, severity: severityOf(e.severity), title: e.title, ...(e.description ? { detail: e.description } : {}), dismissible: true });
        else if (e.type === "error" && !e.fatal) list.push({ id, severity: "error", title: e.message, ...(e.detail ? { detail: e.detail } : {}), dismissible: true });
        else if (e.type === "unknown") list.push({ id, severity: "info", title: `${agentIdOf(session)} sent something Agent Thoughts does not show: ${e.what} — ${e.reason}`, dismissible: true });
      }
      specs.push(...list.slice(-MAX_BANNERS));
    }
    const visible = specs.filter((s) => !this.ui.dismissed.has(s.id));
    const key = visible.map((s) => s.id).join("\u0000");
    if (key === this.key) return;
    this.key = key;
    this.el.replaceChildren(...visible.map((s) => this.banner(s)));
    toggleHidden(this.el, visible.length === 0);
  }

  private banner(s: BannerSpec): HTMLElement {
    const el = h("div", { class: `banner sev-${s.severity}`, attrs: { "data-severity": s.severity, ...(s.severity === "error" ? { role: "alert" } : {}) } },
      icon(s.severity === "info" ? (s.id === "starting" ? "loading codicon-modifier-spin" : "info") : s.severity),
      h("div", { class: "banner-text", attrs: { title: cleanInline(s.detail ? `${s.title}\n${s.detail}` : s.title, 2000) } },
        h("span", { class: "banner-title ut" }, cleanInline(s.title, 1000)),
        s.detail ? h("div", { class: "banner-detail ut" }, cleanInline(s.detail, 2000)) : null,
        s.actions?.length ? h("div", { class: "banner-actions" }, ...s.actions.map((a) => this.action(a))) : null));
    if (s.dismissible) {
      const close = button({ class: "icon-button banner-close", icon: "close", label: "Dismiss", labelHidden: true });
      close.addEventListener("click", () => {
        this.ui.dismissed.add(s.id);
        this.invalidate();
      });
      el.append(close);
    }
    return el;
  }

  private action(a: BannerAction): HTMLButtonElement {
    const b = button({ class: `banner-action ${a.primary ? "primary" : "secondary"}`, icon: a.icon, label: a.label });
    b.dataset.action = a.message.type;
    b.addEventListener("click", () => this.post(a.message));
    return b;
  }
}
