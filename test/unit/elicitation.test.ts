/** An agent's form question: its schema becomes bounded plain fields, and answers are checked against them (hostile schemas included). */
import * as assert from "node:assert/strict";
import { MAX_CHOICES, MAX_FIELDS, MAX_LABEL, defaultsOf, normaliseForm, validateAnswer } from "../../src/shared/elicitation";

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
