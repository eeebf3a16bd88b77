/** Process checks shared by the unit, integration and reload tests (plain Node, no `vscode`). */
import { existsSync, readdirSync, readFileSync } from "node:fs";

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

/** The pid a test agent or command wrote to `file`, once it has (undefined before: no file, or not written yet). */
export function pidWritten(file: string): number | undefined {
  return existsSync(file) ? Number(readFileSync(file, "utf8")) || undefined : undefined;
}

/**
 * The live processes whose environment holds `marker` (Linux: read from /proc; elsewhere none are
 * found). A scripted agent carries its scenario, pid file path included, in its environment, so
 * this finds one that has not yet written its pid, and what it started.
 */
export function runningWithEnv(marker: string): number[] {
  if (process.platform !== "linux") return [];
  let pids: number[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return [];
  }
  return pids.filter((pid) => {
    try {
      return pid !== process.pid && readFileSync(`/proc/${pid}/environ`, "latin1").includes(marker) && alive(pid);
    } catch {
      return false;
    }
  });
}
