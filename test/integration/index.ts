// Entry point loaded by VS Code's extension host (extensionTestsPath = out/integration): runs every
// *.test.js next to this file (recursively) with mocha, bdd UI. Started by test/host/runTests.mjs.
import Mocha from "mocha";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";
import { until } from "../support/until";

/**
 * Extension-host console output reaches the harness through the workbench's log
 * (codeAutomationLog), mixed with the workbench's own messages, and VS Code's console forwarder
 * ignores assignments to console.log. So the reporter's lines are formatted here (Node's
 * util.format) and tagged with a zero-width space; runTests.mjs prints tagged lines as they are
 * and other messages logged while tests run with a `[log]` prefix.
 */
export const CONSOLE_TAG = "\u200b";

/** Prints like console.log, shown in the harness output without prefix. */
export function log(...args: unknown[]): void {
  console.log(CONSOLE_TAG + format(...args));
}

/** Every file below dir whose name ends with suffix. */
function testFiles(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

/**
 * Runs every `*<suffix>` file below dir with mocha (bdd, spec reporter), rejecting when a test
 * fails. A bench suite can reuse it: `export const run = () => runMocha(__dirname, "bench", ".bench.js")`.
 */
export function runMocha(dir: string, label: string, suffix = ".test.js"): Promise<void> {
  (Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void }).consoleLog = log;
  const mocha = new Mocha({
    ui: "bdd",
    timeout: Number(process.env.AGENT_THOUGHTS_MOCHA_TIMEOUT_MS || 60_000),
    color: false,
    reporter: "spec",
    ...(process.env.AGENT_THOUGHTS_GREP ? { grep: process.env.AGENT_THOUGHTS_GREP } : {}),
    ...(process.env.AGENT_THOUGHTS_GREP_INVERT ? { invert: true } : {}),
  });
  const files = testFiles(dir, suffix);
  for (const file of files) mocha.addFile(file);

  // The harness watches for this line to measure start-up time.
  log(`[agent-thoughts-tests] start ${label}: ${files.length} test file(s)`);
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        if (failures > 0) reject(new Error(`${failures} ${label} test(s) failed`));
        else resolve();
      });
      // Each test file is bundled with its own copy of this module, so what runs now (a test or a
      // hook) is kept where all of them see it, for skipping DOM-driving tests without a harness.
      const running: Mocha.Runnable[] = ((globalThis as RunningHolder)[RUNNING] = []);
      runner.on("test", (t) => running.push(t));
      runner.on("hook", (h) => running.push(h));
      runner.on("test end", () => running.pop());
      runner.on("hook end", () => running.pop());
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

export function run(): Promise<void> {
  return runMocha(__dirname, "integration");
}

const RUNNING = Symbol.for("agentThoughts.running");
type RunningHolder = typeof globalThis & { [RUNNING]?: Mocha.Runnable[] };
let requestCounter = 0;

/** Whether the browser harness (test/host/runTests.mjs) is there to drive the workbench and webview DOM. */
export function harnessAvailable(): boolean {
  const dir = process.env.AGENT_THOUGHTS_SCREENSHOT_REQUESTS;
  return !!dir && existsSync(dir);
}

/**
 * Sends one request to the harness (test/host/runTests.mjs), which runs it in the browser that
 * shows the workbench, and returns its reply. Extension-host code cannot reach the browser, so
 * this is a file handshake in $AGENT_THOUGHTS_SCREENSHOT_REQUESTS. Without the harness (e.g.
 * `npm run test:electron`), the running test is skipped, saying why; outside a test, undefined.
 */
export async function harnessRequest<T extends object>(request: Record<string, unknown>, timeoutMs = 30_000): Promise<T | undefined> {
  const dir = process.env.AGENT_THOUGHTS_SCREENSHOT_REQUESTS;
  if (!dir || !existsSync(dir)) {
    const now = (globalThis as RunningHolder)[RUNNING]?.at(-1);
    // A test, or a hook before tests (skipping there skips the tests it prepares).
    if (now && (now instanceof Mocha.Test || /^"before (all|each)" hook/.test(now.title))) {
      log(`  skipped: "${now.fullTitle()}" drives the workbench or webview DOM (${String(request.op)}), which needs the browser harness of npm run test:integration`);
      now.skip();
    }
    return undefined;
  }
  const id = `${process.pid}-${Date.now()}-${requestCounter++}`;
  const file = join(dir, `${id}.json`);
  const done = join(dir, `${id}.done`);
  // Atomic publish: the harness only looks at *.json.
  writeFileSync(`${file}.tmp`, JSON.stringify(request));
  renameSync(`${file}.tmp`, file);
  await until(() => existsSync(done), `the harness's answer to ${String(request.op)}`, timeoutMs, 5);
  const reply = JSON.parse(readFileSync(done, "utf8")) as T & { error?: string };
  rmSync(done);
  if (reply.error) throw new Error(`harness request ${String(request.op)}: ${reply.error}`);
  return reply;
}

/**
 * Asks the harness for a screenshot of the whole workbench page, saved at `path` (relative paths
 * are resolved against the repo root). Resolves to the absolute path, or undefined outside the harness.
 */
export async function screenshot(path: string, timeoutMs = 15_000): Promise<string | undefined> {
  if (!harnessAvailable()) return undefined;
  return (await harnessRequest<{ path: string }>({ op: "screenshot", path }, timeoutMs))?.path;
}
