/**
 * The editor's view of a file, shared by the agent's fs port and the review of its edits: the open
 * document (unsaved edits included) when there is one, and whole-file replacement through a
 * `WorkspaceEdit`, so the editor's undo works and a user's unsaved work stays unsaved.
 */
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
  const exists = await fs.stat(file).then(() => true, () => false);
  if (!exists) {
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
