/**
 * Every command an agent runs shows up the same way: a read-only pseudoterminal named after its
 * tool call, fed live. That covers terminals the client runs for the agent (`terminal/create`) and
 * commands the agent runs itself and streams in `_meta` (`terminal_output`, `terminal_output_delta`,
 * `terminal_exit`) or only reports in `rawOutput`. Terminals open on demand (Show terminal) or by
 * themselves with `agentThoughts.terminals.reveal` = `auto`, always without taking focus. Closing
 * one never stops a running command without asking.
 */
import * as vscode from "vscode";
import type { TerminalListener } from "../acp/nodeTerminals";
import type { TerminalExit } from "../acp/ports";
import type { ThoughtEvent } from "../core/events";
import type { ToolEntry } from "../core/viewModel";

/** What a mirror keeps: the last megabyte, like a terminal's scrollback. */
const KEEP_BYTES = 1_048_576;

class ReadOnlyPty implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writer.event;
  private readonly closer = new vscode.EventEmitter<void>();
  readonly onDidClose = this.closer.event;
  private opened = false;
  private pending = "";

  constructor(private readonly onUserClose: () => void) {}

  open(): void {
    this.opened = true;
    if (this.pending) this.writer.fire(this.pending);
    this.pending = "";
  }

  close(): void {
    this.opened = false;
    this.onUserClose();
  }

  write(text: string): void {
    const t = text.replace(/\r?\n/g, "\r\n");
    if (this.opened) this.writer.fire(t);
    else this.pending += t;
  }

  dispose(): void {
    this.writer.dispose();
    this.closer.dispose();
  }
}

interface Mirror {
  name: string;
  output: string;
  exit?: string;
  /** Client-run terminals can be stopped; agent-run ones belong to the agent. */
  clientTerminal?: { sessionId: string; terminalId: string };
  view?: { terminal: vscode.Terminal; pty: ReadOnlyPty };
}

function exitLine(exit: { exitCode?: number | null; signal?: string | null }): string {
  return `\n[process exited ${exit.signal ? `by signal ${exit.signal}` : `with code ${exit.exitCode ?? "?"}`}]\n`;
}

export class TerminalMirrors implements vscode.Disposable {
  private readonly mirrors = new Map<string, Mirror>();
  /** Client terminal id → the tool call that shows it. */
  private readonly toolOf = new Map<string, { sessionId: string; toolCallId: string }>();
  /** Latest title of every tool call ("session:id"), to name terminals an update points at. */
  private readonly titles = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Set by the composition root: stops a client terminal's process. */
  kill: ((sessionId: string, terminalId: string) => Promise<void>) | undefined;

  constructor() {
    this.disposables.push(vscode.window.onDidCloseTerminal((t) => {
      for (const m of this.mirrors.values()) {
        if (m.view?.terminal === t) {
          m.view.pty.dispose();
          delete m.view;
        }
      }
    }));
  }

  private get autoReveal(): boolean {
    return vscode.workspace.getConfiguration("agentThoughts").get<string>("terminals.reveal") !== "never";
  }

  /** Feeds `NodeTerminals` (terminals the client runs for the agent). */
  readonly listener: TerminalListener = {
    created: ({ sessionId, terminalId, commandLine }) => {
      this.mirrors.set(`client:${terminalId}`, { name: commandLine, output: `$ ${commandLine}\n`, clientTerminal: { sessionId, terminalId } });
    },
    output: (terminalId, text) => this.append(`client:${terminalId}`, text),
    exited: (terminalId, exit: TerminalExit) => this.finish(`client:${terminalId}`, exit),
  };

