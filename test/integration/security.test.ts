// Security checks in a real VS Code: the panel's Content Security Policy (its text and that the
// browser enforces it), messages from the webview that are malformed or about things that are not
// there (ignored, counted, logged — never an error or a state change), and the folders an agent's
// terminal commands may run in.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Scenario, Step } from "../fixtures/agents/scenario";
import { harnessRequest, log } from "./index";
import { evaluate, postRaw, waitFor, type View } from "./webview";
import { api, scriptedAgent, until } from "./helpers";

async function useAgent(name: string, scenario: Scenario): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [scriptedAgent(name, scenario)], vscode.ConfigurationTarget.Global);
}

/** `webview.cspSource` as this VS Code hands it to extensions (read from a throwaway webview). */
type Controller = Awaited<ReturnType<typeof api>>["_test"]["controller"];

/** An agent that streams 3,000 thought chunks, then "the stream ended"; the editor panel open (and its tab group). */
async function editorPanelWithStreamingAgent(): Promise<{ a: Awaited<ReturnType<typeof api>>; controller: Controller; stats: Controller["stats"]; group: vscode.TabGroup }> {
  await useAgent("Stream", { turns: [[{ flood: { count: 3_000, kind: "thought", paceMs: 1 } }, { message: "the stream ended" }]] });
  const a = await api();
  const controller = a._test.controller;
  await vscode.commands.executeCommand("agentThoughts.openPanel");
  await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "editor", what: "the editor panel" });
  const group = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label === "Agent Thoughts"));
  assert.ok(group, "the panel's tab group");
  return { a, controller, stats: controller.stats, group };
}

async function hostCspSource(): Promise<string> {
  const probe = vscode.window.createWebviewPanel("agentThoughts.test.cspProbe", "CSP probe", { viewColumn: vscode.ViewColumn.Active, preserveFocus: true }, { enableScripts: true });
  const source = probe.webview.cspSource;
  // Disposing a webview before it has loaded logs a workbench error: its page says when it has.
  let loaded = false;
  const sub = probe.webview.onDidReceiveMessage(() => { loaded = true; });
  probe.webview.html = "<!DOCTYPE html><html><body><script>acquireVsCodeApi().postMessage('loaded');</script></body></html>";
  await until(() => loaded, "the CSP probe webview to load", 20_000);
  sub.dispose();
  probe.dispose();
  return source;
}

/** A CSP as directive name → source tokens. */
function directives(csp: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of csp.split(";")) {
    const [name, ...tokens] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), tokens);
  }
  return out;
}

/** The messages of the workbench's notification toasts. */
async function toasts(): Promise<string[]> {
  const reply = await harnessRequest<{ value: string[] }>({ op: "workbench", fn: (() => [...document.querySelectorAll(".notification-toast")]
    .map((t) => (t.querySelector(".notification-list-item-message")?.textContent ?? t.textContent ?? "").trim().slice(0, 300))).toString() });
  return reply?.value ?? [];
}

/** Waits until `read()` reaches `want` (the host has handled everything posted before). */
async function counted(read: () => number, want: number, what: string): Promise<void> {
  await until(() => read() >= want, what, 15_000, 25).catch(() => undefined);
  assert.equal(read(), want, what);
}

/** Posts `messages` from the panel, then a marker the host ignores, and waits until it has handled them all (messages are handled in order). */
async function postHandled(messages: unknown[], stats: { ignoredMessages: number }, what: string, view: View = "sidebar"): Promise<void> {
  const before = stats.ignoredMessages;
  await postRaw([...messages, { type: "revealTerminal", sessionId: "no-such-session", toolCallId: "marker" }], view);
  await counted(() => stats.ignoredMessages, before + 1, what);
}

/**
 * The positive fact that comes after anything late: the host has answered a `ready` posted after
 * everything else (messages are handled in order), and a marker notification raised now is shown
 * (so every notification raised before it would be shown too). Returns the other notifications.
 */
/**
 * A script in the panel asks for snapshots in a loop for 5 s (30 asks at a time, each batch
 * handled before the next): one at a time, at most two a window, and the host stays free.
 */
