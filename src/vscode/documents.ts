/**
 * The editor's view of a file, shared by the agent's fs port and the review of its edits: the open
 * document (unsaved edits included) when there is one, and whole-file replacement through a
 * `WorkspaceEdit`, so the editor's undo works and a user's unsaved work stays unsaved.
 */
import { constants as fsConstants, type Stats } from "node:fs";
import * as fs from "node:fs/promises";
import * as vscode from "vscode";

/**
 * The open text document of a file on disk. Only `file:` documents count: our virtual documents
 * (the baseline of a review, a proposed edit) have the same path and must never be mistaken for it.
 */
export function openDocument(file: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === file);
}

/** Creates the file with `text`, or replaces its whole content; saved unless the user had unsaved work. */
export async function writeWholeText(file: string, text: string): Promise<void> {
  const uri = vscode.Uri.file(file);
  const edit = new vscode.WorkspaceEdit();
  const disk = await diskFile(file);
  // Never let VS Code open a FIFO, socket or device (an open on a FIFO blocks until a writer comes).
  if (disk.kind === "special" || disk.kind === "directory") throw new Error(`${file} is ${disk.kind === "special" ? disk.what : "a directory"}; only regular files are written`);
  if (disk.kind === "missing") {
    edit.createFile(uri, { ignoreIfExists: true, contents: new TextEncoder().encode(text) });
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not create ${file}`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const wasDirty = doc.isDirty;
  edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not write ${file}`);
  if (!wasDirty) await doc.save();
}

/**
 * The document of an existing regular file: the open one, or opened now (never a FIFO, socket or
 * device, which would block VS Code's open).
 */
export async function regularDocument(file: string): Promise<vscode.TextDocument> {
  const open = openDocument(file);
  if (open) return open;
  const disk = await diskFile(file);
  if (disk.kind !== "file") throw new Error(`${file} is ${disk.kind === "special" ? disk.what : disk.kind === "missing" ? "missing" : "a directory"}; only regular files are edited`);
  return vscode.workspace.openTextDocument(vscode.Uri.file(file));
}

/**
 * Replaces ranges (offsets into `doc`'s text now) through one `WorkspaceEdit`: one step on the
 * editor's undo stack (Ctrl+Z brings it back), cursor, folding and selections stay where they
 * are. Saved unless the user had unsaved work.
 */
export async function replaceRanges(doc: vscode.TextDocument, changes: readonly { start: number; end: number; text: string }[]): Promise<void> {
  if (changes.length === 0) return;
  const wasDirty = doc.isDirty;
  const edit = new vscode.WorkspaceEdit();
  for (const c of changes) edit.replace(doc.uri, new vscode.Range(doc.positionAt(c.start), doc.positionAt(c.end)), c.text);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not edit ${doc.uri.fsPath}`);
  if (!wasDirty) await doc.save();
}

/** What a path on disk is, without ever opening a FIFO, socket or device in a way that blocks. */
export type DiskFile =
  | { kind: "missing" }
  | { kind: "directory" }
  | { kind: "special"; what: string }
  | { kind: "file"; size: number; links: number };

function describeSpecial(s: Stats): string {
  return s.isFIFO() ? "a named pipe (FIFO)" : s.isSocket() ? "a socket" : s.isCharacterDevice() || s.isBlockDevice() ? "a device" : "not a regular file";
}

/** Why a file with more than one hard link is not read for the agent: it is the same file as every other name it has. */
export function hardLinks(links: number): string {
  return `has ${links} hard links, so it may be the same file as one outside the workspace`;
}

/** Stats a path (following links). */
export async function diskFile(file: string): Promise<DiskFile> {
  let s: Stats;
  try {
    s = await fs.stat(file);
  } catch {
    return { kind: "missing" };
  }
  if (s.isDirectory()) return { kind: "directory" };
  if (!s.isFile()) return { kind: "special", what: describeSpecial(s) };
  return { kind: "file", size: s.size, links: s.nlink };
}

/**
 * Reads a regular file's bytes, or says why not. Opens without blocking (O_NONBLOCK) and checks
 * the opened file itself, so a path swapped for a FIFO between a check and the read can never
 * block the extension host.
 */
export async function readRegularFile(file: string, maxBytes: number): Promise<{ bytes: Buffer } | { missing: true } | { refused: string }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { missing: true };
    if (code === "EISDIR") return { refused: "is a directory" };
    return { refused: (err as Error).message };
  }
  try {
    const s = await handle.stat();
    if (s.isDirectory()) return { refused: "is a directory" };
    if (!s.isFile()) return { refused: `is ${describeSpecial(s)}; only regular files are read` };
    if (s.size > maxBytes) return { refused: `is ${(s.size / 1048576).toFixed(1)} MB; files over ${Math.round(maxBytes / 1048576)} MB are not read` };
    return { bytes: await handle.readFile() };
  } finally {
    await handle.close();
  }
}

/** Files larger than this are not read as text for review, checkpoints or the agent's protected writes. */
export const MAX_TEXT_BYTES = 5 * 1024 * 1024;

/**
 * The open document that stands for `file`: an open document is the truth, unless it is a saved
 * one whose file was deleted since (an editor showing it as deleted, or one VS Code has not let go
 * of yet): then the file is gone. Unsaved text in one is still the user's.
 */
export async function liveDocument(file: string): Promise<vscode.TextDocument | undefined> {
  const open = openDocument(file);
  return open && (open.isDirty || (await diskFile(file)).kind !== "missing") ? open : undefined;
}

/** The file's text as the user sees it: the open document (unsaved edits included) or the disk; null when missing or not a readable regular file. */
export async function readCurrent(file: string): Promise<string | null> {
  const open = await liveDocument(file);
  if (open) return open.getText();
  const read = await readRegularFile(file, MAX_TEXT_BYTES);
  return "bytes" in read ? new TextDecoder().decode(read.bytes) : null;
}
