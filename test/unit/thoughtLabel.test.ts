// The thought header's words: how long a thought took, and only when the panel can know it.
import * as assert from "node:assert/strict";
import { thoughtLabel, UNTIMED_THOUGHT_MS } from "../../src/webview/dom";

describe("thought label", () => {
  it("counts up while the thought streams, from its first chunk", () => {
    assert.equal(thoughtLabel(1_000, undefined, 1_000), "Thinking… 0.0 s");
    assert.equal(thoughtLabel(1_000, undefined, 3_100), "Thinking… 2.1 s");
  });

  it("says how long a finished thought streamed", () => {
    assert.equal(thoughtLabel(1_000, 3_100, 9_000), "Thought for 2.1 s");
    assert.equal(thoughtLabel(0, 75_000, 80_000), "Thought for 1 min 15 s");
  });

  it("gives no time for a thought that came all at once, rather than 'Thought for 0.0 s'", () => {
    // One chunk (a reasoning summary sent whole), closed by the next update a few ms later.
    assert.equal(thoughtLabel(5_000, 5_003, 9_000), "Thought");
    assert.equal(thoughtLabel(5_000, 5_000 + UNTIMED_THOUGHT_MS - 1, 9_000), "Thought");
    assert.equal(thoughtLabel(5_000, 5_000 + UNTIMED_THOUGHT_MS, 9_000), "Thought for 0.1 s");
  });
});