async function asksInALoop(stats: Controller["stats"], state: number): Promise<void> {
  // Asks a script would send to be answered: claiming a version the host has not reached.
  const [snapshots, atOnce, deferred, hostMs] = [stats.snapshots, stats.snapshotsAtOnce, stats.snapshotsDeferred, stats.snapshotPostMs];
  // The extension host's thread while the asks are answered: how late a 20 ms timer runs.
  let late = 0;
  let worst = 0;
  let last = performance.now();
  const ticks = setInterval(() => {
    const now = performance.now();
    const by = Math.max(0, now - last - 20);
    late += by;
    worst = Math.max(worst, by);
    last = now;
  }, 20);
  const started = performance.now();
  // Asks for 5 s, 30 at a time, each batch handled before the next.
  let asks = 0;
  while (performance.now() - started < 5_000) {
    await postHandled(Array.from({ length: 30 }, () => ({ type: "requestSnapshot", have: Number.MAX_SAFE_INTEGER })), stats, "the host has handled the asks");
    asks += 30;
  }
  // Two at once at most (the second when the first has arrived), then one for all the asks that came before the window moved on: never one per ask.
  const most = (since: number): number => 2 * (1 + Math.ceil((performance.now() - since) / 500));
  assert.ok(stats.snapshots - snapshots <= most(started), `${stats.snapshots - snapshots} snapshots for ${asks} asks handled in ${Math.round(performance.now() - started)} ms`);
  // The window is twenty times what a post costs (up to 20 s): the last asks' answer can take that long.
  await until(() => stats.snapshots - snapshots >= (stats.snapshotsAtOnce - atOnce) + (stats.snapshotsDeferred - deferred) ? true : undefined, "every ask answered, the later ones by one snapshot", 30_000);
  const took = performance.now() - started;
  clearInterval(ticks);
  const all = stats.snapshots - snapshots;
  const spent = stats.snapshotPostMs - hostMs;
  log(`      ${all} snapshots of ${(state / 1e6).toFixed(1)} MB for ${asks} asks in ${Math.round(took)} ms, posting them took the host ${Math.round(spent)} ms; its timers ran ${Math.round(late)} ms late in all (at most ${Math.round(worst)} ms at once)`);
  assert.ok(all >= 1 && all <= most(started), `${all} snapshots for ${asks} asks`);
  // Each snapshot costs the host its post: two at once, then a window of twenty times that keeps the
  // asks from holding it (two every 500 ms, as before, held it about half the time with a 4 MB state).
  const burst = stats.snapshotPostsMs.slice(-all).sort((x, y) => y - x).slice(0, 2).reduce((x, y) => x + y, 0);
  assert.ok(late <= burst + took / 3, `the host was held ${Math.round(late)} ms of ${Math.round(took)} ms by ${all} snapshots of ${state} characters (posting them: ${Math.round(spent)} ms)`);
}

async function settledToasts(view: View, controller: { stats: { lastReadyAt: number } }): Promise<string[]> {
  const readyBefore = controller.stats.lastReadyAt;
  await postRaw([{ type: "ready" }], view);
  await until(() => controller.stats.lastReadyAt > readyBefore, "the host to answer a ready posted after the rest");
  const marker = `agent-thoughts-test marker ${Date.now()}`;
  void vscode.window.showInformationMessage(marker);
  const shown = await until(async () => { const t = await toasts(); return t.some((m) => m.includes(marker)) ? t : undefined; }, "the marker notification");
  await vscode.commands.executeCommand("notifications.clearAll");
  return shown.filter((m) => !m.includes(marker));
}

interface CspFacts {
  csp: string;
  policies: number;
  scripts: { id: string; nonce: string; src: string; inline: boolean; beforePolicy: boolean }[];
}

