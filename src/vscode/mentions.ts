/**
 * @-mentions, the host side: what the prompt box can mention for a query (workspace files through
 * `findFiles` with the user's `files.exclude` and `search.exclude`, the open editors, the current
 * selection, the active file's problems), and the ACP blocks the chips become on send — an embedded
 * `resource` (the file's or the range's text as the editor has it, or the problems as text), or a
 * `resource_link` for a file too large to embed. Only files inside the workspace are offered or read:
 * a reference comes from the webview, which is not trusted with paths.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import type { ContentBlock } from "../shared/events";
import { MAX_MENTION_ITEMS, mentionUri, rankMentions, type MentionItem, type MentionRef } from "../shared/mentions";
import { isNetworkPath, realpathOrParentSync } from "./guard";

/** Files larger than this go as a `resource_link`, not embedded. */
export const MAX_EMBED_BYTES = 256 * 1024;
/** Files asked of `findFiles` before ranking. */
const FILE_CANDIDATES = 200;
/** Problems listed per file. */
const MAX_PROBLEMS = 200;

/** What the thought panel needs for @-mentions. */
export interface MentionPort {
  query(query: string): Promise<MentionItem[]>;
  blocks(refs: readonly MentionRef[]): Promise<ContentBlock[]>;
}

/** A glob matching file names that hold the query's characters in order, letters in either case. */
export function fuzzyGlob(query: string): string {
  const parts = [...query].filter((c) => /[\p{L}\p{N}._-]/u.test(c)).map((c) => {
    const lo = c.toLowerCase();
    const up = c.toUpperCase();
    return lo === up ? c : `[${lo}${up}]`;
  });
  return `**/*${parts.join("*")}${parts.length ? "*" : ""}`;
}

const SEVERITY = ["Error", "Warning", "Info", "Hint"] as const;

export class VscodeMentions implements MentionPort {
  private search: vscode.CancellationTokenSource | undefined;

  constructor(private readonly inWorkspace: (real: string) => boolean, private readonly logger: Logger) {}

  private local(uri: vscode.Uri): boolean {
    if (uri.scheme !== "file" || isNetworkPath(uri.fsPath)) return false;
    return this.inWorkspace(realpathOrParentSync(uri.fsPath));
  }

  private item(kind: MentionItem["kind"], uri: vscode.Uri, label: string, detail: string, lines?: { first: number; last: number }): MentionItem {
    return { kind, uri: uri.toString(), label: label.slice(0, 200), detail: detail.slice(0, 500), ...(lines ? { startLine: lines.first, endLine: lines.last } : {}) };
  }

