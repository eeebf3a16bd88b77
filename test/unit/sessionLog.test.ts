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

  it("keeps a run of text chunks as one event (listeners still get each chunk); other events, content and boundaries end a run", () => {
    let t = 0;
    const log = new SessionLog("s", () => ++t);
    const heard: string[] = [];
    log.subscribe((e) => heard.push(`${e.seq}:${e.kind}`));
    const text = (kind: "thought" | "message", s: string, messageId?: string) => ({ kind, text: s, content: { type: "text" as const, text: s }, ...(messageId ? { messageId } : {}) });
    log.append({ kind: "turn_start", turnId: 1, prompt: [] });
    log.append(text("thought", "a"), text("thought", "b"), text("thought", "c"));
    // Read mid-run: the run so far; appending goes on after it.
    const last = log.last();
    assert.equal(last?.kind === "thought" && last.text, "abc");
    for (let i = 0; i < 1500; i++) log.append(text("thought", String(i % 10)));
    log.append(text("message", "hel"), text("message", "lo"));
    log.append(text("message", "other", "m2"));
    log.append({ kind: "message", text: "img", content: { type: "resource", resource: { uri: "file:///a.txt", text: "img" } } });
    log.append(text("message", " after"));
    log.append({ kind: "turn_end", turnId: 1, stopReason: "end_turn" });
    log.append({ kind: "turn_start", turnId: 2, prompt: [] }, text("thought", "x"), text("thought", "y"));
    const all = log.all();
    const thoughtText = "abc" + Array.from({ length: 1500 }, (_, i) => String(i % 10)).join("");
    assert.deepEqual(all.map((e) => [e.kind, "text" in e ? e.text : "", e.seq, e.at]), [
      ["turn_start", "", 1, 1],
      ["thought", thoughtText, 1504, 2],
      ["message", "hello", 1506, 1505],
      ["message", "other", 1507, 1507],
      ["message", "img", 1508, 1508],
      ["message", " after", 1509, 1509],
      ["turn_end", "", 1510, 1510],
      ["turn_start", "", 1511, 1511],
      ["thought", "xy", 1513, 1512],
    ]);
    const joined = all[1]!;
    assert.ok(joined.kind === "thought" && joined.content.type === "text" && joined.content.text === thoughtText, "the content holds the joined text");
    assert.deepEqual(all[4]!.kind === "message" && all[4]!.content, { type: "resource", resource: { uri: "file:///a.txt", text: "img" } }, "a chunk that is more than text is kept as it came");
    assert.equal(heard.length, 1513, "listeners heard every chunk");
    assert.equal(log.length, 1513);
    assert.equal(log.lastSeq, 1513);
  });

  it("keeps the user's message blocks apart (two text blocks of a prompt are two paragraphs)", () => {
    const log = new SessionLog("s");
    log.append({ kind: "turn_start", turnId: 1, prompt: [] });
    log.append({ kind: "user_message", text: "A", content: { type: "text", text: "A" } }, { kind: "user_message", text: "B", content: { type: "text", text: "B" } });
    assert.deepEqual(log.all().filter((e) => e.kind === "user_message").map((e) => (e.kind === "user_message" ? e.text : "")), ["A", "B"]);
  });
});
