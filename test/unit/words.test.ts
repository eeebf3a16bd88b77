/** Counts read as words. */
import * as assert from "node:assert/strict";
import { count } from "../../src/core/words";

describe("counts in words", () => {
  it("says 1 file, 2 files, 0 files, 1,200 files, and takes an irregular plural", () => {
    assert.equal(count(1, "file"), "1 file");
    assert.equal(count(2, "file"), "2 files");
    assert.equal(count(0, "file"), "0 files");
    assert.equal(count(1200, "file"), "1,200 files");
    assert.equal(count(2, "other session waits", "other sessions wait"), "2 other sessions wait");
  });
});
