/** The session log: dense sequence numbers, receipt times, turn attribution, ordered listeners. */
import * as assert from "node:assert/strict";
import { joinChunkRuns, LOG_RUNS, RunQueue, SessionLog, type ChunkEvent } from "../../src/core/sessionLog";
import { PANEL_RUNS } from "../../src/core/panelPatches";
import type { ThoughtEvent } from "../../src/shared/events";
import { EMPTY_STATE, reduce } from "../../src/shared/viewModel";

/** Runs joined the plain way (a list scanned once), to check RunQueue against. */
function reference(events: readonly ThoughtEvent[], rules: typeof LOG_RUNS): ThoughtEvent[] {
  const out: ThoughtEvent[] = [];
  for (let i = 0; i < events.length; ) {
    const first = events[i++]!;
    if (!rules.starts(first)) {
      out.push(first);
      continue;
    }
    const parts = [first.text];
    let last: ChunkEvent = first;
    while (i < events.length && rules.continues(first, events[i]!)) {
      const next = events[i++] as ChunkEvent;
      parts.push(next.text);
      last = next;
    }
    out.push(last === first ? first : rules.joined(first, last, parts.join("")));
  }
  return out;
}

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

  it("a joined run names its first chunk (`from`), so a session read back from its transcript has the entry ids it had live", () => {
    let t = 0;
    const log = new SessionLog("s", () => ++t);
    const live: ThoughtEvent[] = [];
    log.subscribe((e) => live.push(e));
    const text = (kind: "thought" | "message", s: string) => ({ kind, text: s, content: { type: "text" as const, text: s } });
    log.append({ kind: "turn_start", turnId: 1, prompt: [] }, text("thought", "weighing "), text("thought", "it"));
    log.append({ kind: "tool_start", toolCallId: "t1", title: "Read a.ts", announced: true }, text("message", "Done"), text("message", " here."));
    log.append({ kind: "turn_end", turnId: 1, stopReason: "end_turn" });
    const ids = (events: readonly ThoughtEvent[]): string[] => {
      let state = EMPTY_STATE;
      for (const e of events) state = reduce(state, [e]);
      return state.sessions.s!.turns.flatMap((turn) => turn.entries.map((e) => `${e.type} ${e.id}`));
    };
    assert.deepEqual(ids(live), ["thought e2", "tool e4", "message e5"]);
    const kept = log.all();
    assert.deepEqual(kept.map((e) => [e.kind, e.seq, e.from]), [["turn_start", 1, undefined], ["thought", 3, 2], ["tool_start", 4, undefined], ["message", 6, 5], ["turn_end", 7, undefined]]);
    assert.deepEqual(ids(kept), ids(live), "read back as the log keeps them");
    // Written as the transcript queues them (runs joined as they come), and joined again.
    const queue = new RunQueue(LOG_RUNS);
    for (const e of live) queue.push(e);
    assert.deepEqual(ids(joinChunkRuns(queue.take())), ids(live), "read back from the transcript");
  });

  it("keeps the user's message blocks apart (two text blocks of a prompt are two paragraphs)", () => {
    const log = new SessionLog("s");
    log.append({ kind: "turn_start", turnId: 1, prompt: [] });
    log.append({ kind: "user_message", text: "A", content: { type: "text", text: "A" } }, { kind: "user_message", text: "B", content: { type: "text", text: "B" } });
    assert.deepEqual(log.all().filter((e) => e.kind === "user_message").map((e) => (e.kind === "user_message" ? e.text : "")), ["A", "B"]);
  });

  it("a RunQueue hands on what joining the same events at once gives, however its takes fall, for the log's runs and the panel's", () => {
    // Park-Miller: exact in doubles (48271 × 2^31 < 2^53), so every branch below comes up.
    let seed = 7;
    const rand = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
    const kinds = new Set<string>();
    for (const rules of [LOG_RUNS, PANEL_RUNS]) {
      for (let round = 0; round < 200; round++) {
        const log = new SessionLog(`s${rand(2)}`, () => round);
        const events: ThoughtEvent[] = [];
        log.subscribe((e) => events.push(e));
        for (let i = 0; i < 60; i++) {
          const text = "abcdefgh"[rand(8)]!;
          const r = rand(12);
          if (r < 4) log.append({ kind: "thought", text, content: { type: "text", text } });
          else if (r < 8) log.append({ kind: "message", text, content: { type: "text", text }, ...(rand(3) === 0 ? { messageId: `m${rand(2)}` } : {}) });
          else if (r === 8) log.append({ kind: "message", text: "", content: { type: "image", mimeType: "image/png", data: "AA==" } });
          else if (r === 9) log.append({ kind: "turn_start", turnId: i, prompt: [] });
          else if (r === 10) log.sessionId = `s${rand(2)}`;
          else log.append({ kind: "tool_start", toolCallId: `t${i}`, announced: true, title: "read" });
        }
        const queue = new RunQueue(rules);
        const got: ThoughtEvent[] = [];
        const want: ThoughtEvent[] = [];
        let from = 0;
        for (let i = 0; i < events.length; i++) {
          queue.push(events[i]!);
          if (rand(10) === 0 || i === events.length - 1) {
            got.push(...queue.take());
            want.push(...reference(events.slice(from, i + 1), rules));
            from = i + 1;
            assert.deepEqual(queue.take(), [], "a take leaves the queue empty");
          }
        }
        assert.deepEqual(got, want);
        assert.ok(got.length < events.length, "some runs were joined");
        for (const e of events) kinds.add(`${e.kind}:${e.sessionId}`);
      }
    }
    assert.deepEqual([...kinds].sort(), ["message:s0", "message:s1", "thought:s0", "thought:s1", "tool_start:s0", "tool_start:s1", "turn_start:s0", "turn_start:s1"], "every kind of event came, in both sessions");
    assert.deepEqual(joinChunkRuns([]), []);
  });
});
