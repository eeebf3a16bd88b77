/**
 * Every command an agent runs shows up the same way: a read-only pseudoterminal named after its
 * tool call, fed live. That covers terminals the client runs for the agent (`terminal/create`) and
 * commands the agent runs itself and streams in `_meta` (`terminal_output`, `terminal_output_delta`,
 * `terminal_exit`) or only reports in `rawOutput` (the update mapper turns that into terminal
 * output). Terminals open on demand (Show terminal) or by themselves with
 * `agentThoughts.terminals.reveal` = `auto`, always without taking focus. Closing one never stops
 * a running command without asking.
 *
 * A terminal is named after the command (or the tool call's real title) when it opens, and VS Code
 * cannot rename it well after that (a pseudoterminal's new name counts as a process title, cut at
 * the first space). So a command whose tool call still has a placeholder title ("Terminal", as
 * Claude's adapters send before the command) opens by itself once the real title or the command
 * is known, or as soon as it prints something, or when it ends — whichever comes first.
 *
 * Bounded under load: each mirror keeps only the tail of its output; writes into a terminal are
 * coalesced, and output arriving faster than a terminal can usefully show is skipped with a marker
 * saying how much; only the most recent automatically opened terminals stay open, and only the most
 * recent finished commands keep their output.
 */
import * as vscode from "vscode";
import type { TerminalExit, TerminalListener } from "../acp/ports";
import type { ThoughtEvent } from "../shared/events";
import type { ToolEntry } from "../shared/viewModel";
import { plainText } from "../core/plainText";
import { TailBuffer } from "../core/tailBuffer";
import { exitLine, nextCommandName, rawOutputText, terminalName, type CommandName } from "../core/terminalText";
import { ReadOnlyPty } from "./readOnlyPty";

// Sizes are in characters (UTF-16 code units); for terminal output, nearly always bytes.
/** What a mirror keeps: the last megabyte, like a terminal's scrollback. */
const KEEP_CHARS = 1_048_576;
/** Finished commands that keep their output (for Show terminal after their terminal was closed). */
const KEEP_FINISHED_OUTPUTS = 20;
/** Commands remembered at all (name and exit status); the oldest finished ones are forgotten. */
const MAX_MIRRORS = 500;
/** Tool call names remembered to name terminals. */
const MAX_NAMES = 2000;

interface Mirror {
  name: string;
  /** `name` is the command or a real title, not a placeholder. */
  named: boolean;
  /** Opens by itself once it has a real name (or prints, or ends); until then its tool call's title is a placeholder. */
  revealWhenNamed?: boolean;
  /** Undefined once evicted (an older finished command). */
  output: TailBuffer | undefined;
  exit?: string;
  /** When the command finished (a sequence number; exited, or its agent-run tool call ended). */
  finished?: number;
  /** Client-run terminals can be stopped; agent-run ones belong to the agent. */
  clientTerminal?: { sessionId: string; terminalId: string };
  autoRevealed?: boolean;
  /** `auto`: opened by itself (may be closed again once finished); otherwise the user asked for it. */
  view?: { terminal: vscode.Terminal; pty: ReadOnlyPty; auto: boolean; opened: number };
}

function newOutput(text = ""): TailBuffer {
  const b = new TailBuffer(KEEP_CHARS);
  b.append(text);
  return b;
}

export class TerminalMirrors implements vscode.Disposable {
  private readonly mirrors = new Map<string, Mirror>();
  /** Client terminal id → the tool call that shows it. */
  private readonly toolOf = new Map<string, { sessionId: string; toolCallId: string }>();
  /** What recent tool calls ("session:id") are named after so far, to name their terminals. */
  private readonly names = new Map<string, CommandName>();
  private readonly disposables: vscode.Disposable[] = [];
  private sequence = 0;
  /**
   * Commands waiting to open their terminal by themselves. The workbench opens terminals far more
   * slowly than an agent can run commands, so one opens at a time (after the workbench opened the
   * previous one); a command that finished while it waited is skipped unless it is the newest.
   */
  private revealQueue: string[] = [];
  private opening: { terminal: vscode.Terminal; timer: ReturnType<typeof setTimeout> } | undefined;
  constructor(
    /** Stops a client terminal's process (Stop It on a terminal the user closes while its command runs). */
    private readonly kill: (sessionId: string, terminalId: string) => Promise<void>,
  ) {
    this.disposables.push(
      vscode.window.onDidOpenTerminal((t) => {
        if (this.opening?.terminal === t) this.openingDone();
      }),
      vscode.window.onDidCloseTerminal((t) => {
        for (const m of this.mirrors.values()) {
          if (m.view?.terminal === t) {
            m.view.pty.dispose();
            delete m.view;
          }
        }
        if (this.opening?.terminal === t) this.openingDone();
      }),
    );
  }

