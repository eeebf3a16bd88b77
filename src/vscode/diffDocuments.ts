/**
 * The virtual documents the diff editors show, one provider for every scheme: the baseline of a
 * file under review (left side of its review diff, read live from the ledger), both sides of an
 * edit proposed in a permission request, and both sides of a tool card's diff. No temp files.
 */
import * as vscode from "vscode";

/** The baseline of a file under review; the path is the file's. */
export const BASE_SCHEME = "agent-thoughts-base";
/** Both sides of an edit proposed in a permission request, before anything is written (`?now`, `?proposed`). */
export const PROPOSAL_SCHEME = "agent-thoughts-proposal";
/** Both sides of a tool card's diff (`?original`, `?proposed`). */
export const DIFF_SCHEME = "agent-thoughts-diff";

export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** Texts set for their URI (proposals, tool card diffs). */
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registrations: vscode.Disposable[];

  /** `live` gives the text of documents read afresh each time (baselines); undefined for the others. */
  constructor(schemes: readonly string[], private readonly live?: (uri: vscode.Uri) => string | undefined) {
    this.registrations = schemes.map((scheme) => vscode.workspace.registerTextDocumentContentProvider(scheme, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.live?.(uri) ?? this.texts.get(uri.toString()) ?? "";
  }

  /** Sets a document's text; an open one shows it at once. */
  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  /** Tells an open live document that its text changed; closed ones are read afresh anyway. */
  liveChanged(uri: vscode.Uri): void {
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) this.changed.fire(uri);
  }

  dispose(): void {
    for (const r of this.registrations) r.dispose();
    this.changed.dispose();
  }
}
