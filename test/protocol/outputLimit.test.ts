/**
 * An agent that floods: past the output one turn may bring (8 MB of text), the turn is stopped,
 * a notice says why, and nothing more of that turn is kept — not the text that crossed the line,
 * not what the agent sends after it. The next turn starts afresh. Over real stdio, with 1 MB
 * chunks (a hostile agent needs well under a second to send 24 MB).
 */
import * as assert from "node:assert/strict";
import { TURN_TEXT_LIMIT } from "../../src/core/outputBudget";
import type { Step } from "../fixtures/agents/scenario";
import { harness, type Harness } from "./harness";
import { until } from "../support/until";

const MB = 1024 * 1024;
/** One agent_thought_chunk of 1 MB, written as a raw line (no 1 MB scenario needed). */
const bigThought: Step = { rawUpdate: '{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"{{t}}"}}', expand: { t: { text: "thinking ".repeat(128).slice(0, 1024), times: 1024 } } };

describe("ACP client: an agent that sends more than one turn may bring", function () {
  this.timeout(60_000);
  let h: Harness | undefined;
  afterEach(async () => { await h?.cleanup(); h = undefined; });

  it("stops the turn at 8 MB of text with a notice, keeps what came before it and nothing after, and the next turn starts afresh", async () => {
    const flood: Step[] = Array.from({ length: 24 }, () => bigThought);
    h = await harness({
      turns: [
        [{ message: "before" }, ...flood, { message: "AFTER-THE-LIMIT" }, { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "late", title: "Late tool", kind: "read", status: "pending" } }, { waitForCancel: true, timeoutMs: 20_000 }],
        [{ thought: "small" }, { message: "next turn" }],
      ],
    });
    const c = await h.start(10_000);
    const s = await c.newSession(h.dir);
    const t0 = Date.now();
    const r = await s.prompt("go").result;
    assert.equal(r.stopReason, "cancelled");
    assert.ok(Date.now() - t0 < 10_000, "the agent was told to stop: it ends the turn on session/cancel, or after 20 s");
    // "before" (6 characters) and seven chunks are within the limit; the eighth would go past it by 6.
    assert.equal(r.thoughts.length, TURN_TEXT_LIMIT - MB, "seven whole chunks kept: the one that crossed the limit is not");
    assert.equal(r.text, "before", "nothing the agent sent after the limit is kept");
    assert.equal(r.toolCalls.length, 0);
    const all = s.log.all();
    assert.ok(!all.some((e) => (e.kind === "message" && e.text.includes("AFTER")) || e.kind === "tool_start"), "nothing after the limit in the log");
    const notices = all.filter((e) => e.kind === "notice");
    assert.equal(notices.length, 1, JSON.stringify(notices.map((n) => n.kind === "notice" && n.title)));
    const n = notices[0]!;
    assert.ok(n.kind === "notice" && n.severity === "warning" && n.turnId === 1);
    assert.equal(n.title, "Scripted sent more than 8 MB of text in one turn; the rest is not shown");
    assert.match(n.description ?? "", /stopped the turn so that the editor stays responsive/);
    const logText = all.reduce((sum, e) => sum + (e.kind === "thought" ? e.text.length : 0), 0);
    assert.equal(logText, 7 * MB, "the log holds no more than the limit");
    assert.ok(h.logger.lines.some((l) => /^warn Scripted sent more than 8 MB of text in one turn; the rest is dropped and the turn is stopped$/.test(l)), h.logger.lines.filter((l) => l.startsWith("warn")).join("\n"));

    const next = await s.prompt("again").result;
    assert.equal(next.stopReason, "end_turn");
    assert.equal(next.thoughts, "small");
    assert.equal(next.text, "next turn");
    assert.ok(h.logger.lines.some((l) => /^info Scripted: \d+ updates past the limit of one turn were dropped$/.test(l)), "how many were dropped is logged");
  });

  it("past the limit between turns (after it answered the prompt): a notice, no cancel, nothing kept until the next prompt; a permission request then is answered cancelled unasked", async () => {
    const flood: Step[] = Array.from({ length: 10 }, () => bigThought);
    h = await harness({
      turns: [
        [{ message: "answered" }, { stopThen: { stopReason: "end_turn", then: [...flood, { permission: { toolCall: { toolCallId: "p1", title: "Run rm -rf", kind: "execute", status: "pending" }, options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }] }, onSelected: { allow: [{ message: "ALLOWED" }] }, onCancelled: [] }] } }],
        [{ message: "fresh" }],
      ],
    });
    const c = await h.start(10_000);
    const s = await c.newSession(h.dir);
    const r = await s.prompt("go").result;
    assert.equal(r.stopReason, "end_turn");
    await until(() => h!.logger.lines.some((l) => l.includes("sent more than 8 MB of text in one turn")), "the crossing", 10_000);
    const notice = s.log.all().find((e) => e.kind === "notice");
    assert.ok(notice?.kind === "notice");
    assert.equal(notice.title, "Scripted sent more than 8 MB of text in one turn; the rest is not shown");
    assert.match(notice.description ?? "", /until your next prompt is not shown/);
    await until(() => h!.logger.lines.some((l) => /^debug Scripted's permission request .* came past its turn's limits: answered cancelled, not asked$/.test(l)), "the request after the limit to be answered", 10_000);
    assert.equal(h.permissions.asked.length, 0, "the request after the limit is not put to the user");
    assert.ok(!s.log.all().some((e) => e.kind === "permission_request"), "nor recorded");
    const next = await s.prompt("again").result;
    assert.equal(next.text, "fresh", "the next prompt's turn is kept");
    assert.ok(!s.log.all().some((e) => e.kind === "message" && (e.text === "ALLOWED")), "the request was not allowed");
  });

  it("updates for a session it never made are held up to 64 MB in all, and dropping the rest is logged once, without the updates", async () => {
    const forNobody: Step = { ...bigThought, sessionId: "no-such-session" };
    h = await harness({ turns: [[...Array.from({ length: 80 }, () => forNobody), { message: "done" }]] });
    const c = await h.start(10_000);
    const s = await c.newSession(h.dir);
    const r = await s.prompt("go").result;
    assert.equal(r.text, "done");
    const drops = h.logger.lines.filter((l) => l.includes("dropping updates for unknown sessions"));
    assert.equal(drops.length, 1, drops.join("\n"));
    // 1 MB of text plus its envelope each: 63 fit in 64 MB of JSON.
    assert.match(drops[0]!, /^warn \[Scripted\] dropping updates for unknown sessions \(63 updates of weight \d+ held\), from one for no-such-session of weight 1048\d{3}$/);
    assert.ok(drops[0]!.length < 300, "the update itself is not written out");
  });
});
