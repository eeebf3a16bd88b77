// The sidebar thought panel in a real VS Code, driven through its real webview DOM: streaming
// thoughts, plans, tool cards, permission buttons answering the agent, the prompt box, Stop,
// restore after hide, and hostile agent content that must never become markup.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Scenario, Step } from "../fixtures/agents/scenario";
import { harnessRequest, log, screenshot } from "./index";
import { click, currentMatchInView, cutsThatShow, emulateMedia, evaluate, fill, hover, lastThoughtHolds, openedLastThoughtHolds, press, viewport, waitFor } from "./webview";
import { api, scriptedAgent, until } from "./helpers";



async function useAgent(name: string, scenario: Scenario): Promise<void> {
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
    scriptedAgent(name, scenario),
  ], vscode.ConfigurationTarget.Global);
  await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", name, vscode.ConfigurationTarget.Global);
}

/** Picks a session in the panel's session switcher, as a user's pick does (its `change`). */
async function pickInSwitcher(id: string): Promise<void> {
  assert.ok(await evaluate((sid: string) => {
    const select = document.querySelector<HTMLSelectElement>("select.session-select");
    if (!select) return false;
    select.value = sid;
    select.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }, id, "sidebar"), "the session switcher");
}

/**
 * A session of `agent` whose one turn is the `answers` (each followed by a tool call, which keeps
 * them separate messages) and then `last`, and after it a short session (shown once both end).
 */
async function answersThenShort(agent: string, answers: string[], last: string): Promise<{ long: string; short: string }> {
  const steps: Step[] = answers.flatMap((message, i): Step[] => [
    { message, chunkSize: 65_536 },
    { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: `${agent}-read-${i}`, title: `Read ${agent}${i}.ts`, kind: "read", status: "completed" } },
  ]);
  steps.push({ message: last });
  await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
    scriptedAgent(agent, { turns: [steps] }),
    scriptedAgent("Short", { turns: [[{ message: "a short session" }]] }),
  ], vscode.ConfigurationTarget.Global);
  const a = await api();
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  const long = await a.stream("many answers", { agent, newSession: true }).result;
  const short = await a.stream("one answer", { agent: "Short", newSession: true }).result;
  await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("a short session"), undefined, { view: "sidebar", what: "the short session" });
  return { long: long.sessionId, short: short.sessionId };
}

/** Sends a prompt from the panel's prompt box, as a user would (type, Enter). */
async function sendFromPanel(text: string): Promise<void> {
  await fill("#prompt", text, "sidebar");
  await press("#prompt", "Enter", "sidebar");
}

const HOSTILE = [
  "<script>window.__pwned = 1</script>",
  "<img src=x onerror=\"window.__pwned = 2\">",
  "[click me](javascript:window.__pwned=3)",
  "<a href=\"javascript:window.__pwned=4\">link</a>",
  "\u202Egnp.exe\u202C evil RTL override",
  "<iframe src=\"https://example.com\"></iframe>",
  "<svg onload=\"window.__pwned=5\"></svg>",
  "<style>body{display:none}</style>",
  "ctrl\u0000chars\u0007\u001b[31mred",
];

/** In the webview: selects `word` in the last element matching `selector` once that holds `after`, as a reader would with the mouse; true when it is the selection. */
function selectWord(a: { selector: string; after: string; word: string }): boolean {
  const els = document.querySelectorAll(a.selector);
  const el = els[els.length - 1];
  if (!el?.textContent?.includes(a.after)) return false;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const at = (n as Text).data.indexOf(a.word);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(n, at);
    range.setEnd(n, at + a.word.length);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    return sel?.toString() === a.word;
  }
  return false;
}

