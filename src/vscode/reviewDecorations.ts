/**
 * What a file under review shows in the normal editor: pending agent lines marked (a gutter icon,
 * a bar at the line start and the line's background, an overview-ruler mark, in the theme's diff
 * colours; deleted lines as a mark on the line after them), and above each pending hunk the
 * CodeLenses Keep, Undo and Why this change?.
 */
import * as vscode from "vscode";
import { computeHunks } from "../core/editReview";

/** The baseline of a file under review; undefined when the file is not under review. */
export type BaselineOf = (file: string) => string | undefined;

interface Shown { added: vscode.Range[]; modified: vscode.Range[]; deleted: vscode.Range[] }

export class ReviewDecorations implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly types: { added: vscode.TextEditorDecorationType; modified: vscode.TextEditorDecorationType; deleted: vscode.TextEditorDecorationType };
  private readonly shown = new Map<string, Shown>();
  private readonly lensChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensChanged.event;
  private readonly disposables: vscode.Disposable[];

  constructor(
    /** Where the gutter icons are (media/). */
    extensionUri: vscode.Uri,
    private readonly baselineOf: BaselineOf,
  ) {
    const icon = (kind: string, theme: string): vscode.Uri => vscode.Uri.joinPath(extensionUri, "media", `review-${kind}-${theme}.svg`);
    const lines = (kind: "added" | "modified", ruler: string): vscode.TextEditorDecorationType => vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
      borderColor: new vscode.ThemeColor(`editorGutter.${kind}Background`),
      borderStyle: "solid",
      borderWidth: "0 0 0 2px",
      overviewRulerColor: new vscode.ThemeColor(ruler),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      light: { gutterIconPath: icon(kind, "light"), gutterIconSize: "contain" },
      dark: { gutterIconPath: icon(kind, "dark"), gutterIconSize: "contain" },
    });
    this.types = {
      added: lines("added", "editorOverviewRuler.addedForeground"),
      modified: lines("modified", "editorOverviewRuler.modifiedForeground"),
      // Lines the agent deleted: a mark on the line after them.
      deleted: vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        borderColor: new vscode.ThemeColor("editorGutter.deletedBackground"),
        borderStyle: "solid",
        borderWidth: "2px 0 0 0",
        overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
        light: { gutterIconPath: icon("deleted", "light"), gutterIconSize: "contain" },
        dark: { gutterIconPath: icon("deleted", "dark"), gutterIconSize: "contain" },
      }),
    };
    this.disposables = [
      vscode.languages.registerCodeLensProvider({ scheme: "file" }, this),
      vscode.window.onDidChangeVisibleTextEditors(() => this.decorate()),
      this.types.added,
      this.types.modified,
      this.types.deleted,
      this.lensChanged,
    ];
  }

  /** The review changed: marks and lenses are computed again. */
  refresh(): void {
    this.lensChanged.fire();
    this.decorate();
  }

  /** Marks pending agent hunks in every visible editor of a file under review. */
  private decorate(): void {
    const seen = new Set<string>();
    for (const editor of vscode.window.visibleTextEditors) {
      const doc = editor.document;
      if (doc.uri.scheme !== "file") continue;
      const base = this.baselineOf(doc.uri.fsPath);
      const shown: Shown = { added: [], modified: [], deleted: [] };
      for (const h of base !== undefined ? computeHunks(base, doc.getText()) : []) {
        const last = Math.max(0, doc.lineCount - 1);
        if (h.added === 0) shown.deleted.push(new vscode.Range(Math.min(h.curLine, last), 0, Math.min(h.curLine, last), 0));
        else (h.removed === 0 ? shown.added : shown.modified).push(new vscode.Range(h.curLine, 0, Math.min(h.curLine + h.added - 1, last), 0));
      }
      editor.setDecorations(this.types.added, shown.added);
      editor.setDecorations(this.types.modified, shown.modified);
      editor.setDecorations(this.types.deleted, shown.deleted);
      if (base !== undefined) {
        this.shown.set(doc.uri.fsPath, shown);
        seen.add(doc.uri.fsPath);
      }
    }
    for (const file of [...this.shown.keys()]) if (!seen.has(file)) this.shown.delete(file);
  }

  /** What the editors of a file show as pending agent lines (for tests): added, modified, and where lines were deleted. */
  decorationsOf(file: string): Shown | undefined {
    return this.shown.get(file);
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const base = this.baselineOf(doc.uri.fsPath);
    if (base === undefined) return [];
    const hunks = computeHunks(base, doc.getText());
    await Promise.resolve();
    return hunks.flatMap((h) => {
      const range = new vscode.Range(Math.min(h.curLine, Math.max(0, doc.lineCount - 1)), 0, Math.min(h.curLine, Math.max(0, doc.lineCount - 1)), 0);
      const args = [doc.uri.fsPath, h.index];
      return [
        new vscode.CodeLens(range, { title: "$(check) Keep", command: "agentThoughts.keepHunk", arguments: args, tooltip: "Keep this agent change" }),
        new vscode.CodeLens(range, { title: "$(discard) Undo", command: "agentThoughts.undoHunk", arguments: args, tooltip: "Restore the original text of this change" }),
        new vscode.CodeLens(range, { title: `+${h.added} −${h.removed} · Why this change?`, command: "agentThoughts.whyChange", arguments: [doc.uri.fsPath], tooltip: "Show the tool call that made it in the thought panel" }),
      ];
    });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
