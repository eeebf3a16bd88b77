// One bad message cannot break the panel or lose the transcript (issue 10): a hostile scripted
// agent sends raw input nested 10,000 deep, a 20 MB raw output, a plan of 50,000 entries,
// tool call / session / JSON-RPC ids of 600 characters, lone surrogates and invalid UTF-8 bytes.
// The panel shows bounded data with a visible "truncated" marker and keeps working for every
// session (the user answers the permission request, selects the session, opens its diff); the
// transcript on disk has every event whole, under a name the agent did not choose. Also: a
// throwing panel listener loses no transcript event, and a failed post re-syncs the panel.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { ThoughtEvent } from "../../src/shared/events";
import { joinChunkRuns } from "../../src/core/sessionLog";
import { eventFromLine } from "../../src/core/transcriptLines";
import type { Scenario } from "../fixtures/agents/scenario";
import { api, scriptedAgent, sendFromPanel, transcriptHas as shows, until } from "./helpers";
import { log } from "./index";
import { click, evaluate, waitFor } from "./webview";

const LONG = 600;
const DEEP = 10_000;
const BIG = 20_000_000;
const PLAN = 50_000;

function ws(...p: string[]): string {
  return path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ...p);
}

async function configure(agents: unknown[], defaultAgent: string): Promise<void> {
  const config = vscode.workspace.getConfiguration("agentThoughts");
  await config.update("agents", agents, vscode.ConfigurationTarget.Global);
  await config.update("defaultAgent", defaultAgent, vscode.ConfigurationTarget.Global);
}

async function openSidebar(): Promise<void> {
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the panel" });
}

const transcriptHas = (text: string): Promise<boolean> => shows(text, 30_000);

/** The events in a session's transcript file, once it has `count` of them (it is written every 200 ms). */
/** The saved transcript once it holds the session's last event (`lastSeq`); runs of text chunks are one line each. */
async function savedEvents(a: AgentThoughtsInternalApi, sessionId: string, lastSeq: () => number): Promise<{ file: string; events: ThoughtEvent[] }> {
  const file = a._test.transcripts.fileOf(sessionId);
  assert.ok(file, "transcripts are saved (the workspace has storage)");
  const read = (l: string): ThoughtEvent => { const r = eventFromLine(l); if ("problem" in r) throw new Error(`a transcript line does not read back: ${r.problem}`); return r.event; };
  const events = (): ThoughtEvent[] => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map(read) : []);
  await until(() => events().at(-1)?.seq === lastSeq(), `event ${lastSeq()} in ${path.basename(file)}`, 30_000);
  const saved = events();
  saved.forEach((e, i) => assert.ok(i === 0 || e.seq > saved[i - 1]!.seq, `saved in order at line ${i + 1}`));
  return { file, events: saved };
}

/** Nesting depth of `{"a":{"a":…}}`, counted without recursion. */
function depthOf(v: unknown): number {
  let d = 0;
  for (let cur = v; typeof cur === "object" && cur !== null; cur = (cur as { a?: unknown }).a) d++;
  return d;
}

function hostile(diffFile: string): Scenario {
  const raw = (update: string, expand: Record<string, { text: string; times: number }> = {}): { rawUpdate: string; expand: Record<string, { text: string; times: number }> } =>
    ({ rawUpdate: update, expand: { TOOL: { text: "t", times: LONG }, DIFF: { text: "d", times: LONG }, ...expand } });
  return {
    sessionIdPadding: LONG,
    turns: [
      [
        raw(`{"sessionUpdate":"tool_call","toolCallId":"{{TOOL}}","title":"Deep input","kind":"read","status":"in_progress","rawInput":{{OPEN}}"bottom"{{CLOSE}}}`,
          { OPEN: { text: '{"a":', times: DEEP }, CLOSE: { text: "}", times: DEEP } }),
        raw(`{"sessionUpdate":"tool_call_update","toolCallId":"{{TOOL}}","status":"completed","rawOutput":"{{BIG}}"}`, { BIG: { text: "0123456789", times: BIG / 10 } }),
        raw(`{"sessionUpdate":"plan","entries":[{{ENTRIES}}{"content":"the last step","priority":"high","status":"pending"}]}`,
          { ENTRIES: { text: '{"content":"a step","priority":"low","status":"pending"},', times: PLAN - 1 } }),
        { rawUpdate: String.raw`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"odd text: \ud800 {{BAD}} end"}}`, bytes: { BAD: [0xff, 0xfe, 0xc3] } },
        raw(`{"sessionUpdate":"tool_call","toolCallId":"{{DIFF}}","title":"Edit with a long id","kind":"edit","status":"completed","content":[{"type":"diff","path":${JSON.stringify(diffFile)},"oldText":"old line\\n","newText":"new line\\n"}]}`),
        {
          permission: {
            rpcId: "r".repeat(LONG),
            toolCall: { toolCallId: "p".repeat(LONG), title: "Run the hostile command", kind: "execute", status: "pending", rawInput: { command: "true" } },
            options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }],
          },
          onSelected: { allow: [{ message: "permission granted by the user" }], reject: [{ message: "permission rejected" }] },
          onCancelled: [{ message: "permission cancelled" }],
        },
        { message: "hostile turn done" },
      ],
      [{ message: "the hostile session still talks" }],
    ],
  };
}

