/**
 * JSON text of any JSON value, however deeply nested: `JSON.stringify` recurses and throws
 * "Maximum call stack size exceeded" at a few thousand levels, which an agent can send (the
 * transcript and Export Session must still keep such an event whole). Values that
 * `JSON.stringify` handles take that fast path; deeper ones are written with an explicit stack.
 */

export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return stringifyDeep(value);
  }
}

type Frame =
  | { kind: "array"; items: readonly unknown[]; i: number }
  | { kind: "object"; obj: Record<string, unknown>; keys: string[]; i: number; wrote: boolean };

/** Like `JSON.stringify(value)` (no replacer, no indent; `toJSON` ignored), iteratively. */
export function stringifyDeep(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const scalar = (v: unknown): string | undefined => {
    if (v === null) return "null";
    switch (typeof v) {
      case "string": return JSON.stringify(v);
      case "number": return Number.isFinite(v) ? String(v) : "null";
      case "boolean": return v ? "true" : "false";
      case "bigint": throw new TypeError("Do not know how to serialize a BigInt");
      case "object": return undefined;
      default: return "\u0000skip"; // undefined, functions, symbols
    }
  };
  /** Writes a value or opens its container; returns false when it is to be skipped. */
  const open = (v: unknown, inArray: boolean): boolean => {
    const s = scalar(v);
    if (s === "\u0000skip") {
      if (inArray) out.push("null");
      return inArray;
    }
    if (s !== undefined) {
      out.push(s);
      return true;
    }
    if (Array.isArray(v)) {
      out.push("[");
      stack.push({ kind: "array", items: v, i: 0 });
    } else {
      out.push("{");
      const obj = v as Record<string, unknown>;
      stack.push({ kind: "object", obj, keys: Object.keys(obj), i: 0, wrote: false });
    }
    return true;
  };
  if (!open(value, false)) return undefined as unknown as string;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.kind === "array") {
      if (top.i >= top.items.length) {
        out.push("]");
        stack.pop();
        continue;
      }
      if (top.i > 0) out.push(",");
      open(top.items[top.i++], true);
      continue;
    }
    if (top.i >= top.keys.length) {
      out.push("}");
      stack.pop();
      continue;
    }
    const key = top.keys[top.i++]!;
    const v = top.obj[key];
    if (scalar(v) === "\u0000skip") continue;
    out.push(`${top.wrote ? "," : ""}${JSON.stringify(key)}:`);
    top.wrote = true;
    open(v, false);
  }
  return out.join("");
}

/** JSON text that may decode to a lone surrogate (`"\ud800"`): a surrogate escape, paired or not. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Replaces lone surrogates in every string (and key) of a value parsed from `text` with U+FFFD, in
 * place, iteratively (any depth). Only walks when the text has a surrogate escape at all; returns the value.
 * Invalid UTF-8 bytes never get this far: the stream decoder already made them U+FFFD.
 */
export function wellFormedJson<T>(value: T, text: string): T {
  if (!SURROGATE_ESCAPE.test(text)) return value;
  const fix = (s: string): string => (s.isWellFormed() ? s : s.toWellFormed());
  if (typeof value === "string") return fix(value) as T;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === "string") v[i] = fix(x);
        else if (typeof x === "object" && x !== null) stack.push(x);
      }
      continue;
    }
    const obj = v as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const x = obj[key];
      let k = key;
      if (!key.isWellFormed()) {
        k = key.toWellFormed();
        delete obj[key];
      }
      if (typeof x === "string") obj[k] = fix(x);
      else {
        obj[k] = x;
        if (typeof x === "object" && x !== null) stack.push(x);
      }
    }
  }
  return value;
}
