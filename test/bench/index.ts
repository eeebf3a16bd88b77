// `npm run bench`: the thought panel under load, in the real VS Code host with the scripted flood
// agent. Prints figures (no pass/fail thresholds): time to last chunk visible, postMessage count
// per frame, agent-write → visible lag, DOM size, re-open time and webview heap for a huge session;
// ten concurrent sessions and an hour-long session replay (test/bench/load.ts); a hostile flood of
// huge, deeply nested tool calls and plans (long tasks, test/bench/hostile.ts); the checkpoint cost
// on a 10,000-file workspace (test/bench/checkpoints.ts); client terminals under load (test/bench/terminals.ts);
// find in a 5 MB transcript (test/bench/find.ts); a window opening on 20 saved hour-long sessions
// (test/bench/startup.ts: saved here, measured after the window reloads).
// AGENT_THOUGHTS_BENCH=huge,flood,paced,lag,hidden,concurrent,replay,hostile,checkpoint,terminals,find,cold,startup picks scenarios (default: all; `boot` only on request).
import * as fs from "node:fs";
import * as path from "node:path";
import * as v8 from "node:v8";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Step } from "../fixtures/agents/scenario";
import { toOwnClock } from "../support/clock";
import { until } from "../support/until";
import { harnessRequest, log } from "../integration/index";
import { evaluate, lastThoughtHolds, waitFor } from "../integration/webview";
import { checkpointCost } from "./checkpoints";
import { findBench } from "./find";
import { bigThought } from "./bigThought";
import { hostileFlood } from "./hostile";
import { lagByShape } from "./lag";
import { concurrentSessions, hourReplay } from "./load";
import { coldStart } from "./coldStart";
import { prepareStartup } from "./startup";
import { terminalLoad } from "./terminals";
import { api, benchFile, EXTENSION_ID, fmt, gcPauses, hostHeap as heldHeap, percentile, profileHost, removeBenchFiles, sampleHostAllocations, useScenario } from "./util";

const CHUNK = 24;

/** Records, inside the webview, when the streamed thought text grows: [epoch ms, total length]. */
function installObserver(): boolean {
  type W = Window & { __atSamples?: [number, number][]; __atObserver?: MutationObserver };
  const w = window as W;
  w.__atObserver?.disconnect();
  const samples: [number, number][] = [];
  w.__atSamples = samples;
  const measure = (): void => {
    let total = 0;
    const texts = document.querySelectorAll(".thought-text");
    const last = texts[texts.length - 1];
    if (last) total = last.textContent?.length ?? 0;
    if (samples.length === 0 || samples[samples.length - 1]![1] !== total) samples.push([performance.timeOrigin + performance.now(), total]);
  };
  const obs = new MutationObserver(measure);
  obs.observe(document.body, { subtree: true, childList: true, characterData: true });
  w.__atObserver = obs;
  return true;
}

/**
 * The samples, the observer taken off: left on, it read the last thought's whole text on every
 * change of the panel for the rest of the bench (for the 4.9 MB thought, 60-70 ms a change).
 */
function takeSamples(): [number, number][] {
  type W = Window & { __atSamples?: [number, number][]; __atObserver?: MutationObserver };
  const w = window as W;
  w.__atObserver?.disconnect();
  w.__atObserver = undefined;
  const samples = w.__atSamples ?? [];
  w.__atSamples = undefined;
  return samples;
}

async function openSidebar(): Promise<void> {
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  await waitFor(() => document.getElementById("prompt") !== null, undefined, { what: "the panel", view: "sidebar" });
}

