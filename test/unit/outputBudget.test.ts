/**
 * What one turn of an agent's may bring before the rest is dropped: a chunk that goes on a run of
 * text costs its text; anything else its weight (its JSON, and more for each object and element)
 * and an event's overhead; runs and tool calls count as entries. The update that goes past a limit
 * is the first one dropped, and the next turn starts afresh. A replay is bounded the same way.
 */
import * as assert from "node:assert/strict";
import { EVENT_OVERHEAD, JOINED_CHUNK_COST, jsonWeight, OutputBudget, TURN_TEXT_LIMIT } from "../../src/core/outputBudget";
import { ReplayMerge } from "../../src/core/replayMerge";

const thought = (text: string, messageId?: unknown): unknown => ({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text }, ...(messageId !== undefined ? { messageId } : {}) });
const said = (text: string): unknown => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const user = (text: string): unknown => ({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
const tool = (id: string, extra: Record<string, unknown> = {}): unknown => ({ sessionUpdate: "tool_call", toolCallId: id, title: "t", ...extra });
const weigh = (u: unknown): number => jsonWeight(JSON.stringify(u));

describe("OutputBudget", () => {
  it("weighs JSON by its characters, and more for each object, array and element outside strings", () => {
    assert.equal(jsonWeight('"a, b {c} [d]"'), 14, "inside a string nothing counts");
    assert.equal(jsonWeight('"say \\"{,}\\" ok"'), 16, "escaped quotes do not end the string");
    assert.equal(jsonWeight('["a\\\\",1]'), 9 + 32 + 16, "an escaped backslash before a quote: the quote ends the string");
    assert.equal(jsonWeight('["\\u0022,",{}]'), 14 + 2 * 32 + 16, "an escaped quote as \\u0022 is inside the string");
    assert.equal(jsonWeight('"unterminated, {'), 16, "a string that never ends (never parsed JSON): its length");
    assert.equal(jsonWeight("[1,2]"), 5 + 32 + 16);
    const empties = `[${Array.from({ length: 1000 }, () => "{}").join(",")}]`;
    assert.ok(jsonWeight(empties) > 15 * empties.length, "a list of empty objects weighs far more than its text");
    const prose = JSON.stringify({ text: "words, words, and more words. ".repeat(1000) });
    assert.ok(jsonWeight(prose) < prose.length + 100, "text weighs its characters, commas and all");
  });

  it("a chunk that goes on the run before it costs only its text; one that starts a run costs its envelope and an entry", () => {
    const b = new OutputBudget(100, 10_000, 3);
    const exact = new OutputBudget(100, 1_000);
    assert.equal(exact.take(thought("abcd"), 1_000 - EVENT_OVERHEAD + 4 - JOINED_CHUNK_COST), "keep", "weight - text + overhead");
    assert.equal(exact.take(thought("abcd"), 1_000_000), "keep", "joined: its weight does not count, only JOINED_CHUNK_COST (exactly the limit now)");
    assert.equal(exact.take(tool("t"), 1), "crossed");
    assert.equal(b.take(thought("abcd", "m1"), 100), "keep", "a run's first chunk: 100 - 4 + EVENT_OVERHEAD");
    for (let i = 0; i < 20; i++) assert.equal(b.take(thought("ab", "m1"), weigh(thought("ab", "m1"))), "keep", "joined: text only");
    assert.equal(b.take(said("x"), 5_000), "keep", "a new run: its envelope and an event");
    assert.equal(b.take(said("y"), 10_000), "keep", "the same run again: text only, whatever its line weighs");
    assert.equal(b.take(thought("z", "m2"), weigh(thought("z", "m2"))), "keep", "a run of another message: the third entry");
    assert.equal(b.take(thought("z", "m3"), 50), "crossed", "the fourth entry is one too many");
    assert.equal(b.crossed, "entries");
  });

  it("the user's chunks never join (the log keeps each), and a joined chunk costs something even when empty; an update held whole never joins", () => {
    const users = new OutputBudget(1_000_000, 100 * EVENT_OVERHEAD, 1_000_000);
    let n = 0;
    while (users.take(user(""), 60) === "keep") n++;
    assert.ok(n < 100, `empty user chunks: each weighed (${n} kept)`);
    const empties = new OutputBudget(1_000_000, 1_000 * JOINED_CHUNK_COST, 1_000_000);
    let k = 0;
    while (empties.take(thought("", "m"), 60) === "keep") k++;
    assert.ok(k > 900 && k < 1_000, `empty chunks of one run: JOINED_CHUNK_COST each (${k} kept)`);
    const held = new OutputBudget(1_000_000, 1_000_000, 1_000_000);
    held.take(thought("a", "m"), 100, true);
    for (let i = 0; i < 9; i++) held.take(thought("a", "m"), 100, true);
    const live = new OutputBudget(1_000_000, 1_000_000, 1_000_000);
    for (let i = 0; i < 10; i++) live.take(thought("a", "m"), 100);
    assert.equal(held.take(tool("x"), 999_000), "crossed", "ten held chunks cost ten events");
    assert.equal(live.take(tool("x"), 999_000), "keep", "ten live chunks of a run cost one event and nine joins");
  });

  it("keeps text up to the limit exactly; the chunk that goes past it is the first dropped, and all after it", () => {
    const b = new OutputBudget(10, 100_000);
    assert.equal(b.take(thought("12345"), 100), "keep");
    assert.equal(b.take(thought("12345"), 100), "keep", "10 of 10");
    assert.equal(b.crossed, undefined);
    assert.equal(b.take(thought("x"), 100), "crossed");
    assert.equal(b.crossed, "text");
    assert.equal(b.take(tool("t"), 10), "drop", "nothing is kept once over, not even a small update");
    assert.equal(b.takeOther(10), "drop");
    assert.equal(b.dropped, 3);
    b.reset();
    assert.equal(b.crossed, undefined);
    assert.equal(b.dropped, 0);
    assert.equal(b.take(thought("1234567890"), 100), "keep", "a new turn starts afresh");
  });

  it("counts every other update by weight and overhead: empty chunks that never join, a long message id, non-text content, many tool updates", () => {
    const limit = 100 * EVENT_OVERHEAD;
    const empties = new OutputBudget(1_000_000, limit, 1_000_000);
    let kept = 0;
    while (empties.take(thought("", `id-${kept}`), 60) === "keep") kept++;
    assert.ok(kept < 100, `empty chunks of distinct messages are not free (${kept} kept)`);
    const longId = new OutputBudget(1_000_000, 1_000_000);
    const id = "m".repeat(600_000);
    assert.equal(longId.take(thought("", id), weigh(thought("", id))), "keep");
    assert.equal(longId.take(thought("", `${id}x`), weigh(thought("", `${id}x`))), "crossed", "a long message id costs its length");
    const image = new OutputBudget(1_000_000, 1000);
    assert.equal(image.take({ sessionUpdate: "agent_message_chunk", content: { type: "image", data: "A".repeat(2000), mimeType: "image/png" } }, 2100), "crossed", "a chunk that is not text is weighed whole");
    const updates = new OutputBudget(1_000_000, limit, 1_000_000);
    let n = 0;
    while (updates.take({ sessionUpdate: "tool_call_update", toolCallId: "t", status: "in_progress" }, 70) === "keep") n++;
    assert.ok(n > 40 && n < 100, `updates of one tool call: each an event (${n} kept)`);
    assert.equal(updates.crossed, "other");
  });

  it("a tool call is one entry, however many updates it has; a permission request or noise is weighed like an update", () => {
    const b = new OutputBudget(1_000_000, 1_000_000, 2);
    assert.equal(b.take(tool("a"), 60), "keep");
    for (let i = 0; i < 50; i++) assert.equal(b.take({ sessionUpdate: "tool_call_update", toolCallId: "a" }, 60), "keep");
    assert.equal(b.take({ sessionUpdate: "tool_call_update", toolCallId: "b" }, 60), "keep", "an update of a call never announced makes an entry");
    assert.equal(b.take(tool("c"), 60), "crossed");
    const other = new OutputBudget(1_000_000, 1_000);
    assert.equal(other.takeOther(500), "keep");
    assert.equal(other.takeOther(500), "crossed");
    assert.equal(other.crossed, "other");
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
    assert.equal(m.steps().length, 5);
  });

  it("turns the panel shows already are not kept and do not count: a long history's newest turn still comes through", () => {
    const shown = Array.from({ length: 6 }, (_, t) => `question ${t}`);
    const m = new ReplayMerge(shown);
    const big = "y".repeat(TURN_TEXT_LIMIT);
    for (const prompt of shown) {
      m.push(user(prompt), 100);
      m.push(thought(big), big.length + 100);
    }
    m.push(user("asked in the agent's own CLI"), 100);
    m.push(said("its answer"), 100);
    assert.equal(m.overflow, 0, "six turns of 8 MB each, all shown: nothing counted against the replay's limits");
    assert.equal(m.skipped, 12);
    assert.deepEqual(m.steps().map((x) => [x.newTurn, (x.update as { sessionUpdate: string }).sessionUpdate]), [[true, "user_message_chunk"], [false, "agent_message_chunk"]]);
    assert.equal(m.added, 1);
  });
});
