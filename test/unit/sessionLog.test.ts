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

  it("a throwing listener does not stop the others or the writer", async () => {
    const log = new SessionLog("s");
    const seen: string[] = [];
    const uncaught: unknown[] = [];
    const onErr = (e: unknown): void => { uncaught.push(e); };
    const listeners = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", onErr);
    try {
      log.subscribe(() => { throw new Error("boom"); });
      log.subscribe((e) => seen.push(e.kind));
      log.append({ kind: "mode", currentModeId: "a" });
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      process.removeListener("uncaughtException", onErr);
      for (const l of listeners) process.on("uncaughtException", l);
    }
    assert.deepEqual(seen, ["mode"]);
    assert.equal(log.length, 1);
    assert.equal(uncaught.length, 1);
  });
});
