/**
 * `fs/*` for agents, on the editor's view of files: reads return the open document's text
 * (unsaved edits included), writes go through a `WorkspaceEdit` so the editor's undo works.
 * Paths outside the workspace folders (including through symlinks and hard links) are refused
 * unless the user allows that one access; files that configure tools ask in the session first.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import type { FsPort, Logger, ReadFileRequest, WriteFileRequest } from "../acp/ports";
import { diskFile, hardLinks, openDocument, readCurrent, readRegularFile, writeWholeText } from "./documents";
import { isNetworkPath, realpathOrParentSync, type WorkspaceGuard } from "./guard";
import type { Modal } from "./modal";

const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** Slices text by 1-based `line` and `limit` (lines), as ACP specifies. */
export function sliceLines(text: string, line?: number, limit?: number): string {
  if (line === undefined && limit === undefined) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit !== undefined ? start + Math.max(0, limit) : lines.length;
  return lines.slice(start, end).join("\n");
}

/** Told about every agent write so it stays reviewable (Agent Changes). */
export interface WriteObserver {
  beforeAgentWrite(file: string, sessionId: string, toolCallId?: string): Promise<void>;
  afterAgentWrite(file: string): Promise<void>;
}

export class VscodeFileSystem implements FsPort {
  constructor(private readonly logger: Logger, private readonly guard: WorkspaceGuard, private readonly modal: Modal, private readonly observer?: WriteObserver) {}

  /**
   * Where a path really leads, and whether the agent may go there: inside a workspace folder
   * (after `..` and symlinks), not shared through a hard link with a file elsewhere, and a
   * regular file (or a file to be created). Anything else asks the user first (modal), and
   * FIFOs, sockets and devices are refused before anything opens them.
   */
  private async checkAccess(p: string, verb: "read" | "write"): Promise<{ uri: vscode.Uri; real: string }> {
    if (!path.isAbsolute(p)) throw RequestError.invalidParams(undefined, `path must be absolute: ${p}`);
    // Never touched: opening a network path would connect to another machine (and send credentials).
    if (isNetworkPath(p)) throw new RequestError(-32001, `Access denied: ${p} is a network path`);
    const normal = path.normalize(p);
    const real = realpathOrParentSync(normal);
    const shown = `${normal}${real !== normal ? ` (→ ${real})` : ""}`;
    const disk = await diskFile(real);
    if (disk.kind === "special") throw RequestError.invalidParams(undefined, `${shown} is ${disk.what}; agents may only ${verb} regular files`);
    const hardLinked = disk.kind === "file" && disk.links > 1;
    if (!this.guard.inWorkspace(real) || hardLinked) {
      const why = hardLinked ? `${shown} ${hardLinks(disk.links)}` : `${shown} is outside the workspace`;
      const choice = await this.modal.ask(
        `The agent wants to ${verb} a file outside the workspace: ${shown}`,
        `${why}. Agents are limited to the workspace folders. Allow this one access?`,
        "Allow Once",
      );
      if (choice !== "Allow Once") {
        this.logger.warn(`Refused ${verb} outside the workspace: ${shown}`);
        throw new RequestError(-32001, `Access denied: ${why}, and the user did not allow it`);
      }
    }
    return { uri: vscode.Uri.file(normal), real };
  }

  async readTextFile(req: ReadFileRequest): Promise<string> {
    const { uri } = await this.checkAccess(req.path, "read");
    const open = openDocument(uri.fsPath);
    if (open) return sliceLines(open.getText(), req.line, req.limit);
    const read = await readRegularFile(uri.fsPath, MAX_FILE_BYTES);
    // Real agents probe for existence by reading; an error here breaks file creation in some (see notes).
    if ("missing" in read) return "";
    if ("refused" in read) throw RequestError.invalidParams(undefined, `${req.path} ${read.refused}`);
    if (read.bytes.subarray(0, 8000).includes(0)) throw RequestError.invalidParams(undefined, `${req.path} is a binary file`);
    return sliceLines(new TextDecoder().decode(read.bytes), req.line, req.limit);
  }

  async writeTextFile(req: WriteFileRequest): Promise<void> {
    const { uri, real } = await this.checkAccess(req.path, "write");
    if (Buffer.byteLength(req.content) > MAX_FILE_BYTES) throw RequestError.invalidParams(undefined, `refusing to write ${(Buffer.byteLength(req.content) / 1048576).toFixed(1)} MB to ${req.path}: files over 5 MB are not written`);
    const reason = this.guard.reasonForPath(real);
    if (reason) {
      const current = await readCurrent(uri.fsPath);
      const allowed = req.confirm ? await req.confirm({ path: uri.fsPath, current, content: req.content, reason }) : false;
      if (!allowed) {
        this.logger.warn(`Refused a write to ${uri.fsPath}: ${reason}, and the user did not allow it`);
        throw new RequestError(-32001, `Access denied: ${reason}; the user did not allow this write`);
      }
    }
    // The path must still lead where it was checked (and confirmed): a symlink swapped in while the
    // user was being asked would otherwise carry the write somewhere else.
    const now = realpathOrParentSync(path.normalize(req.path));
    if (now !== real) {
      this.logger.warn(`Refused a write to ${req.path}: it led to ${real} when checked and leads to ${now} now`);
      throw new RequestError(-32001, `Access denied: ${req.path} changed where it leads (${real} → ${now}) while the write waited`);
    }
    await this.observer?.beforeAgentWrite(uri.fsPath, req.sessionId, req.toolCallId);
    try {
      await writeWholeText(uri.fsPath, req.content);
    } finally {
      await this.observer?.afterAgentWrite(uri.fsPath);
    }
  }
}

