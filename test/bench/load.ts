// `npm run bench` load scenarios (issue 6):
// - `concurrent`: ten scripted agents, each its own process, stream a turn at the same time; every
//   chunk must arrive complete and in order in the turn results, the host's view state and the
//   on-disk transcripts, while the panel is timed for responsiveness.
// - `replay`: one session sized like an hour of a busy agent, streamed through the real path
//   (scripted agent over stdio → extension host → panel), sampling memory every 10,000 events.
// Figures only; the asserts are about correctness (text, order, completeness), never speed.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createHistogram, monitorEventLoopDelay } from "node:perf_hooks";
import * as vscode from "vscode";
import type { ThoughtEvent, ThoughtEventBody } from "../../src/shared/events";
import { SessionLog } from "../../src/core/sessionLog";
import { EMPTY_STATE, reduce, type SessionView, type TurnView } from "../../src/shared/viewModel";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import { coalesce } from "../../src/core/panelPatches";
import type * as TranscriptLines from "../../src/core/transcriptLines";
import type { Step } from "../fixtures/agents/scenario";
import { harnessRequest, log } from "../integration/index";
import { evaluate, fill, typeKeys, waitFor } from "../integration/webview";
import { phase } from "./hostile";
import { addStyles } from "./lag";
import { recorded } from "../support/recorded";
import { toOwnClock } from "../support/clock";
import { until } from "../support/until";
import * as assert from "node:assert/strict";
import {
  collectGarbage, cpuShares, findTranscriptDir, fmt, gapsText, gcPauses, hostHeap, longBlocks, mb, num, percentile, profileHost, readTranscript, scriptedAgent, setAgents, slope, spread,
  transcriptName, webviewHeap, workbenchHeap,
} from "./util";

/** The text a flood step with this `text` template sends, all chunks concatenated. */
function floodText(template: string, count: number): string {
  let s = "";
  for (let i = 0; i < count; i++) s += template.split("{i}").join(String(i));
  return s;
}

function entriesText(turn: TurnView | undefined, type: "thought" | "message"): string {
  let s = "";
  for (const e of turn?.entries ?? []) if (e.type === type) s += e.text;
  return s;
}

/**
 * One session's transcript checked against what the host saw: in order, up to its last event
 * (a run of text chunks is one line; the text is checked per turn by the callers).
 * `lineEachBytes`: what it would take with a line per chunk, each chunk's text twice (as transcripts were written before).
 */
interface TranscriptCheck { file: string; lines: number; bytes: number; lineEachBytes: number; complete: boolean; events: ThoughtEvent[] }

async function checkTranscript(a: AgentThoughtsInternalApi, view: SessionView): Promise<TranscriptCheck> {
  const file = a._test.transcripts.fileOf(view.sessionId) ?? path.join(findTranscriptDir(view.sessionId) ?? "", transcriptName(view.sessionId));
  const lines = await readTranscript(file, view.lastSeq);
  const events = lines.map(readLine);
  const complete = events.at(-1)?.seq === view.lastSeq && events.every((e, i) => (i === 0 || e.seq > events[i - 1]!.seq) && e.sessionId === view.sessionId);
  // A joined run of n chunks was n lines of about its share of the text each, with the text twice.
  const lineEachBytes = events.reduce((n, e, i) => {
    const chunks = i === 0 ? 1 : e.seq - events[i - 1]!.seq;
    const json = Buffer.byteLength(JSON.stringify(e)) + 1;
    const text = "text" in e && typeof e.text === "string" ? Buffer.byteLength(JSON.stringify(e.text)) - 2 : 0;
    return n + (chunks === 1 ? json : chunks * (json - 2 * text) + 2 * text);
  }, 0);
  return { file, lines: lines.length, bytes: fs.statSync(file).size, lineEachBytes, complete, events };
}

/**
 * The extension's transcript reader, loaded by the scenarios that read transcripts back: imported
 * at the top, its zod schemas would be built in the extension host as the bench loads, and be in
 * the memory figures of every scenario (the extension's own copy is what they are to measure).
 */
let transcriptLines: typeof TranscriptLines | undefined;
async function loadTranscriptReader(): Promise<void> {
  transcriptLines ??= await import("../../src/core/transcriptLines");
}

/** A transcript line as the extension reads it back (a text chunk's content block put back). */
function readLine(line: string): ThoughtEvent {
  if (!transcriptLines) throw new Error("loadTranscriptReader() first");
  const r = transcriptLines.eventFromLine(line);
  if ("problem" in r) throw new Error(`a transcript line does not read back: ${r.problem}`);
  return r.event;
}

function turnText(events: readonly ThoughtEvent[], turnId: number, kind: "thought" | "message"): string {
  let s = "";
  for (const e of events) if (e.turnId === turnId && e.kind === kind) s += e.text;
  return s;
}

// ——— responsiveness probes, run inside the webview ———

interface PickArg { sessions: { id: string; prompt: string }[]; picks: number; gapMs: number }
/**
 * One pick: when (epoch ms), which session; `answer`: until the host's answer (a `host` message
 * naming it) arrived; `shown`: until the frame that shows it (the transcript's last turn is its
 * prompt) was painted.
 */
interface Pick { at: number; id: string; answer?: number; shown?: number }
interface ProbeResult { gaps: [number, number][]; picks: Pick[]; done: boolean }
type Probe = ProbeResult & { stop: boolean; picking: boolean };

/**
 * Inside the webview: records the gap before each animation frame ([epoch ms, gap]) from now on;
 * `startPicks` then makes `picks` picks one at a time, `gapMs` apart, in the panel's session
 * switcher (the `change` a user's pick fires), each of a session other than the one shown.
 */
