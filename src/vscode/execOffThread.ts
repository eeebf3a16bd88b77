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

export interface ExecOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  maxBuffer: number;
  /** Written to the child's stdin, which is then closed. */
  input?: string;
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
parentPort.on("message", (m) => {
  const child = execFile(m.file, m.args, { cwd: m.cwd, env: m.env, maxBuffer: m.maxBuffer, encoding: "buffer" }, (err, stdout, stderr) => {
    parentPort.postMessage({ id: m.id, error: err ? { message: String(err.message), code: err.code } : undefined, stdout, stderr });
  });
  if (m.input !== undefined) child.stdin.end(m.input);
});
`;

/** A worker this long without a call ends (it holds some megabytes while it lives). */
const IDLE_MS = 30_000;

let worker: Worker | undefined;
let unavailable = false;
let nextId = 1;
let idleTimer: NodeJS.Timeout | undefined;
const waiting = new Map<number, (r: ExecResult) => void>();

function settleAll(message: string): void {
  for (const [id, done] of waiting) {
    waiting.delete(id);
    done({ error: { message }, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) });
  }
}

function theWorker(): Worker | undefined {
  if (worker || unavailable) return worker;
  try {
    const w = new Worker(WORKER, { eval: true });
    w.unref();
    w.on("message", (r: Reply) => {
      const done = waiting.get(r.id);
      waiting.delete(r.id);
      done?.({ ...(r.error ? { error: r.error } : {}), stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr) });
      if (waiting.size === 0) idle();
    });
    w.on("error", (err) => {
      if (worker === w) worker = undefined;
      settleAll(`the process worker failed: ${err.message}`);
    });
    w.on("exit", () => {
      if (worker === w) worker = undefined;
      settleAll("the process worker ended");
    });
    worker = w;
  } catch {
    unavailable = true;
  }
  return worker;
}

function idle(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = undefined;
    if (waiting.size === 0) void worker?.terminate();
  }, IDLE_MS);
  idleTimer.unref();
}

function onThisThread(file: string, args: readonly string[], options: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { cwd: options.cwd, env: options.env, maxBuffer: options.maxBuffer, encoding: "buffer" }, (err, stdout, stderr) => {
      resolve({ ...(err ? { error: { message: err.message, ...(err.code !== undefined && err.code !== null ? { code: err.code } : {}) } } : {}), stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs `file` with `args` (no shell) from the worker thread; resolves when it exits, with its output. */
export function execOffThread(file: string, args: readonly string[], options: ExecOptions): Promise<ExecResult> {
  const w = theWorker();
  if (!w) return onThisThread(file, args, options);
  if (idleTimer) clearTimeout(idleTimer);
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    const request: Request = { id, file, args, ...options };
    w.postMessage(request);
  });
}