async function flood(a: AgentThoughtsInternalApi, name: string, count: number, paceMs?: number): Promise<void> {
  const timesFile = benchFile(`${name}-times.json`);
  // The first prompt only warms up (agent start + session), so the measurement is the stream, not the spawn.
  await useScenario(name, { turns: [[{ message: "ready" }], [{ flood: { count, timesFile, ...(paceMs ? { paceMs } : {}) } }]] });
  const session = (await a.stream("warm up", { agent: name, newSession: true }).result).sessionId;
  await new Promise((r) => setTimeout(r, 300));
  await evaluate(installObserver, undefined, "sidebar");
  const stats = a._test.controller.stats;
  const posts0 = stats.posts;
  const t0 = performance.timeOrigin + performance.now();
  const turn = a.stream("flood", { sessionId: session });
  await turn.result;
  const expected = count * CHUNK;
  await waitFor(lastThoughtHolds, expected, { timeoutMs: 600_000, view: "sidebar", what: `${count} chunks visible` });
  const samples = await evaluate(takeSamples, undefined, "sidebar");
  const visibleAt = samples.find(([, len]) => len >= expected)?.[0] ?? NaN;
  const total = visibleAt - t0;
  const posts = stats.posts - posts0;
  const identical = await evaluate((n: number) => {
    const texts = document.querySelectorAll(".thought-text");
    const got = texts[texts.length - 1]?.textContent ?? "";
    let want = "";
    for (let i = 0; i < n; i++) want += `${String(i).padStart(6, "0")} flood chunk text\n`;
    return got === want;
  }, count, "sidebar");
  const times = (JSON.parse(fs.readFileSync(timesFile, "utf8")) as number[]).map(toOwnClock);
  const streamMs = (times[times.length - 1] ?? t0) - (times[0] ?? t0);
  const lags: number[] = [];
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    const need = (i + 1) * CHUNK;
    while (j < samples.length && samples[j]![1] < need) j++;
    if (j < samples.length) lags.push(samples[j]![0] - times[i]!);
  }
  lags.sort((x, y) => x - y);
  const frames = Math.max(1, total / 16.7);
  log(`  ${name}: ${count.toLocaleString("en")} chunks${paceMs ? ` paced ${Math.round(1000 / paceMs)}/s` : " as fast as the agent writes"}`);
  log(`    time from prompt to last chunk visible: ${fmt(total)} (agent wrote them in ${fmt(streamMs)}; ${Math.round(count / (total / 1000)).toLocaleString("en")} chunks/s)`);
  log(`    text identical to the concatenation, in order: ${identical ? "yes" : "NO"}`);
  log(`    postMessage calls: ${posts} over ~${Math.round(frames)} frames (${(posts / frames).toFixed(2)} per frame)`);
  log(`    agent-write → visible lag: p50 ${fmt(percentile(lags, 50))}, p95 ${fmt(percentile(lags, 95))}, max ${fmt(lags[lags.length - 1] ?? NaN)} (${lags.length} chunks)`);
}

/**
 * The panel hidden while an agent streams (another view in the sidebar): how many patches the host
 * still posts to it, and how soon it shows the latest text once shown again.
 */
async function hiddenPanel(a: AgentThoughtsInternalApi): Promise<void> {
  const count = 3_000;
  const paceMs = 1;
  await useScenario("Hidden", { turns: [[{ message: "ready" }], [{ flood: { count, paceMs } }]] });
  const session = (await a.stream("warm up", { agent: "Hidden", newSession: true }).result).sessionId;
  await waitFor(() => document.body.textContent?.includes("ready") ?? false, undefined, { view: "sidebar", what: "the warm-up answer" });
  await vscode.commands.executeCommand("workbench.view.explorer");
  const stats = a._test.controller.stats;
  const posts0 = stats.posts;
  const t0 = Date.now();
  await a.stream("flood", { sessionId: session }).result;
  const streamMs = Date.now() - t0;
  const posts = stats.posts - posts0;
  const t1 = Date.now();
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  const expected = count * CHUNK;
  // The thought ended while the panel was hidden: a page made anew meanwhile (a failed post, a
  // resync) draws it folded and, never opened, not drawn until opened; opened then, as a reader would.
  const shownWhole = (n: number): boolean => {
    const thoughts = document.querySelectorAll<HTMLElement>("[data-entry-type='thought']");
    const last = thoughts[thoughts.length - 1];
    if (last?.dataset.body === "later" && !last.classList.contains("open")) {
      (window as Window & { __atOpenedFolded?: boolean }).__atOpenedFolded = true;
      last.querySelector<HTMLButtonElement>(".thought-head")?.click();
      return false;
    }
    return (last?.querySelector(".thought-text")?.textContent?.length ?? 0) >= n;
  };
  await waitFor(shownWhole, expected, { timeoutMs: 60_000, view: "sidebar", what: "the latest text after showing the panel" });
  const shownMs = Date.now() - t1;
  const opened = await evaluate(() => (window as Window & { __atOpenedFolded?: boolean }).__atOpenedFolded === true, undefined, "sidebar");
  log(`  Panel hidden while ${count.toLocaleString("en")} chunks stream at ${Math.round(1000 / paceMs).toLocaleString("en")}/s (${fmt(streamMs)}): ${posts} posts to it (${(posts / (streamMs / 1000)).toFixed(0)}/s); shown again, the latest text is on screen after ${fmt(shownMs)}${opened ? " (its thought drawn folded, as it ended while hidden: opened by its header, as a reader would)" : ""}`);
}

