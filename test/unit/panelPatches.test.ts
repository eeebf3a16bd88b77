/** The panel's patches: text chunks coalesced per session, turn, kind and message; versions carried from old to new. */
import * as assert from "node:assert/strict";
import { unpackEvent, type ThoughtEvent, type ThoughtEventBody } from "../../src/shared/events";
import { coalesce, HeldText, nextPatch, patchHeldUntil, patchQueue, shareLoggedText } from "../../src/core/panelPatches";
import { SessionLog } from "../../src/core/sessionLog";
import { EMPTY_STATE, reduce } from "../../src/shared/viewModel";
import { TITLE_TEXT } from "../../src/shared/bound";

let seq = 0;
function ev(body: ThoughtEventBody, turnId?: number, sessionId = "s1"): ThoughtEvent {
  seq++;
  return { ...body, seq, at: 1000 + seq, sessionId, ...(turnId !== undefined ? { turnId } : {}) };
}
const text = (t: string): { text: string; content: { type: "text"; text: string } } => ({ text: t, content: { type: "text", text: t } });
const texts = (events: readonly ThoughtEvent[]): string[] => events.map((e) => (e.kind === "thought" || e.kind === "message" ? `${e.kind}:${e.text}` : e.kind));

describe("panel patches", () => {
  beforeEach(() => { seq = 0; });

  it("joins a run of thought chunks, and of message chunks, into one event each", () => {
    const out = coalesce([ev({ kind: "thought", ...text("a") }, 1), ev({ kind: "thought", ...text("b") }, 1), ev({ kind: "message", ...text("c") }, 1), ev({ kind: "message", ...text("d") }, 1)]);
    assert.deepEqual(texts(out), ["thought:ab", "message:cd"]);
    const first = out[0]!;
    assert.ok(first.kind === "thought");
    assert.deepEqual(first.content, { type: "text", text: "ab" });
    assert.equal(first.seq, 1, "the merged event keeps the first chunk's seq");
  });

  it("keeps chunks apart across sessions, turns, messages and other events", () => {
    const out = coalesce([
      ev({ kind: "thought", ...text("a") }, 1, "s1"),
      ev({ kind: "thought", ...text("b") }, 1, "s2"),
      ev({ kind: "thought", ...text("c") }, 2, "s2"),
      ev({ kind: "message", ...text("d"), messageId: "m1" }, 2, "s2"),
      ev({ kind: "message", ...text("e"), messageId: "m2" }, 2, "s2"),
      ev({ kind: "turn_end", turnId: 2, stopReason: "end_turn" }, 2, "s2"),
      ev({ kind: "message", ...text("f"), messageId: "m2" }, 2, "s2"),
    ]);
    assert.deepEqual(texts(out), ["thought:a", "thought:b", "thought:c", "message:d", "message:e", "turn_end", "message:f"]);
  });

  it("does not change its input", () => {
    const input = [ev({ kind: "thought", ...text("a") }, 1), ev({ kind: "thought", ...text("b") }, 1)];
    const copy = structuredClone(input);
    coalesce(input);
    assert.deepEqual(input, copy);
  });

  it("has no patch when nothing is pending", () => {
    assert.equal(nextPatch(EMPTY_STATE, patchQueue()), undefined);
  });

  it("carries the state from its version to the new one, with the coalesced, bounded events", () => {
    const start = reduce(EMPTY_STATE, [ev({ kind: "session_start", agentName: "Demo", cwd: "/w" })]);
    const pending = [
      ev({ kind: "turn_start", turnId: 1, prompt: [{ type: "text", text: "hi" }] }, 1),
      ev({ kind: "thought", ...text("x") }, 1),
      ev({ kind: "thought", ...text("y") }, 1),
      ev({ kind: "tool_start", toolCallId: "t1", announced: true, title: "T".repeat(TITLE_TEXT + 10) }, 1),
    ];
    const queue = patchQueue();
    for (const e of pending) queue.push(e);
    const next = nextPatch(start, queue)!;
    assert.deepEqual(queue.take(), [], "the patch empties the queue");
    assert.equal(next.patch.type, "patch");
    assert.equal(next.patch.from, start.version);
    assert.equal(next.patch.to, next.state.version);
    // Posted packed (a chunk's text once); the webview puts each text block back before folding.
    const events = next.patch.events.map(unpackEvent);
    assert.deepEqual(texts(events), ["turn_start", "thought:xy", "tool_start"]);
    const tool = events[2]!;
    assert.ok(tool.kind === "tool_start" && tool.cuts?.title, "the title is bounded for the panel");
    // The webview folds the same events onto the same state and gets the same result.
    assert.deepEqual(reduce(start, events), next.state);
  });

  it("holds the text of sessions not shown, keeping each session's order: another event of that session lets its text go first", () => {
    const held = new HeldText();
    const go = (e: ThoughtEvent, shown = "shown"): string[] => held.take(e, shown).map((x) => `${x.sessionId}:${texts([x])[0]}`);
    assert.deepEqual(go(ev({ kind: "thought", ...text("a") }, 1, "shown")), ["shown:thought:a"], "the shown session's text goes at once");
    assert.deepEqual(go(ev({ kind: "thought", ...text("b") }, 1, "other")), [], "another's is held");
    assert.deepEqual(go(ev({ kind: "message", ...text("c") }, 1, "other")), []);
    assert.deepEqual(go(ev({ kind: "thought", ...text("q") }, 1, "quiet")), []);
    assert.equal(held.sessions, 2);
    // A tool call of the other session: its held text first, in order; the quiet one's stays held.
    assert.deepEqual(go(ev({ kind: "tool_start", toolCallId: "t1", announced: true, title: "read" }, 1, "other")), ["other:thought:b", "other:message:c", "other:tool_start"]);
    assert.deepEqual(go(ev({ kind: "tool_update", toolCallId: "t1", status: "completed" }, 1, "other")), [], "a tool's output is text too");
    assert.deepEqual(go(ev({ kind: "turn_end", turnId: 1, stopReason: "end_turn" }, 1, "other")), ["other:tool_update", "other:turn_end"]);
    // Shown now: its held text is released (and only its).
    assert.deepEqual(held.release("quiet").map((x) => texts([x])[0]), ["thought:q"]);
    assert.equal(held.sessions, 0);
    assert.deepEqual(held.release("quiet"), []);
    go(ev({ kind: "thought", ...text("x") }, 1, "a"));
    go(ev({ kind: "thought", ...text("y") }, 1, "b"));
    go(ev({ kind: "thought", ...text("z") }, 1, "a"));
    assert.deepEqual(held.release().map((x) => `${x.sessionId}:${texts([x])[0]}`), ["a:thought:xz", "b:thought:y"], "all of it, each session's in the order it came (its run joined), one session after another");
    assert.equal(held.sessions, 0);
    // Folded in the order released, the panel ends where the host does.
    const order = [ev({ kind: "turn_start", turnId: 1, prompt: [{ type: "text", text: "go" }] }, 1, "o"), ev({ kind: "thought", ...text("1") }, 1, "o"), ev({ kind: "tool_start", toolCallId: "t9", announced: true, title: "t" }, 1, "o"), ev({ kind: "thought", ...text("2") }, 1, "o")];
    const sent = [...order.flatMap((e) => held.take(e, "shown")), ...held.release()];
    assert.deepEqual(reduce(EMPTY_STATE, sent).sessions.o, reduce(EMPTY_STATE, order).sessions.o);
  });

  it("a finished turn's thoughts and messages take the log's text where it is the same, and only there", () => {
    // As the controller folds a live session: the log's listener events, a patch every few chunks.
    const log = new SessionLog("s1", () => 5);
    let state = reduce(EMPTY_STATE, [ev({ kind: "session_start", agentName: "Demo", cwd: "/w" })]);
    const queue = patchQueue();
    const sub = log.subscribe((e) => queue.push(e));
    const frame = (): void => { const next = nextPatch(state, queue); if (next) state = next.state; };
    log.append({ kind: "turn_start", turnId: 1, prompt: [{ type: "text", text: "go" }] });
    for (let i = 0; i < 30; i++) { log.append({ kind: "thought", ...text(`t${i} `) }); if (i % 7 === 0) frame(); }
    log.append({ kind: "tool_start", toolCallId: "t1", announced: true, title: "read" });
    for (let i = 0; i < 12; i++) { log.append({ kind: "message", ...text(`m${i} `), messageId: "a" }); if (i % 5 === 0) frame(); }
    log.append({ kind: "thought", ...text("later") });
    log.append({ kind: "turn_end", turnId: 1, stopReason: "end_turn" });
    frame();
    sub.dispose();
    const turn = state.sessions.s1!.turns[0]!;
    const before = structuredClone(turn.entries);
    const thought = Array.from({ length: 30 }, (_, i) => `t${i} `).join("");
    assert.deepEqual(before.map((e) => (e.type === "thought" || e.type === "message" ? e.text : e.type)), [thought, "tool", Array.from({ length: 12 }, (_, i) => `m${i} `).join(""), "later"]);
    assert.equal(shareLoggedText(turn, log.turn(1)), 3, "both thoughts and the message");
    assert.deepEqual(turn.entries, before, "nothing the panel shows changes");
    // An entry whose text is not the log's run (cut for the panel, or spanning runs) keeps its own.
    const changed = turn.entries[0]!;
    assert.ok(changed.type === "thought");
    changed.text = "not the log's";
    assert.equal(shareLoggedText(turn, log.turn(1)), 2);
    assert.equal(changed.text, "not the log's");
    assert.equal(shareLoggedText(turn, log.turn(2)), 0, "another turn's events share nothing");
  });

  it("holds a patch until each ready webview applied the last one, for at most the wait", () => {
    const caughtUp = { ready: true, posted: 5, postedAt: 100, applied: 5 };
    const behind = { ready: true, posted: 6, postedAt: 100, applied: 5 };
    assert.equal(patchHeldUntil([caughtUp], 110, 1000), 0);
    assert.equal(patchHeldUntil([caughtUp, behind], 110, 1000), 1100);
    assert.equal(patchHeldUntil([caughtUp, behind], 1100, 1000), 0, "a silent webview holds nothing up after the wait");
    assert.equal(patchHeldUntil([{ ...behind, ready: false }], 110, 1000), 0, "nor does one that is not ready");
  });
});
