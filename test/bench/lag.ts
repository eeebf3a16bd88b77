// The `lag` scenario: agent write → visible in the panel, per text shape (test/fixtures/agents/shapes.ts),
// with the scripted agent awaiting each write at a fixed rate, as real agents do.
//
// "Visible" is when the browser has finished the frame that drew the update: the webview's frame
// probe (`__agentThoughtsFrameProbe`, called once the frame's DOM is written) posts itself a message,
// which runs after that frame's style, layout and paint. The probe counts what the drawn state holds
// (characters of thought and message text, tool calls and their completions), so every update is
// matched with the first frame that drew it, whatever the markdown made of its text.
//
// First, this host's floor (floor.ts): what carrying a message to the panel's screen takes, with no
// work of the extension's. AGENT_THOUGHTS_BENCH_SHAPES=lines,paragraph,markdown,cjk,mix (default all;
// `none`: the floor alone); AGENT_THOUGHTS_BENCH_CHUNKS
// (default 5,000); AGENT_THOUGHTS_BENCH_RATE updates/s (default 1,000); AGENT_THOUGHTS_BENCH_PROFILE=<dir>
// writes a CPU profile of the renderer and of the extension host per shape, AGENT_THOUGHTS_BENCH_TRACE=<dir> a performance trace
// (style, layout, paint; open either in Chrome DevTools); AGENT_THOUGHTS_BENCH_CSS="<rules>" adds rules to the panel's styles
// first (with `body { --bench-css: 1 }` among them, the bench says whether they apply).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { ViewState } from "../../src/shared/viewModel";
import { isShape, SHAPES, shapeUpdates, unitsOf, type Shape } from "../fixtures/agents/shapes";
import { log } from "../integration/index";
import { toOwnClock } from "../support/clock";
import { evaluate, waitFor } from "../integration/webview";
import { lagFloor } from "./floor";
import { benchFile, fmt, gapsText, gcPauses, longBlocks, percentile, profileHost, rendererCapture, useScenario } from "./util";

const P95_TARGET = 33;
const MAX_TARGET = 100;

interface Probe { samples: [number, number][]; longTasks: number[] }

/**
 * Inside the webview: adds `css` to the panel's styles, for trying a stylesheet change in the
 * bench without a build. A constructed stylesheet: the panel's CSP drops an inline <style>. True
 * when the panel's body has the custom property `--bench-css` after it (give the body one in
 * `css` to check that it applies).
 */
export function addStyles(css: string): boolean {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return getComputedStyle(document.body).getPropertyValue("--bench-css") !== "";
}

/** Installed in the webview: records [time the frame was drawn, units the drawn state holds] for one session. */
function installProbe(sessionId: string): boolean {
  type W = Window & { __agentThoughtsFrameProbe?: (s: ViewState) => void; __atLag?: Probe; __atLongTasks?: PerformanceObserver };
  const w = window as W;
  const probe: Probe = { samples: [], longTasks: [] };
  w.__atLag = probe;
  w.__atLongTasks?.disconnect();
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) probe.longTasks.push(e.duration);
  });
  obs.observe({ type: "longtask", buffered: false });
  w.__atLongTasks = obs;
  let version = -1;
  let last = -1;
  const channel = new MessageChannel();
  const pending: number[] = [];
  channel.port1.onmessage = () => {
    const t = performance.timeOrigin + performance.now();
    for (const units of pending.splice(0)) probe.samples.push([t, units]);
  };
  // Each patch as it reaches the webview (before the panel applies it): [time, the version it brings].
  const arrivals: [number, number][] = [];
  (w as Window & { __atArrivals?: [number, number][] }).__atArrivals = arrivals;
  const onMessage = (ev: MessageEvent<unknown>): void => {
    const m = ev.data as { type?: unknown; to?: unknown } | null;
    if (m && m.type === "patch" && typeof m.to === "number") arrivals.push([performance.timeOrigin + performance.now(), m.to]);
  };
  window.addEventListener("message", onMessage, true);
  (w as Window & { __atArrivalsOff?: () => void }).__atArrivalsOff = () => window.removeEventListener("message", onMessage, true);
  w.__agentThoughtsFrameProbe = (state: ViewState) => {
    if (state.version === version) return;
    version = state.version;
    const s = state.sessions[sessionId];
    const turn = s?.turns[s.turns.length - 1];
    if (!turn) return;
    let units = 0;
    for (const e of turn.entries) {
      if (e.type === "thought" || e.type === "message") units += e.text.length;
      else if (e.type === "tool") units += 1 + (e.status === "completed" ? 1 : 0);
    }
    if (units === last) return;
    last = units;
    if (pending.length === 0) channel.port2.postMessage(0);
    pending.push(units);
  };
  return true;
}