function installProbe(): boolean {
  const w = window as Window & { __atProbe?: Probe };
  if (w.__atProbe) w.__atProbe.stop = true;
  const p: Probe = { stop: false, picking: false, gaps: [], picks: [], done: false };
  w.__atProbe = p;
  const epoch = (t: number): number => performance.timeOrigin + t;
  let last = 0;
  const frame = (now: number): void => {
    if (last) p.gaps.push([epoch(now), now - last]);
    last = now;
    if (!p.stop) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  return true;
}

function startPicks(arg: PickArg): boolean {
  const p = (window as Window & { __atProbe?: Probe }).__atProbe;
  if (!p || p.picking) return false;
  p.picking = true;
  const promptShown = (): string => [...document.querySelectorAll("#transcript .turn-prompt .prompt-text")].at(-1)?.textContent ?? "";
  /**
   * Called from an animation frame's callbacks: resolves once that frame is painted (a message
   * posted then runs after the frame's style, layout and paint), as the lag probe times frames.
   */
  const painted = (): Promise<number> => new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve(performance.now());
    ch.port2.postMessage(0);
  });
  let k = 0;
  const one = async (): Promise<void> => {
    let target = arg.sessions[k++ % arg.sessions.length]!;
    if (promptShown() === target.prompt) target = arg.sessions[k++ % arg.sessions.length]!;
    const select = document.querySelector<HTMLSelectElement>("select.session-select");
    if (!select || ![...select.options].some((o) => o.value === target.id)) throw new Error(`the session switcher does not offer ${target.prompt}`);
    const t0 = performance.now();
    const pick: Pick = { at: epoch(t0), id: target.id };
    const onHost = (ev: MessageEvent<unknown>): void => {
      const m = ev.data as { type?: unknown; host?: { activeSessionId?: unknown } } | null;
      if (pick.answer === undefined && m?.type === "host" && m.host?.activeSessionId === target.id) pick.answer = performance.now() - t0;
    };
    window.addEventListener("message", onHost);
    select.value = target.id;
    select.dispatchEvent(new Event("change"));
    // Checked once per frame, after the panel's own frame callback (asked for first, by the pick)
    // has drawn it and before the frame is painted; then the time that frame was painted.
    const limit = t0 + 30_000;
    let drawn: Promise<number> | undefined;
    for (;;) {
      const now = await new Promise<number>((r) => requestAnimationFrame(r));
      // Still in that frame (a promise's continuation runs right after the callback).
      if (promptShown() === target.prompt) {
        drawn = painted();
        break;
      }
      if (now > limit || p.stop) break;
    }
    if (drawn) pick.shown = (await drawn) - t0;
    window.removeEventListener("message", onHost);
    p.picks.push(pick);
  };
  const epoch = (t: number): number => performance.timeOrigin + t;
  void (async () => {
    try {
      for (let i = 0; i < arg.picks && !p.stop; i++) {
        await one();
        await new Promise((r) => setTimeout(r, arg.gapMs));
      }
    } finally {
      p.done = true;
      p.picking = false;
    }
  })();
  return true;
}

function picksDone(): boolean {
  return (window as Window & { __atProbe?: Probe }).__atProbe?.done === true;
}

function stopProbe(): ProbeResult {
  const p = (window as Window & { __atProbe?: Probe }).__atProbe;
  if (!p) return { gaps: [], picks: [], done: false };
  p.stop = true;
  return { gaps: p.gaps, picks: p.picks, done: p.done };
}

/** Picks one session in the switcher, as a user does; resolves once the panel shows it (its last prompt). */
async function showSession(id: string, prompt: string): Promise<void> {
  await evaluate((s: string) => {
    const select = document.querySelector<HTMLSelectElement>("select.session-select");
    if (!select) throw new Error("no session switcher");
    select.value = s;
    select.dispatchEvent(new Event("change"));
  }, id, "sidebar");
  await waitFor((p: string) => [...document.querySelectorAll("#transcript .turn-prompt .prompt-text")].at(-1)?.textContent === p, prompt, { view: "sidebar", what: `the panel showing "${prompt}"` });
}

/** Clicks a button in the webview (once enabled) and returns when (epoch ms). */
async function clickAt(selector: string): Promise<number> {
  await waitFor((sel: string) => { const b = document.querySelector<HTMLButtonElement>(sel); return !!b && !b.disabled && !b.hidden; }, selector, { view: "sidebar", what: selector });
  return evaluate((sel: string) => {
    // Read before the click: its handler posts the message, so a time read after it came later than
    // the post (a Stop once reached the agent "-1.8 ms" after the click, and the host "before" it).
    const at = performance.timeOrigin + performance.now();
    document.querySelector<HTMLButtonElement>(sel)!.click();
    return at;
  }, selector, "sidebar");
}

/** p95 of `values` against a target: "p95 42.0 ms (target ≤ 100 ms: met)". */
function against(values: readonly number[], target: number, p = 95): string {
  if (values.length === 0) return `none (target ≤ ${fmt(target)}: not measured)`;
  const sorted = [...values].sort((x, y) => x - y);
  const v = percentile(sorted, p);
  return `p${p} ${fmt(v)} (target ≤ ${fmt(target)}: ${v <= target ? "met" : "MISSED"})`;
}

/** A single figure against a target. */
function vs(value: number | undefined, target: number, legs: readonly (number | undefined)[] = []): string {
  if (value === undefined) return `none (target ≤ ${fmt(target)}: not measured)`;
  // A leg under nothing (the click → the host, the click → the agent) says the processes' clocks disagree (test/support/clock.ts).
  if ([value, ...legs].some((x) => x !== undefined && x < -1)) return `${fmt(value)} (target ≤ ${fmt(target)}: NOT VALID, clocks disagree)`;
  return `${fmt(value)} (target ≤ ${fmt(target)}: ${value <= target ? "met" : "MISSED"})`;
}

// ——— 1. ten sessions streaming at once ———

const LOAD_AGENTS = 10;
/**
 * Per agent: 100 × (800 thought chunks + a read tool call), then 2,000 message chunks — ~82,000
 * events, long enough that all ten still stream while everything is measured (with 40 blocks the
 * host now reads them so fast that only four still streamed during the picks).
 */
const LOAD_BLOCKS = 100;
const LOAD_THOUGHTS = 800;
const LOAD_MESSAGES = 2_000;
/** Picks timed while the ten stream (issue 16: p95 over 20 picks). */
const PICKS = 20;
const PICK_GAP_MS = 100;
/** The agent that asks for permission mid-stream (after this many blocks), and the one the user stops. */
const ASKS = 0;
const ASK_AFTER = 2;
const STOPPED = 1;
/** What the user types into the prompt box while the ten stream, key by key, this far apart. */
const TYPED = "Refactor the parser so errors carry their line numbers, then add tests";
const KEY_MS = 15;
/**
 * Each chunk's text is distinct (so order can be checked) and longer than 10 characters, as real
 * agents' chunks are or else come from a vocabulary: V8's JSON.parse interns every string value of
 * 10 characters or fewer, so 740,000 distinct ones ("a3b41:131 ") filled its string table, and
 * each doubling of the table rehashed it in the host's event loop (47-52 ms on a CPU, no GC).
 */