  /** Agent-run command output in `_meta`, and tool calls that show a client terminal. */
  onEvent(e: ThoughtEvent): void {
    if (e.kind !== "tool_start" && e.kind !== "tool_update") return;
    const toolKey = `${e.sessionId}:${e.toolCallId}`;
    if (e.title) this.titles.set(toolKey, e.title);
    const title = this.titles.get(toolKey);
    for (const c of e.content ?? []) {
      if (c.type !== "terminal") continue;
      const key = `client:${c.terminalId}`;
      const m = this.mirrors.get(key);
      if (!m) continue; // an id we never created: the agent runs it, output comes in _meta
      this.toolOf.set(c.terminalId, { sessionId: e.sessionId, toolCallId: e.toolCallId });
      if (title) m.name = title;
      if (this.autoReveal) this.show(key);
    }
    const meta = e.terminal;
    if (!meta) return;
    const key = `tool:${e.sessionId}:${e.toolCallId}`;
    let m = this.mirrors.get(key);
    if (!m) {
      m = { name: title ?? `Command ${e.toolCallId}`, output: "" };
      this.mirrors.set(key, m);
      if (this.autoReveal && (meta.output || meta.info)) this.show(key);
    }
    if (meta.output !== undefined) {
      if (meta.replace) {
        m.output = "";
        m.view?.pty.write("\x1bc");
      }
      this.append(key, meta.output);
    }
    if (meta.exit) this.finish(key, meta.exit);
  }

  private append(key: string, text: string): void {
    const m = this.mirrors.get(key);
    if (!m) return;
    m.output = (m.output + text).slice(-KEEP_BYTES);
    m.view?.pty.write(text);
  }

  private finish(key: string, exit: { exitCode?: number | null; signal?: string | null }): void {
    const m = this.mirrors.get(key);
    if (!m || m.exit) return;
    m.exit = exitLine(exit);
    m.view?.pty.write(m.exit);
  }

  /** Shows a mirror's pseudoterminal (created on demand), without taking focus. */
  private show(key: string): vscode.Terminal | undefined {
    const m = this.mirrors.get(key);
    if (!m) return undefined;
    if (!m.view) {
      const pty = new ReadOnlyPty(() => void this.closedByUser(key));
      const terminal = vscode.window.createTerminal({ name: m.name.slice(0, 60), pty, iconPath: new vscode.ThemeIcon("terminal"), isTransient: true });
      pty.write(m.output + (m.exit ?? ""));
      m.view = { terminal, pty };
    }
    m.view.terminal.show(true);
    return m.view.terminal;
  }

  /** The user closed a terminal: a command still running keeps running unless they say stop. */
  private async closedByUser(key: string): Promise<void> {
    const m = this.mirrors.get(key);
    if (!m?.clientTerminal || m.exit) return;
    const choice = await vscode.window.showWarningMessage(`"${m.name}" is still running.`, { detail: "Closing its terminal does not stop it." }, "Stop It", "Keep Running");
    if (choice === "Stop It") await this.kill?.(m.clientTerminal.sessionId, m.clientTerminal.terminalId);
  }

  /** Show terminal from a tool card: the client terminal it names, or the agent's own output. */
  reveal(tool: ToolEntry, sessionId: string): vscode.Terminal | undefined {
    const client = tool.content.find((c) => c.type === "terminal" && this.mirrors.has(`client:${c.terminalId}`));
    if (client?.type === "terminal") return this.show(`client:${client.terminalId}`);
    const key = `tool:${sessionId}:${tool.toolCallId}`;
    if (!this.mirrors.has(key)) {
      // Output only in rawOutput (or nothing yet): show what there is.
      const text = tool.terminalOutput ?? rawOutputText(tool.rawOutput);
      this.mirrors.set(key, { name: tool.title, output: text || "(no output yet)\n", ...(tool.terminalExit ? { exit: exitLine(tool.terminalExit) } : {}) });
    }
    return this.show(key);
  }

  /** Output so far of a tool call's terminal (tests, exports). */
  outputOf(sessionId: string, toolCallId: string): string | undefined {
    for (const [tid, t] of this.toolOf) if (t.sessionId === sessionId && t.toolCallId === toolCallId) return this.mirrors.get(`client:${tid}`)?.output;
    return this.mirrors.get(`tool:${sessionId}:${toolCallId}`)?.output;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const m of this.mirrors.values()) {
      m.view?.pty.dispose();
      m.view?.terminal.dispose();
    }
    this.mirrors.clear();
  }
}

function rawOutputText(raw: unknown): string {
  if (raw === undefined) return "";
  if (typeof raw === "string") return raw;
  const r = raw as { output?: unknown; stdout?: unknown; formatted_output?: unknown; aggregated_output?: unknown };
  for (const v of [r.formatted_output, r.aggregated_output, r.output, r.stdout]) if (typeof v === "string") return v;
  return JSON.stringify(raw, null, 2);
}
