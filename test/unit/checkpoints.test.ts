/** Checkpoint bookkeeping: which turns a restore covers, where the user's own edits lie. */
import * as assert from "node:assert/strict";
import { CheckpointIndex, userGaps, type Checkpoint } from "../../src/core/checkpoints";

const cp = (turnId: number, before: string, after?: string, sessionId = "s"): Checkpoint => ({ sessionId, turnId, prompt: `p${turnId}`, at: turnId, before: { "/w": before }, ...(after ? { after: { "/w": after } } : {}) });

describe("checkpoints", () => {
  it("restoring turn 2 rolls back turns 2 and 3 of that session only", () => {
    const index = new CheckpointIndex([cp(1, "a", "b"), cp(2, "c", "d"), cp(3, "e", "f"), cp(2, "x", "y", "other")]);
    assert.deepEqual(index.from(index.get("s", 2)!).map((c) => c.turnId), [2, 3]);
    assert.deepEqual(index.turnsBySession(), { s: [1, 2, 3], other: [2] });
  });

  it("the user's edits are what changed between one turn's end and the next turn's start, and since the last turn", () => {
    const turns = [cp(2, "c", "d"), cp(3, "e", "f")];
    assert.deepEqual(userGaps(turns, "/w", "g"), [{ from: "d", to: "e" }, { from: "f", to: "g" }]);
    assert.deepEqual(userGaps([cp(2, "c", "d"), cp(3, "d", "f")], "/w", "f"), [], "no edits in between");
    assert.deepEqual(userGaps([cp(2, "c")], "/w", "z"), [], "a turn still running has no end yet");
  });

  it("finds the open checkpoint of a running turn and survives a round trip through storage", () => {
    const index = new CheckpointIndex([cp(1, "a", "b"), cp(2, "c")]);
    assert.equal(index.open("s")?.turnId, 2);
    const back = new CheckpointIndex(JSON.parse(JSON.stringify(index.toJSON())) as Checkpoint[]);
    assert.deepEqual(back.get("s", 1)?.after, { "/w": "b" });
  });
});
