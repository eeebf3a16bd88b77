/**
 * Whether a path lies inside a folder — the one containment check for the file system, terminals,
 * review, checkpoints and protected files. Case-insensitive where the file system usually is
 * (Windows, macOS), so `C:\Work\.VSCode` is inside `c:\work`; the path flavour can be given, so
 * the Windows and macOS rules are testable anywhere.
 */
import * as nodePath from "node:path";

type PathApi = Pick<typeof nodePath, "relative" | "isAbsolute" | "sep">;

/** File systems that ignore case by default. */
export const CASE_INSENSITIVE_FS = process.platform === "win32" || process.platform === "darwin";

/** Whether `p` is `root` or below it (both absolute, normalised, symlinks already resolved by the caller). */
export function isInside(p: string, root: string, opts: { caseInsensitive?: boolean; api?: PathApi } = {}): boolean {
  const api = opts.api ?? nodePath;
  const fold = opts.caseInsensitive ?? CASE_INSENSITIVE_FS;
  const rel = api.relative(fold ? root.toLowerCase() : root, fold ? p.toLowerCase() : p);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${api.sep}`) && !api.isAbsolute(rel));
}
