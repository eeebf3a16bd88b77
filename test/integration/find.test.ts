// Find in the transcript, in a real VS Code through the panel's webview DOM: typing highlights
// every match (CSS Custom Highlights), Enter / Shift+Enter and the arrows step through them with
// "k of N", going to one opens the folded turn, thought or tool card it is in and shows it, the
// view stays on it while the agent streams, and "only entries that match" hides the rest.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { Step } from "../fixtures/agents/scenario";
import { harnessRequest, screenshot } from "./index";
import { click, evaluate, fill, press, waitFor } from "./webview";
import { api, scriptedAgent, until, useAgent } from "./helpers";

/** Where the current match is, what the counter says, and whether the reader can see it. */
function currentMatch(): { counter: string; text: string; where: string; turn: string; seen: boolean; open: string; top: string } {
  const counter = document.querySelector(".match-count")?.textContent ?? "";
  const cur = CSS.highlights.get("find-current");
  const sr = cur ? [...cur][0] : undefined;
  if (!sr) return { counter, text: "", where: "", turn: "", seen: false, open: "", top: "" };
  const range = document.createRange();
  range.setStart(sr.startContainer, sr.startOffset);
  range.setEnd(sr.endContainer, sr.endOffset);
  const r = range.getBoundingClientRect();
  const parent = sr.startContainer.parentElement!;
  const t = document.getElementById("transcript")!.getBoundingClientRect();
  // Not merely inside the transcript's box: the topmost element there is the match's own text.
  const hit = r.width > 0 ? document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) : null;
  const seen = !!hit && (parent.contains(hit) || hit.contains(parent)) && r.top >= t.top && r.bottom <= t.bottom;
  const entry = parent.closest<HTMLElement>("[data-entry-id]");
  return {
    counter, text: range.toString(), seen, top: hit ? `${hit.tagName}#${hit.id}.${hit.className} ${Math.round(r.top)}-${Math.round(r.bottom)} in ${Math.round(t.top)}-${Math.round(t.bottom)}` : "",
    where: entry?.dataset.entryType ?? (parent.closest(".turn-prompt") ? "prompt" : "?"),
    turn: parent.closest<HTMLElement>(".turn")?.dataset.turnId ?? "",
    open: entry?.querySelector(":scope > [aria-expanded], :scope > .tool-head [aria-expanded]")?.getAttribute("aria-expanded") ?? "",
  };
}

/** Waits until the counter reads `counter` and the current match can be seen; returns where it is. */
async function shown(counter: string): Promise<ReturnType<typeof currentMatch>> {
  let last: ReturnType<typeof currentMatch> | undefined;
  return until(async () => {
    last = await evaluate(currentMatch, undefined, "sidebar");
    return last.counter === counter && last.seen ? last : undefined;
  }, `match ${counter} shown`, 10_000, 25).catch((e: unknown) => {
    throw new Error(`${e instanceof Error ? e.message : String(e)}; last: ${JSON.stringify(last)}`);
  });
}

const text = (t: string): Record<string, unknown> => ({ type: "text", text: t });

/** `n` pairs of a short thought and a completed tool call from `from` on: 2n entries in one write; the 4th call reads "the needle file", and the 1,171st again. */
function pairs(from: number, n: number): Step {
  return {
    updates: Array.from({ length: n }, (_, k) => [
      { sessionUpdate: "agent_thought_chunk", content: text(`weighing step ${from + k}`) },
      { sessionUpdate: "tool_call", toolCallId: `t${from + k}`, title: from + k === 3 ? "Read the needle file" : from + k === 1_170 ? "Read the needle file again" : `Read part ${from + k}`, kind: "read", status: "completed" },
    ]).flat(),
  };
}

/** A turn's first 2,400 entries. */
const longTurn = (): Step[] => Array.from({ length: 12 }, (_, b) => pairs(b * 100, 100));