  /** How many terminals this extension has open now (disposed ones are not counted, whether or not the workbench has closed them yet). */
  get openTerminals(): number {
    let n = 0;
    for (const m of this.mirrors.values()) if (m.view) n++;
    return n;
  }

  private get settings(): { autoReveal: boolean; keepOpen: number } {
    const c = vscode.workspace.getConfiguration("agentThoughts");
    return { autoReveal: c.get<string>("terminals.reveal") !== "never", keepOpen: Math.max(1, Math.floor(c.get<number>("terminals.keepOpen") ?? 10)) };
  }

  /** Feeds `NodeTerminals` (terminals the client runs for the agent). */
  readonly listener: TerminalListener = {
    created: ({ sessionId, terminalId, commandLine }) => {
      this.mirrors.set(`client:${terminalId}`, { name: commandLine, named: true, output: newOutput(`$ ${commandLine}\n`), clientTerminal: { sessionId, terminalId } });
      this.forgetOld();
    },
    output: (terminalId, text) => this.append(`client:${terminalId}`, text),
    exited: (terminalId, exit: TerminalExit) => this.finish(`client:${terminalId}`, exit),
  };

  /** Agent-run command output in `_meta`, and tool calls that show a client terminal. */
  onEvent(e: ThoughtEvent): void {
    if (e.kind === "tool_done") {
      this.finish(`tool:${e.sessionId}:${e.toolCallId}`);
      return;
    }
    if (e.kind === "turn_end") {
      // Tool calls left open end with the turn; so do the commands the agent streamed for them.
      const prefix = `tool:${e.sessionId}:`;
      for (const key of [...this.mirrors.keys()]) if (key.startsWith(prefix)) this.finish(key);
      return;
    }
    if (e.kind !== "tool_start" && e.kind !== "tool_update") return;
    const toolKey = `${e.sessionId}:${e.toolCallId}`;
    const before = this.names.get(toolKey);
    const name = nextCommandName(before, e.title, e.rawInput);
    if (name && name !== before) {
      this.names.delete(toolKey);
      this.names.set(toolKey, name);
      if (this.names.size > MAX_NAMES) this.names.delete(this.names.keys().next().value!);
    }
    for (const c of e.content ?? []) {
      if (c.type !== "terminal") continue;
      const key = `client:${c.terminalId}`;
      const m = this.mirrors.get(key);
      if (!m) continue; // an id we never created: the agent runs it, output comes in _meta
      this.toolOf.set(c.terminalId, { sessionId: e.sessionId, toolCallId: e.toolCallId });
      if (name) this.rename(key, m, name);
      this.autoReveal(key, m);
    }
    const key = `tool:${e.sessionId}:${e.toolCallId}`;
    let m = this.mirrors.get(key);
    if (m && name) this.rename(key, m, name);
    const meta = e.terminal;
    // A client terminal's output in the log (for the card): its terminal is fed by `listener`.
    if (!meta || meta.client) return;
    if (!m) {
      m = { name: name?.text ?? `Command ${e.toolCallId}`, named: name?.real ?? false, output: newOutput() };
      this.mirrors.set(key, m);
      this.forgetOld();
    }
    if (meta.output) this.autoReveal(key, m);
    else if (meta.info) this.revealWhenNamed(key, m);
    if (meta.output !== undefined) {
      if (meta.replace) {
        m.output?.clear();
        m.view?.pty.reset();
      }
      this.append(key, meta.output);
    }
    if (meta.exit) this.finish(key, meta.exit);
  }

  /** A command's terminal not open yet takes its tool call's real name; one waiting for it opens. */
  private rename(key: string, m: Mirror, name: CommandName): void {
    if (m.view || !name.real || (m.named && m.name === name.text)) return;
    m.name = name.text;
    m.named = true;
    if (m.revealWhenNamed) this.autoReveal(key, m);
  }

