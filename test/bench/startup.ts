// `npm run bench` start-up rows (issue 14): a window opening on 20 saved hour-long sessions.
// The main bench run (phase 1) saves the replay session's transcript 20 times over, as 20 sessions
// of their own; the harness then reloads the window twice (test/bench/reloaded/index.ts): the first
// start finds 20 transcripts its index does not know (as after an update from a version without
// one) and indexes them from their heads and tails; the second reads the index alone. Each prints
// activation time, the longest extension-host block until the history is indexed, the time from
// picking a saved hour-long session to its last turn on screen, and the host's memory after it.
import * as fs from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import { log } from "../integration/index";
import { evaluate, waitFor } from "../integration/webview";
import { until } from "../support/until";
import { hourReplay } from "./load";
import { fmt, gapsText, gcPauses, hostHeap, longBlocks, mb, num, profileHost } from "./util";

const COPIES = 20;
/** Above the default 500 MB, so that the 20 copies and the other scenarios' sessions all stay. */
const BENCH_HISTORY_MB = 4_000;
/** The replay's last prompt (load.ts: `turn ${t}: keep going…`, 48 turns) and the last chunk of its last answer. */
const LAST_PROMPT = "turn 47: keep going";
const LAST_CHUNK = "t47 summary token 399";

interface Manifest { sessions: { id: string; prompt: string }[]; bytes: number; events: number }

function manifestFile(): string {
  return path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ".bench-startup.json");
}

/**
 * Phase 1: the replay session's transcript saved as 20 sessions of their own (each its own
 * session key, file and last prompt), newest last; the window reloads after this run.
 */
export async function prepareStartup(a: AgentThoughtsInternalApi, replaySessionId?: string): Promise<void> {
  const original = replaySessionId ?? await hourReplay(a);
  const file = a._test.transcripts.fileOf(original);
  if (!file) throw new Error("no workspace storage");
  const lines = a._test.controller.viewState.sessions[original]?.lastSeq ?? 0;
  // A line per event, a run of text chunks as one: written through once its last line has the last sequence number.
  const lastSeqOnDisk = (): number => {
    const last = fs.readFileSync(file, "utf8").trimEnd().split("\n").pop() ?? "";
    try {
      return (JSON.parse(last) as { seq?: number }).seq ?? 0;
    } catch {
      return 0;
    }
  };
  await until(() => fs.existsSync(file) && lastSeqOnDisk() >= lines, "the replay transcript on disk", 30_000);
  await vscode.workspace.getConfiguration("agentThoughts").update("history.maxMegabytes", BENCH_HISTORY_MB, vscode.ConfigurationTarget.Global);
  const text = await fs.promises.readFile(file, "utf8");
  const manifest: Manifest = { sessions: [], bytes: 0, events: lines };
  const now = Date.now();
  for (let k = 1; k <= COPIES; k++) {
    const id = `bench-startup-${k}-${original}`;
    const prompt = `copy ${k}, ${LAST_PROMPT}`;
    const copy = text.split(original).join(id).split(LAST_PROMPT).join(prompt);
    const target = a._test.transcripts.fileOf(id)!;
    await fs.promises.writeFile(target, copy);
    const t = new Date(now - (COPIES - k) * 1000);
    await fs.promises.utimes(target, t, t);
    manifest.sessions.push({ id, prompt });
    manifest.bytes += Buffer.byteLength(copy);
  }
  fs.writeFileSync(manifestFile(), JSON.stringify(manifest));
  log(`  Start-up: the replay session's transcript saved as ${COPIES} sessions (${mb(manifest.bytes)} in all, ${num(lines)} events each); the window reloads twice to measure`);
}