/** How long a new, nearly empty panel webview takes to boot here: the floor under any restore. */
async function emptyPanelBoot(a: AgentThoughtsInternalApi): Promise<void> {
  const before = a._test.controller.stats.lastReadyAt;
  const t0 = Date.now();
  await vscode.commands.executeCommand("agentThoughts.openPanel");
  await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "editor", what: "the empty editor panel" });
  const total = Date.now() - t0;
  const ready = a._test.controller.stats.lastReadyAt > before ? a._test.controller.stats.lastReadyAt - t0 : NaN;
  await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  log(`  A new panel webview with an empty session boots in ${fmt(total)} (its script said ready after ${fmt(ready)})`);
}

/** Webviews on the workbench's own origin share its renderer (AGENT_THOUGHTS_WEBVIEW_ORIGIN=shared, test/host/runTests.mjs). */
const sharedRenderer = process.env.AGENT_THOUGHTS_WEBVIEW_ORIGIN === "shared";

/** The JS heap in use of the panel's renderer after a full GC (CDP), in bytes; NaN without the browser harness. */
async function rendererHeap(): Promise<number> {
  return (await harnessRequest<{ value: { used: number } }>({ op: "heap", gc: true }, 60_000))?.value.used ?? NaN;
}

/** What V8 has taken for the extension host's heap (committed), and of it the young generation's part, in bytes. */
function v8Committed(): { committed: number; young: number } {
  const spaces = v8.getHeapSpaceStatistics();
  return {
    committed: spaces.reduce((n, x) => n + x.physical_space_size, 0),
    young: spaces.filter((x) => x.space_name === "new_space").reduce((n, x) => n + x.physical_space_size, 0),
  };
}

