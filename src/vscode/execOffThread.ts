/**
 * `execFile` run from a worker thread. Starting a process blocks the thread that starts it until
 * the child has exec'd (libuv waits for that): a few ms on an idle machine, but 30–75 ms measured
 * in the extension host while ten agents stream on two cores, during which nothing else in the
 * host runs (not the panel, not a Stop click). Checkpoint snapshots start git at every turn's start
 * and end, so they start it from here. One worker serves every caller; it ends after a quiet spell
 * and starts again when needed. Where workers are not available, the call runs on this thread.
 */
import { execFile } from "node:child_process";
import { Worker } from "node:worker_threads";
import { belowEditor } from "../acp/spawn";

export interface ExecOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  maxBuffer: number;
  /** Written to the child's stdin, which is then closed. */
  input?: string;
  /**
   * The child runs below the editor's CPU priority (nice 10, or the editor's own if that is lower
   * still), set as it starts and before it is given its input. It stays in the editor's autogroup
   * (Linux), where it then yields to the extension host's threads instead of sharing with them.
   */
  lowPriority?: boolean;
}

export interface ExecResult {
  /** Undefined when the command exited with 0. */
  error?: { message: string; code?: number | string };
  stdout: Buffer;
  stderr: Buffer;
}

interface Request extends ExecOptions { id: number; file: string; args: readonly string[] }
interface Reply { id: number; error?: { message: string; code?: number | string }; stdout: Uint8Array; stderr: Uint8Array }

/** The worker's code (CommonJS, run with `eval`): the same `execFile` call, answered by id. */
const WORKER = `
const { parentPort } = require("node:worker_threads");
const { execFile } = require("node:child_process");
const os = require("node:os");
parentPort.on("message", (m) => {
  try {
    const child = execFile(m.file, m.args, { cwd: m.cwd, env: m.env, maxBuffer: m.maxBuffer, encoding: "buffer" }, (err, stdout, stderr) => {
      parentPort.postMessage({ id: m.id, error: err ? { message: String(err.message), code: err.code } : undefined, stdout, stderr });
    });
    // belowEditor (src/acp/spawn.ts), which this string cannot import.
    if (m.lowPriority && child.pid !== undefined) {
      try { os.setPriority(child.pid, Math.max(os.constants.priority.PRIORITY_BELOW_NORMAL, os.getPriority())); } catch {}
    }
    // A child that exits before reading its input: the exit is the answer, not an EPIPE that ends the worker.
    child.stdin.on("error", () => {});
    if (m.input !== undefined) child.stdin.end(m.input);
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: { message: String(err && err.message) }, stdout: new Uint8Array(0), stderr: new Uint8Array(0) });
  }
});
`;

/** A worker this long without a call ends (it holds some megabytes while it lives). */
let idleMs = 30_000;

/** Sets how long a worker waits for calls before it ends (tests: to end one at a chosen moment). */
export function setExecWorkerIdleMs(ms: number): void {
  idleMs = ms;
}

/** A live worker and the calls it owes an answer (a worker that ends fails only its own). */
interface Live { worker: Worker; waiting: Map<number, (r: ExecResult) => void>; idle?: NodeJS.Timeout }

let live: Live | undefined;
let unavailable = false;
let nextId = 1;

function failAll(l: Live, message: string): void {
  for (const [id, done] of l.waiting) {
    l.waiting.delete(id);
    done({ error: { message }, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) });
  }
}

function theWorker(): Live | undefined {
  if (live || unavailable) return live;
  let l: Live;
  try {
    l = { worker: new Worker(WORKER, { eval: true }), waiting: new Map() };
  } catch {
    unavailable = true;
    return undefined;
  }
  const { worker } = l;
  worker.unref();
  let answered = false;
  worker.on("message", (r: Reply) => {
    answered = true;
    const done = l.waiting.get(r.id);
    l.waiting.delete(r.id);
    done?.({ ...(r.error ? { error: r.error } : {}), stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr) });
    if (l.waiting.size === 0) idle(l);
  });
  worker.on("error", (err) => {
    if (live === l) live = undefined;
    // One that fails before it ever answered will not work here: this thread it is, from now on.
    if (!answered) unavailable = true;
    failAll(l, `the process worker failed: ${err.message}`);
  });
  worker.on("exit", () => {
    if (live === l) live = undefined;
    failAll(l, "the process worker ended");
  });
  live = l;
  return l;
}

function idle(l: Live): void {
  if (l.idle) clearTimeout(l.idle);
  l.idle = setTimeout(() => {
    l.idle = undefined;
    if (l.waiting.size > 0 || live !== l) return;
    // Forgotten before it ends: a call from now on starts a new worker instead of posting to this one.
    live = undefined;
    void l.worker.terminate();
  }, idleMs);
  l.idle.unref();
}

function onThisThread(file: string, args: readonly string[], options: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { cwd: options.cwd, env: options.env, maxBuffer: options.maxBuffer, encoding: "buffer" }, (err, stdout, stderr) => {
      resolve({ ...(err ? { error: { message: err.message, ...(err.code !== undefined && err.code !== null ? { code: err.code } : {}) } } : {}), stdout, stderr });
    });
    // As in the worker: below the editor, best effort.
    if (options.lowPriority && child.pid !== undefined) {
      try {
        belowEditor(child.pid);
      } catch {
        // The child runs at the editor's priority.
      }
    }
    // As in the worker: a child that exits before reading its input answers with its exit.
    child.stdin?.on("error", () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs `file` with `args` (no shell) from the worker thread; resolves when it exits, with its output. */
export function execOffThread(file: string, args: readonly string[], options: ExecOptions): Promise<ExecResult> {
  const l = theWorker();
  if (!l) return onThisThread(file, args, options);
  if (l.idle) clearTimeout(l.idle);
  l.idle = undefined;
  const id = nextId++;
  return new Promise((resolve) => {
    l.waiting.set(id, resolve);
    const request: Request = { id, file, args, ...options };
    l.worker.postMessage(request);
  });
}
