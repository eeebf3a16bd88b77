/**
 * What one turn of an agent's may bring before the rest is dropped: text chunks cost their text,
 * every other update its JSON; the update that goes past a limit is the first one dropped, and
 * the next turn starts afresh. A replay of `session/load` is bounded the same way.
 */
import * as assert from "node:assert/strict";
import { OutputBudget, outputCost, TURN_TEXT_LIMIT } from "../../src/core/outputBudget";
import { ReplayMerge } from "../../src/core/replayMerge";

const thought = (text: string): unknown => ({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
const said = (text: string): unknown => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const user = (text: string): unknown => ({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });

describe("OutputBudget", () => {
  it("a text chunk costs its text (not its envelope); anything else, including a chunk that is not text, costs its JSON", () => {
    assert.deepEqual(outputCost(thought("abcd"), 180), { text: 4, other: 0 });
    assert.deepEqual(outputCost(said("ab"), 170), { text: 2, other: 0 });
    assert.deepEqual(outputCost({ sessionUpdate: "agent_message_chunk", content: { type: "image", data: "AAAA", mimeType: "image/png" } }, 900), { text: 0, other: 900 });
    assert.deepEqual(outputCost(user("the user's own words"), 120), { text: 0, other: 120 });
    assert.deepEqual(outputCost({ sessionUpdate: "tool_call", toolCallId: "t" }, 300), { text: 0, other: 300 });
    assert.deepEqual(outputCost(null, 4), { text: 0, other: 4 });
  });

  it("keeps text up to the limit exactly; the chunk that goes past it is the first dropped, and all after it", () => {
    const b = new OutputBudget(10, 1000);
    assert.equal(b.take(thought("12345"), 100), "keep");
    assert.equal(b.take(said("12345"), 100), "keep", "10 of 10");
    assert.equal(b.crossed, undefined);
    assert.equal(b.take(thought("x"), 100), "crossed");
    assert.equal(b.crossed, "text");
    assert.equal(b.take({ sessionUpdate: "tool_call" }, 10), "drop", "nothing is kept once over, not even a small update");
    assert.equal(b.take(thought(""), 10), "drop");
    assert.equal(b.dropped, 3);
    b.reset();
    assert.equal(b.crossed, undefined);
    assert.equal(b.dropped, 0);
    assert.equal(b.take(thought("1234567890"), 100), "keep", "a new turn starts afresh");
  });

  it("counts other updates by their JSON, apart from text: many tool calls cross the update limit, however short their text", () => {
    const b = new OutputBudget(1_000_000, 1000);
    for (let i = 0; i < 3; i++) assert.equal(b.take({ sessionUpdate: "tool_call", toolCallId: `t${i}` }, 300), "keep");
    assert.equal(b.take(thought("a".repeat(500)), 200), "keep", "text does not count against the update limit");
    assert.equal(b.take({ sessionUpdate: "tool_call_update", toolCallId: "t0" }, 101), "crossed");
    assert.equal(b.crossed, "other");
  });
});

describe("ReplayMerge: a replay is bounded by size, not only by count", () => {
  it("a replay that brings more than four turns' worth of text keeps what came before and counts the rest as overflow", () => {
    const m = new ReplayMerge([]);
    const big = "x".repeat(TURN_TEXT_LIMIT);
    m.push(user("first"), 100);
    for (let i = 0; i < 4; i++) m.push(thought(big), big.length + 100);
    assert.equal(m.overflow, 0, "four turns' worth is kept");
    m.push(thought("one more"), 120);
    m.push(said("and another"), 120);
    assert.equal(m.overflow, 2);
    const kept = m.steps().map((s) => s.update);
    assert.equal(kept.length, 5);
  });
});
