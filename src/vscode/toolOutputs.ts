/**
 * What a tool card's buttons open: diffs in VS Code's native diff editor (the original side from a
 * virtual document, no temp files; one tab per file, reused) and terminal output in a read-only
 * pseudoterminal named after the tool call, fed live for terminals the client runs.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { TerminalListener } from "../acp/nodeTerminals";
import type { ToolEntry, ViewState } from "../core/viewModel";

export const DIFF_SCHEME = "agent-thoughts-diff";

function findTool(state: ViewState, sessionId: string, toolCallId: string): ToolEntry | undefined {
  const s = state.sessions[sessionId];
  const pos = s?.toolIndex[toolCallId];
  if (!s || !pos) return undefined;
  const e = s.turns[pos[0]]?.entries[pos[1]];
  return e?.type === "tool" ? e : undefined;
}

class ReadOnlyTerminal implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writer.event;
  private opened = false;
  private buffered = "";
  open(): void {
    this.opened = true;
    if (this.buffered) this.writer.fire(this.buffered);
    this.buffered = "";
  }
  close(): void { this.opened = false; }
  write(text: string): void {
    const t = text.replace(/\r?\n/g, "\r\n");
    if (this.opened) this.writer.fire(t);
    else this.buffered += t;
  }
  dispose(): void { this.writer.dispose(); }
}

export class ToolOutputs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Output of client-run terminals (by terminal id), and their open pseudoterminals. */
  private readonly termOutput = new Map<string, string>();
  private readonly termViews = new Map<string, { terminal: vscode.Terminal; pty: ReadOnlyTerminal }>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this),
      vscode.window.onDidCloseTerminal((t) => {
        for (const [key, v] of this.termViews) if (v.terminal === t) { v.pty.dispose(); this.termViews.delete(key); }
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  /** Listener for `NodeTerminals`: keeps output so a card's terminal can be shown at any time. */
  readonly terminalListener: TerminalListener = {
    output: (terminalId, text) => {
      const prev = this.termOutput.get(terminalId) ?? "";
      // Bounded: the pseudoterminal shows the last megabyte at most.
      this.termOutput.set(terminalId, (prev + text).slice(-1_048_576));
      this.termViews.get(`client:${terminalId}`)?.pty.write(text);
    },
    exited: (terminalId, exit) => {
      this.termViews.get(`client:${terminalId}`)?.pty.write(`\n[process exited with ${exit.signal ? `signal ${exit.signal}` : `code ${exit.exitCode}`}]\n`);
    },
  };

  async openDiff(state: ViewState, sessionId: string, toolCallId: string, index: number): Promise<void> {
    const tool = findTool(state, sessionId, toolCallId);
    const content = tool?.content[index];
    if (!tool || content?.type !== "diff") throw new Error(`No diff for tool call ${toolCallId}`);
    const file = vscode.Uri.file(content.path);
    const name = path.basename(content.path);
    // One left document per file, so repeated opens reuse one diff tab.
    const left = vscode.Uri.from({ scheme: DIFF_SCHEME, path: content.path, query: "original" });
    this.texts.set(left.toString(), content.oldText ?? "");
    this.changed.fire(left);
    let right = file;
    try {
      const onDisk = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
      if (onDisk !== content.newText) throw new Error("differs");
    } catch {
      // The file is missing or has moved on since this edit: show the edit's own new text.
      right = vscode.Uri.from({ scheme: DIFF_SCHEME, path: content.path, query: "proposed" });
      this.texts.set(right.toString(), content.newText);
      this.changed.fire(right);
    }
    await vscode.commands.executeCommand("vscode.diff", left, right, `${name} (${content.oldText == null ? "new file" : "agent edit"}) — ${tool.title}`, { preview: true, preserveFocus: true });
  }

  revealTerminal(state: ViewState, sessionId: string, toolCallId: string): void {
    const tool = findTool(state, sessionId, toolCallId);
    if (!tool) throw new Error(`No tool call ${toolCallId}`);
    const clientTerminal = tool.content.find((c) => c.type === "terminal");
    const key = clientTerminal?.type === "terminal" && this.termOutput.has(clientTerminal.terminalId) ? `client:${clientTerminal.terminalId}` : `tool:${sessionId}:${toolCallId}`;
    const existing = this.termViews.get(key);
    if (existing) {
      existing.terminal.show(true);
      return;
    }
    const pty = new ReadOnlyTerminal();
    const terminal = vscode.window.createTerminal({ name: tool.title.slice(0, 60), pty, iconPath: new vscode.ThemeIcon("terminal") });
    this.termViews.set(key, { terminal, pty });
    const output = key.startsWith("client:") && clientTerminal?.type === "terminal" ? this.termOutput.get(clientTerminal.terminalId) ?? "" : tool.terminalOutput ?? rawOutputText(tool.rawOutput);
    pty.write(output || "(no output yet)\n");
    terminal.show(true);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const v of this.termViews.values()) { v.pty.dispose(); v.terminal.dispose(); }
    this.changed.dispose();
  }
}

function rawOutputText(raw: unknown): string {
  if (raw === undefined) return "";
  if (typeof raw === "string") return raw;
  const r = raw as { output?: unknown; stdout?: unknown; formatted_output?: unknown };
  for (const v of [r.formatted_output, r.output, r.stdout]) if (typeof v === "string") return v;
  return JSON.stringify(raw, null, 2);
}
