// Drives the real thought-panel webview DOM from extension-host tests, through the harness
// (which owns the browser): evaluate a function in the webview, click, type, press keys.
import * as assert from "node:assert/strict";
import { until } from "../support/until";
import { harnessRequest } from "./index";

export type View = "sidebar" | "editor";

/** Runs `fn(arg)` inside the webview document and returns its (JSON-serialisable) result. */
export async function evaluate<A, R>(fn: (arg: A) => R, arg?: A, view?: View): Promise<R> {
  const reply = await harnessRequest<{ value: R }>({ op: "evaluate", fn: fn.toString(), arg: arg ?? null, view });
  assert.ok(reply, "not running under the test harness (test/host/runTests.mjs)");
  return reply.value;
}

/** A real mouse click on the first element matching `selector`. */
export async function click(selector: string, view?: View): Promise<void> {
  assert.ok(await harnessRequest({ op: "click", selector, view }));
}

/** Moves the pointer over an element (it stays there until moved again). */
export async function hover(selector: string, view?: View): Promise<void> {
  assert.ok(await harnessRequest({ op: "hover", selector, view }));
}

/** Emulates the page's media features, such as `{ reducedMotion: "reduce" }` (null puts one back). */
export async function emulateMedia(media: { reducedMotion?: "reduce" | "no-preference" | null }): Promise<void> {
  assert.ok(await harnessRequest({ op: "media", media }));
}

/** Types into an input or textarea (replacing its value). */
export async function fill(selector: string, text: string, view?: View): Promise<void> {
  assert.ok(await harnessRequest({ op: "fill", selector, text, view }));
}

/** Presses a key (e.g. "Enter", "Shift+Enter") with the element focused. */
export async function press(selector: string, key: string, view?: View): Promise<void> {
  assert.ok(await harnessRequest({ op: "press", selector, key, view }));
}

/** Types `text` into an element key by key, as a user does (each key a real keydown/input/keyup), `delayMs` apart. */
export async function typeKeys(selector: string, text: string, delayMs: number, view?: View): Promise<void> {
  assert.ok(await harnessRequest({ op: "type", selector, text, delay: delayMs, view }, 60_000 + text.length * delayMs));
}

/** Sets the workbench window's size (1400×900 at the start of a run). */
export async function viewport(width: number, height: number): Promise<void> {
  assert.ok(await harnessRequest({ op: "viewport", width, height }));
}

/** Polls `fn(arg)` in the webview until it returns a truthy value; returns that value. */
export async function waitFor<A, R>(fn: (arg: A) => R, arg?: A, opts: { timeoutMs?: number; view?: View; what?: string } = {}): Promise<R> {
  let last: R | undefined;
  const what = opts.what ?? fn.toString().slice(0, 120);
  return until(async () => (last = await evaluate(fn, arg, opts.view)), what, opts.timeoutMs ?? 15_000, 25).catch((e: unknown) => {
    throw new Error(`${e instanceof Error ? e.message : String(e)} (last: ${JSON.stringify(last)})`);
  });
}

/** Run in the webview (with `waitFor`): whether the last thought's text is at least `n` characters long. */
export function lastThoughtHolds(n: number): boolean {
  const texts = document.querySelectorAll(".thought-text");
  return (texts[texts.length - 1]?.textContent?.length ?? 0) >= n;
}

/**
 * Run in the webview (with `waitFor`): whether the last thought, opened as a user would when it
 * has ended folded, holds at least `n` characters. A thought the panel first draws ended (it came
 * and ended within a frame, or the view was drawn anew from a snapshot) is drawn closed, its text
 * not drawn until it is opened.
 */
export function openedLastThoughtHolds(n: number): boolean {
  const entries = document.querySelectorAll("[data-entry-type='thought']");
  const entry = entries[entries.length - 1];
  if (!entry) return false;
  if (!entry.classList.contains("streaming") && !entry.classList.contains("open")) entry.querySelector<HTMLButtonElement>(".thought-head")?.click();
  return (entry.querySelector(".thought-text")?.textContent?.length ?? 0) >= n;
}

/**
 * Run in the webview (with `waitFor`): the streaming thought's cuts — where it is drawn in blocks
 * (markdown pieces, or plain segments) that one block would draw as one text — and those that show.
 * A cut shows when the two blocks either side of it, drawn as one at the same width in a block laid
 * out beside them, would go on on the same line there (a block starts on a new line). `join` goes between two blocks'
 * texts: " " between markdown pieces of words (a piece keeps the space it was cut after, and a
 * second one collapses; a piece that dropped it would still read apart), "" in text with no spaces
 * or in plain segments (which keep every character). Undefined before the thought holds `last`.
 */
