/** The prompt box's ↑/↓ history. */
import * as assert from "node:assert/strict";
import { MAX_HISTORY, PromptHistory } from "../../src/webview/promptHistory";

describe("prompt history", () => {
  it("walks back with ↑ and forward with ↓, ending at what was being typed", () => {
    const h = new PromptHistory(["first", "second"]);
    h.record("third");
    h.record("third");
    assert.deepEqual(h.list, ["first", "second", "third"], "a repeat of the newest is kept once");
    assert.equal(h.older("half-typed"), "third");
    assert.equal(h.older("third"), "second");
    assert.equal(h.older("second"), "first");
    assert.equal(h.older("first"), undefined, "nothing older than the oldest");
    assert.equal(h.newer(), "second");
    assert.equal(h.newer(), "third");
    assert.equal(h.newer(), "half-typed", "back to the draft");
    assert.equal(h.newer(), undefined, "not walking any more");
  });

  it("typing ends the walk; blank prompts are not kept; it keeps the newest hundred", () => {
    const h = new PromptHistory(["a", " ", "b"]);
    assert.deepEqual(h.list, ["a", "b"]);
    assert.equal(h.older(""), "b");
    h.reset();
    assert.equal(h.older("edited"), "b", "a new walk starts from the newest");
    for (let i = 0; i < MAX_HISTORY + 20; i++) h.record(`p${i}`);
    assert.equal(h.list.length, MAX_HISTORY);
    assert.equal(h.list[h.list.length - 1], `p${MAX_HISTORY + 19}`);
  });
});