function readProbe(): { samples: [number, number][]; arrivals: [number, number][]; longTasks: number[]; text: string; dom: number } {
  type W = Window & { __atLag?: Probe; __agentThoughtsFrameProbe?: unknown; __atLongTasks?: PerformanceObserver; __atArrivals?: [number, number][]; __atArrivalsOff?: () => void };
  const w = window as W;
  w.__agentThoughtsFrameProbe = undefined;
  w.__atArrivalsOff?.();
  w.__atLongTasks?.disconnect();
  const entries = document.querySelectorAll("#transcript [data-entry-type='thought'], #transcript [data-entry-type='message']");
  const last = entries[entries.length - 1];
  return { samples: w.__atLag?.samples ?? [], arrivals: w.__atArrivals ?? [], longTasks: w.__atLag?.longTasks ?? [], text: (last?.textContent ?? "").slice(-400), dom: document.getElementsByTagName("*").length };
}

export interface LagFigures { shape: Shape; p50: number; p95: number; max: number; longest: number; longTasks: number }

async function lagOf(a: AgentThoughtsInternalApi, shape: Shape, count: number, rate: number): Promise<LagFigures> {
  const name = `Lag-${shape}`;
  const timesFile = benchFile(`${shape}-times.json`);
  await useScenario(name, { turns: [[{ message: "ready" }], [{ flood: { count, shape, paceMs: 1000 / rate, timesFile } }]] });
  const session = (await a.stream("warm up", { agent: name, newSession: true }).result).sessionId;
  await waitFor(() => document.body.textContent?.includes("ready") ?? false, undefined, { view: "sidebar", what: "the warm-up answer" });
  await evaluate(installProbe, session, "sidebar");
  const css = process.env.AGENT_THOUGHTS_BENCH_CSS;
  if (css) log(`    stylesheet added to the panel (AGENT_THOUGHTS_BENCH_CSS): the panel's body has --bench-css after it: ${await evaluate(addStyles, css, "sidebar") ? "yes" : "no"}`);
  const updates = shapeUpdates(shape, count);
  const need: number[] = [];
  let total = 0;
  for (const u of updates) need.push((total += unitsOf(u)));
  const capture = await rendererCapture(`lag-${shape}`);
  const hostProfile = await profileHost(`lag-${shape}-host`);
  // When the extension host has each update (its event), to tell the agent → host part of the lag from host → drawn.
  const hostSamples: [number, number][] = [];
  const posts = watchPatches(a, session);
  // Where a patch the host holds back goes: its event loop blocked (and why), or waiting for the webview to have the last one.
  const blocks = longBlocks(25);
  const gcs = gcPauses();
  const held = a._test.controller.stats.heldPatches;
  const turn = a.stream("stream", { sessionId: session });
  let hostUnits = 0;
  for await (const e of turn) {
    if (e.kind === "thought" || e.kind === "message") hostUnits += e.text.length;
    else if (e.kind === "tool_start") hostUnits += 1;
    else if (e.kind === "tool_update" && e.status === "completed") hostUnits += 1;
    else continue;
    hostSamples.push([performance.timeOrigin + performance.now(), hostUnits]);
  }
  await turn.result;
  await waitFor(lastUnitsAtLeast, total, { view: "sidebar", timeoutMs: 120_000, what: `all of ${shape} drawn` });
  posts.stop();
  const longest = blocks.stop();
  const gcEntries = gcs.entries();
  const gc = gcs.stop();
  const heldPatches = a._test.controller.stats.heldPatches - held;
  await capture();
  const hostFile = await hostProfile.stop();
  const got = await evaluate(readProbe, undefined, "sidebar");
  const times = (JSON.parse(fs.readFileSync(timesFile, "utf8")) as number[]).map(toOwnClock);
  const lags = lagsTo(got.samples, times, updates, need);
  const toHost = lagsTo(hostSamples, times, updates, need);
  const toPosted = lagsTo(posts.samples, times, updates, need);
  const toWebview = lagsTo(got.arrivals.map(([t, version]): [number, number] => [t, posts.unitsAt(version)]), times, updates, need);
  const lastText = [...updates].reverse().map((u) => (u.content as { text?: string } | undefined)?.text).find((t) => t && t.trim().length >= 4)?.trim() ?? "";
  const shown = got.text.includes(lastText.slice(-4));
  const figures: LagFigures = { shape, p50: percentile(lags, 50), p95: percentile(lags, 95), max: lags[lags.length - 1] ?? NaN, longest: Math.max(0, ...got.longTasks), longTasks: got.longTasks.length };
  const legs = patchLegs(got.arrivals, got.samples, posts);
  // No leg can take less than nothing: one that does says two processes' clocks disagree (test/support/clock.ts), and no figure here holds.
  const earliest = Math.min(toHost[0] ?? 0, legs.relay[0] ?? 0);
  const valid = earliest > -1;
  const ok = (v: number, t: number): string => (!valid ? "NOT VALID: clocks disagree" : v <= t ? "met" : "MISSED");
  log(`  ${shape}: ${count.toLocaleString("en")} updates at ${rate.toLocaleString("en")}/s, ${total.toLocaleString("en")} units; ${lags.length} timed`);
  if (!valid) log(`    CLOCKS DISAGREE: a leg took ${fmt(earliest)} (agent → host, or host → webview); these figures are not valid`);
  log(`    agent write → drawn: p50 ${fmt(figures.p50)}, p95 ${fmt(figures.p95)} (target ≤ ${P95_TARGET} ms: ${ok(figures.p95, P95_TARGET)}), max ${fmt(figures.max)} (target ≤ ${MAX_TARGET} ms: ${ok(figures.max, MAX_TARGET)})`);
  const stage = (xs: number[]): string => `p50 ${fmt(percentile(xs, 50))}, p95 ${fmt(percentile(xs, 95))}, max ${fmt(xs[xs.length - 1] ?? NaN)}`;
  log(`    of which agent write → extension host has it: ${stage(toHost)}`);
  log(`             agent write → extension host posted the patch with it: ${stage(toPosted)} (${posts.samples.length} patches)`);
  log(`             agent write → the patch in the webview, not yet drawn: ${stage(toWebview)}`);
  log(`    each patch: posted → in the webview (the relay: the extension host → code-server → the workbench → the webview) ${stage(legs.relay)}; in the webview → drawn (waiting for the next frame, and drawing it) ${stage(legs.drawn)}`);
  log(`      posted → drawn, both legs (the lag an update would have with no wait in the extension host at all): ${stage(legs.both)}`);
  log(`    the extension host meanwhile: ${heldPatches} of ${posts.samples.length} patches waited for the webview to have the one before; its event loop's gaps over 25 ms (ms; of it on a CPU / waiting for one / in garbage collection): ${longest.length ? gapsText(longest, gcEntries) : "none"}; garbage collection: ${gc}`);
  if (hostFile) log(`    extension host CPU profile: ${hostFile}`);
  log(`    renderer long tasks (> 50 ms): ${figures.longTasks}${figures.longTasks ? `, longest ${fmt(figures.longest)}` : ""}; DOM elements ${got.dom.toLocaleString("en")}; last text on screen: ${shown ? "yes" : "NO"}`);
  return figures;
}

