/** Stored events read back: the schema keeps every field of real events and refuses wrong shapes. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseThoughtEvent } from "../../src/core/eventSchema";
import { parseCheckpoints } from "../../src/core/checkpoints";

const golden = path.join(__dirname, "..", "fixtures", "sessions", "golden", "demo-session.thought-events.jsonl");

describe("stored data is checked when read", () => {
  it("every event of the recorded demo session parses back unchanged (no field dropped)", () => {
    const lines = fs.readFileSync(golden, "utf8").split("\n").filter((l) => l.trim());
    assert.ok(lines.length > 50);
    const kinds = new Set<string>();
    for (const line of lines) {
      const raw: unknown = JSON.parse(line);
      const parsed = parseThoughtEvent(raw);
      assert.ok("event" in parsed, `${line.slice(0, 120)}: ${"problem" in parsed ? parsed.problem : ""}`);
      assert.deepEqual(parsed.event, raw);
      kinds.add(parsed.event.kind);
    }
    for (const k of ["session_start", "turn_start", "thought", "message", "plan", "tool_start", "tool_done", "permission_request", "permission_outcome", "turn_end"]) assert.ok(kinds.has(k), `the fixture has a ${k}`);
  });

  it("refuses events with the wrong shape, and says where", () => {
    const base = { seq: 1, at: 1, sessionId: "s" };
    const bad: [unknown, RegExp][] = [
      [{ ...base, kind: "tool_start", toolCallId: "t", title: "x" }, /announced/],
      [{ ...base, kind: "message", text: 5, content: { type: "text", text: "" } }, /text/],
      [{ ...base, kind: "permission_request", requestId: "p", toolCallId: "t", title: "x", options: [{ optionId: "o", name: "n", kind: "allow_forever" }], toolCall: {} }, /options/],
      [{ ...base, kind: "hologram" }, /kind/],
      [{ seq: -1, at: 1, sessionId: "s", kind: "mode", currentModeId: "m" }, /seq/],
      // A turn's start and end must say which turn (optional on other events).
      [{ ...base, kind: "turn_start", prompt: [] }, /turnId/],
      [{ ...base, kind: "thought", text: "t", content: { type: "text", text: "t" }, turnId: "1" }, /turnId/],
      ["not an object", /event|expected/],
    ];
    for (const [value, where] of bad) {
      const parsed = parseThoughtEvent(value);
      assert.ok("problem" in parsed, `accepted ${JSON.stringify(value)}`);
      assert.match(parsed.problem, where);
    }
  });

  it("drops damaged stored checkpoints, and commits that are not commit ids (they reach git's command line)", () => {
    const ok = { sessionId: "s", turnId: 1, prompt: "p", at: 1, before: { "/w": "a".repeat(40) } };
    const { checkpoints, dropped } = parseCheckpoints([ok, { ...ok, before: { "/w": "--output=/tmp/x" } }, { ...ok, turnId: "1" }, null]);
    assert.deepEqual(checkpoints, [ok]);
    assert.equal(dropped, 3);
    assert.deepEqual(parseCheckpoints(undefined), { checkpoints: [], dropped: 0 });
    assert.deepEqual(parseCheckpoints({ not: "a list" }), { checkpoints: [], dropped: 1 });
  });
});
