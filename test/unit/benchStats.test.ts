import * as assert from "node:assert/strict";
import { percentile } from "../bench/stats";

describe("the bench's percentiles", () => {
  const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

  it("p95 of 20 picks is the 19th, not the slowest", () => {
    assert.equal(percentile(upTo(20), 95), 19);
    assert.equal(percentile(upTo(20), 100), 20);
  });

  it("takes the nearest rank: at least p % of the values at or below it", () => {
    assert.equal(percentile(upTo(5_000), 95), 4_750);
    assert.equal(percentile(upTo(100), 95), 95);
    assert.equal(percentile(upTo(5), 50), 3);
    assert.equal(percentile(upTo(4), 50), 2);
    assert.equal(percentile(upTo(7), 95), 7);
    assert.equal(percentile(upTo(1), 95), 1);
    for (const n of [1, 3, 19, 20, 21, 99, 1_000, 4_999]) {
      for (const p of [1, 50, 90, 95, 99, 100]) {
        const v = percentile(upTo(n), p);
        assert.ok(v / n >= p / 100, `${p} % of ${n} at or below ${v}`);
        assert.ok((v - 1) / n < p / 100, `${v} is the smallest such value (${p} % of ${n})`);
      }
    }
  });

  it("is NaN with no values", () => {
    assert.ok(Number.isNaN(percentile([], 95)));
  });
});