describe("the thought panel", function () {
  this.timeout(120_000);

  before(async () => {
    process.env.AGENT_THOUGHTS_DEMO_SPEED = "0";
    await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the prompt box" });
  });

  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
  });

  it("runs the demo from the prompt box: thoughts, plan, tool cards, and a permission answered by a button", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", "Demo", vscode.ConfigurationTarget.Global);
    await sendFromPanel("Tidy up the README please");
    await waitFor(() => {
      const entry = document.querySelector("[data-entry-type='thought']");
      // Folded once it ended (its text is drawn when it is opened): opened as a reader would.
      if (entry && !entry.classList.contains("open") && !entry.classList.contains("streaming")) entry.querySelector<HTMLButtonElement>(".thought-head")?.click();
      return (entry?.querySelector(".thought-text")?.textContent?.length ?? 0) > 20;
    }, undefined, { view: "sidebar", what: "streamed thought text" });
    await waitFor(() => document.querySelectorAll("#plan [data-status]").length >= 3, undefined, { view: "sidebar", what: "the plan checklist" });
    // The demo asks before editing: the card shows the agent's options as buttons.
    const optionId = await waitFor(() => document.querySelector<HTMLElement>("[data-tool-call-id] [data-option-id]")?.dataset.optionId, undefined, { view: "sidebar", what: "permission buttons", timeoutMs: 30_000 });
    const options = await evaluate(() => [...document.querySelectorAll<HTMLElement>("[data-option-id]")].map((b) => b.dataset.optionId ?? ""), undefined, "sidebar");
    assert.ok(options.length >= 2, `options: ${options.join(", ")}`);
    const allow = options.find((o) => /allow/i.test(o) && !/always/i.test(o)) ?? optionId;
    await waitFor(() => document.querySelector("#question[data-ready]") !== null, undefined, { view: "sidebar", what: "the pinned question ready" });
    await screenshot("test-results/panel-permission.png"); // copied to docs/screenshots/
    await click(`[data-option-id="${allow}"]`, "sidebar");
    // The answer reached the agent: it writes the scratch file and finishes.
    const scratch = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, "agent-thoughts-demo", "demo.md");
    await until(() => fs.existsSync(scratch), "the allowed edit to be written", 30_000);
    await waitFor(() => document.querySelector("#session-status")?.getAttribute("data-status") === "idle", undefined, { view: "sidebar", what: "the turn to end", timeoutMs: 30_000 });
    const statuses = await evaluate(() => [...document.querySelectorAll<HTMLElement>("[data-tool-call-id]")].map((c) => c.dataset.status ?? ""), undefined, "sidebar");
    assert.ok(statuses.length >= 3, `tool cards: ${statuses.join(", ")}`);
    assert.ok(statuses.every((s) => s === "completed"), `every demo tool completed: ${statuses.join(", ")}`);
    const message = await evaluate(() => document.querySelector(".message-body")?.textContent ?? "", undefined, "sidebar");
    assert.ok(message.length > 50, "the markdown answer is shown");
    const plan = await evaluate(() => [...document.querySelectorAll<HTMLElement>("#plan [data-status]")].map((p) => p.dataset.status), undefined, "sidebar");
    assert.ok(plan.every((s) => s === "completed"), `plan done: ${plan.join(", ")}`);
    await screenshot("test-results/panel-demo-dark.png");
  });

  it("follows the VS Code theme (screenshots in dark, light and high contrast)", async () => {
    const config = vscode.workspace.getConfiguration("workbench");
    const looks: Record<string, string> = {};
    for (const [name, theme] of [["dark", "Default Dark Modern"], ["light", "Default Light Modern"], ["hc", "Default High Contrast"]] as const) {
      await config.update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      await waitFor((cls: string) => document.body.classList.contains(cls), `vscode-${name === "hc" ? "high-contrast" : name}`, { view: "sidebar", what: `the panel in the ${name} theme` });
      looks[name] = await evaluate(() => `${document.body.className} ${getComputedStyle(document.body).backgroundColor} ${getComputedStyle(document.querySelector(".message-body") ?? document.body).color}`, undefined, "sidebar");
      await screenshot(`test-results/panel-${name}.png`);
    }
    await config.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    assert.match(looks.dark!, /vscode-dark/);
    assert.match(looks.light!, /vscode-light/);
    assert.match(looks.hc!, /vscode-high-contrast/);
    assert.notEqual(looks.dark!.split(" ").slice(-3).join(" "), looks.light!.split(" ").slice(-3).join(" "), "text colour follows the theme");
  });

  it("comes back exactly as it was after the view is hidden and shown again", async () => {
    // Something to come back: the turns of the tests before, or (run alone) a turn of its own.
    if (!(await evaluate(() => document.querySelector("#transcript .turn") !== null, undefined, "sidebar"))) {
      await useAgent("Keeper", { turns: [[{ thought: "what to keep on screen" }, { message: "KEEPER: an answer long enough to compare, with a plan and a tool call before it." }]] });
      await (await api()).stream("keep", { agent: "Keeper", newSession: true }).result;
      await waitFor(() => (document.getElementById("transcript")?.innerText ?? "").includes("KEEPER:"), undefined, { view: "sidebar", what: "the turn on screen" });
    }
    const before = await evaluate(() => (document.getElementById("transcript"))?.innerText ?? "", undefined, "sidebar");
    assert.ok(before.length > 100);
    await vscode.commands.executeCommand("workbench.view.explorer");
    const a = await api();
    await until(() => !a._test.controller.anyVisible, "the panel to be hidden");
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const after = await waitFor((want: string) => {
      const t = (document.getElementById("transcript"))?.innerText ?? "";
      return t.length >= want.length ? t : "";
    }, before, { view: "sidebar", what: "the restored transcript" }).catch(async (e: unknown) => {
      const now = await evaluate(() => (document.getElementById("transcript"))?.innerText ?? "", undefined, "sidebar");
      let i = 0;
      while (i < now.length && now[i] === before[i]) i++;
      log(`restored ${now.length} chars vs ${before.length}; first difference at ${i}: before …${JSON.stringify(before.slice(i - 40, i + 80))} after …${JSON.stringify(now.slice(i - 40, i + 80))}`);
      throw e;
    });
    assert.equal(after, before);
  });

  it("Stop cancels a running turn", async () => {
    await useAgent("Waiter", { turns: [[{ thought: "waiting for you to stop me" }, { waitForCancel: true, timeoutMs: 30_000 }]] });
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await sendFromPanel("wait");
    await waitFor(() => document.getElementById("stop") !== null && !(document.getElementById("stop") as HTMLButtonElement).disabled, undefined, { view: "sidebar", what: "the Stop button" });
    await waitFor(() => document.body.textContent?.includes("waiting for you to stop me"), undefined, { view: "sidebar" });
    await click("#stop", "sidebar");
    await waitFor(() => document.querySelector("#session-status")?.getAttribute("data-status") === "idle", undefined, { view: "sidebar", what: "the cancelled turn to end" });
    const text = await evaluate(() => (document.getElementById("transcript"))?.innerText ?? "", undefined, "sidebar");
    assert.match(text, /cancel/i);
  });

  it("renders hostile agent content as text: no foreign elements, attributes or live links", async () => {
    const hostile = HOSTILE.join("\n\n");
    await useAgent("Hostile", {
      afterSessionNew: [{ sessionUpdate: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "<img src=x onerror=alert(1)>", description: HOSTILE[0]! }] } }],
      turns: [[
        { thought: hostile },
        { sessionUpdate: { sessionUpdate: "plan", entries: HOSTILE.map((content) => ({ content, priority: "high", status: "pending" })) } },
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "h1", title: HOSTILE[1]!, kind: "edit", status: "in_progress", locations: [{ path: `/w/${HOSTILE[4]!}` }], rawInput: { html: HOSTILE[0] }, content: [{ type: "diff", path: `/w/${HOSTILE[0]!}`, oldText: HOSTILE[1], newText: HOSTILE[2] }, { type: "content", content: { type: "text", text: hostile } }] } },
        { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "h1", status: "completed", _meta: { terminal_output_delta: { terminal_id: "h1", data: hostile } } } },
        { sessionUpdate: { sessionUpdate: "session_info_update", title: HOSTILE[1] } },
        { sessionUpdate: { sessionUpdate: "notice", severity: "warning", title: HOSTILE[0], description: HOSTILE[2] } },
        { message: hostile + "\n\n" + "x".repeat(100_000) },
      ]],
    });
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await sendFromPanel("hostile");
    await waitFor(() => document.querySelector("#session-status")?.getAttribute("data-status") === "idle" && (document.querySelector(".message-body")?.textContent?.length ?? 0) > 100_000, undefined, { view: "sidebar", what: "the hostile turn", timeoutMs: 30_000 });
    const report = await evaluate(() => {
      const bad: string[] = [];
      // Everything under #root except the extension's own forms (the page's own <script> is outside #root).
      for (const el of document.querySelectorAll("#root *")) {
        const tag = el.tagName.toLowerCase();
        // The extension's own forms (the prompt box, the pinned elicitation form), never inside the transcript.
        if (tag === "form" && (el.classList.contains("prompt-box") || el.classList.contains("elicit-form")) && el.parentElement?.closest("#transcript") === null) continue;
        if (["script", "iframe", "img", "object", "embed", "style", "svg", "form", "meta", "base"].includes(tag) && !el.closest("head")) bad.push(`<${tag}>`);
        for (const attr of el.getAttributeNames()) {
          if (attr.startsWith("on")) bad.push(`${tag}[${attr}]`);
          const v = el.getAttribute(attr) ?? "";
          if ((attr === "href" || attr === "src" || attr === "action" || attr === "xlink:href") && /^\s*javascript:/i.test(v)) bad.push(`${tag}[${attr}=${v}]`);
        }
      }
      const pwned = (window as Window & { __pwned?: number }).__pwned;
      const text = (document.getElementById("transcript"))?.innerText ?? "";
      return { bad, pwned: pwned ?? null, shownAsText: text.includes("<script>window.__pwned = 1</script>"), rtl: /[\u202A-\u202E\u2066-\u2069]/.test(document.body.innerText) };
    }, undefined, "sidebar");
    assert.deepEqual(report.bad, [], `foreign markup: ${report.bad.join(", ")}`);
    assert.equal(report.pwned, null, "no agent script ran");
    assert.ok(report.shownAsText, "hostile markup is shown as text");
    assert.equal(report.rtl, false, "bidi overrides are neutralised in visible text");
    await screenshot("test-results/panel-hostile.png");
  });

  it("two sessions at once: the switcher shows which one waits, and its permission is answered after switching", async () => {
    const agent = (name: string, scenario: Scenario): Record<string, unknown> => (scriptedAgent(name, scenario));
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      agent("Asker", { turns: [[{ permission: { toolCall: { toolCallId: "q1", title: "Delete build/", kind: "delete" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }] }, onSelected: { yes: [{ message: "deleted" }], no: [{ message: "kept build/" }] } }]] }),
      agent("Streamer", { turns: [[{ thought: "busy elsewhere" }, { message: "streamer done" }]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    const asking = a.stream("clean up", { agent: "Asker", newSession: true });
    await until(() => a._test.broker.open().length > 0, "Asker's permission request", 20_000);
    const streaming = await a.stream("work", { agent: "Streamer", newSession: true }).result;
    assert.equal(streaming.text, "streamer done");
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    // The panel shows the newest session; the other one is marked as waiting in the switcher.
    const options = await waitFor(() => {
      const sel = document.querySelector<HTMLSelectElement>(".session-select");
      const texts = sel && !sel.hidden ? [...sel.options].map((o) => `${o.value}|${o.textContent ?? ""}`) : [];
      return texts.some((t) => t.includes("waiting for you")) ? texts : undefined;
    }, undefined, { view: "sidebar", what: "a waiting session in the switcher" });
    const waitingId = (options ?? []).find((t) => t.includes("waiting for you"))!.split("|")[0]!;
    await pickInSwitcher(waitingId);
    await waitFor(() => document.querySelector('[data-option-id="no"]') !== null, undefined, { view: "sidebar", what: "the waiting session's permission buttons" });
    await click('[data-option-id="no"]', "sidebar");
    assert.equal((await asking.result).text, "kept build/");
  });

  it("find counts every match in a picked session's forty folded thoughts (a megabyte of text, counted over several slices)", async () => {
    // Forty thoughts of 29 KB (short enough to be drawn only when opened), each holding "needle" 10 times, a tool call after each so they stay apart.
    const steps: Step[] = [];
    for (let i = 0; i < 40; i++) {
      const thought = Array.from({ length: 10 }, (_, k) => `thought ${i} part ${k} needle ${"filler text ".repeat(240)}`).join("\n\n");
      steps.push({ thought, chunkSize: 8192 });
      steps.push({ sessionUpdate: { sessionUpdate: "tool_call", toolCallId: `c${i}`, title: `Read f${i}.ts`, kind: "read", status: "completed" } });
    }
    steps.push({ message: "FORTY-DONE" });
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Forty", { turns: [[{ message: "ready" }], steps] }),
      scriptedAgent("Elsewhere", { turns: [[{ message: "elsewhere here" }]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    const forty = (await a.stream("start", { agent: "Forty", newSession: true }).result).sessionId;
    await a.stream("look", { agent: "Elsewhere", newSession: true }).result;
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    // The thoughts end while another session is shown: picked, they are drawn folded, their text not drawn.
    await a.stream("think", { sessionId: forty }).result;
    await evaluate((id: string) => {
      const sel = document.querySelector<HTMLSelectElement>(".session-select")!;
      sel.value = id;
      sel.dispatchEvent(new Event("change", { bubbles: true }));
    }, forty, "sidebar");
    await waitFor(() => (document.querySelector("#transcript")?.textContent ?? "").includes("FORTY-DONE"), undefined, { view: "sidebar", what: "the picked session drawn" });
    const later = await evaluate(() => document.querySelectorAll("[data-entry-type='thought'][data-body='later']").length, undefined, "sidebar");
    assert.equal(later, 40, "forty folded thoughts with their text not drawn");
    await fill("#search", "needle", "sidebar");
    const counted = await waitFor(() => {
      const t = document.querySelector(".match-count")?.textContent ?? "";
      return /^\d+ of \d+$/.test(t) ? t : undefined;
    }, undefined, { view: "sidebar", timeoutMs: 30_000, what: "the matches counted" });
    // All 400 counted (the current one is the match the view is nearest).
    assert.match(counted ?? "", / of 400$/);
    await press("#search", "Escape", "sidebar");
  });

  it("a session streaming while another is shown: its text is held back to a few posts a second; picked, all of it shows", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Behind", { turns: [[{ message: "ready" }], [{ thought: "BEHIND-THOUGHT one two three", chunkSize: 5 }, { message: "BEHIND-MESSAGE four five six", chunkSize: 5 }]] }),
      scriptedAgent("Front", { turns: [[{ message: "front here" }]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    const behind = (await a.stream("start", { agent: "Behind", newSession: true }).result).sessionId;
    const front = (await a.stream("look", { agent: "Front", newSession: true }).result).sessionId;
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    assert.equal(a._test.controller.activeSession, front);
    const held = a._test.controller.stats.heldEvents;
    // What the webview is sent of the other session's text, patch by patch.
    await evaluate((id: string) => {
      const w = window as Window & { __atBehind?: string[] };
      w.__atBehind = [];
      window.addEventListener("message", (ev: MessageEvent<unknown>) => {
        const m = ev.data as { type?: string; events?: { sessionId: string; kind: string; text?: string; content?: unknown }[] };
        if (m?.type !== "patch") return;
        const chunks = (m.events ?? []).filter((e) => e.sessionId === id && (e.kind === "thought" || e.kind === "message"));
        // A chunk's text travels once: its content block, only the text again, is left out.
        if (chunks.some((e) => e.content !== undefined)) w.__atBehind!.push("(a text block too)");
        const text = chunks.map((e) => e.text ?? "").join("");
        if (text) w.__atBehind!.push(text);
      });
    }, behind, "sidebar");
    const r = await a.stream("stream now", { sessionId: behind }).result;
    assert.equal(r.text, "BEHIND-MESSAGE four five six");
    assert.ok(a._test.controller.stats.heldEvents > held, "the other session's text was held back");
    assert.equal(a._test.controller.activeSession, front, "the panel still shows the other session");
    const shownText = (): Promise<string> => evaluate(() => document.querySelector("#transcript")?.textContent ?? "", undefined, "sidebar");
    assert.ok(!(await shownText()).includes("BEHIND-"));
    // Before any pick, the webview gets all of its text, in a joined run or a few.
    const sent = await waitFor(() => {
      const got = (window as Window & { __atBehind?: string[] }).__atBehind ?? [];
      return got.join("") === "BEHIND-THOUGHT one two threeBEHIND-MESSAGE four five six" ? got : undefined;
    }, undefined, { view: "sidebar", what: "the other session's text in the webview, unpicked" });
    assert.ok(sent && sent.length < 12, `in a few patches, not chunk by chunk (${sent?.length} for 12 chunks)`);
    assert.equal(a._test.controller.activeSession, front);
    await evaluate((id: string) => {
      const sel = document.querySelector<HTMLSelectElement>(".session-select")!;
      sel.value = id;
      sel.dispatchEvent(new Event("change", { bubbles: true }));
    }, behind, "sidebar");
    await waitFor(() => {
      const t = document.querySelector("#transcript")?.textContent ?? "";
      return t.includes("BEHIND-MESSAGE four five six") && document.querySelector(".thought-text, .thought") !== null;
    }, undefined, { view: "sidebar", what: "the picked session's whole message" });
    // The thought is there too: folded, its text is drawn when it is opened, from what the webview has.
    const folded = await evaluate(() => [...document.querySelectorAll<HTMLElement>("[data-entry-type='thought']:not(.open)")].map((e) => `${e.dataset.body ?? ""}:${e.querySelector(".thought-text")?.textContent ?? ""}`), undefined, "sidebar");
    assert.ok(folded.length > 0 && folded.every((f) => f === "later:"), `folded thoughts drawn with no text until opened: ${JSON.stringify(folded)}`);
    // Find counts a match in a folded thought's text (not on the page), and going to it opens the thought.
    await fill("#search", "two three", "sidebar");
    await waitFor(() => document.querySelector(".match-count")?.textContent === "1 of 1" && document.querySelector("[data-entry-type='thought'].open .thought-text")?.textContent?.includes("BEHIND-THOUGHT one two three"), undefined, { view: "sidebar", what: "the match in the folded thought counted, and the thought opened to show it" });
    await press("#search", "Escape", "sidebar");
    await waitFor(() => document.querySelector<HTMLElement>(".match-count")?.hidden ?? false, undefined, { view: "sidebar", what: "find cleared" });
    const thought = await evaluate(() => {
      for (const head of document.querySelectorAll<HTMLButtonElement>(".thought-head[aria-expanded='false']")) head.click();
      return [...document.querySelectorAll(".thought-text")].map((e) => e.textContent ?? "").join(" ");
    }, undefined, "sidebar");
    assert.match(thought, /BEHIND-THOUGHT one two three/);
  });

  it("Focus Prompt from an editor, once the panel has been used, puts the cursor in the prompt box: what is typed next goes there", async () => {
    // The reader used the panel (a click: before any, the browser lets a webview take no focus), then went to an editor.
    await fill("#prompt", "", "sidebar");
    await click("#transcript", "sidebar");
    const doc = await vscode.workspace.openTextDocument({ content: "the reader was here" });
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand("agentThoughts.focusPrompt");
    await waitFor(() => document.hasFocus() && document.activeElement?.id === "prompt", undefined, { view: "sidebar", what: "the cursor in the prompt box" });
    await harnessRequest({ op: "keyboard", key: "k" });
    await waitFor(() => document.hasFocus() && (document.getElementById("prompt") as HTMLTextAreaElement | null)?.value === "k", undefined, { view: "sidebar", what: "the key typed into the prompt box" });
    assert.equal(doc.getText(), "the reader was here", "the editor got nothing");
    await fill("#prompt", "", "sidebar");
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  it("text selected in a thought as it streams stays selected while the thought grows", async () => {
    const steps: Step[] = [{ thought: "Reading the config first, " }];
    for (let i = 0; i < 60; i++) steps.push({ sleep: 40 }, { thought: `then step ${i} of the plan, ` });
    await useAgent("Selecting", { turns: [steps] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("think slowly", { agent: "Selecting", newSession: true });
    // The reader selects a word of the streaming thought, as with the mouse.
    await waitFor(selectWord, { selector: ".entry-thought.streaming .thought-text", after: "then step 3 ", word: "config" }, { view: "sidebar", what: "a word of the streaming thought selected" });
    // Twenty more chunks later, and at the end of the turn, it is still what is selected.
    await waitFor(() => document.querySelector(".entry-thought.streaming .thought-text")?.textContent?.includes("then step 25 ") ?? false, undefined, { view: "sidebar", what: "the thought grown by twenty chunks" });
    assert.equal(await evaluate(() => getSelection()?.toString() ?? "", undefined, "sidebar"), "config", "the selection as the thought streams");
    await turn.result;
    assert.equal(await evaluate(() => getSelection()?.toString() ?? "", undefined, "sidebar"), "config", "the selection once the turn ended");
  });

  it("text selected in a streaming message stays selected when its paragraph ends and markdown follows", async () => {
    const steps: Step[] = [{ message: "Reading the config first, " }];
    for (let i = 0; i < 20; i++) steps.push({ sleep: 40 }, { message: `then step ${i} of the plan, ` });
    // The paragraph ends (drawn again as a finished block), then a list with bold text and more prose.
    steps.push({ message: "done.\n\n- a **bold** item\n- another `code` item\n\n" });
    for (let i = 0; i < 20; i++) steps.push({ sleep: 30 }, { message: `more text ${i} ` });
    await useAgent("SelectingMessage", { turns: [steps] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("answer slowly", { agent: "SelectingMessage", newSession: true });
    await waitFor(selectWord, { selector: ".entry-message .message-body", after: "then step 3 ", word: "config" }, { view: "sidebar", what: "a word of the streaming message selected" });
    // Once the list is drawn and more prose streamed after it, and at the end of the turn, the same word is selected.
    await waitFor(() => {
      const bodies = document.querySelectorAll(".entry-message .message-body");
      const body = bodies[bodies.length - 1];
      return !!body?.querySelector("li strong") && (body.textContent?.includes("more text 10 ") ?? false);
    }, undefined, { view: "sidebar", what: "the list and ten more chunks drawn" });
    assert.equal(await evaluate(() => getSelection()?.toString() ?? "", undefined, "sidebar"), "config", "the selection after the paragraph ended");
    await turn.result;
    assert.equal(await evaluate(() => getSelection()?.toString() ?? "", undefined, "sidebar"), "config", "the selection once the turn ended");
  });

  it("a word selected after an unclosed ** in a streaming message stays selected when the bold closes and the text moves", async () => {
    // While the agent pauses the reader selects "config" after the literal **; then the bold closes (the ** go, the word moves two characters).
    await useAgent("SelectingBold", { turns: [[{ message: "Then **read the config" }, { sleep: 3000 }, { message: " file** first, then the rest." }, { sleep: 200 }, { message: "\n\nNext paragraph." }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("answer", { agent: "SelectingBold", newSession: true });
    await waitFor(selectWord, { selector: ".entry-message .message-body", after: "**read the config", word: "config" }, { view: "sidebar", what: "a word after the unclosed ** selected" });
    await turn.result;
    await waitFor(() => {
      const bodies = document.querySelectorAll(".entry-message .message-body");
      return bodies[bodies.length - 1]?.querySelector("strong")?.textContent === "read the config file";
    }, undefined, { view: "sidebar", what: "the bold drawn" });
    assert.equal(await evaluate(() => {
      const sel = getSelection();
      return `${sel?.toString() ?? ""}|${sel && sel.rangeCount ? sel.getRangeAt(0).startContainer.parentElement?.tagName : ""}`;
    }, undefined, "sidebar"), "config|STRONG", "the same word, now in the bold");
  });

  it("a thought is markdown (bold, lists, code) with no leading gap; a very long one is plain text", async () => {
    const long = `**not bold** ${"word ".repeat(8000)}`;
    await useAgent("Blanks", { turns: [
      [{ thought: "\n\n" }, { thought: " \r\n" }, { thought: "**Planning** the change:\n\n- check `package.json`\n- then test", chunkSize: 7 }],
      [{ thought: long, chunkSize: 4000 }],
    ] });
    const a = await api();
    const first = await a.stream("plan it", { agent: "Blanks", newSession: true }).result;
    // A thought the panel first sees finished is drawn closed (its text not drawn until opened): opened as a user would.
    await waitFor(() => {
      const thoughts = document.querySelectorAll("[data-entry-type='thought']");
      const entry = thoughts[thoughts.length - 1];
      if (!entry || entry.classList.contains("streaming")) return false;
      if (!entry.classList.contains("open")) entry.querySelector<HTMLButtonElement>(".thought-head")?.click();
      return true;
    }, undefined, { view: "sidebar", what: "the thought, ended, open" });
    const shown = await waitFor(() => {
      const texts = document.querySelectorAll(".thought-text");
      const t = texts[texts.length - 1];
      if (!t || !(t.textContent ?? "").includes("then test") || !t.closest(".entry")?.classList.contains("open")) return undefined;
      const firstBlock = t.querySelector(".md > *");
      return { strong: t.querySelector("strong")?.textContent, items: t.querySelectorAll("li").length, code: t.querySelector("code")?.textContent, literal: (t.textContent ?? "").includes("**"), firstBlock: firstBlock?.tagName, firstText: firstBlock?.textContent };
    }, undefined, { view: "sidebar", what: "the thought rendered as markdown" });
    assert.deepEqual(shown, { strong: "Planning", items: 2, code: "package.json", literal: false, firstBlock: "P", firstText: "Planning the change:" });
    await a.stream("think long", { sessionId: first.sessionId }).result;
    // It may come and end within a frame: then it is drawn closed, and opened here as a user would.
    const plain = await waitFor((n: number) => {
      const thoughts = document.querySelectorAll("[data-entry-type='thought']");
      const entry = thoughts[thoughts.length - 1];
      if (entry && !entry.classList.contains("streaming") && !entry.classList.contains("open")) entry.querySelector<HTMLButtonElement>(".thought-head")?.click();
      const t = entry?.querySelector(".thought-text");
      return t && (t.textContent ?? "").length >= n ? { strong: t.querySelectorAll("strong").length, plain: t.classList.contains("plain"), text: t.textContent } : undefined;
    }, long.length, { view: "sidebar", what: "the long thought, whole" });
    // Exactly the agent's text, in order, across its blocks and their groups.
    assert.deepEqual(plain, { strong: 0, plain: true, text: long });
  });

  it("an answer of millions of lines scrolls in a box of its own: the transcript stays within what the browser lays out, and what comes after it is in view", async () => {
    // 8 MB of ".\n": past 64 KB each line break is a line. Drawn in the transcript itself it
    // made the page 33,554,432 px high (the browser's most) and the answer after it was out of reach.
    const prose = "The reader goes on through a long answer of plain prose, as agents write them at length. ".repeat(1_000);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Lines", { turns: [[
        { message: prose, chunkSize: 65_536 },
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "between", title: "Read between.ts", kind: "read", status: "completed" } },
        { message: ".\n".repeat(4_000_000), chunkSize: 65_536 },
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "after", title: "Read after.ts", kind: "read", status: "completed" } },
        { message: "AFTERFLOOD" },
      ]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await a.stream("lines", { agent: "Lines", newSession: true }).result;
    // Following the bottom: the answer after the flood is on screen, with nothing scrolled by hand.
    const seen = await waitFor(() => {
      const t = document.getElementById("transcript")!;
      const m = [...document.querySelectorAll<HTMLElement>(".entry-message")].find((e) => e.textContent?.trim() === "AFTERFLOOD");
      if (!m) return undefined;
      const r = m.getBoundingClientRect();
      if (document.elementFromPoint(r.left + 4, r.top + r.height / 2)?.closest(".entry-message") !== m) return undefined;
      const bodies = [...document.querySelectorAll<HTMLElement>(".entry-message .message-body")];
      const flood = bodies.find((b) => (b.textContent ?? "").startsWith(".\n"))!;
      const long = bodies.find((b) => (b.textContent ?? "").startsWith("The reader"))!;
      return { page: t.scrollHeight, floodTall: flood.classList.contains("tall"), floodBox: flood.clientHeight, floodScrolls: flood.scrollHeight > flood.clientHeight * 100, view: t.clientHeight, longTall: long.classList.contains("tall"), longPlain: long.classList.contains("plain") };
    }, undefined, { view: "sidebar", what: "the answer after the flood, in view", timeoutMs: 60_000 });
    assert.ok(seen);
    log(`an answer of 4 million lines: page ${seen.page} px, its box ${seen.floodBox} px`);
    await screenshot("test-results/answer-of-millions-of-lines.png");
    assert.ok(seen.floodTall && seen.floodScrolls, "the flood scrolls in a box of its own");
    assert.ok(seen.floodBox <= seen.view, "no higher than the view");
    assert.ok(seen.page < 100_000, `the transcript is as high as what it shows (${seen.page} px)`);
    assert.deepEqual({ tall: seen.longTall, plain: seen.longPlain }, { tall: false, plain: true }, "a long answer of prose (88 KB) is drawn in the transcript as before");
  });

  it("a message streaming past 64 KB keeps the markdown it drew and goes on plain; picked again, drawn the same, found in, and still as the reader scrolls up through it", async () => {
    // Past 64 KB an answer is plain text after its whole blocks within 64 KB: drawn whole when
    // picked, a 4.8 MB answer took one task of seconds and 192,000 elements.
    const paragraph = { flood: { count: 1400, kind: "message" as const, text: "Step {i} checks **item {i}** with `run {i}` and goes on.\n\n", paceMs: 1 } };
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("LongAnswer", { turns: [[paragraph, { sleep: 1000 }, { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "after", title: "Read after.ts", kind: "read", status: "completed" } }, { message: "that was long" }]] }),
      scriptedAgent("Short", { turns: [[{ message: "a short session" }]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("answer at length", { agent: "LongAnswer", newSession: true });
    const before = await waitFor(() => {
      const b = document.querySelector(".entry-message:last-of-type .message-body") ?? [...document.querySelectorAll(".entry-message .message-body")].pop();
      const first = b?.querySelector(".message-md .md-stable > p");
      const strong = b?.querySelectorAll(".message-md strong").length ?? 0;
      if (!b || !first || strong < 100 || b.querySelector(".segs")) return undefined;
      first.setAttribute("data-probe", "first");
      return { strong, html: first.innerHTML };
    }, undefined, { view: "sidebar", what: "the answer as markdown, under 64 KB", timeoutMs: 20_000 });
    assert.ok(before);
    /** The long answer: plain past 64 KB, markdown before, every step in order. */
    const past = (): { plain: boolean; sameFirst: string | false; strong: number; inOrder: number | false; literal: boolean; markdownAfter: number; segsOutside: boolean } | undefined => {
      const b = [...document.querySelectorAll(".entry-message .message-body")].find((x) => (x.textContent ?? "").startsWith("Step 0 "));
      if (!b || !(b.textContent ?? "").includes("Step 1399 ")) return undefined;
      const first = b.querySelector("[data-probe='first']");
      const steps = [...(b.textContent ?? "").matchAll(/Step (\d+) /g)].map((m) => Number(m[1]));
      const segs = [...b.querySelectorAll(".seg")].map((g) => g.textContent ?? "").join("");
      return {
        plain: b.classList.contains("plain"), sameFirst: first?.isConnected === true && first.innerHTML, strong: b.querySelectorAll(":scope > .message-md strong").length,
        inOrder: steps.every((n, i) => n === i) && steps.length, literal: segs.includes("**item 1399** with `run 1399`"), markdownAfter: b.querySelectorAll(".segs strong").length,
        segsOutside: [...b.querySelectorAll(".seg")].every((g) => g.parentElement?.parentElement === b && g.parentElement.classList.contains("segs")),
      };
    };
    const after = await waitFor(past, undefined, { view: "sidebar", what: "the answer past 64 KB, to its last step", timeoutMs: 30_000 });
    assert.ok(after);
    assert.equal(after.sameFirst, before.html, "the first paragraph is the one drawn before, as it was");
    assert.ok(after.strong >= 1000 && after.strong < 1200, `the paragraphs within 64 KB stay markdown (${after.strong} bold)`);
    assert.deepEqual({ ...after, sameFirst: true, strong: 0 }, { plain: true, sameFirst: true, strong: 0, inOrder: 1400, literal: true, markdownAfter: 0, segsOutside: true });
    const { sessionId } = await turn.result;
    // Where the markdown ends and the plain text goes on, in view.
    await evaluate(() => [...document.querySelectorAll(".entry-message .message-md .md-stable > :last-child")].pop()?.scrollIntoView({ block: "center" }), undefined, "sidebar");
    await waitFor(() => [...document.querySelectorAll(".entry-message .message-body > .segs .seg")][0]?.checkVisibility({ contentVisibilityAuto: true }) === true, undefined, { view: "sidebar", what: "the plain text after the markdown drawn" });
    await screenshot("test-results/message-past-64kb-markdown-start.png");
    await a.stream("one answer", { agent: "Short", newSession: true }).result;
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("a short session"), undefined, { view: "sidebar", what: "the short session" });
    // Picked again: drawn at once the same way, its markdown start no longer.
    await pickInSwitcher(sessionId);
    const again = await waitFor(past, undefined, { view: "sidebar", what: "the answer drawn again when picked" });
    assert.deepEqual({ ...again, sameFirst: true }, { ...after, sameFirst: true }, "drawn anew as it was drawn streaming");
    // Found in its plain part, as drawn (the marks are text there): one match, shown.
    await fill("#search", "1399** with", "sidebar");
    await waitFor(() => document.querySelector(".match-count")?.textContent === "1 of 1", undefined, { view: "sidebar", what: "the match in the plain part counted" });
    await press("#search", "Enter", "sidebar");
    await waitFor(currentMatchInView, undefined, { view: "sidebar", what: "the match in view" });
    await fill("#search", "", "sidebar");
    // Scrolling up through its plain text, groups laid out as they come near: the text in the
    // middle of the view stays where it was at each step, give or take what a group above it grows
    // by as it is laid out in place of its estimate, when scroll anchoring misses that (145 px of
    // 3,844, in about one run of four; with one fixed guess for every group, 2,285 px). (From the
    // latest: the match was near it.)
    await evaluate(() => { const t = document.getElementById("transcript")!; t.scrollTop = t.scrollHeight; }, undefined, "sidebar");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === true, undefined, { view: "sidebar", what: "following the bottom again" });
    const view = await evaluate(() => ({ height: document.getElementById("transcript")!.clientHeight }), undefined, "sidebar");
    const up = (): { id: string; at: number } => {
      const t = document.getElementById("transcript")!;
      t.scrollTop = Math.max(0, t.scrollTop - t.clientHeight / 2);
      const box = t.getBoundingClientRect();
      const e = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)?.closest<HTMLElement>(".segs, .entry");
      if (e) e.id ||= `probe-${Math.random().toString(36).slice(2)}`;
      return { id: e?.id ?? "", at: e?.getBoundingClientRect().top ?? NaN };
    };
    let groups = 0;
    const moved: string[] = [];
    for (let i = 0; i < 30; i++) {
      const mid = await evaluate(up, undefined, "sidebar");
      if (mid.id.startsWith("probe-")) groups++;
      const at = await waitFor((id: string) => {
        const t = document.getElementById("transcript")!;
        // Laid out: every group within half a view of the view (content-visibility: auto, panel.css).
        const view = t.getBoundingClientRect();
        for (const g of document.querySelectorAll(".message-body > .segs")) {
          const r = g.getBoundingClientRect();
          if (r.bottom > view.top - view.height / 2 && r.top < view.bottom + view.height / 2 && !g.checkVisibility({ contentVisibilityAuto: true })) return undefined;
        }
        return document.getElementById(id)?.getBoundingClientRect().top;
      }, mid.id, { view: "sidebar", what: "the groups near the view laid out" });
      assert.ok(at !== undefined, `step ${i}: the text in the middle of the view still drawn`);
      if (Math.abs(at - mid.at) > 1) moved.push(`step ${i}: ${mid.at} -> ${at}`);
      assert.ok(Math.abs(at - mid.at) < view.height / 3, `step ${i}: the text in the middle of the view stayed where it was (${mid.at} -> ${at})`);
    }
    assert.ok(moved.length <= 2, `the text in the view moved in ${moved.length} steps of 30: ${moved.join("; ")}`);
    assert.ok(groups >= 20, `scrolled through the plain text (${groups} steps in it)`);
  });

  it("a thought streaming past 32 KB keeps the markdown it drew, only the rest going on plain; drawn anew, the same", async () => {
    // Past 32 KB a thought is plain text. What was drawn as markdown (bold, code) stays as it was:
    // the paragraphs read do not move or lose their marks; the rest goes on plain after them. A
    // new panel draws the same: its whole blocks within 32 KB as markdown, plain text after them.
    // The second thought opens with a paragraph long enough to be cut while it streams: drawn
    // again whole as it passes 32 KB, so no cut stays in it.
    const paragraph = { flood: { count: 700, text: "Step {i} checks **item {i}** with `run {i}` and goes on.\n\n", paceMs: 2 } };
    await useAgent("MarkedLong", { turns: [
      [paragraph, { sleep: 1500 }, { message: "done" }],
      [{ flood: { count: 900, text: "w{i} ", paceMs: 1 } }, { thought: "\n\n" }, paragraph, { sleep: 1500 }, { message: "done again" }],
    ] });
    const a = await api();
    const turn = a.stream("think in markdown at length", { agent: "MarkedLong", newSession: true });
    // Under 32 KB, as markdown: its first paragraph marked to be found again.
    const before = await waitFor(() => {
      const t = document.querySelector(".entry-thought.streaming .thought-text");
      const first = t?.querySelector(".thought-md .md-stable > p");
      const strong = t?.querySelectorAll(".thought-md strong").length ?? 0;
      if (!t || !first || strong < 100 || t.querySelector(".segs")) return undefined;
      first.setAttribute("data-probe", "first");
      return { strong, html: first.innerHTML };
    }, undefined, { view: "sidebar", what: "the thought as markdown, under 32 KB", timeoutMs: 20_000 });
    assert.ok(before);
    const past = (): { plain: boolean; sameFirst: string | false; strong: number; cuts: number; inOrder: number | false; literal: boolean; markdownAfter: number; segsOutside: boolean } | undefined => {
      const t = document.querySelector(".entry-thought.streaming .thought-text");
      const inner = t?.querySelector(".thought-inner");
      if (!t || !inner || !(t.textContent ?? "").includes("Step 699 ")) return undefined;
      const first = t.querySelector("[data-probe='first']");
      const steps = [...(inner.textContent ?? "").matchAll(/Step (\d+) /g)].map((m) => Number(m[1]));
      const segs = [...inner.querySelectorAll(".seg")].map((g) => g.textContent ?? "").join("");
      return {
        plain: t.classList.contains("plain"), sameFirst: first?.isConnected === true && first.innerHTML, strong: inner.querySelectorAll(":scope > .thought-md strong").length,
        cuts: inner.querySelectorAll(":scope > .thought-md .cut").length, inOrder: steps.every((n, i) => n === i) && steps.length,
        literal: segs.includes("**item 699** with `run 699`"), markdownAfter: inner.querySelectorAll(".segs strong").length,
        // The plain text in groups of its own after the markdown, not inside it.
        segsOutside: [...inner.querySelectorAll(".seg")].every((g) => g.parentElement?.parentElement === inner && g.parentElement.classList.contains("segs")),
      };
    };
    const after = await waitFor(past, undefined, { view: "sidebar", what: "the thought past 32 KB, to its last step", timeoutMs: 20_000 });
    assert.ok(after);
    assert.equal(after.sameFirst, before.html, "the first paragraph is the one drawn before, as it was");
    assert.ok(after.strong >= 450 && after.strong < 600, `the paragraphs within 32 KB stay markdown (${after.strong} bold)`);
    assert.deepEqual({ ...after, sameFirst: true, strong: 0 }, { plain: true, sameFirst: true, strong: 0, cuts: 0, inOrder: 700, literal: true, markdownAfter: 0, segsOutside: true });
    // Where the markdown ends and the plain text goes on, in view (the plain text's first group
    // drawn: groups away from the view are skipped, panel.css).
    await evaluate(() => document.querySelector(".entry-thought.streaming .thought-inner > .thought-md .md-stable > :last-child")?.scrollIntoView({ block: "center" }), undefined, "sidebar");
    await waitFor(() => document.querySelector(".entry-thought.streaming .thought-inner > .segs .seg")?.checkVisibility({ contentVisibilityAuto: true }) === true, undefined, { view: "sidebar", what: "the plain text after the markdown drawn" });
    await screenshot("test-results/thought-past-32kb-markdown-start.png");
    const { sessionId } = await turn.result;
    const again = a.stream("and again, after a long paragraph", { agent: "MarkedLong", sessionId });
    await waitFor(() => (document.querySelector(".entry-thought.streaming .thought-md .md-stable > .cut") ? true : undefined), undefined, { view: "sidebar", what: "the long paragraph cut as it streams", timeoutMs: 20_000 });
    const second = await waitFor(past, undefined, { view: "sidebar", what: "the second thought past 32 KB, to its last step", timeoutMs: 20_000 });
    assert.ok(second && second.strong >= 400 && second.strong < 600, `its paragraphs within 32 KB are markdown (${second?.strong} bold)`);
    assert.deepEqual({ ...second, sameFirst: false, strong: 0 }, { plain: true, sameFirst: false, strong: 0, cuts: 0, inOrder: 700, literal: true, markdownAfter: 0, segsOutside: true });
    await again.result;
    // A new panel draws neither while they are folded (find counts them from their text), and
    // both when opened, as a user would: the same markdown.
    await vscode.commands.executeCommand("agentThoughts.openPanel");
    try {
      const folded = await waitFor(() => {
        const entries = [...document.querySelectorAll<HTMLElement>("[data-entry-type='thought']")];
        return entries.length === 2 ? entries.map((e) => `${e.classList.contains("open")} ${e.dataset.body} ${e.querySelector(".thought-inner")?.childNodes.length}`) : undefined;
      }, undefined, { view: "editor", what: "both thoughts in a new panel" });
      assert.deepEqual(folded, ["false later 0", "false later 0"]);
      const drawn = await waitFor(() => {
        const entries = [...document.querySelectorAll<HTMLElement>("[data-entry-type='thought']")];
        const closed = entries.find((e) => !e.classList.contains("open"));
        if (closed) {
          closed.querySelector<HTMLButtonElement>(".thought-head")?.click();
          return undefined;
        }
        if (entries.length !== 2 || !entries.every((e) => (e.textContent ?? "").includes("Step 699 "))) return undefined;
        return entries.map((e) => {
          const steps = [...(e.textContent ?? "").matchAll(/Step (\d+) /g)].map((m) => Number(m[1]));
          return { strong: e.querySelectorAll(".thought-inner > .thought-md strong").length, inOrder: steps.every((n, i) => n === i) && steps.length, literal: (e.textContent ?? "").includes("**item 699**") };
        });
      }, undefined, { view: "editor", what: "both long thoughts opened in a new panel", timeoutMs: 20_000 });
      assert.deepEqual(drawn, [{ strong: after.strong, inOrder: 700, literal: true }, { strong: second.strong, inOrder: 700, literal: true }]);
      await evaluate(() => document.querySelector(".thought-inner > .thought-md .md-stable > :last-child")?.scrollIntoView({ block: "center" }), undefined, "editor");
      await waitFor(() => document.querySelector(".thought-inner > .segs .seg")?.checkVisibility({ contentVisibilityAuto: true }) === true, undefined, { view: "editor", what: "the plain text after the markdown drawn" });
      await screenshot("test-results/thought-past-32kb-drawn-anew.png");
    } finally {
      await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs.filter((t) => t.input instanceof vscode.TabInputWebview && t.label === "Agent Thoughts")));
    }
  });

  it("a long paragraph cut while it streams reads as one paragraph once its thought and message are done", async () => {
    // One paragraph each, longer than the part of a streaming thought (2 KB) or message (8 KB)
    // drawn again per update: while they stream the panel cuts them into blocks; when done they are
    // one paragraph, as markdown draws the text (and as find counts it), what was selected kept.
    const words = (tag: string, n: number): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
    const [t0, t1, t2, m0, m1] = [words("t", 400), words("u", 400), words("v", 400), words("m", 2000), words("n", 1000)];
    await useAgent("LongParagraph", { turns: [[
      { thought: t0, chunkSize: 40 }, { sleep: 400 },
      { thought: ` ${t1}`, chunkSize: 40 }, { sleep: 1500 },
      { thought: ` ${t2}`, chunkSize: 40 }, { sleep: 400 },
      { message: m0, chunkSize: 100 }, { sleep: 1500 },
      { message: ` ${m1}`, chunkSize: 100 },
    ]] });
    const a = await api();
    const turn = a.stream("think at length", { agent: "LongParagraph", newSession: true });
    // While the thought streams: cut, its parts meeting with no gap between them.
    const streaming = await waitFor(() => {
      const t = document.querySelector(".entry-thought.streaming .thought-md");
      const cut = t?.querySelector(".md-stable > .cut");
      if (!t || !cut || !(t.textContent ?? "").includes("u399")) return undefined;
      const next = cut.nextElementSibling ?? t.querySelector(".md-tail > :first-child");
      // The words either side of the cut.
      const seam = `${(cut.textContent ?? "").trim().split(" ").pop() ?? ""} ${(next?.textContent ?? "").trim().split(" ")[0] ?? ""}`;
      return { cutGap: getComputedStyle(cut).marginBottom, nextGap: next ? getComputedStyle(next).marginTop : "none", seam };
    }, undefined, { view: "sidebar", what: "the streaming thought, cut", timeoutMs: 15_000 });
    assert.ok(streaming);
    const { seam, ...gaps } = streaming;
    assert.deepEqual(gaps, { cutGap: "0px", nextGap: "0px" });
    assert.match(seam, /^[tuv]\d+ [tuv]\d+$/);
    await screenshot("test-results/long-paragraph-streaming.png");
    const streamingMessage = await waitFor(() => {
      const m = document.querySelector(".entry-message .message-body");
      return m && (m.textContent ?? "").includes("m1999") && !(m.textContent ?? "").includes("n0") ? m.querySelectorAll(".cut").length : undefined;
    }, undefined, { view: "sidebar", what: "the streaming message, cut" });
    assert.ok(streamingMessage !== undefined && streamingMessage > 0, "the message is cut while it streams");
    // The reader selects a word in it while it streams.
    assert.ok(await evaluate(() => {
      const walker = document.createTreeWalker(document.querySelector(".entry-message .md-stable")!, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const at = (n as Text).data.indexOf(" m10 ");
        if (at < 0) continue;
        const r = document.createRange();
        r.setStart(n, at + 1);
        r.setEnd(n, at + 4);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(r);
        return getSelection()?.toString() === "m10";
      }
      return false;
    }, undefined, "sidebar"), "a word selected in the streaming message");
    await turn.result;
    // Done: the message one paragraph, the word still selected.
    const message = await waitFor((want: string) => {
      const m = document.querySelector(".entry-message .message-body");
      if (!m || !(m.textContent ?? "").includes("n999")) return undefined;
      const ps = [...m.querySelectorAll("p")].map((p) => p.textContent ?? "");
      return ps.length === 1 ? { whole: ps[0] === want, cuts: m.querySelectorAll(".cut").length, selected: getSelection()?.toString() ?? "" } : undefined;
    }, `${m0} ${m1}`, { view: "sidebar", what: "the message done, one paragraph" });
    assert.deepEqual(message, { whole: true, cuts: 0, selected: "m10" });
    // The thought folded when it ended: find counts the words either side of its cut as the text has them, and going there opens it.
    await fill("#search", seam, "sidebar");
    await waitFor(() => document.querySelector(".match-count")?.textContent === "1 of 1", undefined, { view: "sidebar", what: `"${seam}" found once` });
    await fill("#search", "", "sidebar");
    await evaluate(() => {
      const t = document.querySelector(".entry-thought");
      if (t && !t.classList.contains("open")) t.querySelector<HTMLButtonElement>(".thought-head")?.click();
    }, undefined, "sidebar");
    const thought = await waitFor((want: string) => {
      const t = document.querySelector(".entry-thought.open .thought-md");
      if (!t) return undefined;
      const ps = [...t.querySelectorAll("p")].map((p) => p.textContent ?? "");
      return { whole: ps.length === 1 && ps[0] === want, cuts: t.querySelectorAll(".cut").length, paragraphs: ps.length };
    }, `${t0} ${t1} ${t2}`, { view: "sidebar", what: "the thought open" });
    assert.deepEqual(thought, { whole: true, cuts: 0, paragraphs: 1 });
    await screenshot("test-results/long-paragraph-done.png");
    // Looked at dark in a 1280×800 window too.
    const config = vscode.workspace.getConfiguration("workbench");
    try {
      await viewport(1280, 800);
      await config.update("colorTheme", "Default Dark Modern", vscode.ConfigurationTarget.Global);
      await waitFor(() => document.body.classList.contains("vscode-dark"), undefined, { view: "sidebar", what: "the dark theme" });
      await screenshot("test-results/long-paragraph-done-1280x800-dark.png");
    } finally {
      await config.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      await viewport(1400, 900);
    }
  });

  it("a thought past 32 KB, drawn as plain text, streams on in segments whose cuts are not seen", async () => {
    // Past 32 KB a thought is plain text in segments of 1-2 KB (a frame lays out the newest); one
    // with no line breaks to end them is cut where the drawn text starts a line. Written as a fast
    // agent writes (a chunk a millisecond): a burst larger than a segment's room is cut as before.
    await useAgent("PlainLong", { turns: [[{ flood: { count: 7_000, text: "w{i} ", paceMs: 1 } }, { sleep: 3000 }, { message: "done" }]] });
    const a = await api();
    const turn = a.stream("think past 32 KB", { agent: "PlainLong", newSession: true });
    const cuts = await waitFor(cutsThatShow, { join: "", last: "w6998 w6999" }, { view: "sidebar", what: "the plain thought streamed to its end", timeoutMs: 40_000 });
    assert.ok(await evaluate(() => document.querySelector(".entry-thought.streaming .thought-text")?.classList.contains("plain") ?? false, undefined, "sidebar"), "drawn as plain text");
    assert.ok(cuts && cuts.cuts >= 10, `cut ${cuts?.cuts} times`);
    assert.equal(cuts.measured, cuts.cuts, "every cut measured");
    // Only where it was first drawn plain, its first 32 KB at once with nothing laid out to read: cut at spaces there.
    const late = cuts.at.filter((at) => at > 34_000);
    assert.deepEqual(late, [], `no cut past the first 32 KB shows: ${cuts.shown.join(", ")}`);
    await screenshot("test-results/plain-thought-streaming.png");
    await turn.result;
  });

  it("a long thought streams in blocks whose cuts are not seen: each where a drawn line starts, in English and in Chinese", async () => {
    // While a thought streams it is drawn in blocks, so a frame lays out the newest one only; a cut
    // where the drawn text starts a line reads as the one paragraph it is. (As a fast agent writes.)
    await useAgent("Sentences", { turns: [
      [{ flood: { count: 220, text: "Step {i} checks the parser, then its tests (all of them). ", paceMs: 8 } }, { sleep: 3000 }, { message: "done" }],
      [{ flood: { count: 500, text: "第{i}步检查解析器和测试。", paceMs: 4 } }, { sleep: 3000 }, { message: "done" }],
    ] });
    const a = await api();
    const first = a.stream("think in sentences", { agent: "Sentences", newSession: true });
    const englishCuts = await waitFor(cutsThatShow, { join: " ", last: "Step 219 checks the parser, then its tests (all of them)." }, { view: "sidebar", what: "the streaming thought at its end", timeoutMs: 20_000 });
    assert.ok(englishCuts && englishCuts.cuts >= 3, `cut ${englishCuts?.cuts} times`);
    assert.equal(englishCuts.measured, englishCuts.cuts, "every cut measured");
    assert.deepEqual(englishCuts.shown, [], "no cut shows");
    await screenshot("test-results/sentences-streaming.png");
    await first.result;
    const second = a.stream("now in Chinese", { sessionId: (await first.result).sessionId });
    const chineseCuts = await waitFor(cutsThatShow, { join: "", last: "第499步检查解析器和测试。" }, { view: "sidebar", what: "the streaming Chinese thought at its end", timeoutMs: 20_000 });
    assert.ok(chineseCuts && chineseCuts.cuts >= 2, `cut ${chineseCuts?.cuts} times`);
    assert.equal(chineseCuts.measured, chineseCuts.cuts, "every cut measured");
    assert.deepEqual(chineseCuts.shown, [], "no cut shows");
    await screenshot("test-results/sentences-streaming-chinese.png");
    await second.result;
  });

  it("a long thought cut while it streams is cut anew when the panel's width changes: no cut shows at the new width", async () => {
    // The cuts are where drawn lines started; at another width those lines start elsewhere, so the
    // cuts made before would show as line breaks mid-sentence. The panel's content is narrowed (as
    // dragging the sidebar's edge does) while the thought streams.
    await useAgent("Narrowed", { turns: [[{ flood: { count: 300, text: "Step {i} checks the parser, then its tests (all of them). ", paceMs: 8 } }, { sleep: 3000 }, { message: "done" }]] });
    const a = await api();
    const turn = a.stream("think while I resize", { agent: "Narrowed", newSession: true });
    try {
      const before = await waitFor(() => {
        const t = document.querySelector(".entry-thought.streaming .thought-md");
        if (!t || !(t.textContent ?? "").includes("Step 150 ") || t.querySelectorAll(".md-stable > .cut").length < 2) return undefined;
        document.getElementById("root")!.style.marginRight = "41px";
        return t.querySelectorAll(".md-stable > .cut").length;
      }, undefined, { view: "sidebar", what: "the thought cut twice, half streamed", timeoutMs: 20_000 });
      assert.ok(before && before >= 2);
      const cuts = await waitFor(cutsThatShow, { join: " ", last: "Step 299 checks the parser, then its tests (all of them)." }, { view: "sidebar", what: "the streaming thought at its end", timeoutMs: 20_000 });
      assert.ok(cuts && cuts.cuts >= 1, `cut ${cuts?.cuts} times`);
      assert.equal(cuts.measured, cuts.cuts, "every cut measured");
      assert.deepEqual(cuts.shown, [], "no cut shows at the new width");
    } finally {
      await evaluate(() => { document.getElementById("root")!.style.marginRight = ""; }, undefined, "sidebar");
    }
    await turn.result;
  });

  it("a long thought is not cut inside bold text, inline code or a link while it streams: no markdown mark shows", async () => {
    // Each piece of a cut thought is drawn on its own until the thought is done: a cut inside a
    // span would show its marks (** or a backtick) and the rest of it plain. Most sentence ends
    // here are inside one. The first 40 sentences come in small chunks; the next 120, mostly code,
    // in five writes of 4.5 KB: a tail that grew past two pieces at once is cut near its end, where the
    // part looked at starts anywhere in the text (inside a code span, half of the time). Under
    // 32 KB in all (a longer thought is drawn as plain text).
    const sentence = (i: number): string => i < 40
      ? `Step ${i} runs **the parser. Then. Its ${i % 7} tests. All** with \`npm test. Again. Once\` and [the guide. Its. Notes](https://example.com/${i}) too.`
      : `Step ${i} runs **the parser. Then** with \`npm test. Again. Once more. And again. Then all of it. Here. Now. Then the rest. Of it all. Done\` and [the guide. Its. Notes](https://example.com/${i}) too.`;
    const marked = Array.from({ length: 160 }, (_, i) => sentence(i)).join(" ");
    const half = marked.indexOf("Step 40 ");
    // Each write a while after the last, so that each reaches the panel on its own.
    const writes = Array.from({ length: Math.ceil((marked.length - half) / 4500) }, (_, k) => [{ thought: marked.slice(half + 4500 * k, Math.min(marked.length, half + 4500 * (k + 1))) }, { sleep: 150 }]).flat();
    await useAgent("Marked", { turns: [[{ thought: marked.slice(0, half), chunkSize: 41 }, ...writes, { sleep: 4000 }, { message: "done" }]] });
    const a = await api();
    const turn = a.stream("think in markdown", { agent: "Marked", newSession: true });
    const shown = await waitFor(() => {
      const t = document.querySelector(".entry-thought.streaming .thought-md");
      // All of it in, every span closed (its last words drawn as a link's text).
      const text = t?.textContent ?? "";
      if (!t || !text.includes("Step 159 runs") || !text.trimEnd().endsWith("Notes too.")) return undefined;
      return { cuts: t.querySelectorAll(".md-stable > .cut").length, marks: text.match(/[*`[\]]|\(https/g)?.length ?? 0, bold: t.querySelectorAll("strong").length, code: t.querySelectorAll("code").length, links: t.querySelectorAll("a").length, where: [...t.querySelectorAll(".md-stable > *, .md-tail > *")].filter((b) => /[*`[\]]/.test(b.textContent ?? "")).slice(0, 4).map((b) => `${b.className}|${b.parentElement?.className}|${b.outerHTML.slice(0, 300)}`) };
    }, undefined, { view: "sidebar", what: "the streaming thought at its end", timeoutMs: 20_000 });
    assert.ok(shown && shown.cuts >= 5, `cut ${shown?.cuts} times`);
    assert.equal(shown.marks, 0, `no markdown mark drawn as text: ${JSON.stringify(shown.where)}`);
    assert.deepEqual([shown.bold, shown.code, shown.links], [160, 160, 160], "every span drawn");
    await screenshot("test-results/marked-streaming.png");
    await turn.result;
  });

  it("a long thought still streaming in a session picked again is drawn in pieces, only those in its box laid out, all of it readable and found", async () => {
    // Picking a session whose agent is thinking at length draws its thought anew: in pieces of
    // about 2 KB that meet with no gap, the browser laying out only the pieces near the box's view
    // (the pick costs the lines the box shows, not the thought); scrolled to its top, the box shows
    // the first words; find goes to a word far above the view and shows it. A long thought with a
    // code block and a table in it is not cut inside either.
    const words = (tag: string, n: number): string => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
    const long = words("w", 3000);
    // A code block and a table longer than a piece, so the pieces would cut them somewhere.
    const code = Array.from({ length: 100 }, (_, i) => `# step ${i}: let v${i} = f(a, b)\n`).join("");
    const table = Array.from({ length: 150 }, (_, i) => `| ${i} | cell ${i} |\n`).join("");
    const fenced = `${words("f", 600)}\n\`\`\`\n${code}\`\`\`\n${words("g", 600)}\n| a | b |\n|---|---|\n${table}${words("h", 600)}`;
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("LongThinker", { turns: [[{ thought: long, chunkSize: 5000 }, { waitForCancel: true, timeoutMs: 60_000 }]] }),
      scriptedAgent("FencedThinker", { turns: [[{ thought: fenced, chunkSize: 5000 }, { waitForCancel: true, timeoutMs: 60_000 }]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const stops = [new AbortController(), new AbortController()];
    const firstTurn = a.stream("think at length", { agent: "LongThinker", newSession: true, signal: stops[0]!.signal });
    let secondTurn: ReturnType<typeof a.stream> | undefined;
    try {
      let first: string | undefined;
      for await (const e of firstTurn) if (e.kind === "thought") { first = e.sessionId; break; }
      assert.ok(first);
      secondTurn = a.stream("think again", { agent: "FencedThinker", newSession: true, signal: stops[1]!.signal });
      const lastThought = (arg: { prompt: string; word: string }): boolean => {
        const shown = [...document.querySelectorAll("#transcript .turn-prompt .prompt-text")].at(-1)?.textContent?.trim();
        return shown === arg.prompt && (document.querySelector(".entry-thought.streaming .thought-md")?.textContent ?? "").includes(arg.word);
      };
      await waitFor(lastThought, { prompt: "think again", word: "h599" }, { view: "sidebar", what: "the second session thinking" });
      const blocks = await evaluate(() => {
        const t = document.querySelector(".entry-thought.streaming .thought-md")!;
        return { code: [...t.querySelectorAll("pre")].map((p) => p.textContent ?? ""), headings: t.querySelectorAll("h1, h2, h3").length, tables: t.querySelectorAll("table").length, cells: t.querySelectorAll("td").length };
      }, undefined, "sidebar");
      assert.deepEqual(blocks, { code: [code], headings: 0, tables: 1, cells: 300 });
      await pickInSwitcher(first);
      await waitFor(lastThought, { prompt: "think at length", word: "w2999" }, { view: "sidebar", what: "the first session picked, its thought drawn" });
      const drawn = await evaluate((want: string) => {
        const box = document.querySelector<HTMLElement>(".entry-thought.streaming .thought-text")!;
        const pieces = [...box.querySelectorAll<HTMLElement>(".md-stable > p")];
        const boxRect = box.getBoundingClientRect();
        const last = [...box.querySelectorAll(".md-stable > p, .md-tail p")].at(-1);
        const r = document.createRange();
        if (last) r.selectNodeContents(last);
        const lastLine = last ? [...r.getClientRects()].at(-1) : undefined;
        return {
          text: (box.querySelector(".thought-md")?.textContent ?? "").replace(/\s+/g, " ").trim() === want,
          pieces: pieces.length,
          longest: Math.max(...pieces.map((p) => (p.textContent ?? "").length)),
          cut: pieces.every((p) => p.classList.contains("cut") && getComputedStyle(p).marginBottom === "0px"),
          // Not laid out: the height it is given until it is (contain-intrinsic-block-size), not its text's.
          rendered: pieces.map((p) => p.offsetHeight !== parseFloat(getComputedStyle(p).containIntrinsicBlockSize.replace("auto", ""))),
          lastWordsInBox: lastLine !== undefined && lastLine.bottom <= boxRect.bottom + 1 && lastLine.top >= boxRect.top - 1,
        };
      }, long, "sidebar");
      assert.equal(drawn.text, true, "the whole thought is in the box");
      assert.ok(drawn.pieces >= 6, `cut in pieces (${drawn.pieces})`);
      assert.ok(drawn.longest <= 2048, `pieces of at most 2 KB (${drawn.longest})`);
      assert.equal(drawn.cut, true, "pieces meet with no gap");
      assert.equal(drawn.rendered[0], false, `the first piece, far above the box's view, is not laid out (${drawn.rendered.join(" ")})`);
      assert.ok(drawn.rendered.filter((r) => !r).length >= drawn.pieces - 3, `only the pieces near the view are laid out (${drawn.rendered.join(" ")})`);
      assert.equal(drawn.lastWordsInBox, true, "the box shows the newest words");
      await screenshot("test-results/long-thought-picked.png");
      // Scrolled to its top, the box draws and shows the first words.
      await evaluate(() => {
        const box = document.querySelector<HTMLElement>(".entry-thought.streaming .thought-text")!;
        const p = box.querySelector<HTMLElement>(".md-stable > p")!;
        p.addEventListener("contentvisibilityautostatechange", (e) => { if (!(e as Event & { skipped: boolean }).skipped) p.dataset.testDrawn = "1"; });
        box.scrollTop = -box.scrollHeight;
      }, undefined, "sidebar");
      const top = await waitFor(() => {
        const box = document.querySelector<HTMLElement>(".entry-thought.streaming .thought-text")!;
        const p = box.querySelector<HTMLElement>(".md-stable > p");
        if (p?.dataset.testDrawn !== "1") return undefined;
        const r = document.createRange();
        r.setStart(p.firstChild!, 0);
        r.setEnd(p.firstChild!, 2);
        const word = r.getBoundingClientRect();
        const b = box.getBoundingClientRect();
        return word.top >= b.top - 1 && word.bottom <= b.bottom + 1 ? (p.textContent ?? "").slice(0, 8) : undefined;
      }, undefined, { view: "sidebar", what: "the thought's first words in its box" });
      assert.equal(top, "w0 w1 w2");
      await screenshot("test-results/long-thought-picked-top.png");
      // Find counts a word of a piece far from the view.
      await evaluate(() => {
        const box = document.querySelector<HTMLElement>(".entry-thought.streaming .thought-text")!;
        box.scrollTop = 0;
      }, undefined, "sidebar");
      await fill("#search", "w1500", "sidebar");
      await waitFor(() => document.querySelector(".match-count")?.textContent === "1 of 1", undefined, { view: "sidebar", what: "a word far up the thought found" });
      // Shown in the box (frames later, once the piece it is in is drawn, too).
      const matchInBox = (): boolean => {
        const box = document.querySelector<HTMLElement>(".entry-thought.streaming .thought-text")!;
        const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const at = (n as Text).data.indexOf("w1500 ");
          if (at < 0) continue;
          const r = document.createRange();
          r.setStart(n, at);
          r.setEnd(n, at + 5);
          const m = r.getBoundingClientRect();
          const b = box.getBoundingClientRect();
          if (m.height === 0 || m.top < b.top - 1 || m.bottom > b.bottom + 1) return false;
          // And drawn there: what is at that point on screen is the word (a block not drawn measures, but hits itself).
          const hit = document.caretRangeFromPoint(m.left + m.width / 2, m.top + m.height / 2);
          return hit?.startContainer === n && hit.startOffset >= at && hit.startOffset <= at + 5;
        }
        return false;
      };
      await waitFor(matchInBox, undefined, { view: "sidebar", what: "the match in the thought's box" });
      for (let i = 0; i < 3; i++) await evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))), undefined, "sidebar");
      assert.equal(await evaluate(matchInBox, undefined, "sidebar"), true, "the match still in the box frames later");
      await screenshot("test-results/long-thought-find.png");
      await press("#search", "Escape", "sidebar");
    } finally {
      for (const s of stops) s.abort();
      await Promise.allSettled([firstTurn.result, secondTurn?.result]);
    }
  });

  it("the open question is pinned in sight at 1600×1000 however far the transcript scrolled, and keys answer it", async () => {
    await viewport(1600, 1000);
    try {
      const chatter = Array.from({ length: 40 }, (_, i) => ({ message: `Step ${i}: looked at something worth a line or two of explanation.\n\n` }));
      const ask = (id: string, title: string) => ({
        permission: { toolCall: { toolCallId: id, title, kind: "execute", status: "pending" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }, { optionId: "always", name: "Always allow", kind: "allow_always" }, { optionId: "no", name: "Reject", kind: "reject_once" }] },
        onSelected: { yes: [{ message: `${id} allowed` }], no: [{ message: `${id} rejected` }] },
      });
      await useAgent("Asker", { turns: [[...chatter, ask("run-1", "npm run deploy"), ask("run-2", "rm -rf build")]] });
      const a = await api();
      await vscode.commands.executeCommand("agentThoughts.panel.focus");
      const turn = a.stream("deploy it", { agent: "Asker", newSession: true });
      // Scrolled up, as someone reading back would be.
      await waitFor(() => document.querySelector("#question:not([hidden]) [data-answer]") !== null, undefined, { view: "sidebar", what: "the pinned question" });
      await evaluate(() => { const t = document.querySelector(".entries"); if (t) t.scrollTop = 0; }, undefined, "sidebar");
      const seen = await waitFor(() => {
        const b = document.querySelector<HTMLElement>('#question [data-answer="yes"]');
        if (!b) return undefined;
        const r = b.getBoundingClientRect();
        const x = r.left + r.width / 2;
        const y = r.top + r.height / 2;
        const inView = r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth;
        const top = document.elementFromPoint(x, y);
        return inView && top !== null && b.contains(top) ? { title: document.querySelector("#question .question-title")?.textContent ?? "", always: document.querySelector('#question [data-answer="always"]')?.className ?? "" } : undefined;
      }, undefined, { view: "sidebar", what: "the Allow button inside the visible panel, not covered", timeoutMs: 2000 });
      assert.ok(seen);
      assert.match(seen.title, /asks: npm run deploy/);
      assert.match(seen.always, /always/, "an always option looks different");
      await screenshot("test-results/question-1600x1000.png");
      // Looked at in both themes and at a smaller window too.
      const config = vscode.workspace.getConfiguration("workbench");
      for (const [name, theme, w, hgt] of [["dark", "Default Dark Modern", 1280, 800], ["light", "Default Light Modern", 1280, 800]] as const) {
        await viewport(w, hgt);
        await config.update("colorTheme", theme, vscode.ConfigurationTarget.Global);
        await waitFor((cls: string) => document.body.classList.contains(cls) && document.querySelector("#question [data-answer]") !== null, `vscode-${name}`, { view: "sidebar", what: `the question in the ${name} theme` });
        await screenshot(`test-results/question-${w}x${hgt}-${name}.png`);
      }
      await config.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      // 1 answers with the first option once the question is ready; the next question takes its place.
      await waitFor(() => document.querySelector("#question[data-ready]") !== null, undefined, { view: "sidebar", what: "the question ready for answers" });
      // Pressed twice: the second press must not answer the question that replaces the first.
      await press("#question", "1", "sidebar");
      await press("#question", "1", "sidebar");
      await waitFor(() => /asks: rm -rf build/.test(document.querySelector("#question .question-title")?.textContent ?? "") && document.querySelector("#question[data-ready]") !== null, undefined, { view: "sidebar", what: "the second question, ready" });
      // Escape in the question rejects.
      await press("#question", "Escape", "sidebar");
      const r = await turn.result;
      assert.match(r.text, /run-1 allowed/);
      assert.match(r.text, /run-2 rejected/, "the second press of 1 did not allow the next question");
      await waitFor(() => document.querySelector("#question")?.hasAttribute("hidden") === true, undefined, { view: "sidebar", what: "the question gone once answered" });
    } finally {
      await viewport(1400, 900);
    }
  });

  it("follows the bottom: a new prompt after scrolling up shows its answer, resizing keeps following, and the pill covers nothing", async () => {
    const chatter = Array.from({ length: 30 }, (_, i) => ({ message: `Line ${i}: a paragraph long enough to wrap at the sidebar's width, as agents write.\n\n` }));
    await useAgent("Chatty", { turns: [[...chatter, { message: "end of the first answer" }], [...chatter, { message: "THE LAST LINE" }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await a.stream("first", { agent: "Chatty", newSession: true }).result;
    await waitFor(() => (document.querySelector("#transcript")?.textContent ?? "").includes("end of the first answer"), undefined, { view: "sidebar", what: "the first answer" });
    // Scrolled back up to read: the pill shows, in a row of its own that covers no text.
    await evaluate(() => { const t = document.querySelector("#transcript"); if (t) t.scrollTop = 0; }, undefined, "sidebar");
    const pill = await waitFor(() => {
      const jump = document.querySelector<HTMLElement>("#jump-latest");
      const t = document.querySelector("#transcript");
      if (!jump || jump.hidden || !t) return undefined;
      const j = jump.getBoundingClientRect();
      return { pillTop: j.top, transcriptBottom: t.getBoundingClientRect().bottom };
    }, undefined, { view: "sidebar", what: "the Jump to latest pill" });
    assert.ok(pill && pill.pillTop >= pill.transcriptBottom - 0.5, `the pill (${JSON.stringify(pill)}) lies below the transcript, not over it`);
    // The next prompt, sent from the box, brings the reader back to its answer.
    await sendFromPanel("second");
    await waitFor(() => {
      const t = document.querySelector("#transcript");
      if (!t) return false;
      const walker = document.createTreeWalker(t, NodeFilter.SHOW_TEXT);
      let last: Node | null = null;
      for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent?.includes("THE LAST LINE")) last = n;
      if (!last) return false;
      const range = document.createRange();
      range.selectNodeContents(last);
      const r = range.getBoundingClientRect();
      const v = t.getBoundingClientRect();
      return r.bottom <= v.bottom + 1 && r.top >= v.top && document.querySelector<HTMLElement>("#jump-latest")?.hidden === true;
    }, undefined, { view: "sidebar", what: "the last line of the new answer in view, the pill gone" });
    // A narrower window (the text rewraps, the transcript grows taller): still at the bottom.
    await viewport(1000, 700);
    try {
      await waitFor(() => {
        const t = document.querySelector("#transcript");
        return t !== null && t.scrollHeight - t.scrollTop - t.clientHeight <= 2 && document.querySelector<HTMLElement>("#jump-latest")?.hidden === true;
      }, undefined, { view: "sidebar", what: "the transcript still at its bottom after a resize" });
    } finally {
      await viewport(1400, 900);
    }
  });

  it("a reload keeps the reader's place: the same entry at the top of the view, and not following the bottom", async () => {
    const steps: Step[] = Array.from({ length: 40 }, (_, i): Step[] => [
      { message: `Step ${i}: a paragraph long enough to wrap at the sidebar's width, as agents write${i % 3 === 0 ? ", and on some steps a good deal longer than on others, so that the entries differ in height" : ""}.\n\nAnd a second paragraph for step ${i}.` },
      { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: `read-${i}`, title: `Read file${i}.ts`, kind: "read", status: "completed" } },
    ]).flat();
    await useAgent("Reader", { turns: [[...steps, { message: "the end of it" }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await a.stream("read", { agent: "Reader", newSession: true }).result;
    await waitFor(() => (document.querySelector("#transcript")?.textContent ?? "").includes("the end of it"), undefined, { view: "sidebar", what: "the whole answer" });
    // The reader scrolls up to step 12's text, its first lines just out of view above, and stops there.
    const where = (): { top: string; offset: number } | undefined => {
      const t = document.querySelector("#transcript");
      const e = [...document.querySelectorAll<HTMLElement>(".entry")].find((x) => x.textContent?.startsWith("Step 12:"));
      if (!t || !e) return undefined;
      const box = t.getBoundingClientRect();
      // What the view shows at its top, found by hit-testing, not by the code under test.
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + 2)?.closest(".entry");
      return { top: (hit?.textContent ?? "").slice(0, 8), offset: Math.round(e.getBoundingClientRect().top - box.top) };
    };
    await evaluate(() => {
      const t = document.querySelector("#transcript")!;
      const e = [...document.querySelectorAll<HTMLElement>(".entry")].find((x) => x.textContent?.startsWith("Step 12:"))!;
      t.scrollTop += e.getBoundingClientRect().top - t.getBoundingClientRect().top + 12;
    }, undefined, "sidebar");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === false, undefined, { view: "sidebar", what: "the view no longer following the bottom" });
    const before = await evaluate(where, undefined, "sidebar");
    assert.equal(before?.top, "Step 12:", `step 12 at the top of the view before the reload (${JSON.stringify(before)})`);
    // The panel's page goes away and comes back (Developer: Reload Webviews; a window reload restores it the same way).
    await evaluate(() => { (window as Window & { __atOldPage?: boolean }).__atOldPage = true; return true; }, undefined, "sidebar");
    await vscode.commands.executeCommand("workbench.action.webview.reloadWebviewAction");
    await waitFor(() => (window as Window & { __atOldPage?: boolean }).__atOldPage !== true && (document.querySelector("#transcript")?.textContent ?? "").includes("the end of it"), undefined, { view: "sidebar", what: "the new page with the answer", timeoutMs: 60_000 });
    const after = await waitFor((b: { top: string; offset: number }) => {
      const t = document.querySelector("#transcript");
      const e = [...document.querySelectorAll<HTMLElement>(".entry")].find((x) => x.textContent?.startsWith("Step 12:"));
      if (!t || !e) return undefined;
      const box = t.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + 2)?.closest(".entry");
      const now = { top: (hit?.textContent ?? "").slice(0, 8), offset: Math.round(e.getBoundingClientRect().top - box.top) };
      return now.top === b.top && Math.abs(now.offset - b.offset) <= 2 ? now : undefined;
    }, before, { view: "sidebar", what: "step 12 back where it was at the top of the view", timeoutMs: 10_000 }).catch(async (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; before the reload ${JSON.stringify(before)}, now ${JSON.stringify(await evaluate(where, undefined, "sidebar"))}`);
    });
    assert.ok(after, "the reader's place survived the reload");
    assert.equal(await evaluate(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden, undefined, "sidebar"), false, "still not following the bottom");
    // As a user sees it, dark at this size and light in a 1280×800 window (still not following: a resize keeps the place).
    const config = vscode.workspace.getConfiguration("workbench");
    try {
      await config.update("colorTheme", "Default Dark Modern", vscode.ConfigurationTarget.Global);
      await waitFor(() => document.body.classList.contains("vscode-dark"), undefined, { view: "sidebar", what: "the dark theme" });
      await screenshot("test-results/reload-place-dark.png");
      await viewport(1280, 800);
      await config.update("colorTheme", "Default Light Modern", vscode.ConfigurationTarget.Global);
      await waitFor(() => document.body.classList.contains("vscode-light"), undefined, { view: "sidebar", what: "the light theme" });
      assert.equal(await evaluate(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden, undefined, "sidebar"), false, "a smaller window does not make it follow");
      await screenshot("test-results/reload-place-1280x800-light.png");
    } finally {
      await config.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      await viewport(1400, 900);
    }
    // Following again, as the tests after this one expect.
    await click("#jump-latest", "sidebar");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === true, undefined, { view: "sidebar", what: "following the bottom again" });
  });

  it("with thinking expanded, a picked session draws the long thoughts in view at once and the rest as they come near; their boxes keep their height, and find opens one far up", async () => {
    // 40 finished thoughts of 20 KB of markdown: drawing every open one at once took seconds for a
    // hundred (one task, 93,000 elements); now only those in view are drawn in the pick's frame.
    const para = `${"Checking **item** with `code` and words to read on. ".repeat(12)}\n\n`;
    const body = para.repeat(Math.floor(20_000 / para.length));
    const steps: Step[] = [];
    for (let i = 0; i < 40; i++) steps.push({ thought: `T${i} ${body}${i === 0 ? "the FARNEEDLE at its end" : ""}`, chunkSize: 65_536 }, { message: `answer m${i}` });
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Expanded", { turns: [steps] }),
      scriptedAgent("Short", { turns: [[{ message: "a short session" }]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const long = await a.stream("many thoughts", { agent: "Expanded", newSession: true }).result;
    const short = await a.stream("one answer", { agent: "Short", newSession: true }).result;
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("a short session"), undefined, { view: "sidebar", what: "the short session" });
    await vscode.workspace.getConfiguration("agentThoughts").update("thinking.display", "expanded", vscode.ConfigurationTarget.Global);
    /** In the webview: thoughts drawn and not, those in view with no text, and the page's height. */
    const thoughts = (): { drawn: number; waiting: number; emptyInView: string[]; height: number; top: number } => {
      const t = document.getElementById("transcript")!;
      const view = t.getBoundingClientRect();
      let drawn = 0;
      let waiting = 0;
      const emptyInView: string[] = [];
      for (const b of document.querySelectorAll<HTMLElement>("[data-entry-type='thought'] .thought-text")) {
        const has = (b.textContent ?? "").length > 0;
        if (has) drawn++;
        else waiting++;
        const r = b.getBoundingClientRect();
        if (!has && r.height > 0 && r.bottom > view.top && r.top < view.bottom) emptyInView.push(`${Math.round(r.top)}-${Math.round(r.bottom)} in ${Math.round(view.top)}-${Math.round(view.bottom)}`);
      }
      return { drawn, waiting, emptyInView, height: t.scrollHeight, top: t.scrollTop };
    };
    const nextFrames = (): Promise<number> => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(1))));
    try {
      const pick = async (): Promise<void> => {
        await pickInSwitcher(short.sessionId);
        await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("a short session"), undefined, { view: "sidebar", what: "the short session picked" });
        await pickInSwitcher(long.sessionId);
        await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("answer m39"), undefined, { view: "sidebar", what: "the long session picked" });
      };
      await pick();
      const picked = await evaluate(thoughts, undefined, "sidebar");
      assert.deepEqual(picked.emptyInView, [], "every thought in view is drawn in the pick's frame");
      assert.ok(picked.drawn >= 1 && picked.drawn <= 8 && picked.waiting >= 32, `drawn ${picked.drawn}, waiting ${picked.waiting}`);
      // Scrolling up half a view at a time: what comes into view was drawn before it came.
      let at = picked;
      for (let i = 0; i < 400 && at.top > 0; i++) {
        await evaluate(() => { const t = document.getElementById("transcript")!; t.scrollTop = Math.max(0, t.scrollTop - t.clientHeight / 2); }, undefined, "sidebar");
        await evaluate(nextFrames, undefined, "sidebar");
        at = await evaluate(thoughts, undefined, "sidebar");
        assert.deepEqual(at.emptyInView, [], `scrolled up to ${at.top} px: every thought in view drawn`);
        assert.equal(at.height, picked.height, "a thought drawn where it waited is as high as its box was");
      }
      assert.equal(at.top, 0, "at the top");
      assert.equal(at.waiting, 0, "every thought drawn once it came near");
      // Picked again, find goes to a match in the first thought, far above the view and not drawn: it is drawn and shown.
      await pick();
      assert.ok((await evaluate(thoughts, undefined, "sidebar")).waiting >= 32, "put off again");
      await fill("#search", "FARNEEDLE", "sidebar");
      await waitFor(() => document.querySelector(".match-count")?.textContent === "1 of 1", undefined, { view: "sidebar", what: "the match counted" });
      await press("#search", "Enter", "sidebar");
      const shown = await waitFor(currentMatchInView, undefined, { view: "sidebar", what: "the match in the first thought, drawn and in view" });
      assert.equal(shown, "FARNEEDLE");
      await fill("#search", "", "sidebar");
    } finally {
      await vscode.workspace.getConfiguration("agentThoughts").update("thinking.display", undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("a picked session draws the long answers in view at once and the rest as they come near, the view not moving as they take their height; find and a kept place reach one far up", async () => {
    // 40 finished answers of 4 KB of markdown (drawing 150 of 31 KB at once took seconds: one task,
    // 77,000 elements); those away from the view wait in a box of their estimated height.
    const para = `${"Answering **item** with `code` and words to read on. ".repeat(6)}\n\n`;
    const body = para.repeat(Math.floor(4_000 / para.length));
    const { long, short } = await answersThenShort("Answers", Array.from({ length: 40 }, (_, i) => `M${i} ${body}${i === 0 ? "the FARNEEDLE at its end" : ""}`), "all answered");
    /** In the webview: answers drawn and not, those in view with no text, those within a view's height of it not drawn, and the bottom. */
    const answers = (): { drawn: number; waiting: number; emptyInView: string[]; emptyNear: number; top: number; atBottom: boolean } => {
      const t = document.getElementById("transcript")!;
      const view = t.getBoundingClientRect();
      let drawn = 0;
      let waiting = 0;
      let emptyNear = 0;
      const emptyInView: string[] = [];
      for (const b of document.querySelectorAll<HTMLElement>("[data-entry-type='message'] .message-body")) {
        const has = (b.textContent ?? "").length > 0;
        if (has) drawn++;
        else waiting++;
        const r = b.getBoundingClientRect();
        if (!has && r.height > 0 && r.bottom > view.top && r.top < view.bottom) emptyInView.push(`${Math.round(r.top)}-${Math.round(r.bottom)} in ${Math.round(view.top)}-${Math.round(view.bottom)}`);
        if (!has && r.bottom > view.top - view.height && r.top < view.bottom + view.height) emptyNear++;
      }
      return { drawn, waiting, emptyInView, emptyNear, top: t.scrollTop, atBottom: t.scrollTop + t.clientHeight >= t.scrollHeight - 2 };
    };
    const pick = async (): Promise<void> => {
      await pickInSwitcher(short);
      await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("a short session"), undefined, { view: "sidebar", what: "the short session picked" });
      await pickInSwitcher(long);
      await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("all answered"), undefined, { view: "sidebar", what: "the long session picked" });
    };
    await pick();
    const picked = await evaluate(answers, undefined, "sidebar");
    assert.deepEqual(picked.emptyInView, [], "every answer in view is drawn in the pick's frame");
    assert.ok(picked.atBottom, "the view is at the latest");
    assert.ok(picked.drawn >= 1 && picked.drawn <= 8 && picked.waiting >= 32, `drawn ${picked.drawn}, waiting ${picked.waiting}`);
    // Scrolling up half a view at a time: what comes into view was drawn before it came, and the
    // text in the middle of the view stays where it was while those above it take their height.
    /** Scrolls up half a view; the entry in the view's middle, and where it is. */
    const up = (): { id: string; at: number } => {
      const t = document.getElementById("transcript")!;
      t.scrollTop = Math.max(0, t.scrollTop - t.clientHeight / 2);
      const box = t.getBoundingClientRect();
      const e = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)?.closest<HTMLElement>(".entry");
      return { id: e?.dataset.entryId ?? "", at: e?.getBoundingClientRect().top ?? NaN };
    };
    const where = (id: string): number => document.querySelector(`.entry[data-entry-id="${CSS.escape(id)}"]`)?.getBoundingClientRect().top ?? NaN;
    let at = picked;
    for (let i = 0; i < 30 && at.top > 0; i++) {
      const mid = await evaluate(up, undefined, "sidebar");
      assert.ok(mid.id !== "", "an entry in the middle of the view");
      at = await waitFor(() => {
        const t = document.getElementById("transcript")!;
        const view = t.getBoundingClientRect();
        for (const b of document.querySelectorAll<HTMLElement>("[data-entry-type='message'] .message-body")) {
          const r = b.getBoundingClientRect();
          if ((b.textContent ?? "") === "" && r.bottom > view.top - view.height / 2 && r.top < view.bottom + view.height / 2) return undefined;
        }
        return { top: t.scrollTop };
      }, undefined, { view: "sidebar", what: "the answers near the view drawn" }).then(() => evaluate(answers, undefined, "sidebar"));
      assert.deepEqual(at.emptyInView, [], `scrolled up to ${at.top} px: every answer in view drawn`);
      const now = await evaluate(where, mid.id, "sidebar");
      assert.ok(Math.abs(now - mid.at) <= 1, `scrolled up to ${at.top} px: the entry in the middle of the view stayed where it was (${mid.at} -> ${now})`);
    }
    log(`answers: view at ${picked.top} px after the pick, ${at.top} px after 30 steps up; drawn ${picked.drawn} -> ${at.drawn}`);
    assert.ok(at.drawn >= picked.drawn + 2, `answers drawn as they came near: ${picked.drawn} -> ${at.drawn}`);
    // The place the reader scrolled to: kept as they leave the session, and shown when it is picked again.
    const kept = await evaluate(() => {
      const t = document.getElementById("transcript")!;
      const box = t.getBoundingClientRect();
      const e = document.elementFromPoint(box.left + box.width / 2, box.top + 4)?.closest<HTMLElement>(".entry");
      return e ? { id: e.dataset.entryId ?? "", offset: e.getBoundingClientRect().top - box.top } : undefined;
    }, undefined, "sidebar");
    assert.ok(kept, "an entry at the top of the view");
    await pick();
    const back = await evaluate(answers, undefined, "sidebar");
    assert.ok(back.waiting >= 30, `put off again: ${back.waiting} waiting`);
    assert.deepEqual(back.emptyInView, [], "every answer in view drawn at the kept place");
    const place = await evaluate((id: string) => {
      const t = document.getElementById("transcript")!;
      const e = document.querySelector(`.entry[data-entry-id="${CSS.escape(id)}"]`);
      return e ? e.getBoundingClientRect().top - t.getBoundingClientRect().top : NaN;
    }, kept.id, "sidebar");
    assert.ok(Math.abs(place - kept.offset) <= 2, `the kept place shows again: ${kept.offset} -> ${place}`);
    // Find goes to a match at the end of the first answer, far above the view and not drawn: it is drawn and shown.
    await fill("#search", "FARNEEDLE", "sidebar");
    await waitFor(() => document.querySelector(".match-count")?.textContent === "1 of 1", undefined, { view: "sidebar", what: "the match counted" });
    await press("#search", "Enter", "sidebar");
    const shown = await waitFor(currentMatchInView, undefined, { view: "sidebar", what: "the match in the first answer, drawn and in view" });
    assert.equal(shown, "FARNEEDLE");
    await fill("#search", "", "sidebar");
    await click("#jump-latest", "sidebar");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === true, undefined, { view: "sidebar", what: "following the bottom again" });
  });

  it("answers an agent pads with floods of blank lines wait in boxes of the few lines they draw: a pick shows those in view drawn, the rest wait, and a copy holds them all without drawing them", async () => {
    // Each answer is two words 4,000 line breaks apart: markdown draws it in three lines. Taken as
    // 4,000 lines, every box was tens of thousands of pixels high, far taller than its text: the
    // pick left a blank box in view.
    const { long: padded } = await answersThenShort("Padded", Array.from({ length: 300 }, (_, i) => `PAD${i} <b>&x</b> ${"\n".repeat(4_000)}end of ${i}`), "padded all");
    await pickInSwitcher(padded);
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("padded all"), undefined, { view: "sidebar", what: "the padded session picked" });
    const seen = await evaluate(() => {
      const t = document.getElementById("transcript")!;
      const view = t.getBoundingClientRect();
      let drawn = 0;
      let waiting = 0;
      let emptyInView = 0;
      for (const b of document.querySelectorAll<HTMLElement>("[data-entry-type='message'] .message-body")) {
        const has = (b.textContent ?? "").length > 0;
        if (has) drawn++;
        else waiting++;
        const r = b.getBoundingClientRect();
        if (!has && r.height > 0 && r.bottom > view.top && r.top < view.bottom) emptyInView++;
      }
      return { drawn, waiting, emptyInView, atBottom: t.scrollTop + t.clientHeight >= t.scrollHeight - 2 };
    }, undefined, "sidebar");
    log(`padded answers after the pick: drawn ${seen.drawn}, waiting ${seen.waiting}`);
    assert.equal(seen.emptyInView, 0, "every answer in view is drawn");
    assert.ok(seen.atBottom, "the view is at the latest");
    assert.ok(seen.waiting >= 30, `most answers still wait: drawn ${seen.drawn}, waiting ${seen.waiting}`);
    // Select all and copy: the copy holds the answers that wait far above the view, as their text, and draws none of them.
    const selected = await evaluate(() => {
      const w = window as unknown as { copied?: string; copiedHtml?: string; copyMs?: number };
      delete w.copied;
      // Before and after the panel's own listener (on the document): how long it took, and what it put on the clipboard.
      let t0 = 0;
      window.addEventListener("copy", () => { t0 = performance.now(); }, { once: true, capture: true });
      window.addEventListener("copy", (e) => {
        w.copyMs = performance.now() - t0;
        w.copied = e.clipboardData?.getData("text/plain") ?? "";
        w.copiedHtml = e.clipboardData?.getData("text/html") ?? "";
      }, { once: true });
      const sel = document.getSelection()!;
      sel.selectAllChildren(document.getElementById("transcript")!);
      return sel.toString().length;
    }, undefined, "sidebar");
    await press("#transcript", "Control+c", "sidebar");
    const copied = await waitFor(() => (window as unknown as { copied?: string }).copied, undefined, { view: "sidebar", what: "the copy" }) ?? "";
    const { copiedHtml, copyMs } = await evaluate(() => {
      const w = window as unknown as { copiedHtml?: string; copyMs?: number };
      return { copiedHtml: w.copiedHtml ?? "", copyMs: w.copyMs ?? NaN };
    }, undefined, "sidebar");
    log(`copy of the selection: ${copyMs.toFixed(1)} ms in the panel's handler, ${copied.length} characters of text, ${copiedHtml.length} of HTML`);
    const after = await evaluate(() => ({
      waiting: document.querySelectorAll("[data-entry-type='message'] .message-body.waiting").length,
      selected: document.getSelection()?.toString().length ?? 0,
      onPage: document.querySelectorAll("[data-entry-type='message'] .message-body").length - 1,
      hiddenOnPage: document.querySelectorAll("#transcript [hidden]").length,
    }), undefined, "sidebar");
    assert.equal(after.waiting, seen.waiting, "the copy drew nothing");
    assert.equal(after.selected, selected, "the reader's selection is as it was");
    // (Every answer on the page: the earliest entries of a turn this long are not, until shown.)
    const ends: string[] = copied.match(/end of \d+/g) ?? [];
    assert.equal(ends.length, after.onPage, `every answer on the page is in the copy (${seen.waiting} of them waited)`);
    assert.deepEqual(ends, ends.slice().sort((a, b) => Number(a.slice(7)) - Number(b.slice(7))), "in order");
    assert.ok(ends.includes("end of 299") && copied.includes(`PAD${300 - after.onPage}`), "from the first on the page to the last");
    assert.ok(copied.includes("padded all"), "with the drawn text after them");
    // As HTML too: the drawn answers as the page has them, the waiting ones as their text, the agent's markup in either escaped.
    assert.deepEqual(copiedHtml.match(/end of \d+/g) ?? [], ends, "the HTML holds the same answers, in the same order");
    assert.equal((copiedHtml.match(/&lt;b&gt;&amp;x&lt;\/b&gt;/g) ?? []).length, after.onPage, "each answer's markup as text");
    assert.ok(!copiedHtml.includes("<b>"), "no markup of the agent's");
    assert.ok(after.hiddenOnPage > 0 && !/<[^>]*\shidden[\s=>]/.test(copiedHtml), `nothing the page does not show (${after.hiddenOnPage} hidden elements selected)`);
    assert.ok(/<p>[^<]*padded all/.test(copiedHtml), "the drawn answer after them as its HTML");
  });

  it("a live turn's newest rows are drawn as they come (not settled by the browser one a frame), the rest only near the view; once the turn ends, all alike", async () => {
    // 40 folded thoughts and 40 tool calls, one after the other (every entry a row), then a message; the turn stays open a while.
    const steps: Step[] = Array.from({ length: 40 }, (_, i): Step[] => [
      { thought: `weighing option ${i}` },
      { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: `rows-${i}`, title: `Read r${i}.ts`, kind: "read", status: "completed" } },
    ]).flat();
    await useAgent("Rows", { turns: [[...steps, { message: "rows held" }, { sleep: 2_000 }, { message: "rows done" }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("many rows", { agent: "Rows", newSession: true });
    /** In the webview: each entry of the last turn: its index, whether it is a row, `.recent`, and its content-visibility. */
    const rows = (): { i: number; row: boolean; recent: boolean; cv: string }[] =>
      [...document.querySelectorAll(".turn:last-of-type .entries > .entry")].map((el, i) => ({ i, row: el.classList.contains("row"), recent: el.classList.contains("recent"), cv: getComputedStyle(el).contentVisibility }));
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("rows held"), undefined, { view: "sidebar", what: "the live turn's message" });
    const live = await evaluate(rows, undefined, "sidebar");
    await turn.result;
    // 81 entries: those from the 75th (the last multiple of 25) are the newest.
    assert.equal(live.length, 81, "every entry of the turn is on the page");
    const newest = live.filter((e) => e.i >= 75);
    const earlier = live.filter((e) => e.i < 75);
    assert.ok(newest.every((e) => e.recent) && earlier.every((e) => !e.recent), `the newest six are recent: ${JSON.stringify(live.filter((e) => e.recent).map((e) => e.i))}`);
    assert.ok(newest.some((e) => e.row) && newest.filter((e) => e.row).every((e) => e.cv === "visible"), `the newest rows are drawn: ${JSON.stringify(newest)}`);
    const earlierRows = earlier.filter((e) => e.row);
    assert.ok(earlierRows.length >= 70 && earlierRows.every((e) => e.cv === "auto"), `the earlier rows are drawn only near the view (${earlierRows.length})`);
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("rows done"), undefined, { view: "sidebar", what: "the turn's end" });
    const ended = await waitFor(() => { const r = [...document.querySelectorAll(".turn:last-of-type .entries > .entry")]; return r.some((el) => el.classList.contains("recent")) ? undefined : r.length; }, undefined, { view: "sidebar", what: "no entry recent once the turn ended" });
    assert.equal(ended, 81, "the same entries (the last message went on)");
  });

  it("each session opens where the reader left it when picked again; one left at its latest opens at its latest", async () => {
    const steps = (tag: string): Step[] => Array.from({ length: 30 }, (_, i): Step[] => [
      { message: `${tag} step ${i}: a paragraph long enough to wrap at the sidebar's width, as agents write${i % 4 === 0 ? ", and on some steps a good deal longer than on others" : ""}.` },
      { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: `${tag}-read-${i}`, title: `Read ${tag}${i}.ts`, kind: "read", status: "completed" } },
    ]).flat();
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Alpha", { turns: [[...steps("Alpha"), { message: "Alpha is done" }]] }),
      scriptedAgent("Beta", { turns: [[...steps("Beta"), { message: "Beta is done" }]] }),
    ], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", "Alpha", vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const alpha = await a.stream("alpha", { agent: "Alpha", newSession: true }).result;
    const beta = await a.stream("beta", { agent: "Beta", newSession: true }).result;
    await waitFor(() => (document.querySelector("#transcript")?.textContent ?? "").includes("Beta is done"), undefined, { view: "sidebar", what: "Beta's answer" });
    // What the view shows at its top (hit-testing, not the code under test), and whether it follows.
    const view = (): { top: string; following: boolean } => {
      const t = document.querySelector("#transcript")!;
      const box = t.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + 2)?.closest(".entry");
      return { top: (hit?.textContent ?? "").split(":")[0] ?? "", following: document.querySelector<HTMLElement>("#jump-latest")?.hidden === true };
    };
    const scrollTo = (text: string): boolean => {
      const t = document.querySelector("#transcript")!;
      const e = [...document.querySelectorAll<HTMLElement>(".entry")].find((x) => x.textContent?.startsWith(text));
      if (!e) return false;
      t.scrollTop += e.getBoundingClientRect().top - t.getBoundingClientRect().top + 5;
      return true;
    };
    const pick = async (id: string, prompt: string): Promise<void> => {
      await pickInSwitcher(id);
      await waitFor((p: string) => [...document.querySelectorAll("#transcript .turn-prompt .prompt-text")].at(-1)?.textContent === p, prompt, { view: "sidebar", what: `session "${prompt}" shown` });
    };
    /** Waits for the entry at the top of the view to start with `prefix`. */
    const atTop = async (prefix: string, what: string): Promise<unknown> => waitFor((p: string) => {
      const t = document.querySelector("#transcript")!;
      const box = t.getBoundingClientRect();
      return (document.elementFromPoint(box.left + box.width / 2, box.top + 2)?.closest(".entry")?.textContent ?? "").startsWith(p) || undefined;
    }, prefix, { view: "sidebar", what }).catch(async (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; now ${JSON.stringify(await evaluate(view, undefined, "sidebar"))}`);
    });
    // Reading Beta at step 9, the user picks Alpha: it opens at its latest, followed (never left elsewhere).
    assert.ok(await evaluate(scrollTo, "Beta step 9:", "sidebar"), "Beta's step 9 drawn");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === false, undefined, { view: "sidebar", what: "Beta no longer following" });
    assert.deepEqual(await evaluate(view, undefined, "sidebar"), { top: "Beta step 9", following: false });
    // A new session (no turns yet) in between keeps Beta's place too.
    const sessions = Object.keys(a._test.controller.viewState.sessions).length;
    await click("#new-session", "sidebar");
    await until(() => Object.keys(a._test.controller.viewState.sessions).length > sessions || undefined, "the new session");
    await waitFor(() => document.querySelectorAll("#transcript .turn-prompt").length === 0 || undefined, undefined, { view: "sidebar", what: "the new, empty session shown" });
    await pick(beta.sessionId, "beta");
    await atTop("Beta step 9:", "Beta's step 9 back at the top after the new session");
    await pick(alpha.sessionId, "alpha");
    const alphaFirst = await waitFor(() => {
      const t = document.querySelector("#transcript")!;
      return t.scrollTop + t.clientHeight >= t.scrollHeight - 2 && document.querySelector<HTMLElement>("#jump-latest")?.hidden === true ? true : undefined;
    }, undefined, { view: "sidebar", what: "Alpha at its latest, followed" });
    assert.ok(alphaFirst);
    // In Alpha the user scrolls to step 20, then picks Beta again: Beta's step 9 is back at the top, not followed.
    assert.ok(await evaluate(scrollTo, "Alpha step 20:", "sidebar"), "Alpha's step 20 drawn");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === false, undefined, { view: "sidebar", what: "Alpha no longer following" });
    await pick(beta.sessionId, "beta");
    const back = await waitFor((want: string) => {
      const t = document.querySelector("#transcript")!;
      const box = t.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + 2)?.closest(".entry");
      const top = (hit?.textContent ?? "").split(":")[0] ?? "";
      return top === want ? { top, following: document.querySelector<HTMLElement>("#jump-latest")?.hidden === true } : undefined;
    }, "Beta step 9", { view: "sidebar", what: "Beta's step 9 back at the top of the view" }).catch(async (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; now ${JSON.stringify(await evaluate(view, undefined, "sidebar"))}`);
    });
    assert.deepEqual(back, { top: "Beta step 9", following: false }, "Beta where it was left, not following");
    // And Alpha where it was left.
    await pick(alpha.sessionId, "alpha");
    const alphaBack = await waitFor(() => {
      const t = document.querySelector("#transcript")!;
      const box = t.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + 2)?.closest(".entry");
      return (hit?.textContent ?? "").startsWith("Alpha step 20:") ? true : undefined;
    }, undefined, { view: "sidebar", what: "Alpha's step 20 back at the top of the view" }).catch(async (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; now ${JSON.stringify(await evaluate(view, undefined, "sidebar"))}`);
    });
    assert.ok(alphaBack);
    assert.equal((await evaluate(view, undefined, "sidebar")).following, false, "Alpha not following either");
    await screenshot("test-results/pick-keeps-place.png");
    // The panel's page goes away and comes back (Developer: Reload Webviews; a window reload
    // restores it the same way): Alpha, shown, is back at step 20, and Beta still opens at step 9.
    await evaluate(() => { (window as Window & { __atOldPage?: boolean }).__atOldPage = true; return true; }, undefined, "sidebar");
    await vscode.commands.executeCommand("workbench.action.webview.reloadWebviewAction");
    await waitFor(() => (window as Window & { __atOldPage?: boolean }).__atOldPage !== true && (document.querySelector("#transcript")?.textContent ?? "").includes("Alpha is done"), undefined, { view: "sidebar", what: "the new page with Alpha", timeoutMs: 60_000 });
    await atTop("Alpha step 20:", "Alpha's step 20 at the top after the reload");
    await pick(beta.sessionId, "beta");
    await atTop("Beta step 9:", "Beta's step 9 at the top, picked after the reload");
    await pick(alpha.sessionId, "alpha");
    await atTop("Alpha step 20:", "Alpha's step 20 at the top, picked back after the reload");
    // With find open, picking Beta makes the match at its kept place the current one (not one
    // near where Alpha's view was before Beta's place was restored).
    await fill("#search", "step", "sidebar");
    await waitFor(() => /^\d+ of \d+$/.test(document.querySelector(".match-count")?.textContent ?? "") || undefined, undefined, { view: "sidebar", what: "the matches counted in Alpha" });
    await pick(beta.sessionId, "beta");
    const current = (): { counter: string; entry: string; inView: boolean; top: string } => {
      const t = document.querySelector("#transcript")!;
      const box = t.getBoundingClientRect();
      const top = (document.elementFromPoint(box.left + box.width / 2, box.top + 2)?.closest(".entry")?.textContent ?? "").split(":")[0] ?? "";
      const counter = document.querySelector(".match-count")?.textContent ?? "";
      const sr = [...(CSS.highlights.get("find-current") ?? [])][0];
      if (!sr) return { counter, entry: "", inView: false, top };
      const range = document.createRange();
      range.setStart(sr.startContainer, sr.startOffset);
      range.setEnd(sr.endContainer, sr.endOffset);
      const r = range.getBoundingClientRect();
      const entry = (sr.startContainer.parentElement?.closest(".entry")?.textContent ?? "").split(":")[0] ?? "";
      // In sight, if only in part (the view's top line may be cut, as the reader left it).
      return { counter, entry, inView: r.height > 0 && r.bottom > box.top && r.top < box.bottom, top };
    };
    const found = await waitFor(() => {
      const c = (document.querySelector(".match-count")?.textContent ?? "");
      return /^\d+ of \d+$/.test(c) && CSS.highlights.get("find-current")?.size ? true : undefined;
    }, undefined, { view: "sidebar", what: "a current match in Beta" }).then(() => evaluate(current, undefined, "sidebar"));
    assert.equal(found.top, "Beta step 9", `Beta opened at its kept place (${JSON.stringify(found)})`);
    assert.ok(found.inView, `the current match is one the reader sees at Beta's kept place (${JSON.stringify(found)})`);
    await fill("#search", "", "sidebar");
    // Revealing a tool call of Beta (as "Why this change?" does) shows that card, not Beta's kept place.
    a._test.controller.reveal(beta.sessionId, "Beta-read-25");
    const revealed = await waitFor(() => {
      const t = document.querySelector("#transcript")!;
      const card = document.querySelector<HTMLElement>('.flash[data-tool-call-id="Beta-read-25"]');
      if (!card) return undefined;
      const box = t.getBoundingClientRect();
      const r = card.getBoundingClientRect();
      return { inView: r.top >= box.top && r.bottom <= box.bottom };
    }, undefined, { view: "sidebar", what: "Beta's read 25 revealed" });
    assert.deepEqual(revealed, { inView: true }, "the revealed card is in view");
    // Following again, as the tests after this one expect.
    await click("#jump-latest", "sidebar");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === true, undefined, { view: "sidebar", what: "following the bottom again" });
  });

  it("a session picked anew draws only the folded entries near the view, and scrolling up through the rest moves the view by what was scrolled", async () => {
    // 70 folded thoughts and 70 closed tool cards: within one window (no "Show earlier" to load while
    // scrolling). Some cards have nothing to open (no chevron), some an agent's title of blanks, some failed.
    const card = (i: number): Record<string, unknown> => {
      const title = i % 10 === 3 ? "   " : `Read src/part${i}.ts`;
      const content = i % 10 === 7 ? {} : { content: [{ type: "content", content: { type: "text", text: `part ${i}` } }] };
      return { sessionUpdate: "tool_call", toolCallId: `row-read-${i}`, title, kind: i % 10 === 5 ? "execute" : "read", status: i % 10 === 9 ? "pending" : "completed", ...content };
    };
    const steps: Step[] = Array.from({ length: 70 }, (_, i): Step[] => [
      { thought: `Thinking about part ${i}: what it reads, what it writes, and what could break.` },
      { sessionUpdate: card(i) },
    ]).flat();
    await useAgent("Rows", { turns: [[...steps, { message: "all parts read" }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const first = await a.stream("read every part", { agent: "Rows", newSession: true }).result;
    await waitFor(() => (document.querySelector("#transcript")?.textContent ?? "").includes("all parts read"), undefined, { view: "sidebar", what: "the whole turn" });
    await a.stream("something else", { agent: "Rows", newSession: true }).result;
    await waitFor(() => [...document.querySelectorAll("#transcript .turn-prompt .prompt-text")].at(-1)?.textContent === "something else" && (document.querySelector("#transcript")?.textContent ?? "").includes("all parts read"), undefined, { view: "sidebar", what: "the other session, its turn done" });
    // The user picks the first session again: its entries are drawn anew, following the bottom.
    await pickInSwitcher(first.sessionId);
    await waitFor(() => [...document.querySelectorAll("#transcript .turn-prompt .prompt-text")].at(-1)?.textContent === "read every part" && (document.querySelector("#transcript")?.textContent ?? "").includes("all parts read") && document.querySelector<HTMLElement>("#jump-latest")?.hidden === true, undefined, { view: "sidebar", what: "the first session picked, at its bottom" });
    const scrolled = await evaluate(async () => {
      const t = document.querySelector<HTMLElement>("#transcript")!;
      const frame = (): Promise<void> => new Promise((r) => requestAnimationFrame(() => r()));
      await frame();
      await frame();
      const rows = [...t.querySelectorAll<HTMLElement>(".entry.row")];
      // Skipped: what the entry holds is not drawn (away from the view).
      const skipped = rows.filter((e) => e.firstElementChild?.checkVisibility({ contentVisibilityAuto: true }) === false).length;
      const heights = new Set([t.scrollHeight]);
      const moved: number[] = [];
      const start = t.scrollTop;
      while (t.scrollTop > 0 && moved.length < 500) {
        const box = t.getBoundingClientRect();
        // An entry the reader sees in the middle of the view: after scrolling up by `step`, it is `step` lower.
        const seen = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)?.closest(".entry");
        const before = seen?.getBoundingClientRect().top;
        const step = Math.min(100, t.scrollTop);
        t.scrollTop -= step;
        await frame();
        await frame();
        if (seen && before !== undefined) moved.push(seen.getBoundingClientRect().top - before - step);
        heights.add(t.scrollHeight);
      }
      return { known: t.dataset.rows ?? "", rows: rows.length, skipped, start, heights: [...heights], steps: moved.length, worst: Math.max(...moved.map(Math.abs)) };
    }, undefined, "sidebar");
    log(`      picked anew: ${scrolled.rows} one-row entries, ${scrolled.skipped} not drawn; scrolled up ${scrolled.start} px in ${scrolled.steps} steps: page heights ${scrolled.heights.join(", ")} px, worst extra move ${scrolled.worst.toFixed(2)} px`);
    assert.equal(scrolled.known, "thought tool", "both kinds' heights measured");
    assert.ok(scrolled.rows >= 120, `the folded entries are rows (${scrolled.rows})`);
    assert.ok(scrolled.skipped >= scrolled.rows / 2, `most of them not drawn after the pick (${scrolled.skipped} of ${scrolled.rows})`);
    assert.ok(scrolled.steps >= 10, `scrolled up through them (${scrolled.steps} steps)`);
    assert.ok(Math.max(...scrolled.heights) - Math.min(...scrolled.heights) <= 1, `the page's height did not change as they were drawn (${scrolled.heights.join(", ")})`);
    assert.ok(scrolled.worst <= 1, `each step moved the view by what was scrolled (worst extra ${scrolled.worst} px)`);
    await click("#jump-latest", "sidebar");
    await waitFor(() => document.querySelector<HTMLElement>("#jump-latest")?.hidden === true, undefined, { view: "sidebar", what: "following the bottom again" });
  });

  it("the header stays readable in the default 300 px sidebar with several sessions and a question waiting (screenshots at three sizes, light and dark)", async () => {
    const ask = { permission: { toolCall: { toolCallId: "h1", title: "npm run build", kind: "execute", status: "pending" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }, { optionId: "no", name: "Reject", kind: "reject_once" }] }, onSelected: { yes: [{ message: "built" }], no: [{ message: "not built" }] } };
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Gemini CLI", { agentName: "Gemini CLI", turns: [[{ message: "hello from Gemini" }]] }),
      scriptedAgent("Claude Code", { agentName: "Claude Code", turns: [[{ thought: "**Planning** the build: check `package.json`, then run it." }, { message: "Let me build it." }, ask]] }),
    ], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", "Claude Code", vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await a.stream("one", { agent: "Gemini CLI", newSession: true }).result;
    await a.stream("two", { agent: "Gemini CLI", newSession: true }).result;
    const turn = a.stream("Build the project and tell me what breaks", { agent: "Claude Code", newSession: true });
    const req = await until(() => a._test.broker.open().find((r) => r.toolCallId === "h1"), "the build question", 20_000);
    const sidebar = await harnessRequest<{ value: number }>({ op: "workbench", fn: (() => Math.round(document.querySelector(".part.sidebar")?.getBoundingClientRect().width ?? -1)).toString() });
    log(`sidebar width: ${sidebar?.value} px`);
    const header = await waitFor(() => {
      const name = document.querySelector<HTMLElement>(".agent-name");
      const row = document.querySelector<HTMLElement>(".header-row");
      const select = document.querySelector<HTMLElement>(".session-select");
      const status = document.querySelector<HTMLElement>("#session-status");
      if (!name || !row || !select || select.hidden || status?.dataset.status !== "awaiting_permission") return undefined;
      return { name: name.textContent, cut: name.scrollWidth > name.clientWidth, overflow: row.scrollWidth > row.clientWidth, select: select.getBoundingClientRect().width, statusTitle: status.title, rowWidth: row.clientWidth };
    }, undefined, { view: "sidebar", what: "the header with a switcher and a waiting status" });
    assert.ok(header);
    assert.equal(header.name, "Claude Code");
    assert.equal(header.cut, false, `the agent's name is not cut (${JSON.stringify(header)})`);
    assert.equal(header.overflow, false, "nothing in the header row overflows");
    assert.ok(header.select >= 48, "the switcher keeps a usable width");
    assert.equal(header.statusTitle, "Awaiting permission");
    // Looked at: the default 300 px sidebar at 1280×800 and 1600×1000, in dark and light.
    const config = vscode.workspace.getConfiguration("workbench");
    try {
      for (const [name, theme] of [["dark", "Default Dark Modern"], ["light", "Default Light Modern"]] as const) {
        await config.update("colorTheme", theme, vscode.ConfigurationTarget.Global);
        for (const [w, hgt] of [[1600, 1000], [1280, 800]] as const) {
          await viewport(w, hgt);
          await waitFor((cls: string) => document.body.classList.contains(cls) && document.querySelector("#question[data-ready]") !== null, `vscode-${name}`, { view: "sidebar", what: `the panel in the ${name} theme` });
          await screenshot(`test-results/panel-${w}x${hgt}-${name}.png`);
        }
      }
    } finally {
      await config.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      await viewport(1400, 900);
    }
    a._test.broker.resolve(req.requestId, "yes");
    assert.match((await turn.result).text, /built/);
  });

  it("a prompt typed while the turn runs is queued and sent when it ends; ↑/↓ walk the sent prompts; Edit puts one back in the box", async () => {
    const hold = { permission: { toolCall: { toolCallId: "hold", title: "Hold the turn", kind: "execute", status: "pending" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }] }, onSelected: { yes: [{ message: "first turn done" }] } };
    await useAgent("Queuer", { turns: [[hold], [{ echoPrompt: true }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await sendFromPanel("first prompt");
    const req = await until(() => a._test.broker.open().find((r) => r.toolCallId === "hold"), "the first turn to wait", 20_000);
    const sessionId = req.sessionId;
    await sendFromPanel("second prompt");
    const queued = await waitFor(() => {
      const item = document.querySelector(".queued-item");
      return item && (document.querySelector<HTMLTextAreaElement>("#prompt")?.value ?? "x") === "" ? item.textContent ?? "" : undefined;
    }, undefined, { view: "sidebar", what: "the queued prompt above the box, the box empty" });
    assert.match(queued ?? "", /second prompt.*Sent when the turn ends/);
    await screenshot("test-results/queued-prompt.png");
    assert.equal(a._test.controller.viewState.sessions[sessionId]!.turns.length, 1, "nothing was sent to the agent while its turn runs");
    a._test.broker.resolve(req.requestId, "yes");
    await until(() => {
      const turns = a._test.controller.viewState.sessions[sessionId]!.turns;
      return turns.length === 2 && turns[1]!.endedAt !== undefined ? turns : undefined;
    }, "the queued prompt sent as turn 2 of the same session, and answered", 20_000);
    const text = JSON.stringify(a._test.controller.viewState.sessions[sessionId]!.turns[1]);
    assert.match(text, /You said: second prompt/);
    await waitFor(() => document.querySelector(".queued:not([hidden])") === null, undefined, { view: "sidebar", what: "the queue empty" });
    // ↑ recalls the newest sent prompt, ↑ again the one before; ↓ goes forward and back to the empty box.
    const value = (): Promise<string> => evaluate(() => document.querySelector<HTMLTextAreaElement>("#prompt")!.value, undefined, "sidebar");
    await press("#prompt", "ArrowUp", "sidebar");
    assert.equal(await value(), "second prompt");
    await press("#prompt", "ArrowUp", "sidebar");
    assert.equal(await value(), "first prompt");
    await press("#prompt", "ArrowDown", "sidebar");
    assert.equal(await value(), "second prompt");
    await press("#prompt", "ArrowDown", "sidebar");
    assert.equal(await value(), "");
    // Edit on turn 1's prompt puts it in the box to change and send again.
    await click('[data-turn-id="1"] .edit-prompt', "sidebar");
    assert.equal(await value(), "first prompt");
    await fill("#prompt", "", "sidebar");
  });

  it("Select Agent changes the header and the prompt's placeholder at once; the next prompt goes to the new agent", async () => {
    await useAgent("Echoer", { turns: [[{ message: "from Echoer" }], [{ message: "from Echoer again" }]] });
    const a = await api();
    await a.stream("hello", { agent: "Echoer", newSession: true }).result;
    await waitFor(() => /^Ask .*\(\/ for commands\)$/.test(document.querySelector("#prompt")?.getAttribute("placeholder") ?? ""), undefined, { view: "sidebar", what: "the Echoer session shown" });
    await vscode.commands.executeCommand("agentThoughts.selectAgent", "Demo");
    const shown = await waitFor(() => {
      const placeholder = document.querySelector("#prompt")?.getAttribute("placeholder") ?? "";
      const agent = document.querySelector(".agent-name")?.textContent ?? "";
      return placeholder.startsWith("Ask Demo") ? { placeholder, agent } : undefined;
    }, undefined, { view: "sidebar", what: "the placeholder naming the newly selected agent" });
    assert.ok(shown);
    assert.match(shown.placeholder, /starts a new session/);
    assert.equal(shown.agent, "Demo");
    const sessionsBefore = Object.keys(a._test.controller.viewState.sessions).length;
    await sendFromPanel("which agent?");
    await until(() => Object.keys(a._test.controller.viewState.sessions).length > sessionsBefore, "a new session for the prompt");
    const newest = a._test.controller.viewState.order.at(-1)!;
    assert.equal(a._test.controller.viewState.sessions[newest]!.agentName, "Demo");
    await vscode.commands.executeCommand("agentThoughts.cancel");
  });

  it("a chevron turns smoothly only under the pointer, and not at all when the system asks for reduced motion", async () => {
    await useAgent("Thinker", { turns: [[{ thought: "first, look around" }, { message: "done looking" }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await a.stream("look", { agent: "Thinker", newSession: true }).result;
    await waitFor(() => (document.body.textContent ?? "").includes("done looking"), undefined, { view: "sidebar", what: "the answer" });
    const head = ".turn:last-of-type .entry-thought .thought-head";
    const duration = (sel: string): string => {
      const c = document.querySelector(`${sel} .chevron`);
      return c ? getComputedStyle(c).transitionDuration : "no chevron";
    };
    // Away from the pointer (the stream opens and closes entries): no animation to run.
    await hover("#search", "sidebar");
    assert.equal(await evaluate(duration, head, "sidebar"), "0s");
    await hover(head, "sidebar");
    assert.equal(await evaluate(duration, head, "sidebar"), "0.1s", "under the pointer it turns smoothly");
    await emulateMedia({ reducedMotion: "reduce" });
    try {
      assert.equal(await waitFor((sel: string) => {
        const c = document.querySelector(`${sel} .chevron`);
        return c && matchMedia("(prefers-reduced-motion: reduce)").matches ? getComputedStyle(c).transitionDuration : undefined;
      }, head, { view: "sidebar", what: "reduced motion in the webview" }), "0s", "reduced motion: it turns at once, under the pointer too");
    } finally {
      await emulateMedia({ reducedMotion: null });
    }
  });

  it("a thought folds to how long it streamed, or to just \"Thought\" when it came all at once", async () => {
    const text = (t: string) => ({ type: "text", text: t });
    await useAgent("Summariser", {
      turns: [
        // A reasoning summary sent whole, and the answer in the same write: no time to tell.
        [{ updates: [{ sessionUpdate: "agent_thought_chunk", content: text("SUMMARY of the reasoning") }, { sessionUpdate: "agent_message_chunk", content: text("answer one") }] }],
        [{ thought: "first half, " }, { sleep: 500 }, { thought: "second half" }, { message: "answer two" }],
      ],
    });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await a.stream("sum", { agent: "Summariser", newSession: true }).result;
    const label = (answer: string) => {
      const turn = [...document.querySelectorAll(".turn")].find((t) => (t.textContent ?? "").includes(answer));
      return turn?.querySelector(".entry-thought:not(.streaming) .thought-label")?.textContent ?? undefined;
    };
    assert.equal(await waitFor(label, "answer one", { view: "sidebar", what: "the summary's thought, folded" }), "Thought");
    await a.stream("again", { agent: "Summariser" }).result;
    const streamed = (await waitFor(label, "answer two", { view: "sidebar", what: "the streamed thought, folded" })) ?? "";
    const m = /^Thought for (\d+\.\d) s$/.exec(streamed);
    assert.ok(m, `a streamed thought says how long: ${streamed}`);
    assert.ok(Number(m[1]) >= 0.2, `it streamed over the agent's 500 ms pause (a host that stalled as the first chunk came would see less of it): ${streamed}`);
  });

  it("never posts more than one message per 8 ms to a view while the agent floods", async () => {
    await useAgent("Flood", { turns: [[{ flood: { count: 5000 } }]] });
    const a = await api();
    const stats = a._test.controller.stats;
    const posts0 = stats.posts;
    const held0 = stats.heldPatches;
    const started = Date.now();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const r = await a.stream("flood", { agent: "Flood", newSession: true }).result;
    const ms = Date.now() - started;
    const want = 5000 * 24;
    await waitFor(openedLastThoughtHolds, want, { view: "sidebar", what: "all chunks visible", timeoutMs: 60_000 });
    assert.equal(r.thoughts.length, want);
    const posts = stats.posts - posts0;
    // Views: one sidebar; a patch at most every 8 ms (FRAME_MS in thoughtPanel.ts) over the
    // streaming time, and only once the webview has the last, plus snapshot/host messages.
    assert.ok(posts <= Math.ceil(ms / 8) + 10, `${posts} posts in ${ms} ms`);
    assert.ok(stats.heldPatches > held0, "a patch waited for the webview to have the last one");
  });

  it("a long turn of short thoughts and tool calls: the window of entries moves in steps, the spinner keeps turning, Show earlier shows the rest, and find reaches what the window left out", async () => {
    await useAgent("Mix", { turns: [[{ flood: { count: 4000, shape: "mix", paceMs: 1 } }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    // Watches every drawn state of the last turn while it streams: the most entries it showed, how
    // often its first entry changed, and how many spinner elements its footer had.
    await evaluate(() => {
      type W = Window & { __atWindow?: { max: number; firstChanges: number; spinners: number; frames: number; transitions: number; stop: () => void } };
      const box = document.getElementById("transcript");
      if (!box) throw new Error("no transcript");
      // The first entry drawn in the turn watched: a change counts only between two entries of the
      // same turn (not the turn shown before this session's, nor a moment with no entry drawn).
      let first: Element | undefined;
      let firstTurn: Element | undefined;
      const spinners = new WeakSet<Element>();
      const transitions = new WeakSet<Animation>();
      const seen = { max: 0, firstChanges: 0, spinners: 0, frames: 0, transitions: 0, stop: () => obs.disconnect() };
      const obs = new MutationObserver(() => {
        // (The session shown before leaves the page a moment after the new one is drawn: not counted.)
        const turns = box.querySelectorAll(".turns:not(.leaving) .turn");
        const turn = turns[turns.length - 1];
        if (!turn) return;
        seen.frames++;
        const entries = turn.querySelectorAll(".entries > .entry");
        seen.max = Math.max(seen.max, entries.length);
        const now = entries[0];
        if (turn === firstTurn && first && now && now !== first) seen.firstChanges++;
        if (turn !== firstTurn || now) [firstTurn, first] = [turn, now];
        const spin = turn.querySelector(".turn-footer .codicon-modifier-spin");
        if (spin && !spinners.has(spin)) { spinners.add(spin); seen.spinners++; }
        for (const t of document.getAnimations()) if (t instanceof CSSTransition && !transitions.has(t)) { transitions.add(t); seen.transitions++; }
      });
      obs.observe(box, { childList: true, subtree: true, attributes: true, characterData: true });
      (window as W).__atWindow = seen;
    }, undefined, "sidebar");
    const { sessionId, turnId } = await a.stream("a long turn", { agent: "Mix", newSession: true }).result;
    const seen = await evaluate(() => {
      const w = (window as Window & { __atWindow?: { max: number; firstChanges: number; spinners: number; frames: number; transitions: number; stop: () => void } }).__atWindow;
      w?.stop();
      return w && { max: w.max, firstChanges: w.firstChanges, spinners: w.spinners, frames: w.frames, transitions: w.transitions };
    }, undefined, "sidebar");
    const total = a._test.controller.viewState.sessions[sessionId]?.turns.find((t) => t.turnId === turnId)?.entries.length ?? 0;
    assert.ok(total > 400 && seen, `${total} entries streamed`);
    log(`mix turn: ${total} entries; drawn states ${seen.frames}, first entry changed ${seen.firstChanges} times, at most ${seen.max} entries shown, ${seen.spinners} spinner element(s), ${seen.transitions} transition(s)`);
    // At most 150 shown; the first moves 25 at a time (ENTRY_WINDOW, WINDOW_STEP in transcript.ts), not on each new entry.
    assert.ok(seen.max <= 150, `${seen.max} entries shown at once`);
    // Enough patches watched for the count to tell steps from a window moving with each entry
    // (which would change the first entry in most of them once 150 are shown); how many patches a
    // turn takes depends on the machine's load, so a multiple of the steps, not a fixed number.
    const steps = Math.ceil((total - 150) / 25) + 1;
    assert.ok(seen.frames > 3 * steps, `${seen.frames} drawn states watched (${steps} steps)`);
    assert.ok(seen.firstChanges <= steps, `the first entry changed ${seen.firstChanges} times for ${total} entries`);
    assert.equal(seen.spinners, 1, "the footer's spinner was one element all through the turn (a new one restarts its turn)");
    // Entries the stream opens and closes turn their chevrons at once (each turning one is an animation for the browser to run, frame after frame).
    assert.ok(seen.transitions <= 3, `${seen.transitions} transitions ran while the turn streamed (one may be under the pointer)`);
    // The turn's result can come before the panel has drawn its last patch: wait until it shows every entry the host has (shown + hidden).
    const shown = await waitFor((all: number) => {
      const turn = [...document.querySelectorAll(".turn")].pop();
      const shown = turn?.querySelectorAll(".entries > .entry").length ?? 0;
      const label = turn?.querySelector(".entries > .show-earlier .label")?.textContent ?? "";
      return label === `Show ${Math.min(150, all - shown)} earlier (${all - shown} hidden)` ? shown : 0;
    }, total, { view: "sidebar", what: `the panel to show all ${total} entries of the turn (shown + hidden)` });
    assert.ok(shown > 125 && shown <= 150, `${shown} entries shown at the end`);
    await click(".turn:last-of-type .entries > .show-earlier", "sidebar");
    const more = await waitFor((n: number) => {
      const c = [...document.querySelectorAll(".turn")].pop()?.querySelectorAll(".entries > .entry").length ?? 0;
      return c > n ? c : 0;
    }, shown, { view: "sidebar", what: "earlier entries shown" });
    assert.ok(more > shown + 125 && more <= Math.min(total, 300), `${more} entries shown after Show earlier (${shown} before)`);
    // Find reaches a tool call the window's step left out (among the last 300, else just before them).
    const entries = a._test.controller.viewState.sessions[sessionId]?.turns.find((t) => t.turnId === turnId)?.entries ?? [];
    let target: { id: string; title: string } | undefined;
    for (let i = total - more - 1; i >= 0 && (!target || i >= total - 300); i--) {
      const e = entries[i];
      if (e?.type === "tool") target = { id: e.id, title: e.title };
    }
    assert.ok(target, "a tool call left out of the window");
    await fill("#search", target.title, "sidebar");
    const found = await waitFor((id: string) => {
      const sr = [...(CSS.highlights.get("find-current") ?? [])][0];
      const el = sr?.startContainer.parentElement?.closest<HTMLElement>("[data-entry-id]");
      return el?.getAttribute("data-entry-id") === id ? (document.querySelector(".match-count")?.textContent ?? "") : "";
    }, target.id, { view: "sidebar", what: `find to reach "${target.title}"` });
    assert.equal(found, "1 of 1");
    await fill("#search", "", "sidebar");
  });

  it("keeps a hidden panel current at a slow pace, and shows the latest text as soon as it is shown again", async () => {
    const count = 2000;
    await useAgent("Flood", { turns: [[{ flood: { count, paceMs: 1 } }]] });
    const a = await api();
    const stats = a._test.controller.stats;
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const running = a.stream("flood while hidden", { agent: "Flood", newSession: true });
    await waitFor(() => document.querySelector(".thought-text") !== null, undefined, { view: "sidebar", what: "the flood under way" });
    await vscode.commands.executeCommand("workbench.view.explorer");
    await until(() => !a._test.controller.anyVisible, "the panel hidden");
    const posts0 = stats.posts;
    const started = Date.now();
    const r = await running.result;
    const ms = Date.now() - started;
    const posts = stats.posts - posts0;
    // At 1,000 chunks/s a visible panel gets about one patch a frame; a hidden one one per 100 ms.
    assert.ok(posts <= Math.ceil(ms / 100) + 4, `${posts} posts in ${ms} ms while hidden`);
    assert.ok(ms > 500, `the flood streamed ${ms} ms while the panel was hidden`);
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    // Ended while hidden, it is folded (opened here as a user would: a panel drawn anew from a snapshot draws it when opened).
    await waitFor(openedLastThoughtHolds, r.thoughts.length, { view: "sidebar", what: "every chunk on screen once shown", timeoutMs: 10_000 });
    assert.equal(r.thoughts.length, count * 24);
  });
  it("a new editor panel on a long session shows its newest turns first, the earlier ones follow in pieces, and the stream goes on in order", async () => {
    const turns: Step[][] = [];
    for (let n = 1; n <= 12; n++) turns.push([{ thought: `turn ${n} ${"word ".repeat(24_000)}`, chunkSize: 65_536 }, { message: `answer ${n}` }]);
    turns.push([{ flood: { count: 5_000, paceMs: 2 } }, { message: "answer 13" }]);
    await useAgent("Long", { turns });
    const a = await api();
    const { stats } = a._test.controller;
    const first = await a.stream("turn 1", { agent: "Long", newSession: true }).result;
    for (let n = 2; n <= 12; n++) await a.stream(`turn ${n}`, { agent: "Long", sessionId: first.sessionId }).result;
    assert.ok(JSON.stringify(a._test.controller.viewState).length > 1_400_000, "the session's view is larger than two pieces");
    const streaming = a.stream("turn 13", { agent: "Long", sessionId: first.sessionId });
    await waitFor(() => document.querySelectorAll("[data-turn-id='13'] .thought-text").length > 0, undefined, { view: "sidebar", what: "turn 13 streaming" });
    const [snapshots, queued] = [stats.snapshots, stats.fillQueued];
    // Its pieces a second apart, as a slow host would post them: the stream's patches come meanwhile.
    a._test.controller.testFaults.pieceDelayMs = 1_000;
    await vscode.commands.executeCommand("agentThoughts.openPanel");
    try {
      // Before the earlier turns are in: the newest, numbered as the whole session, and a line saying how many are on their way.
      const early = await waitFor(() => {
        const loading = document.getElementById("saved-loading");
        const titles = [...document.querySelectorAll(".turn-title")].map((t) => t.textContent ?? "");
        return loading && !loading.hidden && titles.some((t) => t.startsWith("Turn 13")) ? { line: loading.textContent ?? "", titles } : undefined;
      }, undefined, { view: "editor", what: "the newest turns with the earlier ones loading" });
      assert.ok(early);
      assert.match(early.line, /Loading \d+ earlier turns…/);
      assert.ok(!early.titles.some((t) => /^Turn 1( |$)/.test(t)), `turn 1 is not there yet: ${early.titles.join(", ")}`);
      // Its icons are drawn from the start: the page asked for their font as it loaded, before its script ran (not once the first icon was laid out).
      const font = await evaluate(() => {
        const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
        const font = entries.find((e) => e.name.includes("codicon.ttf"));
        const script = entries.find((e) => e.name.includes("webview.js"));
        return { loaded: document.fonts.check("16px codicon"), asked: font?.startTime ?? NaN, scriptIn: script?.responseEnd ?? NaN };
      }, undefined, "editor");
      assert.ok(font.loaded, "the icon font is loaded when the panel first shows the session");
      assert.ok(font.asked < font.scriptIn, `the icon font was asked for (${font.asked} ms) before the script was in (${font.scriptIn} ms)`);
      await screenshot("test-results/editor-panel-earlier-turns-loading-1400x900-light.png");
      // And in the dark theme at 1280×800, while the rest is still on its way.
      await viewport(1280, 800);
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", "Default Dark Modern", vscode.ConfigurationTarget.Global);
      await waitFor(() => document.body.classList.contains("vscode-dark") && document.getElementById("saved-loading")?.hidden === false, undefined, { view: "editor", what: "the loading line in the dark theme" });
      await screenshot("test-results/editor-panel-earlier-turns-loading-1280x800-dark.png");
      // The rest of the pieces 100 ms apart, still slower than the stream's patches (every 8 ms).
      a._test.controller.testFaults.pieceDelayMs = 100;
      const r = await streaming.result;
      // Every piece posted (the state holds the earlier tests' sessions too: some 27 pieces in the whole suite).
      await until(() => stats.lastFill.ended || undefined, "every piece of the snapshot posted", 90_000);
      // Every chunk streamed after the snapshot is there, in order: the patches went after its pieces.
      await waitFor(lastThoughtHolds, r.thoughts.length, { view: "editor", what: "turn 13's whole thought in the editor panel", timeoutMs: 20_000 });
      await waitFor(() => (document.body.textContent ?? "").includes("answer 13"), undefined, { view: "editor", what: "turn 13's answer" });
      assert.ok(stats.lastFill.pieces >= 2, `the snapshot went in ${stats.lastFill.pieces} pieces after its first message`);
      log(`      the editor panel's snapshot: first message ${stats.lastFill.headMs.toFixed(1)} ms of the host, then ${stats.lastFill.pieces} pieces (longest ${stats.lastFill.longestMs.toFixed(1)} ms, ${stats.lastFill.hostMs.toFixed(1)} ms in all) over ${stats.lastFill.tookMs.toFixed(1)} ms`);
      assert.ok(stats.lastFill.whole, "every piece posted");
      // Patches of the streaming turn waited behind the pieces, and none came out of order: the webview never saw a gap to ask a fresh snapshot for.
      assert.ok(stats.fillQueued > queued, "patches waited behind the pieces");
      assert.equal(stats.snapshots, snapshots + 1, "one snapshot for the new panel");
      // Numbered as the whole session, nothing said to be loading, and every earlier turn there.
      const shown = await waitFor(() => {
        const titles = [...document.querySelectorAll(".turn-title")].map((t) => t.textContent ?? "");
        const loading = document.getElementById("saved-loading");
        return titles.some((t) => t.startsWith("Turn 13")) && (!loading || loading.hidden) ? titles : undefined;
      }, undefined, { view: "editor", what: "turn 13 numbered 13, nothing loading" });
      assert.ok(shown && !shown.some((t) => t.startsWith("Turn 14")), shown?.join(", "));
      for (let i = 0; i < 20; i++) {
        const more = await evaluate(() => { const b = document.querySelector<HTMLElement>(".show-earlier.turns"); return !!b && !b.hidden; }, undefined, "editor");
        if (!more) break;
        await click(".show-earlier.turns", "editor");
      }
      await waitFor(() => [...document.querySelectorAll(".turn-title")].some((t) => /^Turn 1( |$)/.test(t.textContent ?? "")), undefined, { view: "editor", what: "turn 1 in the editor panel" });
      const ids = await evaluate(() => [...document.querySelectorAll("[data-turn-id]")].map((t) => Number(t.getAttribute("data-turn-id"))), undefined, "editor");
      assert.deepEqual(ids, Array.from({ length: 13 }, (_, i) => i + 1));
      await screenshot("test-results/editor-panel-every-turn.png");
    } finally {
      a._test.controller.testFaults.pieceDelayMs = undefined;
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      await viewport(1400, 900);
      await vscode.window.tabGroups.close(vscode.window.tabGroups.all.flatMap((g) => g.tabs.filter((t) => t.input instanceof vscode.TabInputWebview && t.label === "Agent Thoughts")));
    }
  });
});
