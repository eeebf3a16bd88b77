/**
 * @-mentions, the host side: what the prompt box can mention for a query — workspace files and
 * folders through `findFiles` with the user's `files.exclude` and `search.exclude` and, unless
 * `search.useIgnoreFiles` is off, git's ignore files; symbols from the workspace symbol providers;
 * the open editors, the current selection, the active file's and the workspace's problems; the kept
 * output of agent commands and of the user's terminals (shell integration); the working tree's
 * changes (git, trusted workspaces only) — and the ACP blocks the chips become on send: an embedded
 * `resource` (the file's, range's or symbol's text as the editor has it, or the problems, terminal
 * output or diff as text), or a `resource_link` for a folder or a file too large to embed. Only
 * files inside the workspace are offered or read: a reference comes from the webview, which is not
 * trusted with paths, and a terminal is looked up by the key the host gave it.
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import type { ContentBlock } from "../shared/events";
import { MAX_MENTION_ITEMS, mentionUri, rankMentions, TERMINAL_MENTION_SCHEME, type MentionItem, type MentionRef } from "../shared/mentions";
import { mentionedTerminalText } from "../core/terminalText";
import { hardLinks } from "./documents";
import { isNetworkPath, realpathOrParentSync } from "./guard";
import { IgnoreFiles } from "./ignoreFiles";

/** Files larger than this go as a `resource_link`, not embedded. */
export const MAX_EMBED_BYTES = 256 * 1024;
/** Files asked of `findFiles` before ranking. */
const FILE_CANDIDATES = 200;
/** Problems listed per file, and for the whole workspace. */
const MAX_PROBLEMS = 200;
const MAX_WORKSPACE_PROBLEMS = 500;
/** Folders and symbols offered at most (files fill the rest of the list). */
const MAX_FOLDERS = 10;
const MAX_SYMBOLS = 10;
const SYMBOL_WAIT_MS = 1500;
/** Terminals offered at most, and the output a terminal mention carries (its end). */
const MAX_TERMINALS = 10;
export const MAX_TERMINAL_CHARS = 64 * 1024;

/** What the thought panel needs for @-mentions. */
export interface MentionPort {
  query(query: string): Promise<MentionItem[]>;
  blocks(refs: readonly MentionRef[]): Promise<ContentBlock[]>;
}

/** Where terminal output and the working tree's changes come from (each optional). */
export interface MentionSources {
  /** Agent commands' kept output (TerminalMirrors). */
  agentTerminals?: { kept(max: number): Array<{ key: string; name: string; running: boolean }>; outputByKey(key: string): string | undefined };
  /** The user's terminals' output through shell integration (UserTerminals). */
  userTerminals?: { list(): Array<{ key: string; name: string; lastCommand: string; running: boolean }>; output(key: string): string | undefined };
  /** The working tree's changes of a workspace folder as text (workingTreeChanges). */
  changes?: (folder: string) => Promise<string>;
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

function problemLine(rel: string, d: vscode.Diagnostic): string {
  return `${rel}:${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity]}: ${d.message}${d.source ? ` (${d.source})` : ""}`;
}

export class VscodeMentions implements MentionPort {
  private search: vscode.CancellationTokenSource | undefined;

  constructor(private readonly inWorkspace: (real: string) => boolean, private readonly logger: Logger, private readonly sources: MentionSources = {}) {}

  private local(uri: vscode.Uri): boolean {
    if (uri.scheme !== "file" || isNetworkPath(uri.fsPath)) return false;
    return this.inWorkspace(realpathOrParentSync(uri.fsPath));
  }

  private item(kind: MentionItem["kind"], uri: vscode.Uri | string, label: string, detail: string, lines?: { first: number; last: number }): MentionItem {
    return { kind, uri: uri.toString(), label: label.slice(0, 200), detail: detail.slice(0, 500), ...(lines ? { startLine: lines.first, endLine: lines.last } : {}) };
  }