const thoughtTemplate = (agent: number, block: number): string => `agent ${agent}, block ${block}: {i} `;
const messageTemplate = (agent: number): string => `message of agent ${agent}: {i} `;

function loadSteps(agent: number, answeredFile: string): Step[] {
  const steps: Step[] = [];
  // The one the user stops streams longer (and then waits for the Stop), so it is still going when it comes.
  for (let b = 0; b < (agent === STOPPED ? 2 * LOAD_BLOCKS : LOAD_BLOCKS); b++) {
    if (agent === ASKS && b === ASK_AFTER) {
      steps.push({ permission: { toolCall: { toolCallId: "load-ask", title: "Run npm test", kind: "execute", status: "pending" }, options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }], answeredFile } });
    }
    steps.push({ flood: { count: LOAD_THOUGHTS, text: thoughtTemplate(agent, b) } });
    const id = `load${agent}-read${b}`;
    steps.push({ sessionUpdate: { sessionUpdate: "tool_call", toolCallId: id, title: `Read src/part${b}.ts`, kind: "read", status: "in_progress", locations: [{ path: `/w/src/part${b}.ts` }] } });
    steps.push({ sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", content: [{ type: "content", content: { type: "text", text: `part ${b} as agent ${agent} read it` } }] } });
  }
  steps.push({ flood: { count: LOAD_MESSAGES, kind: "message", text: messageTemplate(agent) } });
  if (agent === STOPPED) steps.push({ waitForCancel: true, timeoutMs: 120_000 });
  return steps;
}

