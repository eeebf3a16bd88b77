/** Process checks shared by the unit, integration and reload tests (plain Node, no `vscode`). */
import { readFileSync } from "node:fs";

/**
 * Whether a process is still running: it exists and is not a zombie (an orphaned grandchild can
 * linger as one until init reaps it, which is not "left running").
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return process.platform !== "linux";
  }
}
