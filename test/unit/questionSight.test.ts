import * as assert from "node:assert/strict";
import { QuestionSight } from "../../src/core/questionSight";

describe("QuestionSight", () => {
  it("a request reported seen before or while waiting resolves true; one never reported resolves false after the wait", async () => {
    const sight = new QuestionSight();
    sight.markSeen(["early"]);
    assert.equal(await sight.whenSeen("early", 1000), true);
    const late = sight.whenSeen("late", 1000);
    sight.markSeen(["other", "late"]);
    assert.equal(await late, true);
    const started = Date.now();
    assert.equal(await sight.whenSeen("never", 30), false);
    assert.ok(Date.now() - started >= 25);
    sight.dispose();
  });

  it("forgets the oldest ids beyond a thousand, and dispose answers every waiter false", async () => {
    const sight = new QuestionSight();
    sight.markSeen(Array.from({ length: 1001 }, (_, i) => `r${i}`));
    const first = sight.whenSeen("r0", 60_000);
    assert.equal(await sight.whenSeen("r1000", 10), true);
    sight.dispose();
    assert.equal(await first, false);
  });
});