  /** Opens by itself now when the terminal has a real name, else once it gets one (or prints, or ends). */
  private revealWhenNamed(key: string, m: Mirror): void {
    if (m.named) this.autoReveal(key, m);
    else if (!m.autoRevealed) m.revealWhenNamed = true;
  }

  private append(key: string, text: string): void {
    const m = this.mirrors.get(key);
    if (!m) return;
    (m.output ??= newOutput()).append(text);
    m.view?.pty.write(text);
  }

  /** The command ended (with an exit status when known): its terminal may close to make room, its output may be evicted. */
  private finish(key: string, exit?: { exitCode?: number | null; signal?: string | null }): void {
    const m = this.mirrors.get(key);
    if (!m) return;
    if (exit && !m.exit) {
      m.exit = exitLine(exit);
      m.view?.pty.write(m.exit);
      m.view?.pty.finish();
    }
    if (m.finished !== undefined) return;
    m.finished = this.sequence++;
    // Ended still without a real name: it shows under the one it has.
    if (m.revealWhenNamed) this.autoReveal(key, m);
    this.forgetOld();
  }

  /** Drops the output of all but the most recent finished commands, and forgets the oldest finished ones. */
  private forgetOld(): void {
    const finished = [...this.mirrors].filter(([, m]) => m.finished !== undefined).sort(([, a], [, b]) => b.finished! - a.finished!);
    let kept = 0;
    for (const [, m] of finished) {
      if (!m.output) continue;
      if (kept < KEEP_FINISHED_OUTPUTS) kept++;
      else delete m.output;
    }
    for (let i = finished.length - 1; i >= 0 && this.mirrors.size > MAX_MIRRORS; i--) {
      const [key, m] = finished[i]!;
      if (m.view) continue;
      this.mirrors.delete(key);
      if (m.clientTerminal) this.toolOf.delete(m.clientTerminal.terminalId);
    }
  }

  /** Opens a command's terminal by itself, once, if the setting says so (and, in turn, if there is room). */
  private autoReveal(key: string, m: Mirror): void {
    delete m.revealWhenNamed;
    if (!this.settings.autoReveal || m.autoRevealed) return;
    m.autoRevealed = true;
    if (m.view) return;
    this.revealQueue.push(key);
    this.openNext();
  }

  private openNext(): void {
    if (this.opening || !this.revealQueue.length) return;
    const queue = this.revealQueue;
    this.revealQueue = [];
    const newest = queue[queue.length - 1];
    const { keepOpen } = this.settings;
    for (const [i, key] of queue.entries()) {
      const m = this.mirrors.get(key);
      if (!m || m.view || (m.finished !== undefined && key !== newest)) continue;
      if (!this.makeRoom(keepOpen)) continue;
      const terminal = this.show(key, true);
      if (!terminal) continue;
      // Until the workbench says it opened (or a second passed), the rest wait.
      this.opening = { terminal, timer: setTimeout(() => this.openingDone(), 1000) };
      this.revealQueue = [...queue.slice(i + 1), ...this.revealQueue];
      return;
    }
  }

  private openingDone(): void {
    if (this.opening) clearTimeout(this.opening.timer);
    this.opening = undefined;
    this.openNext();
  }

  /**
   * Closes the oldest terminals opened by themselves until fewer than `keepOpen` are open. Only
   * finished commands' terminals close, never the one in front; false when there is no room.
   */
  private makeRoom(keepOpen: number): boolean {
    const auto = [...this.mirrors.values()].filter((m) => m.view?.auto).sort((a, b) => a.view!.opened - b.view!.opened);
    let excess = auto.length - keepOpen + 1;
    for (const m of auto) {
      if (excess <= 0) break;
      if (m.finished === undefined || m.view!.terminal === vscode.window.activeTerminal) continue;
      const { terminal, pty } = m.view!;
      delete m.view;
      pty.closeQuietly();
      terminal.dispose();
      pty.dispose();
      excess--;
    }
    return excess <= 0;
  }

