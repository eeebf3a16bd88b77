/**
 * `fs/*` for agents, on the editor's view of files: reads return the open document's text
 * (unsaved edits included), writes go through a `WorkspaceEdit` so the editor's undo works.
 * Paths outside the workspace folders (including through symlinks) are refused unless the user
 * allows that one access.
 */
import type { Stats } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import { RequestError } from "@agentclientprotocol/sdk";
import type { FsPort, Logger, ReadFileRequest, WriteFileRequest } from "../acp/ports";
import { openDocument, writeWholeText } from "./documents";

const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** Slices text by 1-based `line` and `limit` (lines), as ACP specifies. */
export function sliceLines(text: string, line?: number, limit?: number): string {
  if (line === undefined && limit === undefined) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit !== undefined ? start + Math.max(0, limit) : lines.length;
  return lines.slice(start, end).join("\n");
}

async function realpathOrParent(p: string): Promise<string> {
  // A file about to be created has no realpath yet: resolve its nearest existing ancestor.
  let current = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await fs.realpath(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** Told about every agent write so it stays reviewable (Agent Changes). */
export interface WriteObserver {
  beforeAgentWrite(file: string, sessionId: string, toolCallId?: string): Promise<void>;
  afterAgentWrite(file: string): Promise<void>;
}

export class VscodeFileSystem implements FsPort {
  constructor(private readonly logger: Logger, private readonly observer?: WriteObserver) {}

  private async checkAccess(p: string, verb: "read" | "write"): Promise<vscode.Uri> {
    if (!path.isAbsolute(p)) throw RequestError.invalidParams(undefined, `path must be absolute: ${p}`);
    const normal = path.normalize(p);
    const real = await realpathOrParent(normal);
    const folders = vscode.workspace.workspaceFolders ?? [];
    const roots = await Promise.all(folders.map((f) => realpathOrParent(f.uri.fsPath)));
    const inside = roots.some((r) => real === r || real.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
    if (!inside) {
      let choice: string | undefined;
      try {
        choice = await vscode.window.showWarningMessage(
          `The agent wants to ${verb} a file outside the workspace: ${normal}${real !== normal ? ` (→ ${real})` : ""}`,
          { modal: true, detail: "Agents are limited to the workspace folders. Allow this one access?" },
          "Allow Once",
        );
      } catch (err) {
        // No dialog could be shown (e.g. tests): that is a refusal, not a failure.
        this.logger.warn(`Could not ask about ${verb} outside the workspace: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (choice !== "Allow Once") {
        this.logger.warn(`Refused ${verb} outside the workspace: ${normal}`);
        throw new RequestError(-32001, `Access denied: ${normal}${real !== normal ? ` (→ ${real})` : ""} is outside the workspace, and the user did not allow it`);
      }
    }
    return vscode.Uri.file(normal);
  }

  async readTextFile(req: ReadFileRequest): Promise<string> {
    const uri = await this.checkAccess(req.path, "read");
    const open = openDocument(uri.fsPath);
    if (open) return sliceLines(open.getText(), req.line, req.limit);
    let stat: Stats;
    try {
      stat = await fs.stat(uri.fsPath);
    } catch {
      // Real agents probe for existence by reading; an error here breaks file creation in some (see notes).
      return "";
    }
    if (stat.isDirectory()) throw RequestError.invalidParams(undefined, `${req.path} is a directory`);
    if (stat.size > MAX_FILE_BYTES) throw RequestError.invalidParams(undefined, `${req.path} is ${(stat.size / 1048576).toFixed(1)} MB; files over 5 MB are not read`);
    const bytes = await fs.readFile(uri.fsPath);
    if (bytes.subarray(0, 8000).includes(0)) throw RequestError.invalidParams(undefined, `${req.path} is a binary file`);
    return sliceLines(new TextDecoder().decode(bytes), req.line, req.limit);
  }

  async writeTextFile(req: WriteFileRequest): Promise<void> {
    const uri = await this.checkAccess(req.path, "write");
    if (Buffer.byteLength(req.content) > MAX_FILE_BYTES) throw RequestError.invalidParams(undefined, `refusing to write ${(Buffer.byteLength(req.content) / 1048576).toFixed(1)} MB to ${req.path}: files over 5 MB are not written`);
    await this.observer?.beforeAgentWrite(uri.fsPath, req.sessionId, req.toolCallId);
    try {
      await writeWholeText(uri.fsPath, req.content);
    } finally {
      await this.observer?.afterAgentWrite(uri.fsPath);
    }
  }
}
