// `AGENT_THOUGHTS_BENCH=find`: find in a 5 MB transcript — 25 turns of a 100 KB thought, a tool
// card and a 100 KB answer, all but the last three folded. Long tasks (> 50 ms) of the panel's
// webview while typing a rare and a frequent text, stepping through matches into folded turns,
// and streaming a turn while finding; beside them what the same panel does without find
// (unfolding a turn by its header, streaming the same turn), so the figures say what find adds.
// Then going to a match at the start of one turn of 2,400 entries (short thoughts and tool calls):
// the long tasks, and how many elements the panel draws there.
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Step } from "../fixtures/agents/scenario";
import { log } from "../integration/index";
import { click, evaluate, fill, press, waitFor } from "../integration/webview";
import { phase } from "./hostile";
import { mb, num, useScenario } from "./util";

const TURNS = 25;
const CHUNKS = 500;
const LINE = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo";

function turn(): Step[] {
  return [
    { flood: { count: CHUNKS, kind: "thought", text: `item {i}: ${LINE}\n` } },
    { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "notes", title: "Read the notes", kind: "read", status: "completed", content: [{ type: "content", content: { type: "text", text: `item 77: ${LINE}` } }] } },
    { flood: { count: CHUNKS, kind: "message", text: `item {i}: ${LINE}.\n\n` } },
  ];
}

function counter(re: string): Promise<string | undefined> {
  return waitFor((r: string) => {
    const t = document.querySelector(".match-count")?.textContent ?? "";
    return new RegExp(r).test(t) ? t : undefined;
  }, re, { view: "sidebar", what: `the counter to read /${re}/`, timeoutMs: 60_000 });
}

export async function findBench(a: AgentThoughtsInternalApi): Promise<void> {
  await useScenario("Finder", { turns: [turn()] });
  for (let i = 0; i < TURNS; i++) await a.stream(`turn ${i + 1}`, { agent: "Finder", newSession: i === 0 }).result;
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  await waitFor((n: number) => document.querySelectorAll(".turn").length >= n && document.querySelector("#session-status")?.getAttribute("data-status") === "idle", TURNS, { view: "sidebar", what: "every turn", timeoutMs: 60_000 });
  const bytes = TURNS * 2 * CHUNKS * (LINE.length + 12);
  log(`  Find in ${TURNS} turns (~${mb(bytes)} of thoughts and answers, ${TURNS - 3} turns folded)`);

  await phase("without find: unfolding a folded turn by its header", async () => {
    await click('.turn[data-turn-id="2"] .turn-head', "sidebar");
    await waitFor(() => (document.querySelector('.turn[data-turn-id="2"] .message-body')?.textContent?.length ?? 0) > 50_000, undefined, { view: "sidebar", what: "turn 2 drawn" });
  });
  await click('.turn[data-turn-id="2"] .turn-head', "sidebar");

  const rare = TURNS * 3;
  await phase(`typing a rare text (${rare} matches, ${rare - 9} in folded turns) until "k of ${rare}"`, async () => {
    await fill("#search", "item 77:", "sidebar");
    await counter(`^\\d+ of ${rare}$`);
  });
  await phase("stepping through 6 matches (Shift+Enter: into folded turns, each unfolded, opened and centred)", async () => {
    for (let i = 0; i < 6; i++) {
      const before = await evaluate(() => document.querySelector(".match-count")?.textContent ?? "", undefined, "sidebar");
      await press("#search", "Shift+Enter", "sidebar");
      await waitFor((b: string) => { const t = document.querySelector(".match-count")?.textContent ?? b; return t !== b && /^\d+ of/.test(t); }, before, { view: "sidebar", what: "the previous match" });
    }
  });
  const frequent = TURNS * (2 * CHUNKS + 1);
  await phase(`typing a frequent text (${frequent.toLocaleString("en")} matches) until "k of ${frequent.toLocaleString("en")}"`, async () => {
    await fill("#search", "lorem", "sidebar");
    await counter(`^\\d+ of ${frequent}$`);
  });
  const highlights = await evaluate(() => CSS.highlights.get("find-match")?.size ?? 0, undefined, "sidebar");
  log(`    highlights on the page: ${highlights.toLocaleString("en")}`);
  await phase("streaming one more turn (200 KB) while finding the frequent text, until counted", async () => {
    await a.stream("one more", { agent: "Finder" }).result;
    await counter(`^\\d+ of ${frequent + 2 * CHUNKS + 1}$`);
  });
  await press("#search", "Escape", "sidebar");
  await phase("without find: streaming one more turn (200 KB) until shown", async () => {
    await a.stream("and another", { agent: "Finder" }).result;
    await waitFor((n: number) => document.querySelectorAll(".turn").length >= n && document.querySelector("#session-status")?.getAttribute("data-status") === "idle", TURNS + 2, { view: "sidebar", what: "the last turn" });
  });
  await farUpALongTurn(a);
}

const LONG_TURN_PAIRS = 1_200;

/** One turn of 2,400 entries, a thought and a tool call each step, the 4th call's title the only "needle". */
async function farUpALongTurn(a: AgentThoughtsInternalApi): Promise<void> {
  const text = (t: string): Record<string, unknown> => ({ type: "text", text: t });
  const steps: Step[] = [];
  for (let from = 0; from < LONG_TURN_PAIRS; from += 100) {
    steps.push({ updates: Array.from({ length: 100 }, (_, k) => [
      { sessionUpdate: "agent_thought_chunk", content: text(`weighing step ${from + k}`) },
      { sessionUpdate: "tool_call", toolCallId: `t${from + k}`, title: from + k === 3 ? "Read the needle file" : `Read part ${from + k}`, kind: "read", status: "completed" },
    ]).flat() });
  }
  await useScenario("LongTurn", { turns: [steps] });
  const elements = (): Promise<number> => evaluate(() => document.getElementById("transcript")?.querySelectorAll("*").length ?? 0, undefined, "sidebar");
  log(`  Find in one turn of ${num(2 * LONG_TURN_PAIRS)} entries (a short thought and a tool call each step, in writes of 200 updates)`);
  await phase("streaming it, in a new session, until its last entries are drawn", async () => {
    await a.stream("a long turn", { agent: "LongTurn", newSession: true }).result;
    await waitFor((n: number) => [...document.querySelectorAll(".turn")].pop()?.querySelector(".show-earlier .label")?.textContent?.includes(`${n - 150} hidden`) === true && document.querySelector("#session-status")?.getAttribute("data-status") === "idle", 2 * LONG_TURN_PAIRS, { view: "sidebar", what: "the long turn's last entries", timeoutMs: 60_000 });
  }, undefined, "long-turn-stream");
  log(`    its last 150 entries drawn: ${num(await elements())} elements in the transcript`);
  await phase("going to the one match, its 8th entry, until drawn", async () => {
    await fill("#search", "needle file", "sidebar");
    await counter("^1 of 1$");
    await waitFor(() => CSS.highlights.get("find-current")?.size === 1, undefined, { view: "sidebar", what: "the match drawn" });
  }, 50);
  const there = await elements();
  log(`    elements in the transcript there: ${num(there)} (target < 3,000: ${there < 3_000 ? "met" : "MISSED"})`);
  await press("#search", "Escape", "sidebar");
}