describe("Hostile input: one bad message cannot break the panel or lose the transcript", function () {
  this.timeout(240_000);

  afterEach(async () => {
    const a = await api();
    a._test.controller.testFaults.throwingEvents = 0;
    a._test.controller.testFaults.failingPosts = 0;
    await a._test.manager.stop();
  });

  it("deep and huge raw data, a 50,000-entry plan, 600-character ids, lone surrogates and invalid UTF-8: bounded in the panel with a marker, answerable, whole in the transcript", async function () {
    const a = await api();
    const diffFile = ws("bounds", "long-id.txt");
    fs.mkdirSync(path.dirname(diffFile), { recursive: true });
    fs.writeFileSync(diffFile, "new line\n");
    await configure([scriptedAgent("Hostile", hostile(diffFile)), scriptedAgent("Calm", { turns: [[{ message: "calm reply" }]] })], "Hostile");
    await openSidebar();

    const turn = a.stream("go", { agent: "Hostile", newSession: true });
    // The question the agent asks with a 600-character JSON-RPC id about a 600-character tool call id: answered in the panel.
    const allow = '.tool-card[data-status="awaiting_permission"] .perm-btn[data-option-id="allow"]';
    await waitFor((s: string) => document.querySelector(s) !== null, allow, { view: "sidebar", what: "the permission buttons", timeoutMs: 60_000 });
    await click(allow, "sidebar");
    await transcriptHas("permission granted by the user");
    const result = await turn.result;
    const hostileId = result.sessionId;
    assert.ok(hostileId.length <= 200, `the session key is bounded (${hostileId.length} characters)`);
    await transcriptHas("hostile turn done");

    // The marker where the panel cut something, naming what and where the rest is.
    const notes = await waitFor((): string[] | undefined => {
      const texts = [...document.querySelectorAll(".truncated-note")].map((n) => n.textContent ?? "");
      return texts.some((t) => t.includes("49,950 more entries")) && texts.some((t) => /raw input .*nested deeper/.test(t)) && texts.some((t) => /raw output .*more characters/.test(t)) ? texts : undefined;
    }, undefined, { view: "sidebar", what: "truncated markers on the plan and the tool card" }) as string[];
    assert.ok(notes.every((t) => t.includes("the full data is in the transcript and Export Session")), notes.join(" | "));
    log(`      marker: ${notes.find((t) => t.includes("raw output"))}`);
    const dom = await evaluate(() => ({ planItems: document.querySelectorAll(".plan-card .plan-item, .entry-plan .plan-item").length, nodes: document.getElementsByTagName("*").length }), undefined, "sidebar");
    assert.ok(dom.planItems > 0 && dom.planItems <= 50, `the plan card draws at most 50 items (${dom.planItems})`);
    assert.ok(dom.nodes < 20_000, `the panel's DOM stays small (${dom.nodes} elements)`);

    // Open the raw output as a user would: bounded text, never 20 MB in the DOM.
    const rawLen = await evaluate(() => {
      const card = [...document.querySelectorAll(".tool-card")].find((c) => c.textContent?.includes("Deep input"));
      (card?.querySelector(".tool-toggle") as HTMLButtonElement | null)?.click();
      const details = card?.querySelectorAll("details.tool-raw");
      for (const d of details ?? []) (d as HTMLDetailsElement).open = true;
      return true;
    }, undefined, "sidebar").then(() => waitFor((): number[] | undefined => {
      const card = [...document.querySelectorAll(".tool-card")].find((c) => c.textContent?.includes("Deep input"));
      const pres = card?.querySelectorAll(".raw-json");
      return pres && pres.length === 2 ? [...pres].map((p) => p.textContent?.length ?? 0) : undefined;
    }, undefined, { view: "sidebar", what: "the raw input and output shown" })) as number[];
    assert.ok(rawLen.every((n) => n > 0 && n < 100_000), `raw sections are bounded: ${rawLen.join(", ")} characters`);

    // Lone surrogates and invalid bytes show as U+FFFD.
    await transcriptHas("odd text: \ufffd \ufffd\ufffd\ufffd end");

    // The host's view state is bounded too.
    const tool = Object.values(a._test.controller.viewState.sessions[hostileId]!.turns[0]!.entries).find((e) => e.type === "tool" && e.title === "Deep input");
    assert.ok(tool?.type === "tool" && typeof tool.rawOutput === "string" && tool.rawOutput.length < 100_000, "the view state keeps a bounded raw output");

    // Its diff opens from the panel (the tool call id was 600 characters).
    await click('.diff-row button', "sidebar");
    await until(() => vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.fsPath === diffFile), "the diff of the long-id tool call to open");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");

    // Another session gets the panel's attention and updates it.
    const calm = await a.stream("hello", { agent: "Calm", newSession: true }).result;
    await until(() => a._test.controller.activeSession === calm.sessionId, "the panel to show the calm session");
    await transcriptHas("calm reply");

    // The user selects the hostile session again in the panel, and it keeps updating.
    await openSidebar();
    await evaluate((id: string) => {
      const select = document.querySelector("select.session-select") as HTMLSelectElement;
      select.value = id;
      select.dispatchEvent(new Event("change"));
    }, hostileId, "sidebar");
    await until(() => a._test.controller.activeSession === hostileId, "the panel to show the hostile session again (selected in the panel)");
    await a.stream("more", { sessionId: hostileId }).result;
    await transcriptHas("the hostile session still talks");

    // Every event on disk, whole, in a file named by us.
    const session = a._test.manager.sessionById(hostileId)!;
    const { file, events } = await savedEvents(a, hostileId, () => session.log.lastSeq);
    assert.match(path.basename(file), /^[0-9a-f]{32}\.jsonl$/, "the transcript's name is ours, not the agent's id");
    assert.deepEqual(joinChunkRuns(events).map((e) => e.seq), session.log.all().map((e) => e.seq), "every event is in the transcript (runs of text chunks joined, as the log keeps them)");
    const start = events.find((e) => e.kind === "tool_start" && e.title === "Deep input");
    assert.ok(start?.kind === "tool_start");
    assert.equal(depthOf(start.rawInput), DEEP, "the raw input is saved 10,000 deep");
    assert.equal(start.agentToolCallId, "t".repeat(LONG), "the agent's own tool call id is saved");
    const output = events.find((e) => (e.kind === "tool_update" || e.kind === "tool_done") && typeof e.rawOutput === "string" && e.rawOutput.length === BIG);
    assert.ok(output, "the 20 MB raw output is saved whole");
    const plan = events.find((e) => e.kind === "plan");
    assert.equal(plan?.kind === "plan" && plan.entries.length, PLAN, "the plan is saved with all its entries");
    assert.ok(events.some((e) => e.kind === "permission_outcome" && e.outcome.outcome === "selected" && e.by === "user"), "the user's answer is saved");
    assert.ok(events.some((e) => e.kind === "message" && e.text.includes("odd text: \ufffd")), "the odd text is saved (as U+FFFD)");
  });

  it("an agent that floods past 8 MB of text in one turn: the turn stops, the panel says why, stays small and answers, and the next turn works", async function () {
    this.timeout(120_000);
    const a = await api();
    // 24 thought chunks of 1 MB: the 8th takes the turn past the limit (after "before", 6 characters).
    const chunk = { rawUpdate: '{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"{{T}}"}}', expand: { T: { text: "flooding ".repeat(114).slice(0, 1024), times: 1024 } } };
    await configure([scriptedAgent("Flooder", { turns: [
      [{ message: "before" }, ...Array.from({ length: 24 }, () => chunk), { message: "AFTER-THE-LIMIT" }, { waitForCancel: true, timeoutMs: 60_000 }],
      [{ message: "the next turn" }],
    ] })], "Flooder");
    await openSidebar();
    const t0 = Date.now();
    const r = await a.stream("go", { agent: "Flooder", newSession: true }).result;
    assert.equal(r.stopReason, "cancelled");
    assert.ok(Date.now() - t0 < 30_000, "the agent was told to stop: it ends the turn on session/cancel, or after 60 s");
    assert.equal(r.thoughts.length, 7 * 1024 * 1024);
    const title = "Flooder sent more than 8 MB of text in one turn; the rest is not shown";
    const seen = await waitFor((t: string) => {
      const notice = [...document.querySelectorAll(".entry-notice .notice-title")].find((n) => n.textContent === t);
      const turn = [...document.querySelectorAll("#transcript .turn")].at(-1);
      return notice && turn?.textContent?.includes("Cancelled") ? { dom: document.getElementsByTagName("*").length, after: document.body.textContent?.includes("AFTER-THE-LIMIT") ?? true } : undefined;
    }, title, { view: "sidebar", what: "the notice and the cancelled turn", timeoutMs: 60_000 });
    assert.ok(seen, "the notice and the cancelled turn");
    log(`    flood notice shown; panel DOM ${seen.dom} elements`);
    assert.equal(seen.after, false, "nothing after the limit is shown");
    // A long thought is drawn as 2 KB blocks in groups (about 600 elements a megabyte): 7 MB of it, under 5,000.
    assert.ok(seen.dom < 5_000, `the panel's DOM stays bounded (${seen.dom})`);
    // The panel still answers: a prompt typed in it runs the next turn in the same session, shown in full.
    await sendFromPanel("again");
    await waitFor(() => document.body.textContent?.includes("the next turn") ?? false, undefined, { view: "sidebar", what: "the next turn's message", timeoutMs: 30_000 });
    const session = a._test.manager.sessionById(r.sessionId)!;
    assert.ok(session.log.all().some((e) => e.kind === "message" && e.text === "the next turn" && e.turnId === 2), "in the same session, as its second turn");
  });

  it("a panel listener that throws loses no transcript event, and the panel keeps showing new messages", async function () {
    const a = await api();
    await configure([scriptedAgent("Steady", { turns: [[{ message: "first reply" }], [{ message: "lost by the panel" }, { message: "after the faulty listener" }]] })], "Steady");
    await openSidebar();
    const first = await a.stream("one", { agent: "Steady", newSession: true }).result;
    await transcriptHas("first reply");
    // TEST ONLY hook: the panel's listener throws on the next three events (turn_start, the prompt, the first message).
    a._test.controller.testFaults.throwingEvents = 3;
    await a.stream("two", { sessionId: first.sessionId }).result;
    await transcriptHas("after the faulty listener");
    assert.equal(a._test.controller.testFaults.throwingEvents, 0, "the listener did throw");
    const session = a._test.manager.sessionById(first.sessionId)!;
    const { events } = await savedEvents(a, first.sessionId, () => session.log.lastSeq);
    assert.deepEqual(joinChunkRuns(events).map((e) => e.seq), session.log.all().map((e) => e.seq), "the transcript writer saw every event");
    assert.ok(events.some((e) => e.kind === "message" && e.text.includes("lost by the panel")), "the message the panel lost is in the transcript");
  });

  it("a post to the webview that fails is followed by a fresh snapshot: the panel catches up by itself", async function () {
    const a = await api();
    await configure([scriptedAgent("Resync", { turns: [[{ message: "before the lost post" }], [{ message: "after the lost post" }]] })], "Resync");
    await openSidebar();
    const first = await a.stream("one", { agent: "Resync", newSession: true }).result;
    await transcriptHas("before the lost post");
    const resyncs = a._test.controller.stats.resyncs;
    // TEST ONLY hook: the next post (the patch with the new turn) fails as if postMessage had returned false.
    a._test.controller.testFaults.failingPosts = 1;
    await a.stream("two", { sessionId: first.sessionId }).result;
    await transcriptHas("after the lost post");
    assert.ok(a._test.controller.stats.resyncs > resyncs, "a fresh snapshot was sent");
  });
});