async function cspFacts(view: View): Promise<CspFacts> {
  return evaluate(() => {
    const meta = document.querySelector('meta[http-equiv="Content-Security-Policy" i]');
    return {
      csp: meta?.getAttribute("content") ?? "",
      policies: document.querySelectorAll('meta[http-equiv="Content-Security-Policy" i]').length,
      scripts: [...document.querySelectorAll("script")].map((s) => ({
        id: s.id,
        nonce: s.nonce || (s.getAttribute("nonce") ?? ""),
        src: s.getAttribute("src") ?? "",
        inline: (s.textContent ?? "").trim() !== "",
        beforePolicy: !!meta && (s.compareDocumentPosition(meta) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0,
      })),
    };
  }, undefined, view);
}

/** Checks one view's policy; returns its nonce. */
function checkPolicy(view: View, facts: CspFacts, cspSource: string): string {
  const { csp } = facts;
  assert.equal(facts.policies, 1, `${view}: one CSP meta`);
  assert.doesNotMatch(csp, /unsafe-/i, `${view}: no 'unsafe-inline', 'unsafe-eval' or 'unsafe-hashes' in ${csp}`);
  const d = directives(csp);
  assert.deepEqual(d.get("default-src"), ["'none'"], `${view}: default-src 'none' (${csp})`);
  const scriptSrc = d.get("script-src") ?? [];
  assert.equal(scriptSrc.length, 1, `${view}: script-src is a nonce and nothing else (${csp})`);
  const nonce = /^'nonce-([A-Za-z0-9+/]{22,}={0,2})'$/.exec(scriptSrc[0]!)?.[1];
  assert.ok(nonce, `${view}: script-src ${scriptSrc[0]} is a nonce`);
  // Everything else may name VS Code's own webview resource origin (and images data:), nothing more.
  const allowed = new Set([...cspSource.split(/\s+/).filter(Boolean), "data:"]);
  for (const [name, tokens] of d) {
    if (name === "default-src" || name === "script-src") continue;
    const foreign = tokens.filter((t) => !allowed.has(t));
    assert.deepEqual(foreign, [], `${view}: ${name} names nothing but ${[...allowed].join(" ")} (${csp})`);
  }
  assert.equal(d.get("font-src")?.includes("data:") ?? false, false, `${view}: data: only for images`);
  // Our scripts load by URL with the nonce; the one exception is VS Code's acquireVsCodeApi
  // script, which VS Code puts before our policy (so the policy does not cover it).
  const ours = facts.scripts.filter((s) => s.id !== "_vscodeApiScript");
  assert.ok(ours.length >= 1, `${view}: the panel's script is there`);
  for (const s of ours) {
    assert.equal(s.nonce, nonce, `${view}: script ${s.src || "(inline)"} carries the nonce`);
    assert.equal(s.inline, false, `${view}: no inline script of ours`);
    assert.ok(s.src !== "", `${view}: scripts load from the extension`);
  }
  for (const s of facts.scripts.filter((x) => x.id === "_vscodeApiScript")) assert.ok(s.beforePolicy, `${view}: VS Code's API script precedes the policy`);
  return nonce;
}

/** Tries every way to run code the policy forbids; returns what ran and what the browser reported. */
async function attack(view: View): Promise<{ flags: Record<string, unknown>; control: unknown; clicked: boolean; evalErrors: unknown; violations: string[] }> {
  return evaluate(async () => {
    const w = window as unknown as Record<string, unknown>;
    const violations: string[] = [];
    // Everything below settles with an event; the result is read once all of them have come (or
    // after 10 s, when something did not happen: then the assertions say what).
    const expected = ["script-src-elem", "script-src-attr", "script-src", "img-src", "connect-src"];
    let allReported = (): void => undefined;
    const reported = new Promise<void>((r) => { allReported = r; });
    const onViolation = (e: SecurityPolicyViolationEvent): void => {
      violations.push(e.effectiveDirective);
      if (expected.every((d) => violations.includes(d))) allReported();
    };
    const settled = (el: EventTarget, ...events: string[]): Promise<void> => new Promise((r) => { for (const ev of events) el.addEventListener(ev, () => r(), { once: true }); });
    document.addEventListener("securitypolicyviolation", onViolation);
    const added: Element[] = [];
    const add = <T extends Element>(el: T): T => { document.body.append(el); added.push(el); return el; };
    // An injected inline script.
    const inline = document.createElement("script");
    inline.textContent = "window.__atInline = 1";
    add(inline);
    // Inline event handlers.
    const div = document.createElement("div");
    div.setAttribute("onclick", "window.__atOnclick = 1");
    let clicked = false;
    div.addEventListener("click", () => { clicked = true; });
    add(div).click();
    const broken = document.createElement("img");
    broken.setAttribute("onerror", "window.__atOnerror = 1");
    const brokenDone = settled(broken, "error", "load");
    broken.src = "data:,not-an-image";
    add(broken);
    const link = document.createElement("a");
    link.href = "javascript:void(window.__atJsUrl = 1)";
    add(link).click();
    // Remote content.
    const remote = document.createElement("img");
    const remoteDone = settled(remote, "error", "load");
    remote.src = "https://example.com/pixel.png";
    add(remote);
    const fetched = fetch("https://example.com/").then(() => undefined, () => undefined);
    // eval and friends, from page code: a script the policy admits (it carries the page's nonce).
    // This is also the control: it shows injected scripts run when the policy allows them. The
    // attempts run in a later task: while the harness's evaluation (CDP Runtime.evaluate) is on
    // the stack, DevTools allows eval whatever the policy says.
    const nonce = document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce ?? "";
    const admitted = document.createElement("script");
    admitted.nonce = nonce;
    admitted.textContent = [
      "window.__atControl = 1; window.__atEvalErrors = [];",
      "setTimeout(function () {",
      "  try { eval('window.__atEval = 1'); } catch (e) { window.__atEvalErrors.push(e.name); }",
      "  try { new Function('window.__atFunction = 1')(); } catch (e) { window.__atEvalErrors.push(e.name); }",
      "  try { setTimeout('window.__atTimeout = 1', 0); } catch (e) { window.__atEvalErrors.push(e.name); }",
      "  window.__atControl = 2;",
      "  document.dispatchEvent(new Event('at-control-done'));",
      "}, 0);",
    ].join("\n");
    const controlDone = settled(document, "at-control-done");
    add(admitted);
    await Promise.race([
      Promise.all([reported, brokenDone, remoteDone, fetched, controlDone]),
      new Promise((r) => setTimeout(r, 10_000)),
    ]);
    // A string timer the control queued with delay 0 runs before one queued after it.
    await new Promise((r) => setTimeout(r, 0));
    document.removeEventListener("securitypolicyviolation", onViolation);
    for (const el of added) el.remove();
    const names = ["__atInline", "__atOnclick", "__atOnerror", "__atJsUrl", "__atEval", "__atFunction", "__atTimeout"];
    const flags: Record<string, unknown> = {};
    for (const n of names) flags[n] = w[n];
    const result = { flags, control: w.__atControl, clicked, evalErrors: w.__atEvalErrors, violations: [...new Set(violations)].sort() };
    for (const n of [...names, "__atControl", "__atEvalErrors"]) delete w[n];
    return result;
  }, undefined, view);
}

describe("security", function () {
  this.timeout(120_000);
  let cspSource = "";

  before(async () => {
    await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the sidebar prompt box" });
    cspSource = await hostCspSource();
    log(`webview.cspSource here: ${cspSource}`);
    await vscode.commands.executeCommand("agentThoughts.openPanel");
    await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "editor", what: "the editor panel's prompt box" });
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
  });

  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
  });

  it("the panel's CSP allows no inline, eval'd or remote code, and every script of ours carries its nonce (sidebar and editor)", async () => {
    assert.ok(cspSource.trim() !== "" && !/(^|\s)(\*|https?:|wss?:)(\s|$)/.test(cspSource), `a specific resource origin: ${cspSource}`);
    const sidebar = checkPolicy("sidebar", await cspFacts("sidebar"), cspSource);
    const editor = checkPolicy("editor", await cspFacts("editor"), cspSource);
    assert.notEqual(sidebar, editor, "each document gets its own nonce");
  });

  it("the browser enforces it: injected scripts, inline handlers, javascript: links, eval and remote loads do not run", async () => {
    for (const view of ["sidebar", "editor"] as const) {
      const r = await attack(view);
      assert.equal(r.control, 2, `${view}: the control script (with the nonce) ran to its end, so the probes were live`);
      assert.equal(r.clicked, true, `${view}: the click happened`);
      assert.deepEqual(r.flags, Object.fromEntries(Object.keys(r.flags).map((k) => [k, undefined])), `${view}: nothing forbidden ran`);
      assert.deepEqual(r.evalErrors, ["EvalError", "EvalError"], `${view}: eval and new Function throw`);
      for (const directive of ["script-src-elem", "script-src-attr", "script-src", "img-src", "connect-src"]) {
        assert.ok(r.violations.includes(directive), `${view}: the browser reported a ${directive} violation (${r.violations.join(", ")})`);
      }
    }
  });

  it("malformed messages from the webview are counted, logged and ignored: no state change, no notification", async () => {
    const a = await api();
    const controller = a._test.controller;
    await vscode.commands.executeCommand("notifications.clearAll");
    const before = JSON.stringify(controller.viewState);
    const activeBefore = controller.activeSession;
    const invalid = controller.stats.invalidMessages;
    const ignored = controller.stats.ignoredMessages;
    const malformed: unknown[] = [
      null, 42, "ready", true, [], [{ type: "ready" }],
      {}, { type: "nonsense" }, { type: 7 }, { type: "x".repeat(200_000) },
      { type: "cancelTurn" }, { type: "cancelTurn", sessionId: 7 }, { type: "cancelTurn", sessionId: "" },
      { type: "resolvePermission", sessionId: "s", requestId: "r" },
      { type: "resolvePermission", sessionId: "s", requestId: "r", optionId: ["once"] },
      { type: "sendPrompt", text: "x".repeat(1_000_001) },
      { type: "sendPrompt", text: "" },
      { type: "sendPrompt", text: "hi", sessionId: "s".repeat(501) },
      { type: "openLocation", path: "/etc/hosts", line: -3 },
      { type: "openLink", href: `https://example.com/${"a".repeat(9000)}` },
      { type: "openDiff", sessionId: "s", toolCallId: "t", index: 1.5 },
      { type: "setConfigOption", sessionId: "s", configId: "c", value: { nested: true } },
      { type: "requestSnapshot" },
      { type: "copy", text: 5 },
    ];
    await postRaw(malformed, "sidebar");
    await postRaw([{ type: "sendPrompt" }], "editor");
    await counted(() => controller.stats.invalidMessages, invalid + malformed.length + 1, "every malformed message reached the host and was counted as invalid");
    const notified = await settledToasts("sidebar", controller);
    assert.equal(controller.stats.invalidMessages, invalid + malformed.length + 1, "counted once each");
    assert.equal(controller.stats.ignoredMessages, ignored, "none was taken for a verb");
    assert.equal(JSON.stringify(controller.viewState), before, "the view state did not change");
    assert.equal(controller.activeSession, activeBefore);
    assert.deepEqual(notified, [], "no notification");
    assert.ok(await evaluate(() => document.getElementById("prompt") !== null, undefined, "sidebar"), "the panel still works");
  });

  it("a webview asking for snapshots in a loop gets one at a time, at most two a window, and the host stays free", async () => {
    // A state of megabytes, whatever ran before: a 4 MB thought (folded once it ends).
    await useAgent("Calm", { turns: [[{ thought: "storm ".repeat(700_000), chunkSize: 65_536 }, { message: "before the storm" }], [{ message: "after the storm" }]] });
    const a = await api();
    const controller = a._test.controller;
    const { stats } = controller;
    const first = await a.stream("think", { agent: "Calm", newSession: true }).result;
    await waitFor(() => (document.body.textContent ?? "").includes("before the storm"), undefined, { view: "sidebar", what: "the big turn in the panel" });
    const state = JSON.stringify(controller.viewState).length;
    assert.ok(state > 4_000_000, `the view state is ${state} characters`);
    // An ask older than the last snapshot the panel was sent (sent before that one arrived) is answered by it: no snapshot, and patches go on.
    const fresh = stats.snapshots;
    await postRaw([{ type: "requestSnapshot", have: Number.MAX_SAFE_INTEGER }]);
    await until(() => stats.snapshots > fresh || undefined, "a snapshot for the panel");
    const [stale, before0] = [stats.staleAsks, stats.snapshots];
    await postHandled([{ type: "requestSnapshot", have: 0 }], stats, "the host has handled the stale ask");
    assert.equal(stats.staleAsks, stale + 1, "taken as stale");
    assert.equal(stats.snapshots, before0, "no snapshot for it");
    await asksInALoop(stats, state);
    // The panel took the last snapshot and follows what happens next.
    await a.stream("still there?", { agent: "Calm", sessionId: first.sessionId }).result;
    await waitFor(() => (document.body.textContent ?? "").includes("after the storm"), undefined, { view: "sidebar", what: "the next turn's answer in the panel" });
  });

  it("a panel the user hides and shows again gets its snapshot at once, even while asks in a loop wait for the window", async () => {
    const a = await api();
    const { stats } = a._test.controller;
    await vscode.commands.executeCommand("agentThoughts.openPanel");
    await waitFor(() => (document.body.textContent ?? "").includes("after the storm"), undefined, { view: "editor", what: "the editor panel" });
    // Asks from the editor panel until the window holds the next one back.
    const deferred = stats.snapshotsDeferred;
    for (let i = 0; i < 20 && stats.snapshotsDeferred === deferred; i++) {
      await postHandled([{ type: "requestSnapshot", have: Number.MAX_SAFE_INTEGER }], stats, "the host has handled the ask", "editor");
    }
    assert.ok(stats.snapshotsDeferred > deferred, "an ask waits for the window");
    const [snapshots, shown] = [stats.snapshots, stats.snapshotsShown];
    // The user shows a file where the panel is, then the panel again: it loads anew and says ready.
    const group = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label === "Agent Thoughts"));
    assert.ok(group, "the panel's tab group");
    const file = vscode.Uri.file(path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "hide-the-panel.txt"));
    fs.writeFileSync(file.fsPath, "a file over the panel\n");
    const editor = await vscode.window.showTextDocument(file, { viewColumn: group.viewColumn, preview: false });
    await until(() => vscode.window.tabGroups.all.every((g) => !g.tabs.some((t) => t.isActive && t.input instanceof vscode.TabInputWebview)) || undefined, "the panel hidden");
    try {
      await vscode.commands.executeCommand("agentThoughts.openPanel");
      await until(() => stats.snapshotsShown > shown || undefined, "the panel's ready, answered as a panel shown again");
      // Answered at once: a snapshot within the 2 s one still on its way may take, not after the window.
      const ready = await until(() => [...stats.received].reverse().find(([, type]) => type === "ready")?.[0], "the ready in the host's log");
      // (Two clocks: the log's performance.timeOrigin + now(), the snapshot's Date.now(), apart by a few ms.)
      await until(() => (stats.snapshots > snapshots && stats.lastReadyAt >= ready - 100) || undefined, "a snapshot after the ready");
      assert.ok(stats.lastReadyAt - ready < 2_500, `the snapshot went ${Math.round(stats.lastReadyAt - ready)} ms after the ready`);
      await waitFor(() => (document.body.textContent ?? "").includes("after the storm"), undefined, { view: "editor", what: "the panel shown again, with the transcript" });
    } finally {
      // The panel stays open for the tests after this one; the file goes.
      await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs.filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === editor.document.uri.fsPath)));
      fs.rmSync(file.fsPath, { force: true });
    }
  });

  it("an editor panel hidden while an agent streams is sent no snapshots until the user shows it again, then one at once", async () => {
    const { a, controller, stats, group } = await editorPanelWithStreamingAgent();
    const turn = a.stream("go", { agent: "Stream", newSession: true });
    // (The host keeps a run of streamed chunks as one event: the thought's text tells how far the stream is.)
    await until(() => Object.values(controller.viewState.sessions).some((s) => s.turns[s.turns.length - 1]?.entries.some((e) => e.type === "thought" && e.text.includes("000100 flood chunk text"))) || undefined, "the stream under way");
    // The user shows a file where the panel is: its page goes (it loads anew when shown) while the agent streams on.
    const file = vscode.Uri.file(path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "over-the-panel.txt"));
    fs.writeFileSync(file.fsPath, "a file over the panel\n");
    const editor = await vscode.window.showTextDocument(file, { viewColumn: group.viewColumn, preview: false });
    try {
      await until(() => vscode.window.tabGroups.all.every((g) => !g.tabs.some((t) => t.isActive && t.input instanceof vscode.TabInputWebview)) || undefined, "the panel hidden");
      const [snapshots, resyncs, failed] = [stats.snapshots, stats.resyncs, stats.failedPosts];
      const result = await turn.result;
      assert.equal(result.stopReason, "end_turn");
      log(`      hidden while 3,000 chunks streamed: ${stats.failedPosts - failed} posts failed, ${stats.resyncs - resyncs} re-syncs, ${stats.snapshots - snapshots} snapshots`);
      // A page that is gone takes nothing: a snapshot posted to it would cost the host its post for nothing.
      assert.equal(stats.snapshots, snapshots, "no snapshot while the panel was hidden");
      assert.equal(stats.resyncs, resyncs, "no re-sync while the panel was hidden");
      // Shown again, its page loads and gets the state at once.
      const shown = stats.snapshotsShown;
      await vscode.commands.executeCommand("agentThoughts.openPanel");
      await until(() => stats.snapshotsShown > shown || undefined, "the panel's ready, answered as a panel shown again");
      await waitFor(() => (document.body.textContent ?? "").includes("the stream ended"), undefined, { view: "editor", what: "the panel shown again, with the whole turn" });
    } finally {
      await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs.filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === editor.document.uri.fsPath)));
      fs.rmSync(file.fsPath, { force: true });
    }
  });

  it("an editor panel whose post failed and which the user then hides gets no re-sync snapshot while hidden", async () => {
    const { a, controller, stats, group } = await editorPanelWithStreamingAgent();
    const [failed, hiddenBefore, toHidden] = [stats.failedPosts, stats.resyncsHidden, stats.snapshotsToHidden];
    // TEST ONLY hook: the editor panel's next posts fail while it is still shown (each failure is
    // re-synced after 100, 200, 400 ... ms, so one re-sync is still waiting when the panel is hidden).
    controller.testFaults.failingKind = "editor";
    controller.testFaults.failingPosts = 6;
    const file = vscode.Uri.file(path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "over-the-panel.txt"));
    fs.writeFileSync(file.fsPath, "a file over the panel\n");
    let editor: vscode.TextEditor | undefined;
    try {
      const turn = a.stream("go", { agent: "Stream", newSession: true });
      await until(() => stats.failedPosts > failed || undefined, "a post to the shown editor panel failed");
      editor = await vscode.window.showTextDocument(file, { viewColumn: group.viewColumn, preview: false });
      await until(() => vscode.window.tabGroups.all.every((g) => !g.tabs.some((t) => t.isActive && t.input instanceof vscode.TabInputWebview)) || undefined, "the panel hidden");
      // The waiting re-sync comes due with the panel hidden: it sends nothing to a page that is gone.
      await until(() => stats.resyncsHidden > hiddenBefore || undefined, "the waiting re-sync came due while the panel was hidden");
      assert.equal(stats.snapshotsToHidden, toHidden, "no snapshot posted to the hidden panel");
      controller.testFaults.failingPosts = 0;
      assert.equal((await turn.result).stopReason, "end_turn");
      // Shown again, its page loads and gets the whole state.
      const shown = stats.snapshotsShown;
      await vscode.commands.executeCommand("agentThoughts.openPanel");
      await until(() => stats.snapshotsShown > shown || undefined, "the panel's ready, answered as a panel shown again");
      await waitFor(() => (document.body.textContent ?? "").includes("the stream ended"), undefined, { view: "editor", what: "the panel shown again, with the whole turn" });
    } finally {
      controller.testFaults.failingPosts = 0;
      controller.testFaults.failingKind = undefined;
      if (editor) await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs.filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file.fsPath)));
      fs.rmSync(file.fsPath, { force: true });
    }
  });

  it("an editor panel closed while a post to it is on its way: its failure later throws nothing, and the sidebar goes on", async () => {
    const { a, controller, stats, group } = await editorPanelWithStreamingAgent();
    const failed = stats.failedPosts;
    const errors: string[] = [];
    const onError = (e: unknown): void => { errors.push(e instanceof Error ? e.message : String(e)); };
    process.on("uncaughtExceptionMonitor", onError);
    process.on("unhandledRejection", onError);
    // TEST ONLY hook: the editor panel's next post fails 1.5 s after it is made, as a post to a
    // webview the user closes meanwhile does (its promise settles once the webview is gone).
    controller.testFaults.failingKind = "editor";
    controller.testFaults.failAfterMs = 1_500;
    controller.testFaults.failingPosts = 1;
    try {
      const turn = a.stream("go", { agent: "Stream", newSession: true });
      await until(() => controller.testFaults.failingPosts === 0 || undefined, "a post to the editor panel");
      await vscode.window.tabGroups.close(group.tabs.filter((t) => t.input instanceof vscode.TabInputWebview && t.label === "Agent Thoughts"));
      await until(() => !vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.label === "Agent Thoughts")) || undefined, "the editor panel closed");
      await until(() => stats.failedPosts > failed || undefined, "the closed panel's post to fail");
      assert.deepEqual(errors, [], "nothing thrown when the closed panel's post failed");
      assert.equal((await turn.result).stopReason, "end_turn");
      await waitFor(() => (document.body.textContent ?? "").includes("the stream ended"), undefined, { view: "sidebar", what: "the sidebar with the whole turn" });
    } finally {
      process.off("uncaughtExceptionMonitor", onError);
      process.off("unhandledRejection", onError);
      controller.testFaults.failingPosts = 0;
      controller.testFaults.failingKind = undefined;
      controller.testFaults.failAfterMs = undefined;
    }
  });

  it("out-of-state messages are logged and ignored: unknown ids, forged options, a second answer, cancel with no turn", async () => {
    await useAgent("Guarded", {
      turns: [[
        {
          permission: {
            toolCall: { toolCallId: "p1", title: "Delete the build folder", kind: "delete" },
            options: [{ optionId: "once", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }],
          },
          onSelected: { once: [{ message: "p1:once " }], no: [{ message: "p1:no " }] },
          onCancelled: [{ message: "p1:cancelled " }],
        },
        { message: "done" },
      ]],
    });
    const a = await api();
    const controller = a._test.controller;
    // The question shows in both views: the editor panel is opened here (the tests before may have closed it).
    await vscode.commands.executeCommand("agentThoughts.openPanel");
    await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "editor", what: "the editor panel" });
    await vscode.commands.executeCommand("notifications.clearAll");
    const turn = a.stream("go", { agent: "Guarded", newSession: true });
    let ended: string | undefined;
    turn.result.then((r) => { ended = `the turn ended: ${r.stopReason} ${JSON.stringify(r.text)}`; }, (e: unknown) => { ended = `the turn failed: ${String(e)}`; });
    const request = await until(() => a._test.broker.open()[0] ?? (ended ? { ended } : undefined), "the agent's permission request", 45_000);
    assert.ok("requestId" in request, "ended" in request ? request.ended : "the agent asks");
    const { sessionId, requestId } = request;
    for (const view of ["sidebar", "editor"] as const) {
      await waitFor(() => document.querySelector('[data-option-id="once"]') !== null, undefined, { view, what: `the permission buttons in the ${view} view` });
    }

    // While the request is open: answers that name the wrong request, session or option.
    let ignored = controller.stats.ignoredMessages;
    await postRaw([
      { type: "resolvePermission", sessionId, requestId: "no-such-request", optionId: "once" },
      { type: "resolvePermission", sessionId: "no-such-session", requestId, optionId: "once" },
      { type: "resolvePermission", sessionId, requestId, optionId: "forged-option" },
      { type: "openDiff", sessionId, toolCallId: "p1", index: 3 },
      { type: "revealTerminal", sessionId: "no-such-session", toolCallId: "p1" },
      { type: "revealTerminal", sessionId, toolCallId: "no-such-tool" },
    ]);
    await counted(() => controller.stats.ignoredMessages, ignored + 6, "each was ignored");
    assert.deepEqual(a._test.broker.open().map((r) => r.requestId), [requestId], "the request is still open: none of them answered it");

    // Two answers from the user interface at once: a double click on Allow in the sidebar and
    // Reject in the editor view, before any patch can take the buttons away. Each webview has an
    // origin and a renderer process of its own (as in VS Code), so no one task can click both: each
    // is armed to click at the same moment, well before any answer could come back as a patch.
    ignored = controller.stats.ignoredMessages;
    const at = Date.now() + 3_000;
    const arm = (arg: { at: number; optionId: string; times: number }): string => {
      const button = document.querySelector<HTMLElement>(`[data-option-id="${arg.optionId}"]`);
      if (!button) return `no ${arg.optionId} button`;
      const w = window as Window & { __atClicked?: string };
      setTimeout(() => {
        // Still on screen when clicked: a click on a button a patch had taken away would prove nothing.
        w.__atClicked = button.isConnected ? "clicked" : "gone before the click";
        for (let i = 0; i < arg.times; i++) button.click();
      }, arg.at - Date.now());
      return "armed";
    };
    assert.equal(await evaluate(arm, { at, optionId: "once", times: 2 }, "sidebar"), "armed", "the sidebar's Allow");
    assert.equal(await evaluate(arm, { at, optionId: "no", times: 1 }, "editor"), "armed", "the editor's Reject");
    assert.ok(Date.now() < at, "both were armed before the moment they click");
    for (const view of ["sidebar", "editor"] as const) {
      assert.equal(await waitFor(() => (window as Window & { __atClicked?: string }).__atClicked, undefined, { view, what: `the ${view}'s click` }), "clicked", `the ${view}'s button was on screen when clicked`);
    }
    const result = await turn.result;
    assert.match(result.text, /^p1:(once|no) done$/, "the agent got exactly one answer");
    await until(() => controller.stats.ignoredMessages >= ignored + 1, "the losing answer to reach the host and be ignored");
    log(`answers ignored after the double click: ${controller.stats.ignoredMessages - ignored}`);
    const outcomes = controller.viewState.sessions[sessionId]?.turns.flatMap((t) => t.entries).filter((e) => e.type === "tool" && e.permission?.outcome);
    assert.equal(outcomes?.length, 1, "one answered permission in the session");
    assert.equal(a._test.broker.open().length, 0);

    // After the turn: the same answer again, cancels with no turn, verbs for unknown sessions.
    await until(() => controller.viewState.sessions[sessionId]?.status === "idle", "the session to be idle after its turn");
    const before = JSON.stringify(controller.viewState);
    ignored = controller.stats.ignoredMessages;
    const invalid = controller.stats.invalidMessages;
    const outOfState = [
      { type: "resolvePermission", sessionId, requestId, optionId: "no" },
      { type: "resolvePermission", sessionId, requestId, optionId: null },
      { type: "cancelTurn", sessionId },
      { type: "cancelTurn", sessionId: "no-such-session" },
      { type: "setMode", sessionId: "no-such-session", modeId: "plan" },
      { type: "setConfigOption", sessionId: "no-such-session", configId: "model", value: "big" },
      { type: "selectSession", sessionId: "no-such-session" },
      { type: "openDiff", sessionId: "no-such-session", toolCallId: "p1", index: 0 },
    ];
    await postRaw(outOfState, "editor");
    await counted(() => controller.stats.ignoredMessages, ignored + outOfState.length, "each was ignored");
    const notified = await settledToasts("editor", controller);
    assert.equal(controller.stats.ignoredMessages, ignored + outOfState.length);
    assert.equal(controller.stats.invalidMessages, invalid, "well-formed, so not counted as invalid");
    assert.equal(JSON.stringify(controller.viewState), before, "the view state did not change");
    assert.equal(controller.activeSession, sessionId, "the panel still shows the session");
    assert.deepEqual(notified, [], "no notification");
  });

  it("an agent's terminal may run in the session folder, not outside it: /etc, .., a symlink out", async () => {
    const ws = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const realWs = fs.realpathSync(ws);
    const link = path.join(ws, "escape-link");
    fs.symlinkSync("/etc", link);
    try {
      await useAgent("Confined", {
        turns: [[
          { terminal: { command: "pwd -P", cwd: "/etc" }, report: true },
          { message: "|" },
          { terminal: { command: "pwd -P", cwd: ".." }, report: true },
          { message: "|" },
          { terminal: { command: "pwd -P", cwd: "escape-link" }, report: true },
          { message: "|" },
          { terminal: { command: "pwd -P", cwd: "src" }, report: true },
        ]],
      });
      const r = await (await api()).stream("run", { agent: "Confined", newSession: true }).result;
      const [etc, parent, symlink, inside] = r.text.split("|");
      assert.equal(etc, "terminalError:Invalid params: cwd /etc is outside the workspace");
      assert.equal(parent, `terminalError:Invalid params: cwd ${path.dirname(ws)} is outside the workspace`);
      assert.equal(symlink, `terminalError:Invalid params: cwd ${link} is outside the workspace (it resolves to ${fs.realpathSync("/etc")})`);
      assert.equal(inside, `terminal:0:${path.join(realWs, "src")}\n`, "a relative cwd inside runs, resolved against the session folder");
    } finally {
      fs.rmSync(link, { force: true });
    }
  });
  it("a snapshot in pieces asked for in a loop costs the host no more than one whole: its pieces count, and an ask ends them", async () => {
    // A state of megabytes in sixteen turns: each snapshot goes as its last turn, then fifteen pieces.
    const turns: Step[][] = Array.from({ length: 16 }, (_, i) => [{ thought: `squall ${i} ${"storm ".repeat(45_000)}`, chunkSize: 65_536 }, { message: `turn ${i} done` }]);
    turns.push([{ message: "after the squall" }]);
    await useAgent("Squall", { turns });
    const a = await api();
    const controller = a._test.controller;
    const { stats } = controller;
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const first = await a.stream("turn 0", { agent: "Squall", newSession: true }).result;
    for (let i = 1; i < 16; i++) await a.stream(`turn ${i}`, { agent: "Squall", sessionId: first.sessionId }).result;
    await waitFor(() => (document.body.textContent ?? "").includes("turn 15 done"), undefined, { view: "sidebar", what: "the last turn in the panel" });
    const state = JSON.stringify(controller.viewState).length;
    assert.ok(state > 4_000_000, `the view state is ${state} characters`);
    const fills = stats.lastFill;
    await asksInALoop(stats, state);
    assert.notEqual(stats.lastFill, fills, "the snapshots went in pieces");
    // The last snapshot's pieces all go (no ask ends them), and the panel follows what happens next.
    await until(() => (stats.lastFill.ended ? true : undefined), "the last snapshot's pieces posted", 20_000);
    assert.ok(stats.lastFill.whole, "the last snapshot's pieces all posted");
    assert.ok(stats.lastFill.pieces >= 10, `${stats.lastFill.pieces} pieces`);
    await a.stream("still there?", { agent: "Squall", sessionId: first.sessionId }).result;
    await waitFor(() => (document.body.textContent ?? "").includes("after the squall"), undefined, { view: "sidebar", what: "the next turn's answer in the panel" });
  });
});