/** Waits for the pinned question (its `answer` button); fails at once if the turn ends first. */
async function questionAsked(turn: { result: Promise<{ stopReason: string }> }, answer: string): Promise<void> {
  await Promise.race([
    waitFor((id: string) => document.querySelector(`#question:not([hidden]) [data-answer="${id}"]`) !== null, answer, { view: "sidebar", what: `the question (${answer})`, timeoutMs: 30_000 }),
    turn.result.then((r) => { throw new Error(`the turn ended before its question: ${r.stopReason}`); }),
  ]);
}

type Drawn = { entries: number; first: string; last: string; later: string; earlier: string; jump: boolean; elements: number };

/** The last turn's entries as drawn, its Show earlier / later labels, and whether Jump to latest is offered. */
function drawn(): Promise<Drawn> {
  return evaluate(() => {
    const t = [...document.querySelectorAll(".turn")].pop();
    const es = [...(t?.querySelectorAll<HTMLElement>(".entries > .entry") ?? [])];
    return {
      entries: es.length, first: es[0]?.dataset.entryId ?? "", last: es[es.length - 1]?.dataset.entryId ?? "",
      later: t?.querySelector(".entries > .show-later .label")?.textContent ?? "",
      earlier: t?.querySelector(".entries > .show-earlier .label")?.textContent ?? "",
      jump: !(document.getElementById("jump-latest")?.hidden ?? true),
      elements: document.getElementById("transcript")?.querySelectorAll("*").length ?? 0,
    };
  }, undefined, "sidebar");
}

/** Run in the webview: whether the element is drawn and at least partly inside the transcript's view. */
function inView(selector: string): boolean {
  const el = document.querySelector(selector);
  const box = document.getElementById("transcript")?.getBoundingClientRect();
  const r = el?.getBoundingClientRect();
  return !!r && !!box && r.height > 0 && r.bottom > box.top && r.top < box.bottom;
}

const filler = (what: string, n: number): string => Array.from({ length: n }, (_, i) => `${what} line ${i + 1}: weighing one option against another.\n`).join("");

