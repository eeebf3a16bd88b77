/**
 * The workspace's protected files (core/protectedPaths) with VS Code's facts filled in: the
 * workspace folders (symlinks resolved) and the user's `agentThoughts.protectedFiles`. Answers
 * for the permission flow (which requests always ask) and for agent writes.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { GuardPort } from "../acp/ports";
import { isInside } from "../core/paths";
import { ProtectedPaths } from "../core/protectedPaths";

/** A Windows network (UNC) or device path: touching it on disk would connect to another machine. */
export function isNetworkPath(p: string): boolean {
  return process.platform === "win32" && /^[\\/]{2}/.test(p);
}

/**
 * The real path of `p`, or of its nearest existing ancestor joined with the rest (a file about to
 * be created). A dangling symlink on the way is followed by hand (a write through it would create
 * its target), and network paths are returned untouched, never opened.
 */
export function realpathOrParentSync(p: string, depth = 0): string {
  if (isNetworkPath(p)) return p;
  let current = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...[...rest].reverse());
    } catch {
      try {
        if (depth < 40 && fs.lstatSync(current).isSymbolicLink()) {
          const target = path.resolve(path.dirname(current), fs.readlinkSync(current));
          return realpathOrParentSync(path.join(target, ...[...rest].reverse()), depth + 1);
        }
      } catch {
        // not there at all: go up
      }
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
    // Any absolute-looking string in the input may be a path the tool acts on, whatever its field is called.
    const candidates = [...paths, ...texts.filter((t) => t.length < 4096 && !/[\n\r]/.test(t) && /^(?:\/|~[\\/]|[A-Za-z]:[\\/]|\\\\)/.test(t.trim())).map((t) => t.trim())];
    for (const p of candidates) {
      if (!p) continue;
      if (isNetworkPath(p)) return `it names the network path ${p.slice(0, 200)}`;
      const expanded = /^~(?=$|[\\/])/.test(p) ? path.join(os.homedir(), p.slice(1)) : p;
      const real = realpathOrParentSync(path.resolve(cwd, expanded));
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