  async query(query: string): Promise<MentionItem[]> {
    this.search?.cancel();
    const search = new vscode.CancellationTokenSource();
    this.search = search;
    try {
      const folders = vscode.workspace.workspaceFolders ?? [];
      const rel = (u: vscode.Uri): string => vscode.workspace.asRelativePath(u, folders.length > 1);
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
      const root = folders[0]?.uri;
      if (root) {
        const all = this.workspaceDiagnostics().reduce((n, [, d]) => n + d.length, 0);
        if (all > 0) special.push(this.item("workspaceProblems", root, "Problems in the workspace", `Problems (${all}) in the workspace`));
        if (vscode.workspace.isTrusted && this.sources.changes && await this.isRepository(root)) special.push(this.item("changes", root, "Working tree changes", "Changes: git diff of the working tree"));
      }
      // Terminals match only where the query is part of their name or command (a long command line
      // holds the letters of almost any query), and come after the other specials.
      const terminals: MentionItem[] = [];
      for (const t of this.sources.agentTerminals?.kept(MAX_TERMINALS) ?? []) {
        terminals.push(this.item("terminal", `${TERMINAL_MENTION_SCHEME}:agent/${encodeURIComponent(t.key)}`, `Output of ${t.name}`, `Terminal: ${t.name} (agent${t.running ? ", running" : ""})`));
      }
      for (const t of (this.sources.userTerminals?.list() ?? []).slice(0, MAX_TERMINALS)) {
        terminals.push(this.item("terminal", `${TERMINAL_MENTION_SCHEME}:${t.key}`, `Terminal ${t.name}`, `Terminal: ${t.name} (last: ${t.lastCommand})`));
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
      const q = query.toLowerCase();
      const shown = [...rankMentions(query, special, MAX_MENTION_ITEMS, (item) => [item.label, item.detail]), ...terminals.filter((t) => t.detail.toLowerCase().includes(q))].slice(0, MAX_MENTION_ITEMS);
      const ignores = vscode.workspace.getConfiguration("search").get<boolean>("useIgnoreFiles") !== false ? new IgnoreFiles(folders.map((f) => realpathOrParentSync(f.uri.fsPath))) : undefined;
      const kept = async (u: vscode.Uri, dir: boolean): Promise<boolean> => this.local(u) && !(await ignores?.ignored(realpathOrParentSync(u.fsPath), dir));
      const [found, inFolders, symbols] = await Promise.all([
        vscode.workspace.findFiles(fuzzyGlob(query), this.excludes(), FILE_CANDIDATES, search.token),
        vscode.workspace.findFiles(`${fuzzyGlob(query)}/**`, this.excludes(), FILE_CANDIDATES, search.token),
        this.symbols(query),
      ]);
      if (search.token.isCancellationRequested) return [];
      const folderItems = await this.folders(query, inFolders, rel, kept);
      const symbolItems: MentionItem[] = [];
      for (const sym of symbols) {
        if (symbolItems.length >= MAX_SYMBOLS) break;
        if (await kept(sym.location.uri, false)) symbolItems.push(this.symbolItem(sym, rel));
      }
      const room = MAX_MENTION_ITEMS - shown.length - folderItems.length - symbolItems.length;
      const files: MentionItem[] = [];
      for (const f of rankMentions(query, found.filter((u) => !open.has(u.toString())).map((u) => this.item("file", u, path.basename(u.fsPath), rel(u))), FILE_CANDIDATES)) {
        if (files.length >= room) break;
        if (await kept(vscode.Uri.parse(f.uri), false)) files.push(f);
      }
      return [...shown, ...files, ...folderItems, ...symbolItems];
    } finally {
      if (this.search === search) this.search = undefined;
      search.dispose();
    }
  }

  /** The folders whose name matches the query, from the files found inside them (best first). */
  private async folders(query: string, inside: readonly vscode.Uri[], rel: (u: vscode.Uri) => string, kept: (u: vscode.Uri, dir: boolean) => Promise<boolean>): Promise<MentionItem[]> {
    const roots = new Set((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
    const dirs = new Map<string, vscode.Uri>();
    for (const u of inside) {
      for (let d = path.dirname(u.fsPath); !roots.has(d) && d !== path.dirname(d); d = path.dirname(d)) {
        if (dirs.has(d)) break;
        dirs.set(d, vscode.Uri.file(d));
      }
    }
    const items = [...dirs.values()].map((u) => this.item("folder", u, `${path.basename(u.fsPath)}/`, `${rel(u)}/`));
    const out: MentionItem[] = [];
    for (const f of rankMentions(query, items, FILE_CANDIDATES)) {
      if (out.length >= MAX_FOLDERS) break;
      if (await kept(vscode.Uri.parse(f.uri), true)) out.push(f);
    }
    return out;
  }

  /** The symbol providers' answers, or none after SYMBOL_WAIT_MS (a language server still starting must not hold up the list). */
  private async symbols(query: string): Promise<vscode.SymbolInformation[]> {
    if (!query.trim()) return [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), SYMBOL_WAIT_MS); });
      const asked = Promise.resolve(vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", query));
      return (await Promise.race([asked, late])) ?? [];
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  }

  private symbolItem(sym: vscode.SymbolInformation, rel: (u: vscode.Uri) => string): MentionItem {
    const r = sym.location.range;
    const lines = { first: r.start.line + 1, last: Math.max(r.end.line + 1, r.start.line + 1) };
    const file = path.basename(sym.location.uri.fsPath);
    return this.item("symbol", sym.location.uri, `${sym.name} (${file}:${lines.first})`, `${vscode.SymbolKind[sym.kind] ?? "Symbol"} in ${rel(sym.location.uri)}:${lines.first}`, lines);
  }

  /** Whether a workspace folder is a git repository's top (a `.git` folder or file there). */
  private async isRepository(folder: vscode.Uri): Promise<boolean> {
    try {
      await fs.stat(path.join(folder.fsPath, ".git"));
      return true;
    } catch {
      return false;
    }
  }

  /** The diagnostics of workspace files (a file's problems only, others' left out). */
  private workspaceDiagnostics(): Array<[vscode.Uri, readonly vscode.Diagnostic[]]> {
    return vscode.languages.getDiagnostics().filter(([u, d]) => d.length > 0 && u.scheme === "file" && this.local(u));
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

  /** A terminal's output by the key the host gave it, as text (undefined when it is not kept). */
  private terminalBlock(ref: MentionRef): ContentBlock | undefined {
    const key = ref.uri.slice(TERMINAL_MENTION_SCHEME.length + 1);
    const raw = key.startsWith("agent/") ? this.sources.agentTerminals?.outputByKey(decodeURIComponent(key.slice("agent/".length))) : key.startsWith("user/") ? this.sources.userTerminals?.output(key) : undefined;
    if (raw === undefined) {
      this.logger.warn(`Left out the terminal mention ${ref.label.slice(0, 200)}: its output is no longer kept`);
      return undefined;
    }
    return { type: "resource", resource: { uri: ref.uri, text: `${ref.label}:\n${mentionedTerminalText(raw, MAX_TERMINAL_CHARS)}`, mimeType: "text/plain" } };
  }

  private async block(ref: MentionRef): Promise<ContentBlock | undefined> {
    if (ref.kind === "terminal") return ref.uri.startsWith(`${TERMINAL_MENTION_SCHEME}:`) ? this.terminalBlock(ref) : undefined;
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
    switch (ref.kind) {
      case "problems": {
        const diags = vscode.languages.getDiagnostics(uri).slice(0, MAX_PROBLEMS);
        const rel = vscode.workspace.asRelativePath(uri);
        const text = diags.length === 0 ? `No problems in ${rel}.` : diags.map((d) => problemLine(rel, d)).join("\n");
        return { type: "resource", resource: { uri: `${base}#problems`, text: `Problems in ${rel}:\n${text}`, mimeType: "text/plain" } };
      }
      case "workspaceProblems": {
        const lines: string[] = [];
        let total = 0;
        for (const [u, diags] of this.workspaceDiagnostics()) {
          total += diags.length;
          const rel = vscode.workspace.asRelativePath(u);
          for (const d of diags) if (lines.length < MAX_WORKSPACE_PROBLEMS) lines.push(problemLine(rel, d));
        }
        const more = total > lines.length ? `\n[… ${total - lines.length} more]` : "";
        return { type: "resource", resource: { uri: `${base}#problems`, text: `Problems in the workspace (${total}):\n${lines.join("\n") || "None."}${more}`, mimeType: "text/plain" } };
      }
      case "changes": {
        const folder = vscode.workspace.getWorkspaceFolder(uri);
        if (!folder || folder.uri.toString() !== base || !this.sources.changes) return undefined;
        if (!vscode.workspace.isTrusted) {
          this.logger.warn("Left out the working tree's changes: git runs only in a trusted workspace");
          return undefined;
        }
        const text = await this.sources.changes(folder.uri.fsPath);
        return { type: "resource", resource: { uri: `${base}#changes`, text, mimeType: "text/x-diff" } };
      }
      case "folder": {
        const stat = await fs.stat(uri.fsPath);
        if (!stat.isDirectory()) return undefined;
        return { type: "resource_link", uri: base, name: `${path.basename(uri.fsPath)}/`, mimeType: "inode/directory" };
      }
      case "file":
      case "editor":
      case "selection":
      case "symbol":
        return this.fileBlock(uri, ref);
    }
  }

  private async fileBlock(uri: vscode.Uri, ref: MentionRef): Promise<ContentBlock | undefined> {
    const base = uri.toString();
    const stat = await fs.stat(uri.fsPath);
    if (!stat.isFile()) return undefined;
    const ranged = ref.startLine !== undefined && ref.endLine !== undefined;
    const link: ContentBlock = { type: "resource_link", uri: base, name: path.basename(uri.fsPath), size: stat.size };
    if (!ranged && stat.size > MAX_EMBED_BYTES) return link;
    if (stat.nlink > 1) {
      // Its text could be a file's outside the workspace: the agent gets the link and must ask to read it.
      this.logger.warn(`Sent ${uri.fsPath} as a link, not its text: it ${hardLinks(stat.nlink)}`);
      return ranged ? { ...link, uri: mentionUri({ uri: base, startLine: ref.startLine!, endLine: ref.endLine! }) } : link;
    }
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
