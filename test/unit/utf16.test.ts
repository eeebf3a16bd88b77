import * as assert from "node:assert/strict";
import { pairSafeEnd } from "../../src/shared/utf16";

describe("pairSafeEnd", () => {
  const s = "ab😀cd"; // 😀 is two UTF-16 units, at 2 and 3
  it("moves a cut inside a surrogate pair back before it", () => {
    assert.equal(pairSafeEnd(s, 3), 2);
    assert.equal(s.slice(0, pairSafeEnd(s, 3)), "ab");
  });
  it("leaves cuts between characters, at the ends and beyond them alone", () => {
    for (const end of [0, 1, 2, 4, 5, 6, 9]) assert.equal(pairSafeEnd(s, end), end);
  });
});
