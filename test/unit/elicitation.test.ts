/** An agent's form question: its schema becomes bounded plain fields, and answers are checked against them (hostile schemas included). */
import * as assert from "node:assert/strict";
import type { ThoughtEventBody } from "../../src/shared/events";
import { MAX_CHOICES, MAX_FIELDS, MAX_LABEL, defaultsOf, normaliseForm, openableUrl, validateAnswer } from "../../src/shared/elicitation";
import { SessionElicitations } from "../../src/acp/sessionElicitations";
import { SessionLog } from "../../src/core/sessionLog";
import type { ThoughtEvent } from "../../src/shared/events";
import { EMPTY_STATE, markRestored, reduce } from "../../src/shared/viewModel";

const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", minLength: 2, maxLength: 20, default: "Ada" },
    email: { type: "string", format: "email" },
    age: { type: "integer", minimum: 0, maximum: 150 },
    ratio: { type: "number", minimum: 0.5 },
    agree: { type: "boolean", default: false },
    colour: { type: "string", oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }], default: "g" },
    size: { type: "string", enum: ["S", "M", "L"] },
    tags: { type: "array", items: { anyOf: [{ const: "a", title: "Alpha" }, { const: "b", title: "Beta" }] }, minItems: 1, maxItems: 2, default: ["a", "zz"] },
  },
  required: ["name", "age", "tags"],
};

describe("elicitation forms", () => {
  it("normalises every property kind with titles, defaults, bounds and required marks", () => {
    const form = normaliseForm(schema);
    assert.deepEqual(form.problems, []);
    assert.deepEqual(form.fields.map((f) => [f.name, f.type, f.required]), [
      ["name", "text", true], ["email", "text", false], ["age", "number", true], ["ratio", "number", false],
      ["agree", "boolean", false], ["colour", "select", false], ["size", "select", false], ["tags", "multiselect", true],
    ]);
    assert.equal(form.fields[0]!.title, "Your name");
    assert.deepEqual(form.fields.find((f) => f.name === "colour"), { name: "colour", title: "colour", required: false, type: "select", choices: [{ value: "r", title: "Red" }, { value: "g", title: "Green" }], default: "g" });
    // A default that is not one of the choices is dropped.
    assert.deepEqual(defaultsOf(form.fields), { name: "Ada", agree: false, colour: "g", tags: ["a"] });
  });

  it("accepts a valid answer, sending only the form's fields", () => {
    const form = normaliseForm(schema);
    const r = validateAnswer(form, { name: "Ada", age: 36, tags: ["a", "b"], email: "", agree: true });
    assert.deepEqual(r, { ok: true, content: { name: "Ada", age: 36, tags: ["a", "b"], agree: true } });
  });

  it("refuses wrong types, out-of-range values, unknown fields and missing required ones", () => {
    const form = normaliseForm(schema);
    const r = validateAnswer(form, { name: "A", email: "nope", age: 3.5, ratio: 0.1, agree: "yes", colour: "blue", size: "XL", tags: ["a", "b", "a"], extra: 1 });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.deepEqual(Object.keys(r.problems).sort(), ["age", "agree", "colour", "email", "extra", "name", "ratio", "size", "tags"]);
    assert.match(r.problems.name!, /at least 2/);
    assert.match(r.problems.age!, /whole number/);
    const missing = validateAnswer(form, {});
    assert.equal(missing.ok, false);
    if (!missing.ok) assert.deepEqual(Object.keys(missing.problems).sort(), ["age", "name", "tags"]);
    assert.equal(validateAnswer(form, "not an object").ok, false);
    assert.equal(validateAnswer(form, { name: "Ada", age: Number.POSITIVE_INFINITY, tags: ["a"] }).ok, false, "Infinity is not a number");
  });

  it("bounds hostile schemas: huge, deep, wrong types", () => {
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, { type: "string", title: "x".repeat(100_000) }]));
    const huge = normaliseForm({ type: "object", properties: many });
    assert.equal(huge.fields.length, MAX_FIELDS);
    assert.ok(huge.fields.every((f) => f.title.length <= MAX_LABEL + 1));
    assert.match(huge.problems.join(" "), /first 50 of 5000/);

    const choices = normaliseForm({ properties: { c: { type: "string", enum: Array.from({ length: 10_000 }, (_, i) => `v${i}`) } } });
    const first = choices.fields[0];
    assert.equal(first?.type === "select" && first.choices.length, MAX_CHOICES);

    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { x: deep } };
    const nested = normaliseForm({ type: "object", properties: { deep, ok: { type: "boolean" } }, required: ["deep"] });
    assert.deepEqual(nested.fields.map((f) => f.name), ["ok"]);
    assert.match(nested.problems.join(" "), /required, so the form cannot be submitted/);
    assert.equal(validateAnswer(nested, { ok: true }).ok, false, "a required field that cannot be shown blocks Submit");

    for (const bad of [null, 42, "form", [], { type: "array" }, { properties: [1, 2] }, { properties: { a: null, b: 7, c: { type: 5 }, d: { type: "string", enum: [] }, e: { type: "array", items: "x" } } }]) {
      const form = normaliseForm(bad);
      assert.deepEqual(form.fields, [], JSON.stringify(bad));
    }
    const odd = normaliseForm({ properties: { n: { type: "number", minimum: "0", maximum: Number.NaN, default: "3" }, s: { type: "string", minLength: -1, format: "javascript", default: 4 } } });
    assert.deepEqual(odd.fields, [
      { name: "n", title: "n", required: false, type: "number", integer: false },
      { name: "s", title: "s", required: false, type: "text" },
    ]);
  });
});

