/**
 * Exports of a recorded demo session (test/fixtures/sessions/demo-session.jsonl) against golden
 * files in test/fixtures/sessions/golden/. UPDATE_GOLDEN=1 rewrites them (review the diff!).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { EXPORT_FORMATS, exportSession, parseThoughtEvents } from "../../src/core/exporters";

const dir = path.join(__dirname, "..", "fixtures", "sessions");
const recorded = fs.readFileSync(path.join(dir, "demo-session.jsonl"), "utf8");
const events = parseThoughtEvents(recorded);

describe("session exports (golden files)", () => {
  for (const format of EXPORT_FORMATS) {
    it(`${format.label} matches its golden file`, () => {
      const out = exportSession(format.id, events);
      const golden = path.join(dir, "golden", `demo-session.${format.id}.${format.extension}`);
      if (process.env.UPDATE_GOLDEN) {
        fs.mkdirSync(path.dirname(golden), { recursive: true });
        fs.writeFileSync(golden, out);
      }
      assert.equal(out, fs.readFileSync(golden, "utf8"));
    });
  }

  it("our own JSON Lines round-trip losslessly", () => {
    const again = parseThoughtEvents(exportSession("thought-events", events));
    assert.deepEqual(again, events);
    assert.equal(exportSession("thought-events", again), recorded);
  });

  it("every exported JSON line parses and the delta vocabulary is complete and consistent", () => {
    const records = exportSession("cli-deltas", events).trim().split("\n").map((l) => JSON.parse(l) as { type: string; conversation_id: string; role: string; delta?: string; thinking?: string; text?: string });
    const types = new Set(records.map((r) => r.type));
    for (const t of ["thinking-start", "thinking-delta", "thinking-end", "thinking", "text-delta", "content-end", "text", "tool-use", "tool-result"]) assert.ok(types.has(t), t);
    assert.ok(records.every((r) => r.conversation_id && r.role));
    // The complete records equal the concatenated deltas.
    const thoughts = events.filter((e) => e.kind === "thought").map((e) => (e.kind === "thought" ? e.text : "")).join("");
    assert.equal(records.filter((r) => r.type === "thinking-delta").map((r) => r.delta).join(""), thoughts);
    assert.equal(records.filter((r) => r.type === "thinking").map((r) => r.thinking).join(""), thoughts);
    const agui = exportSession("ag-ui", events).trim().split("\n").map((l) => JSON.parse(l) as { type: string });
    assert.equal(agui[0]!.type, "RUN_STARTED");
    assert.equal(agui.at(-1)!.type, "RUN_FINISHED");
    for (const t of ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_END", "STEP_STARTED", "STEP_FINISHED"]) assert.ok(agui.some((r) => r.type === t), t);
    const starts = agui.filter((r) => r.type === "TOOL_CALL_START").length;
    assert.equal(agui.filter((r) => r.type === "TOOL_CALL_END").length, starts, "every tool call ends");
  });
});