  /** Shows a mirror's pseudoterminal (created on demand), without taking focus. */
  private show(key: string, auto: boolean): vscode.Terminal | undefined {
    const m = this.mirrors.get(key);
    if (!m) return undefined;
    if (!m.view) {
      const pty = new ReadOnlyPty(() => void this.closedByUser(key));
      const terminal = vscode.window.createTerminal({ name: terminalName(m.name), pty, iconPath: new vscode.ThemeIcon("terminal"), isTransient: true });
      if (m.output) {
        pty.skipped(m.output.skipped);
        pty.write(m.output.text());
      } else {
        pty.write("[… Agent Thoughts no longer keeps the output of this command …]\n");
      }
      if (m.exit) pty.write(m.exit);
      m.view = { terminal, pty, auto, opened: this.sequence++ };
    } else if (!auto) {
      m.view.auto = false; // the user asked for it: it stays
    }
    m.view.terminal.show(true);
    return m.view.terminal;
  }

  /** The user closed a terminal: a command still running keeps running unless they say stop. */
  private async closedByUser(key: string): Promise<void> {
    const m = this.mirrors.get(key);
    if (!m?.clientTerminal || m.exit) return;
    const choice = await vscode.window.showWarningMessage(plainText(`"${terminalName(m.name, "The command", 200)}" is still running.`), { detail: "Closing its terminal does not stop it." }, "Stop It", "Keep Running");
    if (choice === "Stop It") await this.kill(m.clientTerminal.sessionId, m.clientTerminal.terminalId);
  }

  /** Show terminal from a tool card: the client terminal it names, or the agent's own output. */
  reveal(tool: ToolEntry, sessionId: string): vscode.Terminal | undefined {
    const client = tool.content.find((c) => c.type === "terminal" && this.mirrors.has(`client:${c.terminalId}`));
    if (client?.type === "terminal") return this.show(`client:${client.terminalId}`, false);
    const key = `tool:${sessionId}:${tool.toolCallId}`;
    if (!this.mirrors.has(key)) {
      // Output only in rawOutput (or nothing yet, or a command forgotten long ago): show what there is.
      const text = tool.terminalOutput ?? rawOutputText(tool.rawOutput);
      const forgotten = tool.content.some((c) => c.type === "terminal");
      const name = nextCommandName(undefined, tool.title, tool.rawInput);
      this.mirrors.set(key, {
        name: name?.text ?? tool.title,
        named: name?.real ?? false,
        output: newOutput(text || (forgotten ? "(Agent Thoughts no longer keeps the output of this command)\n" : "(no output yet)\n")),
        ...(tool.terminalExit ? { exit: exitLine(tool.terminalExit) } : {}),
      });
      this.forgetOld();
    }
    return this.show(key, false);
  }

  /** Output so far of a tool call's terminal: its last megabyte; undefined when unknown or no longer kept (tests, exports). */
  outputOf(sessionId: string, toolCallId: string): string | undefined {
    for (const [tid, t] of this.toolOf) if (t.sessionId === sessionId && t.toolCallId === toolCallId) return this.mirrors.get(`client:${tid}`)?.output?.text();
    return this.mirrors.get(`tool:${sessionId}:${toolCallId}`)?.output?.text();
  }

  /** Commands whose output is still kept, newest first (what @ offers): their key, name and whether they run. */
  kept(max: number): Array<{ key: string; name: string; running: boolean }> {
    const out: Array<{ key: string; name: string; running: boolean }> = [];
    for (const [key, m] of [...this.mirrors].reverse()) {
      if (out.length >= max) break;
      if (m.output && m.output.text().trim()) out.push({ key, name: terminalName(m.name, "Command", 200), running: m.finished === undefined });
    }
    return out;
  }

  /** A kept command's output by its key (from `kept`), with its exit line when it ended. */
  outputByKey(key: string): string | undefined {
    const m = this.mirrors.get(key);
    const text = m?.output?.text();
    return text === undefined ? undefined : text + (m?.exit ?? "");
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    if (this.opening) clearTimeout(this.opening.timer);
    this.opening = undefined;
    this.revealQueue = [];
    for (const m of this.mirrors.values()) {
      if (!m.view) continue;
      m.view.pty.closeQuietly();
      m.view.terminal.dispose();
      m.view.pty.dispose();
    }
    this.mirrors.clear();
  }
}
