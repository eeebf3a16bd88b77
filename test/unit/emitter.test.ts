/** The event path's emitter: order, isolation of throwing listeners, disposal during a fire. */
import * as assert from "node:assert/strict";
import { Emitter } from "../../src/core/emitter";

describe("Emitter", () => {
  it("calls listeners in subscription order; a throwing one is reported and the rest still hear every value", () => {
    const errors: unknown[] = [];
    const e = new Emitter<number>((err) => errors.push(err));
    const seen: string[] = [];
    e.event((v) => seen.push(`a${v}`));
    e.event((v) => { throw new Error(`bad ${v}`); });
    e.event((v) => seen.push(`c${v}`));
    e.fire(1);
    e.fire(2);
    assert.deepEqual(seen, ["a1", "c1", "a2", "c2"]);
    assert.deepEqual(errors.map((x) => (x as Error).message), ["bad 1", "bad 2"]);
  });

  it("a failing error reporter does not stop the remaining listeners either", () => {
    const e = new Emitter<number>(() => { throw new Error("reporter broke"); });
    const seen: number[] = [];
    e.event(() => { throw new Error("listener broke"); });
    e.event((v) => seen.push(v));
    e.fire(7);
    assert.deepEqual(seen, [7]);
  });

  it("disposing unsubscribes (twice is harmless); a listener disposed during a fire is skipped, one added hears the next value", () => {
    const e = new Emitter<number>();
    const seen: string[] = [];
    let second: { dispose(): void } | undefined = undefined;
    e.event((v) => {
      seen.push(`first${v}`);
      second?.dispose();
      if (v === 1) e.event((w) => seen.push(`late${w}`));
    });
    second = e.event((v) => seen.push(`second${v}`));
    e.fire(1);
    e.fire(2);
    assert.deepEqual(seen, ["first1", "first2", "late2"]);
    second.dispose();
    assert.equal(e.size, 2);
  });

  it("the same function subscribed twice is called twice and unsubscribed one at a time", () => {
    const e = new Emitter<number>();
    let calls = 0;
    const f = (): void => { calls++; };
    const a = e.event(f);
    e.event(f);
    e.fire(0);
    a.dispose();
    e.fire(0);
    assert.equal(calls, 3);
  });
});