export function cutsThatShow(arg: { join: string; last: string }): { cuts: number; measured: number; shown: string[]; at: number[] } | undefined {
  const body = document.querySelector(".entry-thought.streaming .thought-text");
  if (!body || !(body.textContent ?? "").replace(/\s/g, "").includes(arg.last.replace(/\s/g, ""))) return undefined;
  // A thought past 32 KB is its markdown start (paragraphs), then plain segments.
  const inner = body.querySelector(".thought-inner");
  const md = inner?.querySelector(":scope > .thought-md");
  if (!inner) return undefined;
  const blocks: { text: string; cut: boolean; md: boolean }[] = [
    ...[...(md?.querySelectorAll(".md-stable > p, .md-tail > p") ?? [])].map((p) => ({ text: p.textContent ?? "", cut: p.classList.contains("cut"), md: true })),
    ...(inner.firstChild?.nodeType === Node.TEXT_NODE ? [inner.firstChild.textContent ?? ""] : []).map((text) => ({ text, cut: true, md: false })),
    ...[...inner.querySelectorAll(".seg")].map((b) => ({ text: b.textContent ?? "", cut: true, md: false })),
  ];
  const stable = md?.querySelector(".md-stable");
  // Each cut against the two blocks either side drawn as one (a block starts a line, so the first
  // lays out as it does on its own): the cuts before it, seen or not, change nothing here.
  // Two paragraphs are drawn as one paragraph beside them; a pair with a plain segment as a block of the thought's text.
  const para = document.createElement("p");
  const plain = document.createElement("div");
  stable?.append(para);
  inner.append(plain);
  const range = document.createRange();
  const shown: string[] = [];
  const shownAt: number[] = [];
  let cuts = 0;
  // Cuts whose two sides had boxes to compare (text not laid out has none: it would pass unseen).
  let measured = 0;
  let at = 0;
  for (let k = 0; k < blocks.length - 1; k++) {
    const [one, two] = [blocks[k]!.text, blocks[k + 1]!.text];
    at += one.length;
    if (blocks[k]!.cut) {
      cuts++;
      const joined = one + arg.join + two;
      const pair = blocks[k]!.md && blocks[k + 1]!.md ? para : plain;
      pair.textContent = joined;
      const text = pair.firstChild as Text;
      const top = (i: number): number => {
        range.setStart(text, i);
        range.setEnd(text, i + 1);
        const r = range.getClientRects();
        return r.length ? r[r.length - 1]!.top : NaN;
      };
      let before = one.length - 1;
      while (before > 0 && /\s/.test(joined.charAt(before))) before--;
      const after = one.length + arg.join.length;
      const [y0, y1] = [top(before), top(after)];
      if (Number.isFinite(y0) && Number.isFinite(y1)) measured++;
      if (Math.abs(y1 - y0) < 2) {
        shown.push(`…${joined.slice(Math.max(0, before - 11), before + 1)}|${joined.slice(after, after + 12)}…`);
        shownAt.push(at + arg.join.length);
      }
    }
    at += arg.join.length;
  }
  para.remove();
  plain.remove();
  return { cuts, measured, shown, at: shownAt };
}

/**
 * Posts raw values to the host as any script in the webview could: through the frame's
 * `__vscode_post_message__`, which `acquireVsCodeApi()` wraps (the panel has taken that already,
 * and it can be taken once per page). They arrive through the real `webview.onDidReceiveMessage`.
 */
export async function postRaw(messages: unknown[], view: View = "sidebar"): Promise<void> {
  const posted = await evaluate((msgs: unknown[]) => {
    const host = (w: Window): Window | undefined => {
      for (let i = 0; i < w.frames.length; i++) {
        const f = w.frames[i]!;
        for (let j = 0; j < f.frames.length; j++) if (f.frames[j] === window) return f;
        const deeper = host(f);
        if (deeper) return deeper;
      }
      return undefined;
    };
    const outer = window.top ? host(window.top) : undefined;
    const post = (outer as unknown as { __vscode_post_message__?: (channel: string, data: unknown) => void } | undefined)?.__vscode_post_message__;
    if (!post) return -1;
    for (const message of msgs) post("onmessage", { message });
    return msgs.length;
  }, messages, view);
  assert.equal(posted, messages.length, "found the webview's message port");
}

/** Run in the webview (with `waitFor`): the text of find's current match, once it is drawn and inside the transcript's view. */
export function currentMatchInView(): string | undefined {
  const cur = CSS.highlights.get("find-current");
  const sr = cur ? [...cur][0] : undefined;
  if (!sr) return undefined;
  const range = document.createRange();
  range.setStart(sr.startContainer, sr.startOffset);
  range.setEnd(sr.endContainer, sr.endOffset);
  const r = range.getBoundingClientRect();
  const t = document.getElementById("transcript")!.getBoundingClientRect();
  return r.height > 0 && r.top >= t.top && r.bottom <= t.bottom ? range.toString() : undefined;
}
