// The `lag` scenario's floor: how long this host takes to carry anything from the extension host to
// the panel's screen, whatever the extension does. Tiny messages (a number) are posted to the
// panel's own webview at a fixed rate with nothing streaming; a probe in the webview (the panel
// ignores messages it does not know) writes the newest number into an element in the next frame
// and notes when that frame has been drawn, the way the lag probe does. Posted → drawn is then the
// relay (extension host → code-server → the workbench → the webview) and the next frame alone: no
// extension can show an update sooner than its message takes, so where this is over the lag
// target, the target is out of reach in this host.
import type * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import { log } from "../integration/index";
import { evaluate, waitFor } from "../integration/webview";
import { percentile, rendererCapture, spread } from "./util";

interface FloorProbe { arrivals: [number, number][]; drawn: [number, number][] }

/** Installed in the panel's webview: records when each floor message arrives and when a frame has drawn it. */
function installFloorProbe(): boolean {
  type W = Window & { __atFloor?: FloorProbe; __atFloorOff?: () => void };
  const w = window as W;
  w.__atFloorOff?.();
  const probe: FloorProbe = { arrivals: [], drawn: [] };
  w.__atFloor = probe;
  const el = document.createElement("div");
  el.style.cssText = "position:fixed;right:0;bottom:0;font-size:10px;pointer-events:none";
  document.body.appendChild(el);
  const now = (): number => performance.timeOrigin + performance.now();
  const channel = new MessageChannel();
  let waiting: number[] = [];
  let latest = -1;
  let frame = 0;
  // Posted from a frame callback, it runs once that frame's style, layout and paint are done.
  channel.port1.onmessage = () => {
    const t = now();
    for (const seq of waiting) probe.drawn.push([seq, t]);
    waiting = [];
  };
  const draw = (): void => {
    frame = 0;
    el.textContent = String(latest);
    waiting.push(latest);
    channel.port2.postMessage(0);
  };
  const onMessage = (ev: MessageEvent<unknown>): void => {
    const m = ev.data as { type?: unknown; seq?: unknown } | null;
    if (!m || m.type !== "benchFloor" || typeof m.seq !== "number") return;
    probe.arrivals.push([m.seq, now()]);
    latest = m.seq;
    if (frame === 0) frame = requestAnimationFrame(draw);
  };
  window.addEventListener("message", onMessage);
  w.__atFloorOff = () => {
    window.removeEventListener("message", onMessage);
    el.remove();
  };
  return true;
}

function readFloorProbe(): FloorProbe {
  type W = Window & { __atFloor?: FloorProbe; __atFloorOff?: () => void };
  const w = window as W;
  w.__atFloorOff?.();
  return w.__atFloor ?? { arrivals: [], drawn: [] };
}

function drawnAtLeast(n: number): boolean {
  const d = (window as Window & { __atFloor?: FloorProbe }).__atFloor?.drawn;
  return !!d && d.length > 0 && d[d.length - 1]![0] >= n;
}

/** The panel's webviews, read off the controller (test code: its views are private). */
function panelWebviews(a: AgentThoughtsInternalApi): vscode.Webview[] {
  const views = (a._test.controller as unknown as { views: Set<{ webview: vscode.Webview; kind: string; ready: boolean }> }).views;
  return [...views].filter((v) => v.kind === "sidebar" && v.ready).map((v) => v.webview);
}

/**
 * Makes `count` updates at `rate` a second (the due ones on each 1 ms timer tick) and posts each as
 * it is made, or, with `everyMs`, the newest at most once in that time (a sender that never posts
 * more than the panel draws); when each update was made, by sequence number.
 */
async function postAt(webview: vscode.Webview, count: number, rate: number, everyMs = 0): Promise<number[]> {
  const made: number[] = [];
  let sent = -1;
  let sentAt = -Infinity;
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(count, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
      while (made.length < due) {
        made.push(performance.timeOrigin + performance.now());
        if (everyMs === 0) void webview.postMessage({ type: "benchFloor", seq: (sent = made.length - 1) });
      }
      const now = performance.now();
      if (everyMs > 0 && sent < made.length - 1 && now - sentAt >= everyMs) {
        sentAt = now;
        void webview.postMessage({ type: "benchFloor", seq: (sent = made.length - 1) });
      }
      if (sent < count - 1) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  return made;
}

/** The floor at each rate: update → drawn for every update, and for those posted the two legs of their message. */
export async function lagFloor(a: AgentThoughtsInternalApi, target: number): Promise<void> {
  const webview = panelWebviews(a)[0];
  if (!webview) {
    log("  this host's floor: not measurable (no panel webview in the sidebar)");
    return;
  }
  const frameMs = 1000 / 60;
  const runs: [what: string, rate: number, count: number, everyMs: number][] = [
    ["60 messages/s, one a frame", 60, 300, 0],
    ["250 messages/s", 250, 1_000, 0],
    ["1,000 messages/s", 1_000, 3_000, 0],
    ["1,000 updates/s, the newest posted at most once a frame (16.7 ms)", 1_000, 3_000, frameMs],
  ];
  log("  this host's floor: messages of a few bytes posted by the extension host to the panel's webview, a probe there drawing the newest number in the next frame, nothing else streaming: update made → drawn (the frame painted), and each message's legs: posted → in the webview (the relay), in the webview → drawn");
  for (const [what, rate, count, everyMs] of runs) {
    await evaluate(installFloorProbe, undefined, "sidebar");
    const capture = await rendererCapture(`floor-${rate}${everyMs ? "-paced" : ""}`);
    const made = await postAt(webview, count, rate, everyMs);
    await waitFor(drawnAtLeast, count - 1, { view: "sidebar", timeoutMs: 60_000, what: "the last floor message drawn" });
    await capture();
    const got = await evaluate(readFloorProbe, undefined, "sidebar");
    const arrived = new Map(got.arrivals);
    const both: number[] = [];
    const relay: number[] = [];
    const frame: number[] = [];
    // A frame draws the newest number; every update up to it is on screen then.
    let j = 0;
    for (let seq = 0; seq < made.length; seq++) {
      while (j < got.drawn.length && got.drawn[j]![0] < seq) j++;
      const drawnAt = got.drawn[j]?.[1];
      if (drawnAt === undefined) continue;
      both.push(drawnAt - made[seq]!);
      const at = arrived.get(seq);
      if (at === undefined) continue;
      // A message carries the newest update, posted in the timer tick that made it.
      relay.push(at - made[seq]!);
      frame.push(drawnAt - at);
    }
    const p95 = percentile([...both].sort((x, y) => x - y), 95);
    log(`    ${what} (${count.toLocaleString("en")}; ${relay.length} messages): made → drawn ${spread(both)} (p95 ${p95 <= target ? "within" : "over"} the ${target} ms target); the relay ${spread(relay)}; in the webview → drawn ${spread(frame)}`);
  }
}
