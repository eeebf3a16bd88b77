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