describe("elicitation URLs", () => {
  it("opens only plain http(s) addresses, never ones whose user name hides the real host", () => {
    assert.deepEqual(openableUrl("https://example.com/login?x=1"), { url: "https://example.com/login?x=1", origin: "https://example.com" });
    for (const bad of ["javascript:alert(1)", "file:///etc/passwd", "command:workbench.action.terminal.new", "vscode://x", "https://bank.example@evil.example/", "https://a:b@evil.example/", "not a url", 42, `https://example.com/${"a".repeat(9000)}`]) {
      assert.equal(openableUrl(bad), undefined, String(bad).slice(0, 60));
    }
  });
});

describe("a session's questions (SessionElicitations)", () => {
  const quiet = { traceEnabled: false, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  function make() {
    const log = new SessionLog("s1");
    const session = { sessionId: "s1", agentName: "Agent", log, closed: false, recordFromAgent: (body: ThoughtEventBody) => { log.append(body); } };
    return { log, session, q: new SessionElicitations(session, quiet) };
  }
  const form = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
  const kinds = (log: SessionLog) => log.all().map((e) => (e.kind === "elicitation_request" ? `ask ${e.requestId.replace(/\d+/, "#")}` : e.kind === "elicitation_outcome" ? `${e.action} by ${e.by}` : e.kind));

  it("asks one at a time, answers with the checked content only, and refuses forged or late answers", async () => {
    const { log, q } = make();
    const first = q.ask({ message: "Name?", requestedSchema: form });
    const second = q.ask({ message: "Again?", requestedSchema: form });
    await new Promise((r) => setImmediate(r));
    assert.equal(log.all().filter((e) => e.kind === "elicitation_request").length, 1, "the second waits for the first");
    const id = q.openRequestId!;
    assert.match(q.answer(id, "accept", { name: 7 }) ?? "", /name must be text/);
    assert.match(q.answer(id, "accept", { name: "Ada", admin: true }) ?? "", /admin is not a field/);
    assert.match(q.answer("elicit-0", "decline") ?? "", /not open/);
    assert.equal(q.answer(id, "accept", { name: "Ada" }), undefined);
    assert.deepEqual(await first, { action: "accept", content: { name: "Ada" } });
    assert.match(q.answer(id, "decline") ?? "", /not open/, "answered once");
    await new Promise((r) => setImmediate(r));
    assert.notEqual(q.openRequestId, id);
    assert.equal(q.answer(q.openRequestId!, "decline"), undefined);
    assert.deepEqual(await second, { action: "decline" });
    assert.deepEqual(kinds(log), ["ask elicit-#", "accept by user", "ask elicit-#", "decline by user"]);
  });

  it("tells the caller when the user answered (an agent then gets the editor's CPU share a moment), not when a question is cancelled or declined unasked", async () => {
    const { q } = make();
    const told: string[] = [];
    const answered = q.ask({ message: "Name?", requestedSchema: form }, () => told.push("first"));
    await new Promise((r) => setImmediate(r));
    assert.equal(told.length, 0, "not while it is open");
    assert.equal(q.answer(q.openRequestId!, "decline"), undefined);
    await answered;
    assert.deepEqual(told, ["first"], "the user's decline");
    assert.deepEqual(await q.ask({ message: "Open it", url: "file:///etc/passwd", elicitationId: "e1" }, () => told.push("unsafe url")), { action: "decline" });
    const cancelled = q.ask({ message: "Again?", requestedSchema: form }, () => told.push("cancelled"));
    await new Promise((r) => setImmediate(r));
    q.cancelAll();
    assert.deepEqual(await cancelled, { action: "cancel" });
    assert.deepEqual(told, ["first"], "not for a URL declined unasked, nor for a cancel");
  });

  it("cancelAll cancels the open question and those waiting; a closed session is never asked", async () => {
    const { log, q, session } = make();
    const a = q.ask({ message: "1", requestedSchema: form });
    const b = q.ask({ message: "2", requestedSchema: form });
    await new Promise((r) => setImmediate(r));
    q.cancelAll();
    assert.deepEqual(await Promise.all([a, b]), [{ action: "cancel" }, { action: "cancel" }]);
    assert.deepEqual(kinds(log), ["ask elicit-#", "cancel by cancel"], "the waiting one was never shown");
    session.closed = true;
    assert.deepEqual(await q.ask({ message: "3", requestedSchema: form }), { action: "cancel" });
  });

  it("a URL question is accepted without content and closed by elicitation/complete; a bad URL is declined unseen", async () => {
    const { log, q } = make();
    assert.deepEqual(await q.ask({ message: "x", url: "javascript:alert(1)", elicitationId: "e0" }), { action: "decline" });
    const page = q.ask({ message: "Sign in", url: "https://example.com/a", elicitationId: "e1" });
    await new Promise((r) => setImmediate(r));
    assert.equal(q.urlOf(q.openRequestId!), "https://example.com/a");
    assert.equal(q.complete("other"), false);
    assert.equal(q.complete("e1"), true);
    assert.deepEqual(await page, { action: "cancel" });
    const again = q.ask({ message: "Sign in", url: "https://example.com/a", elicitationId: "e2" });
    await new Promise((r) => setImmediate(r));
    assert.equal(q.answer(q.openRequestId!, "accept", { sneaky: 1 }), undefined);
    assert.deepEqual(await again, { action: "accept", content: {} });
    assert.deepEqual(kinds(log), ["notice", "ask elicit-#", "cancel by cancel", "ask elicit-#", "accept by user"]);
  });
});

describe("the view model's open question", () => {
  it("pins the open one, records how it was answered, and drops it at the turn's end and on reload", () => {
    const at = 1;
    const ev = (seq: number, body: Record<string, unknown>) => ({ seq, at, sessionId: "s", turnId: 1, ...body }) as ThoughtEvent;
    let s = reduce(EMPTY_STATE, [ev(1, { kind: "turn_start", turnId: 1, prompt: [] }), ev(2, { kind: "elicitation_request", requestId: "q1", message: "Name?", fields: normaliseForm(schema).fields })]);
    assert.equal(s.sessions.s!.elicitation?.requestId, "q1");
    assert.equal(markRestored(s, ["s"]).sessions.s!.elicitation, undefined, "nobody can answer it after a reload");
    s = reduce(s, [ev(3, { kind: "elicitation_outcome", requestId: "q1", action: "decline", by: "user" })]);
    assert.equal(s.sessions.s!.elicitation, undefined);
    assert.ok(s.sessions.s!.turns[0]!.entries.some((e) => e.type === "notice" && e.title === "You declined the agent's question" && e.description === "Name?"));
    s = reduce(s, [ev(4, { kind: "elicitation_request", requestId: "q2", message: "More?", fields: [] }), ev(5, { kind: "turn_end", turnId: 1, stopReason: "end_turn" })]);
    assert.equal(s.sessions.s!.elicitation, undefined, "the turn's end closes it");
  });
});