  async query(query: string): Promise<MentionItem[]> {
    this.search?.cancel();
    const search = new vscode.CancellationTokenSource();
    this.search = search;
    try {
      const rel = (u: vscode.Uri): string => vscode.workspace.asRelativePath(u, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
      const special: MentionItem[] = [];
      const editor = vscode.window.activeTextEditor;
      if (editor && this.local(editor.document.uri)) {
        const doc = editor.document;
        const sel = editor.selection;
        if (!sel.isEmpty) {
          const endsAtLineStart = sel.end.character === 0 && sel.end.line > sel.start.line;
          const lines = { first: sel.start.line + 1, last: sel.end.line + (endsAtLineStart ? 0 : 1) };
          special.push(this.item("selection", doc.uri, `${path.basename(doc.uri.fsPath)}:${lines.first}-${lines.last}`, `Selection in ${rel(doc.uri)}`, lines));
        }
        const problems = vscode.languages.getDiagnostics(doc.uri).length;
        if (problems > 0) special.push(this.item("problems", doc.uri, `Problems in ${path.basename(doc.uri.fsPath)}`, `Problems (${problems}) ${rel(doc.uri)}`));
      }
      const open = new Set<string>();
      for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) {
          const uri = tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined;
          if (!uri || open.has(uri.toString()) || !this.local(uri)) continue;
          open.add(uri.toString());
          special.push(this.item("editor", uri, path.basename(uri.fsPath), rel(uri)));
        }
      }
      const shown = rankMentions(query, special, MAX_MENTION_ITEMS);
      const found = await vscode.workspace.findFiles(fuzzyGlob(query), this.excludes(), FILE_CANDIDATES, search.token);
      if (search.token.isCancellationRequested) return [];
      const files = rankMentions(query, found.filter((u) => !open.has(u.toString())).map((u) => this.item("file", u, path.basename(u.fsPath), rel(u))), MAX_MENTION_ITEMS - shown.length)
        .filter((f) => this.local(vscode.Uri.parse(f.uri)));
      return [...shown, ...files];
    } finally {
      if (this.search === search) this.search = undefined;
      search.dispose();
    }
  }

  /** `search.exclude`'s patterns that are on, as one glob (`files.exclude` applies anyway). */
  private excludes(): string | undefined {
    const setting = vscode.workspace.getConfiguration("search").get<Record<string, unknown>>("exclude") ?? {};
    const on = Object.entries(setting).filter(([, v]) => v === true).map(([k]) => k).filter((k) => !/[{}]/.test(k));
    return on.length ? `{${on.join(",")}}` : undefined;
  }

  async blocks(refs: readonly MentionRef[]): Promise<ContentBlock[]> {
    const out: ContentBlock[] = [];
    for (const ref of refs) {
      try {
        const block = await this.block(ref);
        if (block) out.push(block);
      } catch (err) {
        this.logger.warn(`Left out the mention ${ref.label.slice(0, 200)}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return out;
  }

  private async block(ref: MentionRef): Promise<ContentBlock | undefined> {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(ref.uri.replace(/#.*$/, ""), true);
    } catch {
      return undefined;
    }
    if (!this.local(uri)) {
      this.logger.warn(`Left out a mention outside the workspace: ${ref.uri.slice(0, 300)}`);
      return undefined;
    }
    const base = uri.toString();
    if (ref.kind === "problems") {
      const diags = vscode.languages.getDiagnostics(uri).slice(0, MAX_PROBLEMS);
      const rel = vscode.workspace.asRelativePath(uri);
      const text = diags.length === 0 ? `No problems in ${rel}.` : diags.map((d) =>
        `${rel}:${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity]}: ${d.message}${d.source ? ` (${d.source})` : ""}`).join("\n");
      return { type: "resource", resource: { uri: `${base}#problems`, text: `Problems in ${rel}:\n${text}`, mimeType: "text/plain" } };
    }
    const stat = await fs.stat(uri.fsPath);
    if (!stat.isFile()) return undefined;
    const ranged = ref.startLine !== undefined && ref.endLine !== undefined;
    const link: ContentBlock = { type: "resource_link", uri: base, name: path.basename(uri.fsPath), size: stat.size };
    if (!ranged && stat.size > MAX_EMBED_BYTES) return link;
    let doc: vscode.TextDocument;
    try {
      doc = await vscode.workspace.openTextDocument(uri);
    } catch {
      return link; // binary: the agent can read it itself
    }
    if (!ranged) return { type: "resource", resource: { uri: base, text: doc.getText(), mimeType: `text/x-${doc.languageId}` } };
    const first = Math.min(ref.startLine!, doc.lineCount);
    const last = Math.min(Math.max(ref.endLine!, first), doc.lineCount);
    const range = new vscode.Range(first - 1, 0, last - 1, doc.lineAt(last - 1).range.end.character);
    const text = doc.getText(range);
    const rangeUri = mentionUri({ uri: base, startLine: first, endLine: last });
    if (text.length > MAX_EMBED_BYTES) return { type: "resource_link", uri: rangeUri, name: path.basename(uri.fsPath), size: stat.size };
    return { type: "resource", resource: { uri: rangeUri, text, mimeType: `text/x-${doc.languageId}` } };
  }
}
