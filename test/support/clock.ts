/**
 * One clock for every process of a run (plain Node, no `vscode`): the machine's monotonic clock,
 * in milliseconds. `performance.timeOrigin + performance.now()` is the wall clock as it was when
 * each process started, carried on by its monotonic clock: a process started after the wall clock
 * was stepped (a VM's clock being corrected) disagrees with one started before by the step. A
 * scripted agent started mid-run once read 117 ms ahead of the extension host, so every update
 * "reached the host" 117 ms before the agent wrote it. The agent stamps what it does with this
 * clock; the bench turns a stamp into its own clock with `toOwnClock`.
 */
export function machineClock(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** What to add to a `machineClock()` reading to have this process's `performance.timeOrigin + performance.now()`. */
let offset: number | undefined;

/** A `machineClock()` reading (from any process on this machine) in this process's `performance.timeOrigin + performance.now()`. */
export function toOwnClock(machineMs: number): number {
  offset ??= performance.timeOrigin + performance.now() - machineClock();
  return machineMs + offset;
}
