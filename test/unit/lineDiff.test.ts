/** A tool card's "+added −removed": exact for edits of any file while they are short, approximated (and flagged) for large rewrites. */
import * as assert from "node:assert/strict";
import { cachedLineDiffStats, lineDiffStats } from "../../src/shared/lineDiff";

const text = (...lines: string[]): string => lines.map((l) => `${l}\n`).join("");

describe("line diff counts", () => {
  it("counts a new file's lines as added, and an emptied one's as removed", () => {
    assert.deepEqual(lineDiffStats(null, text("a", "b")), { added: 2, removed: 0, approximate: false });
    assert.deepEqual(lineDiffStats(text("a", "b", "c"), ""), { added: 0, removed: 3, approximate: false });
    assert.deepEqual(lineDiffStats(null, ""), { added: 0, removed: 0, approximate: false });
  });

  it("ignores a missing newline at the end", () => {
    assert.deepEqual(lineDiffStats("a\nb", "a\nb\n"), { added: 0, removed: 0, approximate: false });
  });

  it("counts a changed line as one removed and one added, moved lines as both", () => {
    assert.deepEqual(lineDiffStats(text("a", "b", "c"), text("a", "B", "c")), { added: 1, removed: 1, approximate: false });
    assert.deepEqual(lineDiffStats(text("a", "b", "c", "d"), text("b", "c", "d", "a")), { added: 1, removed: 1, approximate: false });
    assert.deepEqual(lineDiffStats(text("x", "a", "y", "b", "z"), text("x", "b", "y", "a", "z", "w")), { added: 3, removed: 2, approximate: false });
  });

  it("is exact (a longest common subsequence) for small random edits", () => {
    let seed = 7;
    const rnd = (k: number): number => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % k; };
    for (let t = 0; t < 300; t++) {
      const a = Array.from({ length: rnd(30) }, () => `l${rnd(5)}`);
      const b = Array.from({ length: rnd(30) }, () => `l${rnd(5)}`);
      const common = lcs(a, b);
      assert.deepEqual(lineDiffStats(text(...a), text(...b)), { added: b.length - common, removed: a.length - common, approximate: false }, `${a.join(",")} → ${b.join(",")}`);
    }
  });

  it("is exact for a few changes spread over a big file", () => {
    const a = Array.from({ length: 10_000 }, (_, i) => `line ${i}`);
    const b = a.map((l, i) => (i % 1000 === 0 ? `changed ${i}` : l));
    b.splice(5_000, 0, "inserted");
    assert.deepEqual(lineDiffStats(text(...a), text(...b)), { added: 11, removed: 10, approximate: false });
  });

  it("a rewrite with no line in common is exact at once", () => {
    const a = Array.from({ length: 5000 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 4000 }, (_, i) => `new ${i}`);
    assert.deepEqual(lineDiffStats(text(...a), text(...b)), { added: 4000, removed: 5000, approximate: false });
  });

  it("approximates a large rewrite that shares lines, pairing equal lines in any order", () => {
    const a = Array.from({ length: 2000 }, (_, i) => (i % 2 ? "}" : `old ${i}`));
    const b = Array.from({ length: 2000 }, (_, i) => (i % 2 ? "}" : `new ${i}`)).reverse();
    assert.deepEqual(lineDiffStats(text(...a), text(...b)), { added: 1000, removed: 1000, approximate: true });
  });

  it("caches by the diff object", () => {
    const key = {};
    const first = cachedLineDiffStats(key, "a\n", "b\n");
    assert.equal(cachedLineDiffStats(key, "ignored", "ignored"), first);
    assert.notEqual(cachedLineDiffStats({}, "a\n", "b\n"), first);
  });
});

/** Length of a longest common subsequence, the textbook way (the reference for small inputs). */
function lcs(a: readonly string[], b: readonly string[]): number {
  const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) t[i]![j] = a[i - 1] === b[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!);
  return t[a.length]![b.length]!;
}