async function hugeSession(a: AgentThoughtsInternalApi): Promise<void> {
  const turns = 20;
  const chunksPerTurn = 10_000;
  const toolsPerTurn = 100;
  const steps = (t: number): Step[] => {
    const out: Step[] = [];
    for (let k = 0; k < toolsPerTurn; k++) {
      out.push({ flood: { count: chunksPerTurn / toolsPerTurn } });
      const id = `t${t}-${k}`;
      out.push({ sessionUpdate: { sessionUpdate: "tool_call", toolCallId: id, title: `Read file ${k}.ts`, kind: "read", status: "in_progress", locations: [{ path: `/w/src/${k}.ts` }] } });
      out.push({ sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", content: [{ type: "content", content: { type: "text", text: `contents of ${k}.ts` } }] } });
    }
    out.push({ message: `Turn ${t} done.` });
    return out;
  };
  await useScenario("Huge", { turns: Array.from({ length: turns }, (_, t) => steps(t)) });
  const heldBefore = heldHeap();
  const rssBefore = process.memoryUsage().rss;
  const v8Before = v8Committed();
  const rendererBefore = await rendererHeap();
  const allocations = await sampleHostAllocations("huge-host-streaming");
  const started = Date.now();
  let session: string | undefined;
  for (let t = 0; t < turns; t++) {
    // As the panel's prompt box sends a turn (an API stream would keep every event of its turn for its cursors).
    const r = await a._test.manager.run(`turn ${t}`, session ? { sessionId: session } : { agent: "Huge", newSession: true });
    session = r.sessionId;
  }
  await waitFor((n: number) => document.querySelectorAll("[data-entry-type]").length > 0 && document.body.textContent?.includes(`Turn ${n - 1} done.`), turns, { timeoutMs: 120_000, view: "sidebar", what: "the last turn" });
  const elapsed = Date.now() - started;
  const streamed = process.memoryUsage();
  const rssStreamed = streamed.rss;
  const allocationFile = await allocations.stop();
  const dom = await evaluate(() => document.getElementsByTagName("*").length, undefined, "sidebar");
  const heap = await evaluate(() => (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? -1, undefined, "sidebar");
  // Hide the panel and show it again; then reload its webview (as after a window reload) and time the restore.
  const shown = (n: number): boolean => document.body?.textContent?.includes(`Turn ${n - 1} done.`) ?? false;
  await vscode.commands.executeCommand("workbench.view.explorer");
  await new Promise((r) => setTimeout(r, 500));
  const t0 = Date.now();
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  await waitFor(shown, turns, { timeoutMs: 60_000, view: "sidebar", what: "the panel shown again" });
  const reopen = Date.now() - t0;
  const readyBefore = a._test.controller.stats.lastReadyAt;
  // A brand-new webview restored from a snapshot (the path a window reload or a moved view takes).
  // AGENT_THOUGHTS_BENCH_TRACE=<dir>: a performance trace of the browser meanwhile (every process); AGENT_THOUGHTS_BENCH_PROFILE=<dir>: a CPU profile of the extension host.
  const traceDir = process.env.AGENT_THOUGHTS_BENCH_TRACE || undefined;
  if (traceDir) await harnessRequest({ op: "traceStart" });
  const hostProfile = await profileHost("huge-restore-host");
  const fillBefore = a._test.controller.stats.lastFill;
  // The host's collections from the restore until the 60 s reading (whether V8 gives memory back then depends on them).
  const restoreGcs = gcPauses();
  const t1 = Date.now();
  await vscode.commands.executeCommand("agentThoughts.openPanel");
  await waitFor(shown, turns, { timeoutMs: 60_000, view: "editor", what: "the editor panel" });
  const reload = Date.now() - t1;
  // The snapshot's first message has the newest turns; the rest follows in pieces.
  const fill = await until(() => { const f = a._test.controller.stats.lastFill; return f !== fillBefore && f.ended ? f : undefined; }, "the snapshot's pieces posted", 60_000).catch(() => undefined);
  const filled = Date.now() - t1;
  const hostProfileFile = await hostProfile.stop();
  const traceFile = traceDir ? path.join(traceDir, "huge-restore.trace.json") : undefined;
  if (traceFile) await harnessRequest({ op: "traceStop", path: traceFile }, 120_000);
  const { lastReadyAt, lastSnapshotPostMs } = a._test.controller.stats;
  const readyAfter = lastReadyAt > readyBefore ? lastReadyAt - t1 : NaN;
  const heapAfter = await evaluate(() => (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? -1, undefined, "editor");
  // When the new page had its script and its icon font (ms from its start): icons are not drawn until the font is in.
  const loads = await evaluate(() => {
    const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
    const script = entries.find((e) => e.name.includes("webview.js"));
    const fonts = entries.filter((e) => e.name.includes("codicon.ttf"));
    return { script: script?.responseEnd ?? NaN, fontFrom: fonts[0]?.startTime ?? NaN, font: fonts[0]?.responseEnd ?? NaN, fetches: fonts.length, fontsReady: document.fonts.check("16px codicon") };
  }, undefined, "editor");
  await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  // What the sidebar panel holds: its renderer's heap after a full GC, against the same before the session.
  const rendererAfter = await rendererHeap();
  const restored = process.memoryUsage();
  const hostHeap = restored.heapUsed;
  const hostRss = restored.rss;
  // What is left after 10 s with nothing to do (V8 gives memory back some seconds after a flood).
  await new Promise((r) => setTimeout(r, 10_000));
  const idle = process.memoryUsage();
  const rssIdle = idle.rss;
  // Of it, what V8 has taken for its heap (committed), and the young generation's part: it grows to 32 MB under a flood and shrinks only once V8 sees the host idle.
  const { committed: committedIdle, young: youngIdle } = v8Committed();
  // And after a minute: V8's memory reducer gives back heap it grew to some tens of seconds after allocation stops.
  let rssSettled = rssIdle;
  let underTargetAfter: number | undefined;
  for (let s = 15; s <= 60; s += 5) {
    await new Promise((r) => setTimeout(r, 5_000));
    rssSettled = process.memoryUsage().rss;
    if (underTargetAfter === undefined && rssSettled <= 200 * 1048576) underTargetAfter = s;
  }
  const gcsAfter = restoreGcs.stop();
  const v8Settled = v8Committed();
  const heldAfter = heldHeap();
  // AGENT_THOUGHTS_BENCH_HEAP=<folder>: what the extension host holds after the huge session, and what it allocated while it streamed.
  const heapDir = process.env.AGENT_THOUGHTS_BENCH_HEAP;
  const snapshot = heapDir ? v8.writeHeapSnapshot(path.resolve(heapDir, "huge-host.heapsnapshot")) : undefined;
  // The snapshot's size, once every memory figure is read (a 6-7 MB string would be in them): not
  // before the restore either, whose post would then find its strings already flattened.
  const snapshotJson = JSON.stringify(a._test.controller.viewState).length;
  const met = (ok: boolean): string => (ok ? "met" : "MISSED");
  log(`  Huge session: ${(turns * chunksPerTurn).toLocaleString("en")} chunks (${((turns * chunksPerTurn * CHUNK) / 1e6).toFixed(1)} MB) + ${(turns * toolsPerTurn).toLocaleString("en")} tool calls in ${turns} turns, streamed in ${fmt(elapsed)}`);
  log(`    DOM elements in the panel: ${dom.toLocaleString("en")} (target < 3,000: ${met(dom < 3_000)})`);
  log(`    re-opening the hidden panel until the last turn is shown: ${fmt(reopen)}`);
  log(`    a new panel (Open Panel in Editor) restored from a snapshot: ${fmt(reload)} (the new webview said ready after ${fmt(readyAfter)}; snapshot ${(snapshotJson / 1e6).toFixed(1)} MB as JSON; shown ${fmt(reload - readyAfter)} after ready)`);
  log(fill
    ? `      the snapshot: its first message (the newest turns) posted in ${fmt(fill.headMs)}, the rest in ${fill.pieces} pieces (longest ${fmt(fill.longestMs)}, ${fmt(fill.hostMs)} of the host in all)${fill.whole ? `, the last ${fmt(fill.tookMs)} after the first` : ", NOT ALL: a newer snapshot or a failed post ended them"}; all posted when checked ${fmt(filled)} after Open Panel in Editor`
    : `      the snapshot: posted whole in ${fmt(lastSnapshotPostMs)}`);
  log(`      in the new page (ms from its start): its script in at ${fmt(loads.script)}, its icon font asked for at ${fmt(loads.fontFrom)} and in at ${fmt(loads.font)}${loads.fetches > 1 ? ` (fetched ${loads.fetches} times)` : ""}${loads.fontsReady ? "" : " (NOT loaded when shown)"}`);
  if (traceFile) log(`    trace of the restore (the browser's processes): ${traceFile}`);
  if (hostProfileFile) log(`    extension host CPU profile of the restore: ${hostProfileFile}`);
  log(`    webview JS heap: ${(heap / 1048576).toFixed(1)} MB streaming, ${(heapAfter / 1048576).toFixed(1)} MB in the new editor panel (target ≤ 100 MB: ${met(Math.max(heap, heapAfter) <= 100 * 1048576)}; ${sharedRenderer ? "the heap is the renderer's, which the workbench page shares here" : "the webview's renderer"}); extension host heap ${(hostHeap / 1048576).toFixed(1)} MB, RSS ${(rssStreamed / 1048576).toFixed(1)} MB as the last turn showed (ArrayBuffers ${(streamed.arrayBuffers / 1048576).toFixed(1)} MB), ${(hostRss / 1048576).toFixed(1)} MB after the panel was re-opened and a new one restored (ArrayBuffers ${(restored.arrayBuffers / 1048576).toFixed(1)} MB), ${(rssIdle / 1048576).toFixed(1)} MB after 10 s idle (target ≤ 200 MB: ${met(rssIdle <= 200 * 1048576)}; V8's heap ${(committedIdle / 1048576).toFixed(1)} MB of it, its young generation ${(youngIdle / 1048576).toFixed(1)} MB; outside V8's heap ${((rssIdle - committedIdle) / 1048576).toFixed(1)} MB, of it ArrayBuffers ${(idle.arrayBuffers / 1048576).toFixed(1)} MB and other memory V8 is told of ${((idle.external - idle.arrayBuffers) / 1048576).toFixed(1)} MB), ${(rssSettled / 1048576).toFixed(1)} MB after 60 s (target ≤ 200 MB: ${met(rssSettled <= 200 * 1048576)}${underTargetAfter === undefined ? "" : `; under it from ${underTargetAfter} s`}; V8's heap ${(v8Settled.committed / 1048576).toFixed(1)} MB of it, its young generation ${(v8Settled.young / 1048576).toFixed(1)} MB; ${(rssBefore / 1048576).toFixed(1)} MB before this session, with VS Code's own extensions in the same host, V8's heap ${(v8Before.committed / 1048576).toFixed(1)} MB of it, its young generation ${(v8Before.young / 1048576).toFixed(1)} MB)`);
  log(`    the extension host's garbage collections from the restore until the 60 s reading: ${gcsAfter}`);
  log(`    extension host heap after a full GC: ${(heldAfter / 1048576).toFixed(1)} MB, ${((heldAfter - heldBefore) / 1048576).toFixed(1)} MB more than before the session (what it holds of the session)`);
  log(`    renderer JS heap after a full GC (${sharedRenderer ? "the workbench and the panel" : "the panel's renderer process"}; target ≤ 100 MB: ${met(rendererAfter <= 100 * 1048576)}): ${(rendererBefore / 1048576).toFixed(1)} MB before the session, ${(rendererAfter / 1048576).toFixed(1)} MB with it in the sidebar panel (+${((rendererAfter - rendererBefore) / 1048576).toFixed(1)} MB)`);
  if (allocationFile) log(`    extension host allocations while streaming: ${allocationFile}`);
  if (snapshot) log(`    extension host heap snapshot: ${snapshot}`);
}

export async function run(): Promise<void> {
  process.env.AGENT_THOUGHTS_DEMO_SPEED = "0";
  const a = await api();
  await openSidebar();
  log("[agent-thoughts-tests] start bench");
  log(`Agent Thoughts benchmark (real VS Code host, scripted flood agent; ${sharedRenderer ? "webviews on the workbench's origin and main thread, as code-server serves them" : "each webview on an origin and in a renderer process of its own, as VS Code serves them"})`);
  // What the figures are of: the bundles the .vsix ships are minified (`npm run bench` builds them so).
  const bundle = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, "dist", "extension.js");
  const bundleText = fs.existsSync(bundle) ? fs.readFileSync(bundle, "utf8") : "";
  const minified = bundleText.length / bundleText.split("\n").length > 1_000;
  log(`  extension bundle: ${Math.round(bundleText.length / 1024)} KB, ${minified ? "minified, as the .vsix ships it" : "NOT minified (a development build: npm run bench builds the bundles the .vsix ships)"}`);
  const only = process.env.AGENT_THOUGHTS_BENCH?.split(",");
  const want = (k: string): boolean => !only || only.includes(k);
  try {
    // First: its memory figures are of the session in a host with nothing else streamed yet (each
    // scenario after it leaves the host's heap grown, and V8 gives that back only some time later).
    if (want("huge")) await hugeSession(a);
    if (want("flood")) await flood(a, "Flood", 20_000);
    if (want("paced")) await flood(a, "Paced", 3_000, 1);
    if (want("lag")) await lagByShape(a);
    if (want("hidden")) await hiddenPanel(a);
    if (want("concurrent")) await concurrentSessions(a);
    const replayed = want("replay") ? await hourReplay(a) : undefined;
    if (want("checkpoint")) await checkpointCost();
    if (want("hostile")) await hostileFlood(a);
    if (want("terminals")) await terminalLoad();
    if (want("find")) await findBench(a);
    if (want("bigthought")) await bigThought(a);
    if (want("cold")) await coldStart(a);
    // Separate run only: in code-server a second new webview can wait forever for its service worker.
    if (only?.includes("boot")) await emptyPanelBoot(a);
    // Last: the harness reloads the window after this run to measure the start (test/bench/reloaded/index.ts).
    if (want("startup")) await prepareStartup(a, replayed);
  } finally {
    removeBenchFiles();
  }
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
}
