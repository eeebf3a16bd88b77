/**
 * Whether a workspace path is ignored by git's ignore files (the workspace folder's `.gitignore`s
 * from its root down to the path's folder, and `.git/info/exclude`), for @-mentions:
 * `workspace.findFiles` applies `files.exclude` and `search.exclude` but, in VS Code 1.100, not the
 * ignore files (that option is only in the proposed `findFiles2`). The patterns are matched by the
 * `ignore` library, which follows git's rules (negation, anchoring, directory-only patterns); a
 * nested `.gitignore`'s verdict overrides its parents'. Files are read once per instance (one
 * instance serves one query).
 */
import * as fs from "node:fs/promises";
import * as path from "node:path";
import ignore, { type Ignore } from "ignore";

/** Ignore files larger than this are left unread (a hostile or generated one). */
const MAX_IGNORE_BYTES = 256 * 1024;

export class IgnoreFiles {
  private readonly cache = new Map<string, Promise<Ignore | undefined>>();

  /** `roots`: the workspace folders on disk. */
  constructor(private readonly roots: readonly string[]) {}

  private load(dir: string, files: readonly string[]): Promise<Ignore | undefined> {
    let p = this.cache.get(dir);
    if (!p) {
      p = (async () => {
        const texts: string[] = [];
        for (const f of files) {
          try {
            const file = path.join(dir, f);
            if ((await fs.stat(file)).size > MAX_IGNORE_BYTES) continue;
            texts.push(await fs.readFile(file, "utf8"));
          } catch {
            // none here
          }
        }
        return texts.length ? ignore().add(texts.join("\n")) : undefined;
      })();
      this.cache.set(dir, p);
    }
    return p;
  }

  /** Whether git would ignore this path (a file or folder inside a workspace folder). */
  async ignored(fsPath: string, isDir = false): Promise<boolean> {
    const root = this.roots.filter((r) => fsPath === r || fsPath.startsWith(r + path.sep)).sort((a, b) => b.length - a.length)[0];
    if (!root || fsPath === root) return false;
    const parts = path.relative(root, fsPath).split(path.sep);
    let verdict = false;
    let dir = root;
    for (let i = 0; i < parts.length; i++) {
      const ig = await this.load(dir, i === 0 ? [".gitignore", path.join(".git", "info", "exclude")] : [".gitignore"]);
      if (ig) {
        const rel = parts.slice(i).join("/") + (isDir ? "/" : "");
        const t = ig.test(rel);
        if (t.ignored) verdict = true;
        else if (t.unignored) verdict = false;
      }
      dir = path.join(dir, parts[i]!);
    }
    return verdict;
  }
}
