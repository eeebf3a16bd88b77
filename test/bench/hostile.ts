// `AGENT_THOUGHTS_BENCH=hostile`: an agent flooding huge plans and tool calls with big, deeply
// nested raw data. Measures the long tasks (PerformanceObserver "longtask", > 50 ms) of the
// workbench page's main thread and of the panel's webview frame while it streams, and how long
// until the last message is shown. The issue's bar: nothing an agent sends blocks the workbench
// main thread for more than 100 ms.
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Step } from "../fixtures/agents/scenario";
import { harnessRequest, log } from "../integration/index";
import { evaluate, waitFor } from "../integration/webview";
import { fmt, hostHeap, mb, percentile, rendererCapture, useScenario } from "./util";

const ROUNDS = 10;
const DEPTH = 5_000;
const RAW_OUTPUT_BYTES = 5_000_000;
const PLAN_ENTRIES = 20_000;
const WIDE_ENTRIES = 20_000;

/** Starts recording long tasks in this document (webview frame or workbench page). */
export function installLongTasks(): boolean {
  const w = window as Window & { __atLong?: number[]; __atLongObs?: PerformanceObserver };
  w.__atLongObs?.disconnect();
  const list: number[] = [];
  w.__atLong = list;
  // With webviews on the workbench's origin (AGENT_THOUGHTS_WEBVIEW_ORIGIN=shared) the panel runs on
  // the workbench's main thread: the page's observer sees its long tasks too, attributed to its iframe.
  const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) list.push(e.duration); });
  obs.observe({ type: "longtask" });
  w.__atLongObs = obs;
  return true;
}

export function readLongTasks(): number[] {
  const w = window as Window & { __atLong?: number[]; __atLongObs?: PerformanceObserver };
  for (const e of w.__atLongObs?.takeRecords() ?? []) w.__atLong?.push(e.duration);
  w.__atLongObs?.disconnect();
  return w.__atLong ?? [];
}

/**
 * Runs `fn` and logs how long it took and the sidebar panel's long tasks meanwhile, longest first;
 * against `targetMs` (none longer) when given.
 */
export async function phase(what: string, fn: () => Promise<void>, targetMs?: number, profileAs?: string): Promise<void> {
  await evaluate(installLongTasks, undefined, "sidebar");
  // The renderer's profile or trace of the phase, named `profileAs` (see rendererCapture).
  const capture = profileAs ? await rendererCapture(profileAs) : undefined;
  const t0 = Date.now();
  await fn();
  const ms = Date.now() - t0;
  const tasks = [...await evaluate(readLongTasks, undefined, "sidebar")].sort((x, y) => y - x).map(Math.round);
  const shown = tasks.length > 8 ? `${tasks.slice(0, 8).join(", ")}, …` : tasks.join(", ");
  const target = targetMs === undefined ? "" : ` (target: none over ${targetMs} ms: ${(tasks[0] ?? 0) > targetMs ? "MISSED" : "met"})`;
  log(`    ${what}: ${fmt(ms)}; long tasks ${tasks.length ? `[${shown} ms]` : "none"}${target}`);
  await capture?.();
}

function report(where: string, tasks: readonly number[] | undefined): void {
  if (!tasks) {
    log(`    ${where}: not measurable here`);
    return;
  }
  const s = [...tasks].sort((x, y) => x - y);
  const over = s.filter((d) => d > 100).length;
  log(`    ${where}: ${s.length} long tasks (> 50 ms) [${s.map((d) => Math.round(d)).join(", ")} ms]; max ${s.length ? fmt(s[s.length - 1]!) : "—"}, p95 ${s.length ? fmt(percentile(s, 95)) : "—"}; over 100 ms: ${over}`);
}

