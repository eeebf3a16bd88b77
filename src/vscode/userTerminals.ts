/**
 * The output of the user's own terminals, for @-mentions. VS Code has no API to read a terminal's
 * buffer; what it offers is shell integration: each command run in a terminal whose shell has it
 * (bash, zsh, fish, pwsh started by VS Code) streams its output through `execution.read()`. So the
 * output of commands run after this extension started is kept here, the last few per terminal, each
 * bounded; a terminal without shell integration has nothing to offer. The extension's own
 * pseudoterminals (agent commands) are left to TerminalMirrors.
 */
import * as vscode from "vscode";
import { TailBuffer } from "../core/tailBuffer";

/** Output kept per terminal (its last commands together). */
const KEEP_CHARS = 64 * 1024;
/** Terminals remembered (the most recently used). */
const MAX_TERMINALS = 20;

interface Kept { terminal: vscode.Terminal; id: number; output: TailBuffer; lastCommand: string; running: number }

export class UserTerminals implements vscode.Disposable {
  private readonly kept = new Map<vscode.Terminal, Kept>();
  private readonly disposables: vscode.Disposable[] = [];
  private nextId = 1;

  constructor() {
    this.disposables.push(
      vscode.window.onDidStartTerminalShellExecution((e) => void this.capture(e.terminal, e.execution)),
      vscode.window.onDidCloseTerminal((t) => this.kept.delete(t)),
    );
  }

  private async capture(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    const options = terminal.creationOptions;
    if ("pty" in options && options.pty) return; // an extension's pseudoterminal, not the user's shell
    const k = this.kept.get(terminal) ?? { terminal, id: this.nextId++, output: new TailBuffer(KEEP_CHARS), lastCommand: "", running: 0 };
    // Most recently used last.
    this.kept.delete(terminal);
    this.kept.set(terminal, k);
    if (this.kept.size > MAX_TERMINALS) this.kept.delete(this.kept.keys().next().value!);
    const command = execution.commandLine.value.slice(0, 2000);
    k.lastCommand = command;
    k.output.append(`$ ${command}\n`);
    k.running++;
    try {
      for await (const data of execution.read()) {
        if (!this.kept.has(terminal)) return;
        k.output.append(data);
      }
    } catch {
      // The terminal went away mid-command: what was read is kept.
    } finally {
      k.running--;
    }
  }

  /** Terminals with kept output, most recently used first. */
  list(): Array<{ key: string; name: string; lastCommand: string; running: boolean }> {
    return [...this.kept.values()].reverse().filter((k) => k.output.text().trim()).map((k) => ({ key: `user/${k.id}`, name: k.terminal.name, lastCommand: k.lastCommand, running: k.running > 0 }));
  }

  /** A terminal's kept output by its key (from `list`). */
  output(key: string): string | undefined {
    for (const k of this.kept.values()) if (`user/${k.id}` === key) return k.output.text();
    return undefined;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.kept.clear();
  }
}