describe("find in the transcript", function () {
  this.timeout(120_000);

  before(async () => {
    process.env.AGENT_THOUGHTS_DEMO_SPEED = "0";
    await api();
  });

  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
  });

  it("highlights every match, steps with Enter / Shift+Enter, and opens the folded turn, thought and card a match is in", async () => {
    const turns: Step[][] = [
      // Folded by the time we search (only the last three turns start open).
      [{ thought: "In the first turn the Needle hides." }, { message: "ok 1" }],
      [{ message: "ok 2" }],
      [{ message: "ok 3" }],
      [{ message: "ok 4" }],
      [
        // Folds to "Thought for …" when the tool call starts; the match is far down its scroll box.
        { thought: `${filler("thought", 60)}a needle deep in a long thought\n${filler("more", 20)}`, chunkSize: 400 },
        // Completed without a diff: the card is closed and its body not even built.
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "s1", title: "Search files", kind: "search", status: "completed", content: [{ type: "content", content: { type: "text", text: "one needle in the tool output" } }] } },
        { message: `${filler("answer", 30)}\nFound the **needle**, twice: needle.` },
      ],
    ];
    await useAgent("Finder", { turns });
    const a = await api();
    const prompts = ["turn one", "turn two", "turn three", "turn four", "look for the needle"];
    for (const [i, p] of prompts.entries()) await a.stream(p, { agent: "Finder", newSession: i === 0 }).result;
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("twice"), undefined, { view: "sidebar", what: "the last answer" });

    const config = vscode.workspace.getConfiguration("workbench");
    await config.update("colorTheme", "Default Dark Modern", vscode.ConfigurationTarget.Global);
    await waitFor(() => document.body.classList.contains("vscode-dark"), undefined, { view: "sidebar", what: "the dark theme" });
    await fill("#search", "needle", "sidebar");
    // In the prompt, the two thoughts, the card's body and the answer (twice).
    const total = 6;
    const first = Number(await waitFor((n: number) => {
      const m = (document.querySelector(".match-count")?.textContent ?? "").match(/^(\d+) of (\d+)$/);
      return m && Number(m[2]) === n ? m[1] : undefined;
    }, total, { view: "sidebar", what: `"k of ${total}"` }));
    assert.ok(first >= 1 && first <= total);
    // The answer's two, at the bottom in view, are highlighted (only matches near the view are).
    const drawn = await waitFor(() => {
      const h = CSS.highlights.get("find-match");
      const where = h ? [...h].map((r) => r.startContainer.parentElement?.closest<HTMLElement>("[data-entry-type]")?.dataset.entryType ?? "prompt") : [];
      return where.filter((w) => w === "message").length === 2 ? where : undefined;
    }, undefined, { view: "sidebar", what: "the answer's matches highlighted" });
    assert.ok(drawn && drawn.length <= 4, `no more highlights than matches on the page: ${drawn?.join(", ")}`);
    assert.ok(await evaluate(() => document.querySelector("#transcript mark, #transcript .highlight") === null, undefined, "sidebar"), "no element was added around a match");

    const next = (k: number): number => (k % total) + 1;
    await press("#search", "Enter", "sidebar");
    await waitFor((want: string) => document.querySelector(".match-count")?.textContent === want, `${next(first)} of ${total}`, { view: "sidebar", what: "Enter: the next match" });
    await press("#search", "Shift+Enter", "sidebar");
    await waitFor((want: string) => document.querySelector(".match-count")?.textContent === want, `${first} of ${total}`, { view: "sidebar", what: "Shift+Enter: back" });
    assert.match(await evaluate(() => document.getElementById("find-live")?.textContent ?? "", undefined, "sidebar"), new RegExp(`^${first} of ${total} matches`), "the step is announced");

    // Every match in turn: each is shown, whatever folded it.
    const seen: Record<string, ReturnType<typeof currentMatch>> = {};
    let k = first;
    for (let i = 0; i < total; i++) {
      k = next(k);
      await press("#search", "Enter", "sidebar");
      const m = await shown(`${k} of ${total}`);
      assert.equal(m.text.toLowerCase(), "needle");
      seen[`${m.where}@${m.turn}#${k}`] = m;
      if (m.where === "thought" && m.turn === "5") await screenshot("test-results/find-dark.png"); // copied to docs/screenshots/
    }
    const places = Object.keys(seen).map((s) => s.replace(/#\d+$/, "")).sort();
    assert.deepEqual(places, ["message@5", "message@5", "prompt@5", "thought@1", "thought@5", "tool@5"]);
    for (const m of Object.values(seen)) if (m.where === "thought" || m.where === "tool") assert.equal(m.open, "true", `the ${m.where} was opened`);
    assert.ok(await evaluate(() => document.querySelector('.turn[data-turn-id="1"]')?.classList.contains("open") ?? false, undefined, "sidebar"), "the folded first turn was unfolded");

    // Light theme, on the current match.
    await config.update("colorTheme", "Default Light Modern", vscode.ConfigurationTarget.Global);
    try {
      await waitFor(() => document.body.classList.contains("vscode-light"), undefined, { view: "sidebar", what: "the light theme" });
      await screenshot("test-results/find-light.png"); // copied to docs/screenshots/
      await config.update("colorTheme", "Default High Contrast", vscode.ConfigurationTarget.Global);
      await waitFor(() => document.body.classList.contains("vscode-high-contrast"), undefined, { view: "sidebar", what: "the high contrast theme" });
      await screenshot("test-results/find-hc.png");
    } finally {
      await config.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    }

    // The arrow buttons step too.
    const before = (await evaluate(currentMatch, undefined, "sidebar")).counter;
    await click(".find-next", "sidebar");
    await waitFor((b: string) => (document.querySelector(".match-count")?.textContent ?? b) !== b, before, { view: "sidebar", what: "the next button" });
    await click(".find-prev", "sidebar");
    await waitFor((b: string) => document.querySelector(".match-count")?.textContent === b, before, { view: "sidebar", what: "the previous button" });

    // F3 anywhere in the panel steps too; Ctrl+F puts the cursor back in the box.
    const atF3 = (await evaluate(currentMatch, undefined, "sidebar")).counter;
    await press("#transcript", "F3", "sidebar");
    await waitFor((b: string) => (document.querySelector(".match-count")?.textContent ?? b) !== b, atF3, { view: "sidebar", what: "F3: the next match" });
    await press("#transcript", "Shift+F3", "sidebar");
    await waitFor((b: string) => document.querySelector(".match-count")?.textContent === b, atF3, { view: "sidebar", what: "Shift+F3: back" });
    // With an editor open too, the reader back in the panel: VS Code's own Find (sent the key as well) would take the cursor to the editor.
    const doc = await vscode.workspace.openTextDocument({ content: "an editor is open" });
    await vscode.window.showTextDocument(doc, { preview: false });
    await click("#transcript", "sidebar");
    await waitFor(() => document.hasFocus(), undefined, { view: "sidebar", what: "the panel focused by the click" });
    await press("#transcript", "Control+f", "sidebar");
    // What is typed next goes to the find box, not to an editor's find.
    await harnessRequest({ op: "keyboard", key: "q" });
    await waitFor(() => document.hasFocus() && document.activeElement?.id === "search" && (document.getElementById("search") as HTMLInputElement).value === "q", undefined, { view: "sidebar", what: "Ctrl+F: the cursor in the find box, the query selected" });
    await fill("#search", "needle", "sidebar");
    await waitFor((t: number) => document.querySelector(".match-count")?.textContent?.endsWith(` of ${t}`) ?? false, total, { view: "sidebar", what: "the query back" });
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");

    // Only the entries that match: the rest go, the matches stay the same; and back.
    await click(".find-only", "sidebar");
    await waitFor(() => !(document.getElementById("transcript")?.textContent ?? "").includes("ok 4") && document.querySelector(".find-only")?.getAttribute("aria-pressed") === "true", undefined, { view: "sidebar", what: "entries without a match hidden" });
    assert.match(await evaluate(() => document.querySelector(".match-count")?.textContent ?? "", undefined, "sidebar"), new RegExp(` of ${total}$`));
    await click(".find-only", "sidebar");
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("ok 4"), undefined, { view: "sidebar", what: "every entry back" });

    // Escape clears: no highlights, no counter.
    await press("#search", "Escape", "sidebar");
    await waitFor(() => !CSS.highlights.has("find-match") && !CSS.highlights.has("find-current") && (document.querySelector<HTMLElement>(".match-count")?.hidden ?? false), undefined, { view: "sidebar", what: "find cleared" });
  });

  it("stays on the match it went to while the agent streams: the view stops following the bottom until asked", async () => {
    const streaming: Step[] = [];
    // An answer that grows below the matches (a thought would grow inside its own box).
    for (let i = 0; i < 100; i++) streaming.push({ message: `streaming line ${i}: ${i === 40 ? "the haystack in the middle" : "more and more ".repeat(4)}\n\n` }, { sleep: 80 });
    await useAgent("Streamer", { turns: [[
      { message: `${filler("early", 80)}\nthe haystack early on\n\n${filler("then", 40)}` },
      { thought: "now the long part" },
      ...streaming,
      { thought: "and the end" },
      { message: "the haystack at the end" },
    ]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("stream for a while", { agent: "Streamer", newSession: true });
    const streamed = (): Promise<number> => evaluate(() => (document.getElementById("transcript")?.textContent ?? "").split("streaming line").length - 1, undefined, "sidebar");
    const moreLines = async (n: number): Promise<void> => {
      const now = await streamed();
      await waitFor((want: number) => (document.getElementById("transcript")?.textContent ?? "").split("streaming line").length - 1 >= want, now + n, { view: "sidebar", what: `${n} more streamed lines` });
    };
    const scrollTop = (): Promise<number> => evaluate(() => document.getElementById("transcript")!.scrollTop, undefined, "sidebar");
    await waitFor(() => /streaming line 2\b/.test(document.getElementById("transcript")?.textContent ?? ""), undefined, { view: "sidebar", what: "the answer streaming" });
    assert.ok(await evaluate(() => document.getElementById("jump-latest")?.hidden ?? false, undefined, "sidebar"), "following the bottom while it streams");

    // Nothing matches below the view's top: find goes to the first match, up in the early answer.
    await fill("#search", "haystack", "sidebar");
    assert.equal((await shown("1 of 1")).where, "message");
    const at = await scrollTop();
    await moreLines(8);
    assert.ok((await evaluate(currentMatch, undefined, "sidebar")).seen, "the match is still in view");
    assert.equal(await scrollTop(), at, "the view did not move");
    assert.equal(await evaluate(() => document.getElementById("jump-latest")?.hidden ?? true, undefined, "sidebar"), false, "Jump to latest is offered");

    // Following again; a match that streams in at the bottom, gone to, stays in view as more streams below it.
    await click("#jump-latest", "sidebar");
    await waitFor(() => /the haystack in the middle/.test(document.getElementById("transcript")?.textContent ?? ""), undefined, { view: "sidebar", what: "the middle match streamed", timeoutMs: 20_000 });
    // The reader is a few pixels above the bottom (still following) and goes to the next match: the
    // transcript scrolls to the bottom to show it, and must not take that for "follow again".
    await evaluate(() => {
      const t = document.getElementById("transcript")!;
      t.scrollTop = t.scrollHeight - t.clientHeight - 20;
      document.querySelector<HTMLElement>(".find-next")!.click();
    }, undefined, "sidebar");
    await shown("2 of 2");
    const there = await scrollTop();
    await moreLines(15);
    const still = await evaluate(currentMatch, undefined, "sidebar");
    assert.ok(still.seen, `the match is still in view: ${JSON.stringify(still)}`);
    assert.equal(await scrollTop(), there, "the view did not follow the bottom");

    // The last answer's match is counted when it arrives; the current one stays.
    await turn.result;
    await shown("2 of 3");
    await press("#search", "Escape", "sidebar");
  });
  it("find closed after going to a match, a session shown next follows its latest as it streams", async () => {
    // Going to a match keeps the view where the match is until the reader scrolls; that place was
    // kept after find closed and in other sessions, and whenever the transcript stood at the same
    // offset (here 0: the match is in a thought's own box, the transcript does not scroll) the
    // view stopped following the bottom.
    const words = Array.from({ length: 1500 }, (_, i) => `word${i}`).join(" ");
    const talk: Step[] = [];
    for (let i = 0; i < 40; i++) talk.push({ message: `line ${i} of the answer: ${"and so on ".repeat(8)}\n\n` }, { sleep: 60 });
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Thinker", { turns: [[{ thought: words }, { message: "thought it over" }]] }),
      scriptedAgent("Talker", { turns: [[...talk, { message: "the last line" }]] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await a.stream("think", { agent: "Thinker", newSession: true }).result;
    // The turn can end in the host before the panel has drawn it: wait for the folded thought, then open it.
    await waitFor(() => {
      const t = document.querySelector(".entry-thought:not(.open) .thought-head");
      if (!(t instanceof HTMLElement)) return undefined;
      t.click();
      return true;
    }, undefined, { view: "sidebar", what: "the finished thought, folded" });
    await fill("#search", "word1200 ", "sidebar");
    assert.equal((await shown("1 of 1")).where, "thought");
    assert.equal(await evaluate(() => document.getElementById("transcript")!.scrollTop, undefined, "sidebar"), 0, "the transcript itself did not scroll");
    await press("#search", "Escape", "sidebar");
    await waitFor(() => document.querySelector(".match-count")?.textContent === "" || undefined, undefined, { view: "sidebar", what: "find closed" }).catch(() => undefined);
    const next = a.stream("talk", { agent: "Talker", newSession: true });
    await next.result;
    const end = await waitFor(() => {
      const t = document.getElementById("transcript")!;
      if (!(t.textContent ?? "").includes("the last line")) return undefined;
      return { overflows: t.scrollHeight > t.clientHeight + 100, atBottom: t.scrollTop + t.clientHeight >= t.scrollHeight - 2, following: document.getElementById("jump-latest")?.hidden === true };
    }, undefined, { view: "sidebar", what: "the second session's last line" });
    assert.deepEqual(end, { overflows: true, atBottom: true, following: true });
  });

  it("goes to a match far up a long turn with a window around it: the rest behind Show later, and Jump to latest brings the newest back", async () => {
    await useAgent("LongTurn", { turns: [[
      ...longTurn(),
      // The turn waits on this while the reader finds; what comes after the answer streams in below.
      { permission: { toolCall: { toolCallId: "gate", title: "Run the tests", kind: "execute" }, options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }] }, onSelected: { ok: [pairs(1_200, 50), { message: "the newest words" }] } },
    ]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("a long turn", { agent: "LongTurn", newSession: true });
    await questionAsked(turn, "ok");
    const sessionId = a._test.controller.viewState.order.at(-1) ?? "";
    const count = (): number => a._test.controller.viewState.sessions[sessionId]?.turns.at(-1)?.entries.length ?? 0;
    const before = await drawn();
    assert.ok(before.entries <= 150 && before.later === "", `the last entries drawn: ${JSON.stringify(before)}`);

    // The needle is the 8th entry of 2,400: drawn with the 75 after it, the rest behind "Show later".
    await fill("#search", "needle file", "sidebar");
    const m = await shown("1 of 2");
    assert.equal(m.where, "tool");
    const far = await drawn();
    assert.ok(far.entries <= 150, `${far.entries} entries drawn around the match (the DOM stays small: ${far.elements} elements)`);
    assert.equal(far.earlier, "", "nothing hidden above it: it is near the turn's start");
    assert.ok(count() >= 2_400);
    assert.equal(far.later, `Show 150 later (${count() - far.entries} hidden)`);
    assert.ok(far.jump, "Jump to latest is offered: the bottom is not the latest");
    assert.ok(far.elements < 3_000, `${far.elements} elements in the transcript`);
    await screenshot("test-results/find-far-up-a-long-turn.png");

    // The agent goes on: what it sends waits below the window; the match stays in view.
    const asked = count();
    await click('#question [data-answer="ok"]', "sidebar");
    await turn.result;
    assert.ok(count() >= asked + 101, `${count()} entries after the answer, ${asked} before`);
    await waitFor((n: number) => /\((\d+) hidden\)/.exec([...document.querySelectorAll(".turn")].pop()?.querySelector(".entries > .show-later .label")?.textContent ?? "")?.[1] === String(n), count() - far.entries, { view: "sidebar", what: "the newest entries counted as hidden" });
    // (What came is counted in slices, "…" until then: on a busy machine for a while.)
    const counted = async (): Promise<ReturnType<typeof currentMatch> | undefined> => {
      const m = await evaluate(currentMatch, undefined, "sidebar");
      return m.counter === "…" ? undefined : m;
    };
    const still = await until(counted, "the newest entries counted", 15_000).catch(() => evaluate(currentMatch, undefined, "sidebar"));
    assert.ok(still.seen && still.counter === "1 of 2", `the match stays in view: ${JSON.stringify(still)}`);
    assert.equal((await drawn()).first, far.first, "the window did not move");

    // Show later, pressed at the bottom: 150 more below what the reader saw, which stays in view
    // (the bottom of such a window is not the latest: the view does not follow it down).
    await evaluate(() => {
      const t = document.getElementById("transcript")!;
      t.scrollTop = t.scrollHeight;
    }, undefined, "sidebar");
    await waitFor(inView, `[data-entry-id="${far.last}"]`, { view: "sidebar", what: "the window's last entry at the bottom of the view" });
    assert.ok((await drawn()).jump, "Jump to latest still offered at the bottom of the window");
    await click(".turn:last-of-type .entries > .show-later", "sidebar");
    const more = await waitFor((n: number) => { const c = [...document.querySelectorAll(".turn")].pop()?.querySelectorAll(".entries > .entry").length ?? 0; return c > n ? c : 0; }, far.entries, { view: "sidebar", what: "later entries drawn" });
    assert.equal(more, far.entries + 150);
    assert.ok(await evaluate(inView, `[data-entry-id="${far.last}"]`, "sidebar"), "what the reader saw before Show later is still in view");
    await click(".turn:last-of-type .entries > .show-later", "sidebar");
    await waitFor((f: string) => [...document.querySelectorAll(".turn")].pop()?.querySelector<HTMLElement>(".entries > .entry")?.dataset.entryId !== f, far.first, { view: "sidebar", what: "the window to slide down" });
    const slid = await drawn();
    assert.equal(slid.entries, 300, `at most 300 drawn: ${JSON.stringify(slid)}`);
    assert.ok(slid.earlier.startsWith("Show ") && slid.later.startsWith("Show 150 later"), JSON.stringify(slid));
    await evaluate(() => document.querySelector(".turn:last-of-type .entries > .show-later")?.scrollIntoView({ block: "end" }), undefined, "sidebar");
    await screenshot("test-results/find-show-later.png");

    // Jump to latest: the turn's last entries, its newest words at the bottom.
    await click("#jump-latest", "sidebar");
    await waitFor(() => {
      const t = document.getElementById("transcript")!;
      const words = [...t.querySelectorAll<HTMLElement>(".entry")].pop();
      const r = words?.getBoundingClientRect();
      const box = t.getBoundingClientRect();
      return !!words && /the newest words/.test(words.textContent ?? "") && !!r && r.bottom <= box.bottom + 1 && r.bottom > box.top
        && !document.querySelector(".turn:last-of-type .entries > .show-later") && (document.getElementById("jump-latest")?.hidden ?? false);
    }, undefined, { view: "sidebar", what: "the newest entries drawn and in view" });
    const latest = await drawn();
    assert.ok(latest.entries <= 300, `${latest.entries} entries drawn at the end`);
    await press("#search", "Escape", "sidebar");
  });

  it("a new question while the reader is far up a long turn brings its newest entries back, at the bottom of the view", async () => {
    const ask = (id: string, then: Step[]): Step => ({ permission: { toolCall: { toolCallId: id, title: `Run step ${id}`, kind: "execute" }, options: [{ optionId: id, name: "Allow", kind: "allow_once" }] }, onSelected: { [id]: then } });
    await useAgent("LongTurn", { turns: [[...longTurn(), ask("first", [pairs(1_200, 20), { message: "the newest words" }, ask("second", [{ message: "done" }])])]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("a long turn", { agent: "LongTurn", newSession: true });
    await questionAsked(turn, "first");
    await fill("#search", "", "sidebar");
    await fill("#search", "needle file", "sidebar");
    await shown("1 of 2");
    assert.ok((await drawn()).later.startsWith("Show 150 later"), "a window around the match");
    await click('#question [data-answer="first"]', "sidebar");
    await questionAsked(turn, "second");
    // The second question: the turn's newest entries drawn again, the view at the bottom with them.
    await waitFor(() => {
      const t = document.getElementById("transcript")!;
      const words = [...t.querySelectorAll<HTMLElement>(".entry")].find((e) => /the newest words/.test(e.textContent ?? ""));
      const r = words?.getBoundingClientRect();
      const box = t.getBoundingClientRect();
      return !document.querySelector(".turn:last-of-type .entries > .show-later") && !!r && r.bottom <= box.bottom + 1 && r.bottom > box.top && t.scrollTop + t.clientHeight >= t.scrollHeight - 40;
    }, undefined, { view: "sidebar", what: "the newest entries drawn and the view at the bottom" });
    const now = await drawn();
    assert.ok(now.entries <= 150 && !now.jump, `the last entries drawn, following: ${JSON.stringify(now)}`);
    await click('#question [data-answer="second"]', "sidebar");
    await turn.result;
    await press("#search", "Escape", "sidebar");
  });
});
