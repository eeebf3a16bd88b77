/**
 * The workspace's protected files (core/protectedPaths) with VS Code's facts filled in: the
 * workspace folders (symlinks resolved) and the user's `agentThoughts.protectedFiles`. Answers
 * for the permission flow (which requests always ask) and for agent writes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { GuardPort } from "../acp/ports";
import { isInside, ProtectedPaths } from "../core/protectedPaths";

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (a file about to be created). */
export function realpathOrParentSync(p: string): string {
  let current = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** Workspace folders on disk, as real paths. */
export function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => realpathOrParentSync(f.uri.fsPath));
}

export class WorkspaceGuard implements GuardPort, vscode.Disposable {
  private paths: ProtectedPaths;
  private roots: string[];
  private readonly subs: vscode.Disposable[];

  constructor() {
    this.roots = workspaceRoots();
    this.paths = this.build();
    this.subs = [
      vscode.workspace.onDidChangeWorkspaceFolders(() => { this.roots = workspaceRoots(); this.paths = this.build(); }),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration("agentThoughts.protectedFiles")) this.paths = this.build(); }),
    ];
  }

  private build(): ProtectedPaths {
    const extra = vscode.workspace.getConfiguration("agentThoughts").get<unknown>("protectedFiles");
    return new ProtectedPaths({ roots: this.roots, extra: Array.isArray(extra) ? extra.filter((x): x is string => typeof x === "string") : [] });
  }

  /** Whether a real path is inside a workspace folder. */
  inWorkspace(real: string): boolean {
    return this.roots.some((r) => isInside(real, r));
  }

  /** Why writing this real path must be confirmed (it configures tools), or undefined. */
  reasonForPath(real: string): string | undefined {
    return this.paths.reasonForPath(real);
  }

  reasonFor(paths: readonly string[], texts: readonly string[], cwd: string): string | undefined {
    for (const p of paths) {
      if (!p) continue;
      const real = realpathOrParentSync(path.resolve(cwd, p));
      const reason = this.paths.reasonForPath(real);
      if (reason) return reason;
      if (this.roots.length && !this.inWorkspace(real)) return `it names ${p.length > 200 ? `${p.slice(0, 200)}…` : p}, which is outside the workspace`;
    }
    for (const t of texts) {
      const reason = this.paths.reasonForText(t);
      if (reason) return reason;
    }
    return undefined;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
