// `AGENT_THOUGHTS_BENCH=bigthought`: one thought of about 5 MB (200,000 chunks "w{i} lorem ipsum
// dolor ", 21-26 characters, in one turn), for the "a 4.8 MB thought opens, scrolls and
// searches without a long task over 50 ms". The panel's long tasks (> 50 ms) and DOM while it
// streams; when the finished (folded) thought is opened by its header; scrolled in its own box (to
// the middle, the start, the end, then 200 box-heights up, a frame each); and searched for a rare
// and a frequent text until counted.
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import { log } from "../integration/index";
import { click, evaluate, fill, waitFor } from "../integration/webview";
import { phase } from "./hostile";
import { mb, useScenario } from "./util";

const CHUNKS = 200_000;
const TARGET_MS = 50;
const DOM_TARGET = 3_000;

/** Logs the panel's DOM size against the target. */
async function logDom(when: string): Promise<void> {
  const n = await evaluate(() => document.getElementsByTagName("*").length, undefined, "sidebar");
  log(`    DOM elements in the panel ${when}: ${n.toLocaleString("en")} (target < ${DOM_TARGET.toLocaleString("en")}: ${n < DOM_TARGET ? "met" : "MISSED"})`);
}

export async function bigThought(a: AgentThoughtsInternalApi): Promise<void> {
  await useScenario("BigThought", { turns: [[{ flood: { count: CHUNKS, kind: "thought", text: "w{i} lorem ipsum dolor " } }, { message: "big thought over" }]] });
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  log(`  One thought of ${CHUNKS.toLocaleString("en")} chunks in one turn`);
  await phase("streamed as fast as the agent writes until shown", async () => {
    await a.stream("think a lot", { agent: "BigThought", newSession: true }).result;
    await waitFor(() => (document.getElementById("transcript")?.textContent ?? "").includes("big thought over"), undefined, { view: "sidebar", timeoutMs: 120_000, what: "the message after the thought" });
  }, undefined, "bigthought-streaming");
  const size = await evaluate(() => {
    const bodies = document.querySelectorAll(".thought-text");
    return bodies[bodies.length - 1]?.textContent?.length ?? 0;
  }, undefined, "sidebar");
  log(`    its text: ${mb(size)}`);
  await logDom("with it folded");

  await phase("opening it by its header until its end is drawn", async () => {
    await click("[data-entry-type='thought'] .thought-head", "sidebar");
    await waitFor(() => document.querySelector("[data-entry-type='thought'].open") !== null, undefined, { view: "sidebar", what: "the thought open" });
    // Two frames: what opening it costs is drawn by then.
    await evaluate(() => new Promise<boolean>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))), undefined, "sidebar");
  }, TARGET_MS);
  await logDom("with it open");

  // The open thought scrolls in its own box (30 lines high): a drag of its scroll bar to the middle, to
  // the start and back to the end, then 200 box-heights up from the end a frame at a time.
  let steps = 0;
  await phase("scrolling it: to the middle, the start and the end, then 200 of its box-heights up, one a frame", async () => {
    steps = await evaluate(async () => {
      const bodies = document.querySelectorAll<HTMLElement>(".thought-text");
      const t = bodies[bodies.length - 1];
      if (!t) return -1;
      const frame = (): Promise<void> => new Promise((r) => requestAnimationFrame(() => r()));
      let n = 0;
      for (const to of [t.scrollHeight / 2, 0, t.scrollHeight]) {
        t.scrollTop = to;
        await frame();
        n++;
      }
      for (let i = 0; i < 200 && t.scrollTop > 0; i++) {
        t.scrollTop = Math.max(0, t.scrollTop - t.clientHeight);
        await frame();
        n++;
      }
      return n;
    }, undefined, "sidebar");
  }, TARGET_MS);
  if (steps < 200) throw new Error(`scrolled only ${steps} steps: the thought's box does not scroll`);

  const rare = "w123456 ";
  await phase(`typing a rare text ("${rare.trim()}", 1 match) until counted`, async () => {
    await fill("#search", rare, "sidebar");
    await waitFor(() => /^1 of 1$/.test(document.querySelector(".match-count")?.textContent ?? ""), undefined, { view: "sidebar", timeoutMs: 60_000, what: "1 of 1" });
  }, TARGET_MS, "bigthought-rare");
  // The match is deep in the thought, in a block the browser had skipped: stepping to it must bring it into view.
  const shown = await evaluate(() => {
    const range = [...(CSS.highlights.get("find-current") ?? [])][0];
    const bodies = document.querySelectorAll<HTMLElement>(".thought-text");
    const box = bodies[bodies.length - 1]?.getBoundingClientRect();
    if (!range || !box) return "no current match";
    const live = document.createRange();
    live.setStart(range.startContainer, range.startOffset);
    live.setEnd(range.endContainer, range.endOffset);
    const r = live.getBoundingClientRect();
    return r.height > 0 && r.top >= box.top && r.bottom <= box.bottom ? "in view" : `out of view (${Math.round(r.top)}..${Math.round(r.bottom)} vs ${Math.round(box.top)}..${Math.round(box.bottom)})`;
  }, undefined, "sidebar");
  log(`    the rare match, deep in the thought: ${shown}`);
  if (shown !== "in view") throw new Error(`the current match is ${shown}`);
  await phase(`typing a frequent text ("lorem", ${CHUNKS.toLocaleString("en")} matches) until counted`, async () => {
    await fill("#search", "lorem", "sidebar");
    await waitFor((n: string) => new RegExp(`^\\d+ of ${n}$`).test(document.querySelector(".match-count")?.textContent ?? ""), String(CHUNKS), { view: "sidebar", timeoutMs: 60_000, what: `k of ${CHUNKS}` });
  }, TARGET_MS, "bigthought-frequent");
  // Counted in slices: the highlights are the matches around the view, not those the last slice found.
  const lit = await waitFor(() => {
    const bodies = document.querySelectorAll<HTMLElement>(".thought-text");
    const box = bodies[bodies.length - 1]?.getBoundingClientRect();
    if (!box) return undefined;
    let seen = 0;
    for (const range of CSS.highlights.get("find-match") ?? []) {
      const live = document.createRange();
      live.setStart(range.startContainer, range.startOffset);
      live.setEnd(range.endContainer, range.endOffset);
      const r = live.getBoundingClientRect();
      if (r.height > 0 && r.bottom > box.top && r.top < box.bottom) seen++;
    }
    return seen > 0 ? seen : undefined;
  }, undefined, { view: "sidebar", timeoutMs: 10_000, what: "highlighted matches in the thought's box" }).catch(() => 0);
  log(`    highlighted matches in the thought's box after counting: ${lit || "NONE"}`);
  if (!lit) throw new Error("no highlighted match in view after counting the frequent text");
  await fill("#search", "", "sidebar");
}
