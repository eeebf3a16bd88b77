/** Counts read as words. */
import * as assert from "node:assert/strict";
import { count } from "../../src/core/words";
import { grouped } from "../../src/shared/digits";

describe("counts in words", () => {
  it("says 1 file, 2 files, 0 files, 1,200 files, and takes an irregular plural", () => {
    assert.equal(count(1, "file"), "1 file");
    assert.equal(count(2, "file"), "2 files");
    assert.equal(count(0, "file"), "0 files");
    assert.equal(count(1200, "file"), "1,200 files");
    assert.equal(count(2, "other session waits", "other sessions wait"), "2 other sessions wait");
  });
  it("groups thousands as en-US does, without asking ICU", () => {
    for (const n of [0, 7, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 1_234_567_890, -5, -1234, -1_000_000, Number.MAX_SAFE_INTEGER, 1.5, 1234.5678, NaN, Infinity]) {
      assert.equal(grouped(n), n.toLocaleString("en-US"), String(n));
    }
  });
});