function round(i: number): Step[] {
  const id = `hostile-${i}-${"x".repeat(600)}`;
  return [
    {
      rawUpdate: `{"sessionUpdate":"tool_call","toolCallId":${JSON.stringify(id)},"title":"Hostile tool ${i}","kind":"read","status":"in_progress","rawInput":{"wide":[{{WIDE}}0],"deep":{{OPEN}}0{{CLOSE}}}}`,
      expand: { WIDE: { text: '{"k":"vvvvvvvvvvvvvvvv"},', times: WIDE_ENTRIES }, OPEN: { text: "[", times: DEPTH }, CLOSE: { text: "]", times: DEPTH } },
    },
    { rawUpdate: `{"sessionUpdate":"tool_call_update","toolCallId":${JSON.stringify(id)},"status":"completed","rawOutput":"{{BIG}}"}`, expand: { BIG: { text: "0123456789", times: RAW_OUTPUT_BYTES / 10 } } },
    {
      rawUpdate: `{"sessionUpdate":"plan","entries":[{{ENTRIES}}{"content":"round ${i} last","priority":"high","status":"in_progress"}]}`,
      // Every entry differs from the last round's: no item can be kept.
      expand: { ENTRIES: { text: `{"content":"round ${i}: a hostile plan step","priority":"low","status":"pending"},`, times: PLAN_ENTRIES - 1 } },
    },
    { message: `round ${i} done. ` },
  ];
}

export async function hostileFlood(a: AgentThoughtsInternalApi): Promise<void> {
  // Two turns of half the rounds each: one turn may bring 64 MB of updates (OutputBudget), and the ten rounds are ~69 MB.
  const half = (from: number, last: string): Step[] => [...Array.from({ length: ROUNDS / 2 }, (_, k) => round(from + k)).flat(), { message: last }];
  await useScenario("Hostile", { turns: [[{ message: "ready" }], half(0, "first half over"), half(ROUNDS / 2, "hostile flood over")] });
  const session = (await a.stream("warm up", { agent: "Hostile", newSession: true }).result).sessionId;
  const heldBefore = hostHeap();
  await evaluate(installLongTasks, undefined, "sidebar");
  const workbench = await harnessRequest<{ value: boolean }>({ op: "workbench", fn: installLongTasks.toString() });
  // AGENT_THOUGHTS_BENCH_PROFILE=<file.cpuprofile>: a CPU profile of the page's main thread while it streams.
  const profile = process.env.AGENT_THOUGHTS_BENCH_PROFILE;
  if (profile) await harnessRequest({ op: "profileStart" });
  const t0 = Date.now();
  for (const prompt of ["flood", "flood more"]) {
    const r = await a.stream(prompt, { sessionId: session }).result;
    if (r.stopReason !== "end_turn") throw new Error(`hostile flood: the turn "${prompt}" ended ${r.stopReason}`);
  }
  const hostDone = Date.now() - t0;
  await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("hostile flood over"), undefined, { timeoutMs: 300_000, view: "sidebar", what: "the last message" });
  const shown = Date.now() - t0;
  if (profile) await harnessRequest({ op: "profileStop", path: profile });
  const webviewTasks = await evaluate(readLongTasks, undefined, "sidebar");
  const pageTasks = workbench?.value ? (await harnessRequest<{ value: number[] }>({ op: "workbench", fn: readLongTasks.toString() }))?.value : undefined;
  const dom = await evaluate(() => document.getElementsByTagName("*").length, undefined, "sidebar");
  const bytes = ROUNDS * (RAW_OUTPUT_BYTES + WIDE_ENTRIES * 25 + DEPTH * 2 + PLAN_ENTRIES * 70);
  log(`  Hostile flood: ${ROUNDS} rounds (in two turns) of a tool call (raw input ${DEPTH.toLocaleString("en")} deep + ${WIDE_ENTRIES.toLocaleString("en")} entries wide, raw output ${mb(RAW_OUTPUT_BYTES)}, 600-character id) and a ${PLAN_ENTRIES.toLocaleString("en")}-entry plan; ~${mb(bytes)} on the wire`);
  log(`    turn over on the host after ${fmt(hostDone)}; last message shown after ${fmt(shown)}; panel DOM ${dom.toLocaleString("en")} elements; extension host heap ${mb(process.memoryUsage().heapUsed)}`);
  // What the host keeps of the flood: its heap after a full GC (what the line above reads is mostly garbage not yet collected).
  const heldAfter = hostHeap();
  log(`    extension host heap after a full GC: ${mb(heldAfter)}, ${mb(heldAfter - heldBefore)} more than before the flood (what it holds of it)`);
  report("workbench page main thread", pageTasks);
  report("panel webview frame", webviewTasks);
}
