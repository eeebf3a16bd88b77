// Which entries of a turn the panel draws: the last ones, or a window around something far above
// the turn's end (find, reveal) that stops short of it.
import * as assert from "node:assert/strict";
import type { Entry } from "../../src/shared/viewModel";
import { anchorEnd, windowRange, windowStart } from "../../src/webview/render/transcript";

const entries = (n: number): Entry[] => Array.from({ length: n }, (_, i) => ({ type: "message", id: `e${i}`, text: `entry ${i}` }) as unknown as Entry);

describe("window of entries", () => {
  it("shows the last entries, its first moving in steps", () => {
    assert.deepEqual(windowRange(100, 150, 25), { start: 0, end: 100 });
    assert.deepEqual(windowRange(160, 150, 25), { start: 25, end: 160 });
    assert.deepEqual(windowRange(175, 150, 25), { start: 25, end: 175 });
    assert.deepEqual(windowRange(176, 150, 25), { start: 50, end: 176 });
    assert.equal(windowStart(176, 150, 25), 50);
  });

  it("given an end, shows the entries up to it and none after, however many stream in", () => {
    assert.deepEqual(windowRange(2_400, 150, 25, 1_075), { start: 925, end: 1_075 });
    assert.deepEqual(windowRange(5_000, 150, 25, 1_075), { start: 925, end: 1_075 });
    // Near the start: fewer than the size before it.
    assert.deepEqual(windowRange(2_400, 150, 25, 75), { start: 0, end: 75 });
  });

  it("shows the first entries when a filter left nothing before its end", () => {
    assert.deepEqual(windowRange(40, 150, 1, 0), { start: 0, end: 40 });
    assert.deepEqual(windowRange(400, 150, 1, 0), { start: 0, end: 150 });
  });

  it("finds where a window ends by its last entry's id, under a filter too", () => {
    const all = entries(10);
    assert.equal(anchorEnd(all, all, undefined), undefined);
    assert.equal(anchorEnd(all, all, "e4"), 5);
    assert.equal(anchorEnd(all, all, "gone"), undefined, "an entry no longer there: the window reaches the end");
    // Even entries only: e5 is hidden, so the window ends after e4.
    const even = all.filter((_, i) => i % 2 === 0);
    assert.equal(anchorEnd(all, even, "e5"), 3);
    assert.equal(anchorEnd(all, even, "e4"), 3);
    assert.equal(anchorEnd(all, even, "e0"), 1);
    const odd = all.filter((_, i) => i % 2 === 1);
    assert.equal(anchorEnd(all, odd, "e0"), 0, "nothing visible at or before it");
  });

  it("takes the last answer when it still holds, and looks again when it does not", () => {
    const all = entries(10);
    assert.equal(anchorEnd(all, all, "e4", 5), 5);
    assert.equal(anchorEnd(all, all, "e4", 7), 5);
    assert.equal(anchorEnd(all, all, "e4", 0), 5);
  });
});
