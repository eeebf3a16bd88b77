/**
 * A turn's result is the same whether it was read as a stream (which keeps every event for its
 * cursors) or only awaited (`SessionManager.run`, the panel's path, which keeps none and sums the
 * session log's compacted events instead).
 */
import * as assert from "node:assert/strict";
import { SessionManager } from "../../src/acp/sessionManager";
import { ThoughtStream, TurnFeed, type TurnResult } from "../../src/core/thoughtStream";
import type { ThoughtEvent } from "../../src/shared/events";
import type { Step } from "../fixtures/agents/scenario";
import { harness, type Harness } from "./harness";

/** A turn of many small chunks of each kind, split by tool calls and an image chunk (which never joins a run). */
function turn(n: number): Step[] {
  return [
    { thought: `thinking about turn ${n}, `.repeat(40), chunkSize: 3 },
    { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: `r${n}`, title: "Read a", kind: "read", status: "in_progress" } },
    { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: `r${n}`, title: "Read a.ts", status: "completed" } },
    { message: `answer ${n} `.repeat(50), chunkSize: 5 },
    { sessionUpdate: { sessionUpdate: "agent_message_chunk", content: { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" } } },
    { thought: "more thought", chunkSize: 2 },
    { message: "the end.", chunkSize: 4 },
  ];
}

const same = (r: TurnResult): Omit<TurnResult, "turnId" | "sessionId"> => {
  const { turnId: _t, sessionId: _s, ...rest } = r;
  return rest;
};

describe("ACP client: a turn's result", function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  afterEach(async () => { await h?.cleanup(); h = undefined; });

  it("is the same from run() (no events kept) as from a stream, whose cursor saw eventCount events", async () => {
    h = await harness({ turns: [turn(1), turn(1), turn(1)] });
    const spec = h.spec;
    const manager = new SessionManager(h.ports, { initializeTimeoutMs: 10_000, clientName: "t", clientVersion: "0", resolveAgent: () => spec });
    try {
      const streamed = manager.stream("one");
      const seen: ThoughtEvent[] = [];
      for await (const e of streamed) seen.push(e);
      const a = await streamed.result;
      const b = await manager.run("two", { sessionId: a.sessionId });
      const c = await manager.stream("three", { sessionId: a.sessionId }).result;
      assert.equal(a.eventCount, seen.length);
      assert.ok(seen.filter((e) => e.kind === "thought").length > 300, "many thought chunks");
      assert.equal(a.thoughts, `${"thinking about turn 1, ".repeat(40)}more thought`);
      assert.equal(a.text, `${"answer 1 ".repeat(50)}the end.`);
      assert.deepEqual(a.toolCalls.map((t) => t.title), ["Read a.ts"]);
      assert.deepEqual(same(b), same(a), "run() gives the streamed turn's result");
      assert.deepEqual(same(c), same(a), "and so does the turn after it");
      assert.deepEqual([a.turnId, b.turnId, c.turnId], [1, 2, 3]);
    } finally {
      manager.dispose();
    }
  });

  it("a stream cannot be made over a feed that keeps no events", () => {
    assert.throws(() => new ThoughtStream(new TurnFeed(false)), /keeps its events/);
    const kept = new TurnFeed();
    assert.doesNotThrow(() => new ThoughtStream(kept));
  });
});