export async function concurrentSessions(a: AgentThoughtsInternalApi): Promise<void> {
  await loadTranscriptReader();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "at-bench-concurrent-"));
  const names = Array.from({ length: LOAD_AGENTS }, (_, k) => `Load ${k + 1}`);
  const answeredFile = path.join(tmp, "answered");
  const records = names.map((_, k) => path.join(tmp, `received-${k}.jsonl`));
  await setAgents(names.map((name, k) => scriptedAgent(name, { agentName: name, recordFile: records[k]!, turns: [[{ message: "ready" }], loadSteps(k, answeredFile)] }, path.join(tmp, `agent-${k}.json`))));
  // Ten processes and sessions first, so what is measured is ten streams at once, not ten spawns.
  // Each turn as the panel's prompt box sends it (an API stream would keep every event of its turn for its cursors: 820,000 here).
  const warm = await Promise.all(names.map((agent) => a._test.manager.run("warm up", { agent, newSession: true })));
  const sessions = warm.map((r) => r.sessionId);
  const index = new Map(sessions.map((s, k) => [s, k]));
  const seen = sessions.map(() => ({ events: 0, lastSeq: 0, gaps: 0, first: Infinity, last: -Infinity }));
  const sub = a.onEvent((e) => {
    const k = index.get(e.sessionId);
    if (k === undefined) return;
    const s = seen[k]!;
    if (s.lastSeq && e.seq !== s.lastSeq + 1) s.gaps++;
    s.lastSeq = e.seq;
    if (e.turnId === undefined || e.turnId < 2) return;
    s.events++;
    s.first = Math.min(s.first, e.at);
    s.last = Math.max(s.last, e.at);
  });
  /** How many of the ten are streaming now (an event in the last 250 ms). */
  const streamingNow = (): number => seen.filter((s) => s.events > 0 && Date.now() - s.last < 250).length;
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  await evaluate(installProbe, undefined, "sidebar");
  const css = process.env.AGENT_THOUGHTS_BENCH_CSS;
  if (css) log(`    stylesheet added to the panel (AGENT_THOUGHTS_BENCH_CSS): the panel's body has --bench-css after it: ${await evaluate(addStyles, css, "sidebar") ? "yes" : "no"}`);
  const profile = await profileHost("concurrent");
  // A 1 ms timer: each gap it reports is a block plus at most 1 ms (a 10 ms one added up to 10 ms to each).
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const gcs = gcPauses();
  const blocks = longBlocks(25);
  const cpu0 = process.cpuUsage();
  const shares = cpuShares();
  const { posts: posts0, patches: patches0 } = a._test.controller.stats;
  if (process.env.AGENT_THOUGHTS_BENCH_TRACE) await harnessRequest({ op: "traceStart" });
  else if (process.env.AGENT_THOUGHTS_BENCH_PROFILE) await harnessRequest({ op: "profileStart" });
  const t0 = performance.timeOrigin + performance.now();
  const running = Promise.all(sessions.map((sessionId, k) => a._test.manager.run(`stream ${k}`, { sessionId })));
  const during: Record<string, number> = {};
  // Measured in the steady state: every one of the ten past its start (1,500 events in).
  await until(() => streamingNow() >= LOAD_AGENTS - 1 && seen.every((s) => s.events >= 1_500), "the ten streams to be under way", 30_000);

  // (1) Stop one agent's turn.
  during.stop = streamingNow();
  await showSession(sessions[STOPPED]!, `stream ${STOPPED}`);
  const stoppedAt = await clickAt("#stop");
  await until(() => recorded<{ method: string; at: number }>(records[STOPPED]!).some((m) => m.method === "session/cancel"), "the agent to get session/cancel", 30_000);
  const stopMs = toOwnClock(recorded<{ method: string; at: number }>(records[STOPPED]!).find((m) => m.method === "session/cancel")!.at) - stoppedAt;

  // (2) The permission question of one agent, answered in the panel.
  during.permission = streamingNow();
  await showSession(sessions[ASKS]!, `stream ${ASKS}`);
  const allowedAt = await clickAt('#question[data-ready] [data-answer="allow"]');
  const answered = (): number => (fs.existsSync(answeredFile) ? Number(fs.readFileSync(answeredFile, "utf8")) || 0 : 0);
  const permissionMs = toOwnClock(await until(answered, "the agent to get the permission answer", 30_000)) - allowedAt;

  // (3) Typing into the prompt box, key by key.
  during.typing = streamingNow();
  await fill("#prompt", "", "sidebar");
  const typed0 = performance.now();
  await typeKeys("#prompt", TYPED, KEY_MS, "sidebar");
  const typedMs = performance.now() - typed0;
  const inBox = await evaluate(() => document.querySelector<HTMLTextAreaElement>("#prompt")?.value ?? "", undefined, "sidebar");
  await fill("#prompt", "", "sidebar");

  // (4) Twenty picks, one at a time.
  during.picks = streamingNow();
  assert.ok(await evaluate(startPicks, { sessions: sessions.map((id, k) => ({ id, prompt: `stream ${k}` })), picks: PICKS, gapMs: PICK_GAP_MS }, "sidebar"), "the picks started");
  await waitFor(picksDone, undefined, { view: "sidebar", timeoutMs: 120_000, what: "the picks to end" });

  if (process.env.AGENT_THOUGHTS_BENCH_TRACE) await harnessRequest({ op: "traceStop", path: path.resolve(process.env.AGENT_THOUGHTS_BENCH_TRACE, "concurrent-renderer.json") }, 120_000);
  else if (process.env.AGENT_THOUGHTS_BENCH_PROFILE) await harnessRequest({ op: "profileStop", path: path.resolve(process.env.AGENT_THOUGHTS_BENCH_PROFILE, "concurrent-renderer.cpuprofile") }, 120_000);
  const results = await running;
  const t1 = performance.timeOrigin + performance.now();
  // Each message to a webview goes through the workbench's connection, compressed on the host's thread pool.
  const posts = a._test.controller.stats.posts - posts0;
  const patchesPosted = a._test.controller.stats.patches - patches0;
  const cpu = process.cpuUsage(cpu0);
  const total = t1 - t0;
  loop.disable();
  const longest = blocks.stop();
  // Read after the host's loop is no longer watched (reading /proc takes the host some milliseconds).
  const sharesText = shares.stop();
  const gcEntries = gcs.entries();
  const gc = gcs.stop();
  const profiled = await profile.stop();
  const probe = await evaluate(stopProbe, undefined, "sidebar");
  // What the panel draws of the session picked last (its last turn's window: folded thoughts, tool cards).
  const domAfterPicks = await evaluate(() => document.getElementsByTagName("*").length, undefined, "sidebar");
  const picks = probe.picks;
  const received = a._test.controller.stats.received;
  /** When the host got a message of this type (for this session) after `at` (epoch ms), as ms after `at`. */
  const hostGot = (type: string, at: number, sessionId?: string): number | undefined => {
    const hit = received.find(([t, ty, id]) => ty === type && t >= at && (sessionId === undefined || id === sessionId));
    return hit ? hit[0] - at : undefined;
  };
  const reached = picks.flatMap((pk) => { const r = hostGot("selectSession", pk.at, pk.id); return r === undefined ? [] : [r]; });
  const stopHost = hostGot("cancelTurn", stoppedAt);
  const allowHost = hostGot("resolvePermission", allowedAt);
  const gaps = probe.gaps.filter(([at]) => at >= t0 && at <= t1).map(([, g]) => g);
  sub.dispose();

  // Correctness: the API's turn results, the panel host's view state, the transcripts on disk.
  const expectThoughts = (k: number): string => Array.from({ length: k === STOPPED ? 2 * LOAD_BLOCKS : LOAD_BLOCKS }, (_, b) => floodText(thoughtTemplate(k, b), LOAD_THOUGHTS)).join("");
  const expectMessage = (k: number): string => floodText(messageTemplate(k), LOAD_MESSAGES);
  const bad: string[] = [];
  const state = a._test.controller.viewState;
  const dir = transcriptDirOf(a, sessions[0]!);
  let transcriptEvents = 0;
  for (let k = 0; k < LOAD_AGENTS; k++) {
    const r = results[k]!;
    // The stopped one: what it sent before the Stop, a prefix of the whole, and the turn cancelled.
    const stopped = k === STOPPED;
    const thoughts = stopped ? r.thoughts : expectThoughts(k);
    const message = stopped ? r.text : expectMessage(k);
    if (stopped) {
      if (r.stopReason !== "cancelled") bad.push(`${names[k]}: stopped turn ended ${r.stopReason}`);
      if (!expectThoughts(k).startsWith(r.thoughts) || !expectMessage(k).startsWith(r.text)) bad.push(`${names[k]}: stopped turn's text is not a prefix of what it sends`);
    } else {
      if (r.thoughts !== thoughts || r.text !== message) bad.push(`${names[k]}: turn result text differs`);
      const tools = r.toolCalls.filter((t) => t.outcome === "completed").length;
      if (tools !== LOAD_BLOCKS) bad.push(`${names[k]}: turn result tool calls ${JSON.stringify(r.toolCalls.map((t) => t.outcome))}`);
    }
    if (seen[k]!.gaps) bad.push(`${names[k]}: ${seen[k]!.gaps} sequence gaps seen by api.onEvent`);
    const view = state.sessions[sessions[k]!];
    const turn = view?.turns[view.turns.length - 1];
    if (!view || !turn) {
      bad.push(`${names[k]}: not in the view state`);
      continue;
    }
    if (entriesText(turn, "thought") !== thoughts || entriesText(turn, "message") !== message) bad.push(`${names[k]}: view state text differs`);
    if (view.lastSeq !== seen[k]!.lastSeq) bad.push(`${names[k]}: view state folded up to event ${view.lastSeq} of ${seen[k]!.lastSeq}`);
    if (!dir) continue;
    const t = await checkTranscript(a, view);
    transcriptEvents += t.lines;
    if (!t.complete) bad.push(`${names[k]}: transcript of ${t.lines} lines does not end at event ${view.lastSeq} (or is out of order)`);
    if (turnText(t.events, turn.turnId, "thought") !== thoughts || turnText(t.events, turn.turnId, "message") !== message) bad.push(`${names[k]}: transcript text differs`);
  }
  if (!dir) bad.push("transcript folder not found");
  if (picks.length !== PICKS) bad.push(`${picks.length} of ${PICKS} picks made`);
  const events = seen.reduce((s, x) => s + x.events, 0);
  const spanMs = Math.max(...seen.map((s) => s.last)) - Math.min(...seen.map((s) => s.first));
  const shown = picks.flatMap((pk) => (pk.shown === undefined ? [] : [pk.shown]));
  const answers = picks.flatMap((pk) => (pk.answer === undefined ? [] : [pk.answer]));
  const missing = picks.length - shown.length;
  const loopMax = loop.max / 1e6;
  log(`  ${LOAD_AGENTS} sessions streaming at once (${LOAD_AGENTS} scripted agents, one process each; per turn ${num(LOAD_BLOCKS * LOAD_THOUGHTS)} thought + ${num(LOAD_MESSAGES)} message chunks + ${LOAD_BLOCKS} tool calls, written as fast as the host reads them)`);
  log(`    ${num(events)} events in ${fmt(total)} from the ten prompts to the last turn result (${num(events / (total / 1000))} events/s) over ${fmt(spanMs)}`);
  log(`    complete and in order in the turn results, the host view state and ${dir ? `${num(transcriptEvents)} transcript lines` : "(no transcripts found)"}: ${bad.length === 0 ? "yes" : `NO — ${bad.slice(0, 5).join("; ")}`}`);
  log(`    picking another session in the panel (${picks.length} picks, ${during.picks} of ${LOAD_AGENTS} streaming): shown ${against(shown, 100)}, ${spread(shown)}${missing ? `; ${missing} never shown` : ""}; DOM elements in the panel after the last: ${num(domAfterPicks)}`);
  log(`      each pick until shown, in order (ms): ${shown.map((x) => Math.round(x)).join(", ")}`);
  log(`      the pick reaching the extension host ${spread(reached)}; the host's answer (a host message naming it) back in the webview before the panel showed it ${spread(answers)} (the panel shows a pick itself: it has every session's text)`);
  log(`    a permission answer (Allow clicked, ${during.permission} streaming) reaching the agent: ${vs(permissionMs, 100, [allowHost])}; the extension host had it after ${allowHost === undefined ? "?" : fmt(allowHost)}`);
  log(`    Stop (clicked, ${during.stop} streaming) reaching the agent as session/cancel: ${vs(stopMs, 100, [stopHost])}; the extension host had it after ${stopHost === undefined ? "?" : fmt(stopHost)}`);
  log(`    typing ${TYPED.length} keys into the prompt box (${KEY_MS} ms apart, ${during.typing} streaming, ${fmt(typedMs)}): ${inBox === TYPED ? "none dropped (target: met)" : `DROPPED OR CHANGED — the box holds ${JSON.stringify(inBox.slice(0, 100))}`}`);
  log(`    extension host event loop blocked at most ${vs(loopMax, 50)} (the longest gap between the ticks of a 1 ms timer; gaps p50 ${fmt(loop.percentile(50) / 1e6)}, p95 ${fmt(loop.percentile(95) / 1e6)}); CPU ${fmt((cpu.user + cpu.system) / 1000)} (${((cpu.user + cpu.system) / events).toFixed(0)} µs per event, ${Math.round((100 * (cpu.user + cpu.system)) / 1000 / total)}% of one core)`);
  log(`      of which garbage collection in the extension host: ${gc}`);
  if (longest.length > 0) {
    log(`      the longest gaps, ms, at seconds after the ten prompts (of it the host's main thread on a CPU / waiting for a CPU / garbage collection in it): ${gapsText(longest, gcEntries, (start) => `at ${((start - (t0 - performance.timeOrigin)) / 1000).toFixed(2)} s`)}`);
    log(`      the most the main thread was on a CPU in one of them: ${fmt(Math.max(...longest.map(([, , run]) => run)))} (the rest of a gap it waited for a CPU, which the browser, code-server and the ten agents share, or slept: on a lock, or while a collection's helpers ran)`);
  }
  if (sharesText) log(`      the machine's CPU from the ten prompts to the end of their turns: ${sharesText}`);
  log(`      messages the host posted to the panel meanwhile: ${num(posts)} (${(posts / (total / 1000)).toFixed(0)} a second; ${num(patchesPosted)} of them patches)`);
  log(`    panel frame gaps while streaming: ${spread(gaps)}; frames over 50 ms: ${gaps.filter((g) => g > 50).length}, over 100 ms: ${gaps.filter((g) => g > 100).length}`);
  // One of them picked once all ended: its 100 thoughts (19 KB each) all folded, none ever opened here.
  const finished = (STOPPED + 1) % LOAD_AGENTS;
  const pickedAt = performance.now();
  await showSession(sessions[finished]!, `stream ${finished}`);
  const pickMs = performance.now() - pickedAt;
  const finishedDom = await evaluate(() => document.getElementsByTagName("*").length, undefined, "sidebar");
  log(`    a finished session picked afterwards: shown in ${fmt(pickMs)} (polled); ${num(finishedDom)} DOM elements in the panel`);
  // Find in it: every folded thought's matches are counted from its text (none is drawn).
  await phase("typing a text each of its folded thoughts holds 800 times until counted", async () => {
    await fill("#search", "block", "sidebar");
    await waitFor(() => /^\d+ of \d/.test(document.querySelector(".match-count")?.textContent ?? ""), undefined, { view: "sidebar", what: "find counted", timeoutMs: 30_000 });
  }, 50, "concurrent-find");
  await fill("#search", "", "sidebar");
  if (dir) log(`    transcripts in ${dir}`);
  if (profiled) log(`    extension host CPU profile: ${profiled}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  if (bad.length) throw new Error(`concurrent sessions: ${bad.join("; ")}`);
}

/** The folder of a session's transcript, as the extension names it (else searched for under the test host's temp folders). */
function transcriptDirOf(a: AgentThoughtsInternalApi, sessionId: string): string | undefined {
  const file = a._test.transcripts.fileOf(sessionId);
  return file && fs.existsSync(file) ? path.dirname(file) : findTranscriptDir(sessionId);
}

// ——— 2. an hour of a busy session ———

/**
 * What a window reload costs for one session: TranscriptStore.read parses every line and the panel
 * folds them in one batch. Returns [parse ms, fold ms].
 */
function timeRestore(lines: readonly string[], sessionId: string, lastSeq: number, bad: string[]): [number, number] {
  const r0 = performance.now();
  const parsed = lines.map(readLine);
  const r1 = performance.now();
  const restored = reduce(EMPTY_STATE, parsed);
  const r2 = performance.now();
  if (restored.sessions[sessionId]?.lastSeq !== lastSeq) bad.push("the transcript folds into a different view state");
  return [r1 - r0, r2 - r1];
}

/** A SessionLog holding a transcript's events, built the way the host builds its own. */
function rebuildLog(lines: readonly string[], sessionId: string): SessionLog {
  let at = 0;
  const rebuilt = new SessionLog(sessionId, () => at);
  for (const line of lines) {
    const body = readLine(line) as unknown as Record<string, unknown> & { at?: number; text?: unknown; content?: { text?: unknown } };
    at = body.at ?? at;
    delete body.seq;
    delete body.at;
    delete body.sessionId;
    delete body.turnId;
    // The mapper hands one string to both `text` and `content.text`; JSON.parse makes two.
    if (typeof body.text === "string" && body.content?.text === body.text) body.text = body.content.text;
    rebuilt.append(body as unknown as ThoughtEventBody);
  }
  return rebuilt;
}

/*
 * Sizing "an hour of a busy agent": 48 prompts (one every 75 s); per turn ~1,200 thought and ~560
 * message chunks (Claude and Codex adapters send a chunk per stream delta of a few tokens: about
 * 75k chunks an hour is a model streaming 60–80 tokens/s a third of the time), 15 tool calls (720
 * an hour, one every 5 s: reads, searches, edits with diffs, commands), two of them commands whose
 * output streams as 300 `_meta` terminal_output_delta updates each (96 commands an hour), six plan
 * updates and a usage update. That is 2,415 events a turn, ~116,000 in the hour (~32 events/s).
 */
const REPLAY_TURNS = 48;
const GROUPS = 5;
const THOUGHTS_PER_GROUP = 240;
const INTERIM_MESSAGE = 40;
const FINAL_MESSAGE = 400;
const OUTPUT_LINES = 300;
const TOOL_PATTERN = ["read", "read", "search", "read", "edit", "execute", "read", "search", "read", "edit", "read", "execute", "read", "search", "edit"] as const;
const EDIT_FILES = 24;
const FILE_LINES = 80;
const SAMPLE_EVERY = 10_000;

const rThought = (t: number, g: number): string => `t${t}g${g} weighing option {i} of the change `;
const rInterim = (t: number, g: number): string => `t${t}g${g} note {i} `;
const rFinal = (t: number): string => `t${t} summary token {i} `;
const expectedReplayThoughts = (t: number): string => Array.from({ length: GROUPS }, (_, g) => floodText(rThought(t, g), THOUGHTS_PER_GROUP)).join("");
const expectedReplayMessage = (t: number): string => Array.from({ length: GROUPS - 1 }, (_, g) => floodText(rInterim(t, g), INTERIM_MESSAGE)).join("") + floodText(rFinal(t), FINAL_MESSAGE);

function plan(t: number, done: number): Step {
  const entries = Array.from({ length: GROUPS }, (_, j) => ({
    content: `Turn ${t}, step ${j + 1}: ${["read the code", "find the callers", "change the module", "run the tests", "summarise"][j]}`,
    priority: j < 2 ? "high" : "medium",
    status: j < done ? "completed" : j === done ? "in_progress" : "pending",
  }));
  return { sessionUpdate: { sessionUpdate: "plan", entries } };
}

/** Generates the replay's agent script; edits really change files in `root` (as agents that edit on their own do). */
function replayTurns(root: string): Step[][] {
  const files = Array.from({ length: EDIT_FILES }, (_, f) => Array.from({ length: FILE_LINES }, (_, l) => `export const value${l} = compute(${l}, ${f}); // module ${f}`));
  for (let f = 0; f < EDIT_FILES; f++) fs.writeFileSync(path.join(root, `module${f}.ts`), files[f]!.join("\n") + "\n");
  let edits = 0;
  let commands = 0;
  const turns: Step[][] = [];
  for (let t = 0; t < REPLAY_TURNS; t++) {
    const steps: Step[] = [plan(t, 0)];
    for (let g = 0; g < GROUPS; g++) {
      steps.push({ flood: { count: THOUGHTS_PER_GROUP, text: rThought(t, g) } });
      for (let j = 0; j < 3; j++) {
        const kind = TOOL_PATTERN[g * 3 + j]!;
        const id = `t${t}-tool${g * 3 + j}`;
        const f = (t * 7 + g * 3 + j) % EDIT_FILES;
        const file = path.join(root, `module${f}.ts`);
        if (kind === "read") {
          const excerpt = files[f]!.slice(0, 24).join("\n");
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call", toolCallId: id, title: `Read module${f}.ts`, kind, status: "in_progress", locations: [{ path: file }], rawInput: { file_path: file } } });
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", content: [{ type: "content", content: { type: "text", text: excerpt } }] } });
        } else if (kind === "search") {
          const hits = Array.from({ length: 8 }, (_, h) => `module${(f + h) % EDIT_FILES}.ts:${(h * 9) % FILE_LINES + 1}: compute(`).join("\n");
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call", toolCallId: id, title: `grep "compute(" in src`, kind, status: "in_progress", rawInput: { pattern: "compute(" } } });
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", content: [{ type: "content", content: { type: "text", text: hits } }] } });
        } else if (kind === "edit") {
          const lines = files[f]!;
          const l = (edits * 7) % FILE_LINES;
          const oldText = lines[l]!;
          const newText = `export const value${l} = compute(${l}, ${f}, ${edits}); // edited in turn ${t}`;
          lines[l] = newText;
          edits++;
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call", toolCallId: id, title: `Edit module${f}.ts`, kind, status: "pending", locations: [{ path: file, line: l + 1 }], rawInput: { file_path: file, old_string: oldText, new_string: newText } } });
          steps.push({ diskWrite: { path: file, content: lines.join("\n") + "\n" } });
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", content: [{ type: "diff", path: file, oldText, newText }] } });
        } else {
          const terminal = `term-${t}-${commands++}`;
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call", toolCallId: id, title: `npm test -- --grep suite${f}`, kind, status: "in_progress", rawInput: { command: `npm test -- --grep suite${f}` }, _meta: { terminal_info: { terminal_id: terminal } } } });
          for (let i = 0; i < OUTPUT_LINES; i++) {
            steps.push({ sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, _meta: { terminal_output_delta: { terminal_id: terminal, data: `  ok ${i + 1} suite${f} case ${i} (${(i * 37) % 90} ms)\n` } } } });
          }
          steps.push({ sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", _meta: { terminal_exit: { terminal_id: terminal, exit_code: 0 } } } });
        }
      }
      steps.push(plan(t, g + 1));
      if (g < GROUPS - 1) steps.push({ flood: { count: INTERIM_MESSAGE, kind: "message", text: rInterim(t, g) } });
    }
    steps.push({ flood: { count: FINAL_MESSAGE, kind: "message", text: rFinal(t) } });
    steps.push({ sessionUpdate: { sessionUpdate: "usage_update", used: 20_000 + t * 3_000, size: 400_000 } });
    turns.push(steps);
  }
  return turns;
}

interface Sample { events: number; host: number; webview: number; rss: number }

/** Streams the hour-long session; returns its session id (its transcript stays, for the start-up rows). */
export async function hourReplay(a: AgentThoughtsInternalApi): Promise<string> {
  await loadTranscriptReader();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "at-bench-replay-"));
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? tmp;
  const root = path.join(workspace, "replay-src");
  fs.mkdirSync(root, { recursive: true });
  const name = "Replay";
  // Written to a file and dropped here: only the agent holds the script.
  await setAgents([scriptedAgent(name, { agentName: name, turns: [[{ message: "ready" }], ...replayTurns(root)] }, path.join(tmp, "replay.json"))]);
  const gcWorks = collectGarbage();
  const activeBefore = new Set(vscode.extensions.all.filter((x) => x.isActive).map((x) => x.id));
  let sessionId = "";
  let events = 0;
  let unknown = 0;
  const sub = a.onEvent((e) => {
    if (e.sessionId !== sessionId) return;
    events++;
    if (e.kind === "unknown") unknown++;
  });
  sessionId = (await a.stream("warm up", { agent: name, newSession: true }).result).sessionId;
  events = a._test.controller.viewState.sessions[sessionId]?.eventCount ?? 0;
  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 400));
  const sample = async (): Promise<Sample> => {
    await settle();
    return { events, host: hostHeap(), webview: await webviewHeap(), rss: process.memoryUsage().rss };
  };
  const samples: Sample[] = [await sample()];
  let nextSample = SAMPLE_EVERY;
  const bad: string[] = [];
  // The gaps between the ticks of a 10 ms timer, in the turns only (as monitorEventLoopDelay
  // measures them: a monitor disabled for a sample and enabled again would count the whole sample,
  // a forced GC and the webview's heap, ~1 s, as one delay of the loop).
  const loop = createHistogram();
  let ticker: NodeJS.Timeout | undefined;
  const measure = (on: boolean): void => {
    clearInterval(ticker);
    ticker = undefined;
    if (!on) return;
    let last = performance.now();
    ticker = setInterval(() => {
      const now = performance.now();
      loop.record(Math.max(1, Math.round((now - last) * 1e6)));
      last = now;
    }, 10);
  };
  const profile = await profileHost("replay");
  measure(true);
  const t0 = Date.now();
  let streaming = 0;
  let cpuTurns = 0;
  for (let t = 0; t < REPLAY_TURNS; t++) {
    const s0 = Date.now();
    const c0 = process.cpuUsage();
    const r = await a.stream(`turn ${t}: keep going with the refactoring`, { sessionId }).result;
    const c = process.cpuUsage(c0);
    cpuTurns += c.user + c.system;
    streaming += Date.now() - s0;
    if (r.thoughts !== expectedReplayThoughts(t) || r.text !== expectedReplayMessage(t)) bad.push(`turn ${t}: text differs`);
    if (r.toolCalls.length !== TOOL_PATTERN.length || r.toolCalls.some((c) => c.outcome !== "completed")) bad.push(`turn ${t}: ${r.toolCalls.length} tool calls`);
    if (events >= nextSample || t === REPLAY_TURNS - 1) {
      measure(false);
      samples.push(await sample());
      measure(true);
      while (nextSample <= events) nextSample += SAMPLE_EVERY;
    }
  }
  measure(false);
  const elapsed = Date.now() - t0;
  const profiled = await profile.stop();
  sub.dispose();

  const view = a._test.controller.viewState.sessions[sessionId];
  if (!view) throw new Error("replay session missing from the view state");
  if (view.lastSeq !== events) bad.push(`view state folded up to event ${view.lastSeq} of ${events}`);
  if (unknown) bad.push(`${unknown} events were not understood (unknown)`);
  const lastTool = view.turns[view.turns.length - 1]?.entries.find((e) => e.type === "tool" && e.toolKind === "execute");
  const wantOutput = lastTool?.type === "tool" && lastTool.terminalOutput?.split("\n").length === OUTPUT_LINES + 1 && lastTool.terminalExit?.exitCode === 0;
  if (!wantOutput) bad.push("the last command's terminal output is incomplete in the view state");
  const dir = transcriptDirOf(a, sessionId);
  let transcript: TranscriptCheck | undefined;
  if (dir) {
    transcript = await checkTranscript(a, view);
    if (!transcript.complete) bad.push(`transcript of ${transcript.lines} lines does not end at event ${view.lastSeq} (or is out of order)`);
  } else bad.push("transcript folder not found");

  // What the retained data costs, rebuilt from the transcript with the host's own code: a
  // SessionLog holding every event, and the view state folded from it in patch-sized batches.
  let logCost = NaN;
  let viewCost = NaN;
  let restoreMs: [number, number] | undefined;
  // The extension's own read-back (TranscriptStore.read, parsed in slices): how long it takes and the longest the host waited meanwhile.
  // Its gaps over 25 ms say where a long block went (on a CPU, waiting for one, garbage collection); with AGENT_THOUGHTS_BENCH_PROFILE, a CPU profile of it.
  let sliced: { ms: number; maxBlock: number; events: number; gaps: string } | undefined;
  if (transcript) {
    const blocks = monitorEventLoopDelay({ resolution: 1 });
    const readProfile = await profileHost("replay-read");
    const gaps = longBlocks(25);
    const gcs = gcPauses();
    const s0 = performance.now();
    blocks.enable();
    const read = await a._test.transcripts.read(transcript.file);
    blocks.disable();
    const ms = performance.now() - s0;
    const longest = gaps.stop();
    const gcEntries = gcs.entries();
    gcs.stop();
    const profiledRead = await readProfile.stop();
    sliced = { ms, maxBlock: blocks.max / 1e6, events: read.length, gaps: `${longest.length ? gapsText(longest, gcEntries) : "none"}${profiledRead ? `; CPU profile: ${profiledRead}` : ""}` };
    if (read.length !== transcript.lines || read.at(-1)?.seq !== view.lastSeq) bad.push(`TranscriptStore.read gave ${read.length} of ${transcript.lines} lines`);
  }
  if (gcWorks && transcript) {
    const lines = (await fs.promises.readFile(transcript.file, "utf8")).split("\n").filter((l) => l);
    transcript.events = [];
    restoreMs = timeRestore(lines, sessionId, view.lastSeq, bad);
    const before = hostHeap();
    const copy = rebuildLog(lines, sessionId);
    logCost = hostHeap() - before;
    let state = EMPTY_STATE;
    const all = copy.all();
    for (let i = 0; i < all.length; i += 64) state = reduce(state, coalesce(all.slice(i, i + 64)));
    viewCost = hostHeap() - before - logCost;
    if (copy.length !== lines.length || state.sessions[sessionId]?.lastSeq !== copy.lastSeq) bad.push("the rebuilt log or view state differs");
  }
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  const hostSlope = slope(samples.map((s) => [s.events, s.host]));
  const webSlope = slope(samples.map((s) => [s.events, s.webview]));
  const dom = await evaluate(() => document.getElementsByTagName("*").length, undefined, "sidebar");
  const webEnd = await webviewHeap();
  const pageHeap = await workbenchHeap();
  const terminals = vscode.window.terminals.length;
  const activated = vscode.extensions.all.filter((x) => x.isActive && !activeBefore.has(x.id)).map((x) => x.id.replace(/^vscode\./, ""));
  const tabs = vscode.window.tabGroups.all.reduce((n, g) => n + g.tabs.length, 0);

  log(`  Hour replay: ${num(events)} events in one session, ${REPLAY_TURNS} turns (${num(REPLAY_TURNS * TOOL_PATTERN.length)} tool calls, ${num(REPLAY_TURNS * 2)} commands × ${OUTPUT_LINES} output deltas, ${num(REPLAY_TURNS * 3)} edits with diffs), as fast as the agent writes`);
  log(`    streamed in ${fmt(elapsed)} (${fmt(streaming)} of it in turns, the rest is sampling; ${num(events / (streaming / 1000))} events/s); extension host in the turns: event-loop delay p50 ${fmt(loop.percentile(50) / 1e6)}, p95 ${fmt(loop.percentile(95) / 1e6)}, max ${fmt(loop.max / 1e6)}; CPU ${fmt(cpuTurns / 1000)} (${(cpuTurns / events).toFixed(0)} µs per event)`);
  log(`    complete and in order in the turn results, the view state and the transcript (${transcript ? `${num(transcript.lines)} lines, ${mb(transcript.bytes)}; ${mb(transcript.lineEachBytes)} with a line per chunk and its text twice, as before` : "not found"}): ${bad.length === 0 ? "yes" : `NO — ${bad.slice(0, 5).join("; ")}`}`);
  log(`    extension host heap${gcWorks ? " after a forced GC" : " (no forced GC available)"}, every ~${num(SAMPLE_EVERY)} events: ${samples.map((s) => `${num(s.events)}: ${mb(s.host)}`).join(", ")}`);
  log(`    host heap growth: ${mb(hostSlope * SAMPLE_EVERY)} per ${num(SAMPLE_EVERY)} events (least squares), ${mb(last.host - first.host)} from first to last sample (${num(last.events - first.events)} events; ${((last.host - first.host) / Math.max(1, last.events - first.events)).toFixed(0)} bytes/event); rss ${mb(first.rss)} → ${mb(last.rss)}`);
  if (transcript) {
    const perTenK = (bytes: number): string => mb((bytes / Math.max(1, events)) * SAMPLE_EVERY);
    if (restoreMs) log(`    reading this transcript back in one go (the way restore worked before it was sliced): parse ${fmt(restoreMs[0])} + fold ${fmt(restoreMs[1])}, synchronous`);
    if (sliced) log(`    reading it back as a window reload does now (TranscriptStore.read, in slices of 8 ms; the panel then folds it in 8 ms slices too): ${fmt(sliced.ms)} for ${num(sliced.events)} events, longest extension-host block meanwhile ${fmt(sliced.maxBlock)}; its gaps over 25 ms (ms; of it on a CPU / waiting for one / in garbage collection): ${sliced.gaps}`);
    log(`    retained on purpose, rebuilt from the transcript with the host's code: the session log ${mb(logCost)} (${perTenK(logCost)} per ${num(SAMPLE_EVERY)} events), the panel's view state ${mb(viewCost)} (${perTenK(viewCost)}); the rest of the growth ${mb(last.host - first.host - logCost - viewCost)}; transcript on disk ${perTenK(transcript.bytes)} per ${num(SAMPLE_EVERY)} events`);
  }
  const shared = Math.abs(webEnd - pageHeap) < 1_048_576;
  log(`    webview JS heap (not collected first${shared ? "; the webview shares one renderer heap with the workbench page here" : ""}): ${samples.map((s) => mb(s.webview)).join(", ")}; ${mb(webSlope * SAMPLE_EVERY)} per ${num(SAMPLE_EVERY)} events (least squares)${shared ? "" : `; at the end ${mb(webEnd)} in the webview, ${mb(pageHeap)} in the workbench page`}`);
  log(`    panel DOM elements at the end: ${num(dom)}; VS Code terminals open: ${terminals}; editor tabs open: ${tabs}; extensions the replay got VS Code to activate in this host: ${activated.length ? activated.join(", ") : "none"}`);
  if (profiled) log(`    extension host CPU profile: ${profiled}`);

  // Leave the window as the next scenario expects it.
  await vscode.commands.executeCommand("agentThoughts.keepAll");
  await vscode.commands.executeCommand("workbench.action.terminal.killAll");
  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
  if (bad.length) throw new Error(`hour replay: ${bad.join("; ")}`);
  return sessionId;
}