/**
 * The patches the extension host posts while the session streams: [time, units of the session's
 * last turn in the state posted] (counted as the webview's probe counts them), and the units each
 * version holds. Wraps the panel controller's post for the bench; `stop` puts it back.
 */
function watchPatches(a: AgentThoughtsInternalApi, sessionId: string): { samples: [number, number][]; unitsAt(version: number): number; postedAt(version: number): number | undefined; stop(): void } {
  type Post = (v: unknown, msg: { type: string; to?: number }) => void;
  const controller = a._test.controller as unknown as { post: Post; viewState: ViewState };
  const original = controller.post;
  const samples: [number, number][] = [];
  const versions: [number, number][] = [];
  const posted = new Map<number, number>();
  controller.post = function (this: unknown, v, msg) {
    if (msg.type === "patch" && msg.to !== undefined) {
      const s = controller.viewState.sessions[sessionId];
      const turn = s?.turns[s.turns.length - 1];
      let units = 0;
      for (const e of turn?.entries ?? []) {
        if (e.type === "thought" || e.type === "message") units += e.text.length;
        else if (e.type === "tool") units += 1 + (e.status === "completed" ? 1 : 0);
      }
      const t = performance.timeOrigin + performance.now();
      samples.push([t, units]);
      versions.push([msg.to, units]);
      posted.set(msg.to, t);
    }
    original.call(this, v, msg);
  };
  return {
    samples,
    unitsAt(version) {
      let units = 0;
      for (const [v, u] of versions) if (v <= version) units = u;
      return units;
    },
    postedAt(version) {
      return posted.get(version);
    },
    stop() {
      controller.post = original;
    },
  };
}

