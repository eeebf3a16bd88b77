/** The session log: dense sequence numbers, receipt times, turn attribution, ordered listeners. */
import * as assert from "node:assert/strict";
import { SessionLog } from "../../src/core/sessionLog";

describe("SessionLog", () => {
  it("stamps seq, time, session and turn; keeps everything in order", () => {
    let t = 1000;
    const log = new SessionLog("s1", () => t++);
    const seen: number[] = [];
    const sub = log.subscribe((e) => seen.push(e.seq));
    log.append({ kind: "mode", currentModeId: "a" });
    log.append({ kind: "turn_start", turnId: 1, prompt: [] }, { kind: "thought", text: "x", content: { type: "text", text: "x" } });
    log.append({ kind: "turn_end", turnId: 1, stopReason: "end_turn" }, { kind: "mode", currentModeId: "b" });
    const all = log.all();
    assert.deepEqual(all.map((e) => e.seq), [1, 2, 3, 4, 5]);
    assert.deepEqual(all.map((e) => e.at), [1000, 1001, 1002, 1003, 1004]);
    assert.deepEqual(all.map((e) => e.turnId), [undefined, 1, 1, 1, undefined]);
    assert.ok(all.every((e) => e.sessionId === "s1"));
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    assert.deepEqual(log.since(3).map((e) => e.seq), [4, 5]);
    sub.dispose();
    log.append({ kind: "mode", currentModeId: "c" });
    assert.equal(seen.length, 5);
  });

  it("a throwing listener does not stop the others or the writer; its error is reported", () => {
    const reported: unknown[] = [];
    const log = new SessionLog("s", Date.now, (err) => reported.push(err));
    const seen: string[] = [];
    log.subscribe(() => { throw new Error("boom"); });
    log.subscribe((e) => seen.push(e.kind));
    log.append({ kind: "mode", currentModeId: "a" }, { kind: "mode", currentModeId: "b" });
    assert.deepEqual(seen, ["mode", "mode"]);
    assert.equal(log.length, 2);
    assert.equal(reported.length, 2);
    assert.match(String(reported[0]), /boom/);
  });
});