/** Phase 2 and 3: a window opening on those sessions (see the file's comment). */
export async function measureStartup(a: AgentThoughtsInternalApi): Promise<void> {
  const manifest = JSON.parse(fs.readFileSync(manifestFile(), "utf8")) as Manifest;
  const store = a._test.transcripts;
  const c = a._test.controller;
  await until(() => Number.isFinite(store.startup.indexedMs), "the history to be indexed", 120_000);
  const st = { ...store.startup };
  const ids = new Set(manifest.sessions.map((s) => s.id));
  const listed = await until(() => {
    const n = c.viewState.order.filter((id) => ids.has(id)).length;
    return n === ids.size ? n : 0;
  }, "the 20 saved sessions to be listed", 30_000);
  const first = st.rebuilt > 0;
  const read = c.viewState.order.filter((id) => ids.has(id) && c.viewState.sessions[id]?.saved?.loaded !== "none").length;
  log(`  Start-up with ${COPIES} saved hour-long sessions (${mb(manifest.bytes)} of transcripts; ${c.viewState.order.length} sessions saved in all), ${first ? `the first start after an update: ${st.rebuilt} transcripts the index does not know, indexed from their first lines and last 64 KB` : "the index read alone"}`);
  log(`    activation: ${a._test.activationMs} ms (target ≤ 200 ms)`);
  log(`    history listed: index read ${fmt(st.indexReadMs)} after the store was made, whole ${fmt(st.indexedMs)} after; ${listed} of the ${COPIES} listed, ${read} of them read`);
  log(`    longest extension-host block from activation until the history is indexed: ${fmt(st.longestBlockMs)} (target ≤ 50 ms; VS Code's own start-up work in this host is in it too)`);

  // The session shown at start is read when the panel shows it: let that finish first.
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the panel" });
  if (c.activeSession) await c.ensureLoaded(c.activeSession);
  // …and drawn: the pick is timed from a webview that is not still busy with the session shown before.
  await waitFor(() => document.querySelectorAll("#transcript section.turn").length > 0 && document.getElementById("saved-loading")?.hidden, undefined, { view: "sidebar", what: "the session shown at start, drawn", timeoutMs: 60_000 });
  await evaluate(() => new Promise<boolean>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))), undefined, "sidebar");
  c.stats.savedPostMs = 0;
  const pick = manifest.sessions.find((s) => s.id !== c.activeSession && c.viewState.sessions[s.id]?.saved?.loaded === "none");
  if (!pick) throw new Error("no saved session left that is not read yet");
  const heap0 = hostHeap();
  const rss0 = process.memoryUsage().rss;

  // Picked in the header's switcher, as a user does; timed in the webview until its last turn shows.
  const profile = await profileHost(`startup-open-${Date.now()}`);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const gaps = longBlocks(25);
  const gc = gcPauses();
  const t0 = performance.now();
  await evaluate((arg: { id: string; prompt: string; chunk: string }) => {
    type Probe = { t0: number; host?: number; tail?: number; last?: number; all?: number };
    const w = window as Window & { __atOpen?: Probe };
    const probe: Probe = { t0: performance.now() };
    w.__atOpen = probe;
    // When the host's answers arrive: the session shown, then its last turn(s).
    window.addEventListener("message", (ev: MessageEvent<{ type?: string; host?: { activeSessionId?: string }; sessions?: { sessionId: string; saved?: { loaded?: string } }[] }>) => {
      const m = ev.data;
      if (probe.host === undefined && m.type === "host" && m.host?.activeSessionId === arg.id) probe.host = performance.now() - probe.t0;
      if (probe.tail === undefined && m.type === "sessions" && m.sessions?.some((s) => s.sessionId === arg.id && s.saved?.loaded === "tail")) probe.tail = performance.now() - probe.t0;
    });
    const check = (): void => {
      const turns = document.querySelectorAll("#transcript section.turn");
      const end = turns[turns.length - 1];
      // Without white space: a long paragraph is drawn in blocks cut at a space (IncrementalMarkdown's maxTail), which textContent joins without it.
      const text = (end?.textContent ?? "").replace(/\s+/g, "");
      if (probe.last === undefined && text.includes(arg.prompt.replace(/\s+/g, "")) && text.includes(arg.chunk.replace(/\s+/g, ""))) probe.last = performance.now() - probe.t0;
      const earlier = document.querySelector<HTMLElement>(".show-earlier.turns");
      if (probe.last !== undefined && probe.all === undefined && earlier && !earlier.hidden && document.getElementById("saved-loading")?.hidden) {
        probe.all = performance.now() - probe.t0;
        obs.disconnect();
      }
    };
    const obs = new MutationObserver(check);
    obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden"] });
    const select = document.querySelector<HTMLSelectElement>("select.session-select")!;
    select.value = arg.id;
    select.dispatchEvent(new Event("change"));
  }, { id: pick.id, prompt: pick.prompt, chunk: LAST_CHUNK }, "sidebar");
  type Opened = { host?: number; tail?: number; last?: number; all?: number };
  const shown = await waitFor(() => {
    const p = (window as Window & { __atOpen?: Opened }).__atOpen;
    return p?.all !== undefined ? p : undefined;
  }, undefined, { view: "sidebar", what: "the picked session, all of it", timeoutMs: 120_000 });
  if (!shown) throw new Error("the picked session was not shown");
  const whole = await c.ensureLoaded(pick.id);
  const hostAll = performance.now() - t0;
  loop.disable();
  const blocks = gaps.stop();
  const gcEntries = gc.entries();
  const gcText = gc.stop();
  const profiled = await profile.stop();
  const view = c.viewState.sessions[pick.id];
  if (!whole || view?.lastSeq !== manifest.events) throw new Error(`the picked session read back ${view?.lastSeq ?? 0} of ${manifest.events} events`);
  const heap = hostHeap();
  const rss = process.memoryUsage().rss;
  const viewJson = Buffer.byteLength(JSON.stringify(view));
  log(`    picking a saved hour-long session (${num(manifest.events)} events, ${mb(manifest.bytes / COPIES)}) in the switcher → its last turn visible: ${fmt(shown.last ?? NaN)} (target ≤ 500 ms); the host's answer in the webview after ${fmt(shown.host ?? NaN)}, its last turn(s) after ${fmt(shown.tail ?? NaN)} (read and folded in the host in ${fmt(c.stats.savedTailMs)})`);
  log(`    → all ${num(view.turns.length)} turns in: ${fmt(shown.all ?? NaN)} in the webview (${fmt(c.stats.savedLoadMs)} in the host; ${fmt(hostAll)} until ensureLoaded resolved); longest extension-host block meanwhile ${fmt(loop.max / 1e6)} (target ≤ 50 ms); the whole view is ${mb(viewJson)} as JSON, posted to the panel in pieces, the longest post ${fmt(c.stats.savedPostMs)}`);
  log(`      the host's longest gaps meanwhile, ms (of it its main thread on a CPU / waiting for a CPU / garbage collection in it): ${blocks.length ? gapsText(blocks.slice(0, 4), gcEntries, (start) => `at ${fmt(start - t0)}`) : "none over 25 ms"}; garbage collection ${gcText}`);
  if (profiled) log(`    extension host CPU profile of opening it: ${profiled}`);
  log(`    extension host after opening it: heap ${mb(heap)} after a forced GC (${mb(heap - heap0)} more than before), RSS ${mb(rss)} (${mb(rss - rss0)} more)`);
}