/**
 * Each patch's two legs (sorted): posted → in the webview, and, for a patch that brings the
 * session more units, in the webview → the first frame drawn with them.
 */
function patchLegs(arrivals: readonly [number, number][], drawn: readonly [number, number][], posts: { unitsAt(version: number): number; postedAt(version: number): number | undefined }): { relay: number[]; drawn: number[]; both: number[] } {
  const relay: number[] = [];
  const toDrawn: number[] = [];
  const both: number[] = [];
  let before = -1;
  let j = 0;
  for (const [t, version] of arrivals) {
    const at = posts.postedAt(version);
    if (at !== undefined) relay.push(t - at);
    const units = posts.unitsAt(version);
    if (units <= before) continue;
    before = units;
    while (j < drawn.length && drawn[j]![1] < units) j++;
    if (j < drawn.length) {
      toDrawn.push(drawn[j]![0] - t);
      if (at !== undefined) both.push(drawn[j]![0] - at);
    }
  }
  const up = (xs: number[]): number[] => xs.sort((x, y) => x - y);
  return { relay: up(relay), drawn: up(toDrawn), both: up(both) };
}

/** For each update that adds units, the time from its write to the first sample holding it (sorted). */
function lagsTo(samples: readonly [number, number][], times: readonly number[], updates: readonly Record<string, unknown>[], need: readonly number[]): number[] {
  const lags: number[] = [];
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    if (unitsOf(updates[i]!) === 0) continue;
    while (j < samples.length && samples[j]![1] < need[i]!) j++;
    if (j < samples.length) lags.push(samples[j]![0] - times[i]!);
  }
  return lags.sort((x, y) => x - y);
}

function lastUnitsAtLeast(n: number): boolean {
  const s = (window as Window & { __atLag?: { samples: [number, number][] } }).__atLag?.samples;
  return !!s && s.length > 0 && s[s.length - 1]![1] >= n;
}

export async function lagByShape(a: AgentThoughtsInternalApi): Promise<LagFigures[]> {
  const shapes = (process.env.AGENT_THOUGHTS_BENCH_SHAPES?.split(",") ?? [...SHAPES]).filter(isShape);
  const count = Number(process.env.AGENT_THOUGHTS_BENCH_CHUNKS) || 5_000;
  const rate = Number(process.env.AGENT_THOUGHTS_BENCH_RATE) || 1_000;
  log(`Lag by text shape (load average ${os.loadavg()[0]!.toFixed(1)})`);
  if (shapes.includes("cjk")) {
    const missing = missingFonts();
    if (missing.length) log(`  warning: no installed font has ${missing.join(" or ")} (fontconfig): the browser looks for one on every layout of such text, and the cjk shape measures that (p50 over 1 s a frame here) instead of the panel; on Debian: apt-get install fonts-noto-cjk fonts-noto-color-emoji`);
  }
  await lagFloor(a, P95_TARGET);
  const out: LagFigures[] = [];
  for (const shape of shapes) out.push(await lagOf(a, shape, count, rate));
  return out;
}

/**
 * The scripts of the cjk shape that no installed font draws, as fontconfig (which the browser asks
 * on Linux) says; empty when it says nothing (no fc-list: another OS, or a machine that does not use it).
 */
function missingFonts(): string[] {
  const has = (pattern: string): boolean | undefined => {
    try {
      return execFileSync("fc-list", [pattern, "family"], { encoding: "utf8", timeout: 10_000 }).trim().length > 0;
    } catch {
      return undefined;
    }
  };
  const wanted: [string, string][] = [["Chinese", ":lang=zh"], ["Japanese", ":lang=ja"], ["Korean", ":lang=ko"], ["emoji", ":charset=1f680"]];
  return wanted.filter(([, pattern]) => has(pattern) === false).map(([name]) => name);
}
