/**
 * Export Session (Markdown or JSON Lines in three vocabularies) and `agentThoughts.trace.file`,
 * which tees the live thought stream to a JSON Lines file as it happens.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { SessionManager } from "../acp/sessionManager";
import type { EventOf, ThoughtEvent } from "../shared/events";
import { EXPORT_FORMATS, exportSession } from "../core/exporters";
import { stringifyJson } from "../core/json";
import type { Logger } from "../acp/ports";
import { plainText } from "../core/plainText";

export function registerExport(manager: SessionManager, activeSessionId: () => string | undefined): vscode.Disposable {
  return vscode.commands.registerCommand("agentThoughts.exportSession", async (sessionArg?: unknown, formatArg?: unknown, target?: unknown): Promise<string | undefined> => {
    const sessions = manager.sessions;
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage("There is no session to export yet.");
      return undefined;
    }
    let session = typeof sessionArg === "string" ? manager.sessionById(sessionArg) : undefined;
    if (!session && sessions.length > 1 && typeof sessionArg !== "string") {
      const active = activeSessionId();
      session = (await vscode.window.showQuickPick(
        [...sessions].reverse().map((s) => {
          const events = s.log.all();
          const start = events[0];
          const info = events.findLast((e): e is EventOf<"session_info"> => e.kind === "session_info" && !!e.title);
          const title = info?.title ?? "";
          return { label: plainText(title || s.agentName), description: `${s.agentName} · ${events.length} events${s.sessionId === active ? " · shown" : ""}`, detail: start ? new Date(start.at).toLocaleString() : undefined, session: s };
        }),
        { title: "Export which session?" },
      ))?.session;
    }
    session ??= sessions.find((s) => s.sessionId === activeSessionId()) ?? sessions[sessions.length - 1];
    if (!session) return undefined;
    const format = typeof formatArg === "string" && EXPORT_FORMATS.some((f) => f.id === formatArg)
      ? EXPORT_FORMATS.find((f) => f.id === formatArg)!
      : (await vscode.window.showQuickPick(EXPORT_FORMATS.map((f) => ({ label: f.label, format: f })), { title: "Export as" }))?.format;
    if (!format) return undefined;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `agent-thoughts-${session.agentName.replace(/[^\w.-]+/g, "-").toLowerCase()}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.${format.id === "markdown" ? "md" : `${format.id}.jsonl`}`;
    const uri = target instanceof vscode.Uri ? target : typeof target === "string" ? vscode.Uri.file(target) : await vscode.window.showSaveDialog({
      title: `Export ${session.agentName} session`,
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
      filters: format.id === "markdown" ? { Markdown: ["md"] } : { "JSON Lines": ["jsonl"] },
    });
    if (!uri) return undefined;
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(exportSession(format.id, session.log.all())));
    if (!(target instanceof vscode.Uri) && typeof target !== "string") {
      void vscode.window.showInformationMessage(`Exported ${session.log.all().length} events to ${path.basename(uri.fsPath)}.`, "Open").then((c) => { if (c) void vscode.window.showTextDocument(uri); });
    }
    return uri.fsPath;
  });
}

/** Appends every event, as it is recorded, to the file named by `agentThoughts.trace.file`. */
export class TraceFile implements vscode.Disposable {
  private stream: fs.WriteStream | undefined;
  private file: string | undefined;
  private readonly sub: vscode.Disposable;

  constructor(private readonly logger: Logger) {
    this.configure();
    this.sub = vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration("agentThoughts.trace.file")) this.configure(); });
  }

  private configure(): void {
    const setting = vscode.workspace.getConfiguration("agentThoughts").get<string>("trace.file")?.trim();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const file = setting ? (path.isAbsolute(setting) ? setting : folder ? path.join(folder, setting) : undefined) : undefined;
    if (file === this.file) return;
    this.stream?.end();
    this.stream = undefined;
    this.file = file;
    if (!file) return;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.stream = fs.createWriteStream(file, { flags: "a" });
    this.stream.on("error", (err) => {
      this.logger.error(`Cannot write the trace file ${file}: ${err.message}`);
      this.stream = undefined;
    });
    this.logger.info(`Tracing the thought stream to ${file}`);
  }

  write(e: ThoughtEvent): void {
    this.stream?.write(stringifyJson(e) + "\n");
  }

  dispose(): void {
    this.sub.dispose();
    this.stream?.end();
  }
}
