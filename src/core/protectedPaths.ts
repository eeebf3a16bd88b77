/**
 * Files that make tools run code: VS Code's workspace settings and tasks, git hooks and config,
 * CI workflows, dev containers. An agent that may edit the workspace must never be able to turn
 * that into "runs any command without asking" by writing one of them, so writes to these paths
 * always ask the user (whatever the permission policy), and "always allow" is not offered for them.
 * Pure: the adapters supply the workspace folders and the user's extra patterns.
 */
import * as path from "node:path";
import picomatch from "picomatch";
import { isInside } from "./paths";

/** Built-in patterns, relative to a workspace folder (any depth: nested repositories have hooks too). */
export const DEFAULT_PROTECTED_PATTERNS: readonly string[] = [
  "**/.vscode/**",
  "**/*.code-workspace",
  "**/.git",
  "**/.git/**",
  "**/.github/workflows/**",
  "**/.devcontainer/**",
  "**/.devcontainer.json",
  "**/.husky/**",
];

/** Folder names whose mention in a command or tool input makes a request protected. */
const MARKERS: readonly { re: RegExp; what: string }[] = [
  { re: /(^|[\\/\s"'`=:])\.vscode([\\/]|$|[\s"'`])/i, what: ".vscode (VS Code settings and tasks)" },
  { re: /(^|[\\/\s"'`=:])\.git([\\/]|$|[\s"'`])(?!ignore)/i, what: ".git (hooks and config)" },
  { re: /\.github[\\/]workflows/i, what: ".github/workflows (CI)" },
  { re: /(^|[\\/\s"'`=:])\.devcontainer/i, what: ".devcontainer (dev containers)" },
  { re: /(^|[\\/\s"'`=:])\.husky([\\/]|$)/i, what: ".husky (git hooks)" },
  { re: /\.code-workspace\b/i, what: "a .code-workspace file (workspace settings and tasks)" },
];

export interface ProtectedPathsConfig {
  /** Absolute workspace folder paths (real paths). */
  roots: readonly string[];
  /** The user's extra patterns (`agentThoughts.protectedFiles`), relative to a workspace folder. */
  extra: readonly string[];
}

export class ProtectedPaths {
  private readonly match: (rel: string) => boolean;

  constructor(private readonly config: ProtectedPathsConfig) {
    // Case-insensitive everywhere: on macOS and Windows `.VSCode/` is the same folder, and asking once too often is the safe side.
    this.match = picomatch([...DEFAULT_PROTECTED_PATTERNS, ...config.extra.filter((p) => p.trim() !== "")], { dot: true, nocase: true });
  }

  /**
   * Why writing `file` (absolute, symlinks already resolved) must be confirmed by the user, or
   * undefined when it need not be. Files outside every workspace folder are judged by their
   * own (they always ask anyway).
   */
  reasonForPath(file: string): string | undefined {
    for (const root of this.config.roots) {
      if (!isInside(file, root, { caseInsensitive: true })) continue;
      const rel = path.relative(root.toLowerCase(), file.toLowerCase()).split(path.sep).join("/");
      if (rel && this.match(rel)) return `${path.relative(root, file).split(path.sep).join("/") || file} configures tools that run code (${this.which(rel)})`;
    }
    return undefined;
  }

  /** Why a request whose text (a command, tool input) mentions a protected folder must be confirmed. */
  reasonForText(text: string): string | undefined {
    for (const m of MARKERS) if (m.re.test(text)) return `it touches ${m.what}, which can make tools run code`;
    return undefined;
  }

  private which(rel: string): string {
    for (const m of MARKERS) if (m.re.test(`/${rel}`)) return m.what;
    return "agentThoughts.protectedFiles";
  }
}

/** A diff the user approved (by hand) for a protected file: a later write of exactly that text needs no second question. */
export interface ApprovedEdit { path: string; oldText: string | null; newText: string }

/** Whether writing `content` to a file whose text is now `current` is exactly the approved edit. */
export function matchesApprovedEdit(edit: ApprovedEdit, file: string, current: string | null, content: string): boolean {
  if (path.normalize(edit.path) !== path.normalize(file)) return false;
  // A whole-file diff: the file must still be what the user saw on the left.
  if (content === edit.newText && (edit.oldText === null ? current === null : current === edit.oldText)) return true;
  // A fragment edit (old snippet → new snippet) applied to the file as it is now.
  if (edit.oldText && current !== null) {
    const at = current.indexOf(edit.oldText);
    if (at >= 0 && current.slice(0, at) + edit.newText + current.slice(at + edit.oldText.length) === content) return true;
  }
  return false;
}
