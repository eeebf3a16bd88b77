/** The status bar item that says what the active agent is doing, and that a session waits for you. */
import * as vscode from "vscode";
import type { ThoughtEvent } from "../shared/events";
import { plainText } from "../core/plainText";
import type { AgentRegistry } from "./agents";
import { count } from "../core/words";

type Activity = { state: "idle" | "thinking" | "tool" | "waiting" | "ended"; detail?: string; waiting: number };
/** What the item shows. */
type Shown = { text: string; tooltip: string; warning: boolean; command: string };

/** The status bar item: the active agent and whether it is thinking, running a tool, or waiting for you. */
export class AgentStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("agentThoughts.status", vscode.StatusBarAlignment.Left, 100);
  private readonly activity = new Map<string, Activity>();
  private readonly names = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  /** What the item was last given. */
  private shown: Shown | undefined;

  constructor(private readonly registry: AgentRegistry, private readonly activeSessionId: () => string | undefined) {
    this.item.name = "Agent Thoughts";
    this.render();
    this.item.show();
  }

  onEvent(e: ThoughtEvent): void {
    const a = this.activity.get(e.sessionId) ?? { state: "idle", waiting: 0 };
    switch (e.kind) {
      case "session_start": this.names.set(e.sessionId, e.agentName); break;
      case "turn_start": case "thought": case "message": if (a.state !== "waiting") { a.state = "thinking"; delete a.detail; } break;
      case "tool_start": if (a.state !== "waiting") { a.state = "tool"; a.detail = e.title; } break;
      case "tool_done": if (a.state === "tool") { a.state = "thinking"; delete a.detail; } break;
      case "permission_request": a.waiting++; a.state = "waiting"; a.detail = e.title; break;
      case "permission_outcome": a.waiting = Math.max(0, a.waiting - 1); if (a.waiting === 0) { a.state = "thinking"; delete a.detail; } break;
      case "turn_end": a.state = "idle"; a.waiting = 0; delete a.detail; break;
      case "error": if (e.fatal) { a.state = "ended"; a.waiting = 0; } else if (e.turnId !== undefined) { a.state = "idle"; a.waiting = 0; } break;
      default: return;
    }
    this.activity.set(e.sessionId, a);
    // Many events a second: update at most a few times per second.
    this.timer ??= setTimeout(() => { this.timer = undefined; this.render(); }, 100);
  }

  private render(): void {
    const id = this.activeSessionId();
    const a = id ? this.activity.get(id) : undefined;
    const name = (id && this.names.get(id)) ?? this.registry.defaultName();
    const waitingElsewhere = [...this.activity.entries()].filter(([sid, x]) => sid !== id && x.waiting > 0).length;
    const icon = !a || a.state === "idle" ? "$(hubot)" : a.state === "thinking" ? "$(loading~spin)" : a.state === "tool" ? "$(tools)" : a.state === "waiting" ? "$(bell-dot)" : "$(circle-slash)";
    const what = !a || a.state === "idle" ? "" : a.state === "thinking" ? " thinking…" : a.state === "tool" ? ` ${a.detail ?? "running a tool"}` : a.state === "waiting" ? " waiting for you" : " stopped";
    const next: Shown = {
      // The agent's tool title is agent text: no `$(icon)` of its own in the status bar.
      text: `${icon} ${plainText(name)}${plainText(what.length > 40 ? what.slice(0, 39) + "…" : what)}${waitingElsewhere ? ` (+${waitingElsewhere} waiting)` : ""}`,
      tooltip: `Agent Thoughts: ${name}${what}${waitingElsewhere ? `\n${count(waitingElsewhere, "other session waits", "other sessions wait")} for you` : ""}\nClick to ${a?.state === "waiting" ? "answer" : "open the panel"}`,
      warning: a?.state === "waiting" || waitingElsewhere > 0,
      command: a?.state === "waiting" ? "agentThoughts.respondToPermission" : "agentThoughts.focusPrompt",
    };
    // Each property set sends the whole item to the workbench, which draws the status bar again:
    // only what changed is set (streaming agents re-render this ten times a second, nearly always the same).
    const shown = this.shown;
    if (next.text !== shown?.text) this.item.text = next.text;
    if (next.tooltip !== shown?.tooltip) this.item.tooltip = next.tooltip;
    if (next.warning !== shown?.warning) this.item.backgroundColor = next.warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    if (next.command !== shown?.command) this.item.command = next.command;
    this.shown = next;
  }

  /** Current text (tests read it). */
  get text(): string {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; this.render(); }
    return this.item.text;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.item.dispose();
  }
}
