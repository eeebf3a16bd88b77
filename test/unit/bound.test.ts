/**
 * What the panel keeps of hostile agent data (`boundEvent`, `boundValue`), bounded ids, JSON text
 * of values of any depth, and lone surrogates made well-formed.
 */
import * as assert from "node:assert/strict";
import { boundEvent, boundValue, PLAN_ENTRIES, RAW_LIMITS, truncatedNote } from "../../src/shared/bound";
import type { PlanEntry, ThoughtEvent } from "../../src/shared/events";
import { boundId, MAX_ID_CHARS } from "../../src/core/ids";
import { stringifyDeep, stringifyJson, wellFormedJson } from "../../src/core/json";
import { SessionUpdateMapper } from "../../src/core/updateMapper";
import { EMPTY_STATE, findToolEntry, reduce } from "../../src/shared/viewModel";

function nested(depth: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

function depthOf(v: unknown): number {
  let d = 0;
  let cur: unknown = v;
  while (typeof cur === "object" && cur !== null) {
    d++;
    cur = Array.isArray(cur) ? cur[0] : (cur as { a?: unknown }).a;
  }
  return d;
}

const env = (seq: number): { seq: number; at: number; sessionId: string; turnId: number } => ({ seq, at: seq, sessionId: "s", turnId: 1 });

describe("boundValue", () => {
  it("returns small values as they are (same object, no cut)", () => {
    const v = { command: "ls", args: ["-la"], n: 3, ok: true, nothing: null };
    const b = boundValue(v);
    assert.equal(b.value, v);
    assert.equal(b.cut, undefined);
  });

  it("cuts nesting 10,000 deep at the depth limit, with a marker in place, without a stack overflow", () => {
    const b = boundValue(nested(10_000));
    assert.equal(depthOf(b.value), RAW_LIMITS.depth);
    assert.match(JSON.stringify(b.value), /truncated: nested deeper than 24 levels/);
    assert.match(b.cut ?? "", /nested deeper than 24 levels/);
  });

  it("cuts a 20 MB string to the string limit and says how much is missing", () => {
    const b = boundValue({ out: "x".repeat(20_000_000) });
    const out = (b.value as { out: string }).out;
    assert.ok(out.length < RAW_LIMITS.string + 100, `kept ${out.length} characters`);
    assert.match(out, /… \[truncated: 19,98\d,\d{3} more characters\]$/);
    assert.match(b.cut ?? "", /19,98\d,\d{3} more characters/);
  });

  it("cuts arrays and objects to the entry limit, counting the rest", () => {
    const arr = Array.from({ length: 50_000 }, (_, i) => i);
    const b = boundValue(arr);
    const kept = b.value as unknown[];
    assert.equal(kept.length, RAW_LIMITS.entries + 1);
    assert.equal(kept[kept.length - 1], "… [truncated: 49,800 more entries]");
    const obj = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
    const bo = boundValue(obj);
    assert.equal(Object.keys(bo.value as object).length, RAW_LIMITS.entries + 1);
    assert.equal((bo.value as Record<string, unknown>)["…"], "[truncated: 800 more entries]");
    assert.match(bo.cut ?? "", /800 more entries/);
  });

  it("keeps the whole value within the total size budget, however wide and deep", () => {
    // 200 entries of 200 entries of 1 KB strings would be 40 MB.
    const wide = Array.from({ length: 200 }, () => Array.from({ length: 200 }, () => "y".repeat(1024)));
    const b = boundValue(wide);
    const size = JSON.stringify(b.value).length;
    assert.ok(size < RAW_LIMITS.total * 1.5, `bounded JSON is ${size} characters`);
    assert.match(b.cut ?? "", /more entries/);
  });

  it("never splits a surrogate pair where it cuts a string", () => {
    const s = "a" + "😀".repeat(20_000);
    const out = (boundValue([s]).value as string[])[0]!;
    assert.ok(out.isWellFormed());
  });
});

describe("boundEvent", () => {
  it("returns events that fit unchanged", () => {
    const e: ThoughtEvent = { ...env(1), kind: "tool_update", toolCallId: "t", rawInput: { a: 1 } };
    assert.deepEqual(boundEvent(e), e);
    const m: ThoughtEvent = { ...env(2), kind: "message", text: "hi", content: { type: "text", text: "hi" } };
    assert.equal(boundEvent(m), m);
  });

  it("cuts a tool call's raw input and output and names the cuts; the original event is untouched", () => {
    const e: ThoughtEvent = { ...env(1), kind: "tool_start", toolCallId: "t", agentToolCallId: "t".repeat(600), announced: true, title: "x", rawInput: nested(10_000), rawOutput: "z".repeat(20_000_000) };
    const b = boundEvent(e);
    assert.equal(b.kind, "tool_start");
    if (b.kind !== "tool_start") return;
    assert.ok(b.cuts?.rawInput?.includes("nested deeper"));
    assert.ok(b.cuts?.rawOutput?.includes("more characters"));
    assert.equal(b.agentToolCallId, undefined, "the panel does not need the agent's long id");
    assert.ok(JSON.stringify(b).length < 200_000);
    assert.equal((e.rawOutput as string).length, 20_000_000);
    assert.equal(e.agentToolCallId?.length, 600);
  });

  it("cuts a plan of 50,000 entries to the panel's limit; the reducer keeps the cut for the marker", () => {
    const entries: PlanEntry[] = Array.from({ length: 50_000 }, (_, i) => ({ content: `step ${i}`, priority: "low", status: "pending" }));
    const b = boundEvent({ ...env(2), kind: "plan", entries });
    assert.equal(b.kind === "plan" && b.entries.length, PLAN_ENTRIES);
    assert.equal(b.cuts?.entries, "49,950 more entries");
    const state = reduce(EMPTY_STATE, [{ ...env(1), kind: "turn_start", turnId: 1, prompt: [] }, b]);
    const s = state.sessions.s!;
    assert.equal(s.plan?.length, PLAN_ENTRIES);
    assert.equal(s.planCut, "49,950 more entries");
    const card = s.turns[0]!.entries.find((x) => x.type === "plan");
    assert.equal(card?.type === "plan" && card.cut, "49,950 more entries");
    assert.equal(truncatedNote(s.planCut), "… truncated: 49,950 more entries; the full data is in the transcript and Export Session.");
  });

  it("the reducer records a tool call's cuts per field, and clears one when a later update fits", () => {
    const events: ThoughtEvent[] = [
      { ...env(1), kind: "turn_start", turnId: 1, prompt: [] },
      { ...env(2), kind: "tool_start", toolCallId: "t", announced: true, title: "x", rawInput: nested(100) },
      { ...env(3), kind: "tool_update", toolCallId: "t", rawOutput: "o".repeat(100_000) },
    ];
    let state = reduce(EMPTY_STATE, events.map(boundEvent));
    assert.deepEqual(Object.keys(findToolEntry(state, "s", "t")?.cuts ?? {}).sort(), ["rawInput", "rawOutput"]);
    state = reduce(state, [boundEvent({ ...env(4), kind: "tool_done", toolCallId: "t", outcome: "completed", rawOutput: "short" })]);
    assert.deepEqual(Object.keys(findToolEntry(state, "s", "t")?.cuts ?? {}), ["rawInput"]);
  });

  it("keeps only the tail of a huge terminal output delta (what the card shows anyway)", () => {
    const b = boundEvent({ ...env(1), kind: "tool_update", toolCallId: "t", terminal: { output: "a".repeat(1_000_000) + "END" } });
    assert.ok(b.kind === "tool_update" && b.terminal?.replace === true && b.terminal.output?.endsWith("END") && b.terminal.output.length <= 256 * 1024);
  });
});

describe("boundId", () => {
  it("keeps short ids; turns long ones into a bounded prefix + hash, stable and distinct", () => {
    assert.equal(boundId("call_1"), "call_1");
    const a = boundId("a".repeat(600));
    const b = boundId("a".repeat(599) + "b");
    assert.ok(a.length <= MAX_ID_CHARS && b.length <= MAX_ID_CHARS);
    assert.notEqual(a, b);
    assert.equal(boundId("a".repeat(600)), a);
    assert.ok(a.startsWith("a".repeat(64)));
  });

  it("the mapper gives a tool call with a 600-character id one bounded id in every event, and keeps the agent's on tool_start", () => {
    const m = new SessionUpdateMapper();
    const long = "x".repeat(600);
    const [start] = m.map({ sessionUpdate: "tool_call", toolCallId: long, title: "t" });
    assert.ok(start?.kind === "tool_start");
    assert.ok(start.toolCallId.length <= MAX_ID_CHARS);
    assert.equal(start.agentToolCallId, long);
    const [update] = m.map({ sessionUpdate: "tool_call_update", toolCallId: long, status: "in_progress" });
    assert.ok(update?.kind === "tool_update" && update.toolCallId === start.toolCallId);
    const request = m.permissionRequest("perm-1", { toolCallId: long }, []).find((e) => e.kind === "permission_request");
    assert.equal(request?.kind === "permission_request" && request.toolCallId, start.toolCallId);
    const [short] = m.map({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "t" });
    assert.ok(short?.kind === "tool_start" && short.toolCallId === "call_1" && short.agentToolCallId === undefined);
  });

  it("makes ids with lone surrogates well-formed (they survive the trip to the webview and back)", () => {
    const id = boundId("x\ud800y");
    assert.ok(id.isWellFormed());
    assert.notEqual(id, boundId("x\udc00y"));
  });
});

describe("stringifyJson / wellFormedJson", () => {
  it("writes values nested 100,000 deep (JSON.stringify throws) and reads back the same", () => {
    const v = nested(100_000);
    assert.throws(() => JSON.stringify(v), RangeError);
    const text = stringifyJson({ rawInput: v, n: [1, null, true, "s\n"] });
    const back = JSON.parse(text) as { rawInput: unknown; n: unknown[] };
    assert.equal(depthOf(back.rawInput), 100_000);
    assert.deepEqual(back.n, [1, null, true, "s\n"]);
  });

  it("the deep writer matches JSON.stringify on ordinary values (undefined members, NaN, nested empties)", () => {
    const samples: unknown[] = [{ a: undefined, b: [undefined, NaN, {}, []], c: "é\u2028\"" }, [], {}, "x", 3, null, { k: { l: [1, { m: false }] } }];
    for (const s of samples) assert.equal(stringifyDeep(s), JSON.stringify(s));
  });

  it("replaces lone surrogates in strings and keys with U+FFFD, at any depth; leaves pairs alone", () => {
    const text = String.raw`{"a":"x\ud800y","\udc00k":[{"b":"ok \ud83d\ude00"}]}`;
    const v = wellFormedJson(JSON.parse(text) as Record<string, unknown>, text);
    assert.deepEqual(v, { a: "x\ufffdy", "\ufffdk": [{ b: "ok 😀" }] });
    let deep = `"\\ud800"`;
    for (let i = 0; i < 50_000; i++) deep = `[${deep}]`;
    const d = wellFormedJson(JSON.parse(deep) as unknown, deep);
    let cur: unknown = d;
    while (Array.isArray(cur)) cur = cur[0];
    assert.equal(cur, "\ufffd");
  });
});
