/**
 * An agent's form question (ACP `elicitation/create`, form mode) as the panel shows it: the
 * requested schema normalised into a bounded list of plain fields (`normaliseForm`), and the
 * answer checked against them (`validateAnswer`) — by the panel before Submit is enabled, and by
 * the host again before anything reaches the agent. Everything here came from the agent: sizes and
 * counts are bounded, text stays text, and what does not fit is left out and said so.
 */

/** One choice of a select or multi-select. */
export interface ElicitChoice { value: string; title: string }

interface FieldBase { name: string; title: string; description?: string; required: boolean }

/** A form field, normalised from one property of the requested schema. */
export type ElicitField =
  | (FieldBase & { type: "text"; minLength?: number; maxLength?: number; format?: "email" | "uri" | "date" | "date-time"; default?: string })
  | (FieldBase & { type: "number"; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { type: "boolean"; default?: boolean })
  | (FieldBase & { type: "select"; choices: ElicitChoice[]; default?: string })
  | (FieldBase & { type: "multiselect"; choices: ElicitChoice[]; minItems?: number; maxItems?: number; default?: string[] });

/** A normalised form: its fields, and what of the schema could not be shown (each said in words). */
export interface ElicitForm { fields: ElicitField[]; problems: string[] }

export type ElicitValue = string | number | boolean | string[];
/** An answer: field name → value (fields left empty are absent). */
export type ElicitContent = Record<string, ElicitValue>;

export const MAX_FIELDS = 50;
export const MAX_CHOICES = 200;
export const MAX_NAME = 200;
export const MAX_LABEL = 500;
export const MAX_DESCRIPTION = 2000;
export const MAX_MESSAGE = 10_000;
/** Longest text a field takes (whatever the agent's maxLength says). */
export const MAX_TEXT = 10_000;
const MAX_PROBLEMS = 20;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);
const str = (v: unknown, n: number): string | undefined => (typeof v === "string" && v.length > 0 ? cut(v, n) : undefined);
const finite = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const count = (v: unknown): number | undefined => { const n = finite(v); return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined; };
const FORMATS = new Set(["email", "uri", "date", "date-time"]);

/** Longest URL a URL-mode question may send the user to. */
export const MAX_URL = 8192;

/**
 * The page a URL-mode question sends the user to, when it is one a browser may open: http(s),
 * no user name or password in it (they hide the real host: https://bank.example@evil.example),
 * at most MAX_URL long. Returns the URL and its origin, shown to the user before anything opens.
 */
export function openableUrl(url: unknown): { url: string; origin: string } | undefined {
  if (typeof url !== "string" || url.length > MAX_URL) return undefined;
  let u: URL;
  try { u = new URL(url); } catch { return undefined; }
  if ((u.protocol !== "https:" && u.protocol !== "http:") || u.username || u.password || !u.hostname) return undefined;
  return { url: u.href, origin: u.origin };
}

/** The agent's message, bounded. */
export function boundMessage(message: unknown): string {
  return typeof message === "string" ? cut(message, MAX_MESSAGE) : "";
}

function choices(raw: unknown): ElicitChoice[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: ElicitChoice[] = [];
  const seen = new Set<string>();
  for (const c of raw.slice(0, MAX_CHOICES)) {
    const value = typeof c === "string" ? c : isRecord(c) && typeof c.const === "string" ? c.const : undefined;
    // A value longer than we keep could not be sent back as the agent wrote it: left out.
    if (value === undefined || value.length > MAX_LABEL || seen.has(value)) continue;
    seen.add(value);
    const title = isRecord(c) ? str(c.title, MAX_LABEL) ?? value : value;
    out.push({ value, title });
  }
  return out;
}

/**
 * The form for a requested schema. Properties of kinds we do not know, or malformed ones, are
 * left out (a required one among them means the form cannot be answered: `problems` says which).
 */
export function normaliseForm(schema: unknown): ElicitForm {
  const problems: string[] = [];
  const fields: ElicitField[] = [];
  const say = (p: string) => { if (problems.length < MAX_PROBLEMS) problems.push(p); };
  if (!isRecord(schema) || (schema.type !== undefined && schema.type !== "object")) return { fields, problems: ["The agent's form has no fields Agent Thoughts can read"] };
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const props = isRecord(schema.properties) ? Object.entries(schema.properties) : [];
  if (props.length > MAX_FIELDS) say(`Only the first ${MAX_FIELDS} of ${props.length} fields are shown`);
  for (const [name, p] of props.slice(0, MAX_FIELDS)) {
    const label = cut(name, MAX_LABEL);
    if (name.length === 0 || name.length > MAX_NAME || !isRecord(p)) { say(`Field "${cut(name, 60)}" cannot be shown`); continue; }
    const base: FieldBase = { name, title: str(p.title, MAX_LABEL) ?? label, required: required.has(name), ...(str(p.description, MAX_DESCRIPTION) ? { description: str(p.description, MAX_DESCRIPTION)! } : {}) };
    const field = toField(base, p, say);
    if (field) fields.push(field);
    else say(`Field "${base.title}" (${typeof p.type === "string" ? cut(p.type, 40) : "no type"}) cannot be shown${base.required ? "; it is required, so the form cannot be submitted" : ""}`);
  }
  return { fields, problems };
}

function toField(base: FieldBase, p: Record<string, unknown>, say: (p: string) => void): ElicitField | undefined {
  switch (p.type) {
    case "string": {
      const raw = p.oneOf ?? p.enum;
      const list = choices(raw);
      if (list) {
        if (list.length === 0) return undefined;
        if (Array.isArray(raw) && raw.length > MAX_CHOICES) say(`"${base.title}": only the first ${MAX_CHOICES} choices are offered`);
        const d = typeof p.default === "string" && list.some((c) => c.value === p.default) ? p.default : undefined;
        return { ...base, type: "select", choices: list, ...(d !== undefined ? { default: d } : {}) };
      }
      const minLength = count(p.minLength);
      const maxLength = count(p.maxLength);
      const format = typeof p.format === "string" && FORMATS.has(p.format) ? (p.format as "email" | "uri" | "date" | "date-time") : undefined;
      const d = typeof p.default === "string" && p.default.length <= MAX_TEXT ? p.default : undefined;
      return { ...base, type: "text", ...(minLength !== undefined ? { minLength } : {}), ...(maxLength !== undefined ? { maxLength } : {}), ...(format ? { format } : {}), ...(d !== undefined ? { default: d } : {}) };
    }
    case "number":
    case "integer": {
      const minimum = finite(p.minimum);
      const maximum = finite(p.maximum);
      const d = finite(p.default);
      return { ...base, type: "number", integer: p.type === "integer", ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}), ...(d !== undefined ? { default: d } : {}) };
    }
    case "boolean":
      return { ...base, type: "boolean", ...(typeof p.default === "boolean" ? { default: p.default } : {}) };
    case "array": {
      const items = isRecord(p.items) ? p.items : undefined;
      const raw = items ? items.anyOf ?? items.enum : undefined;
      const list = choices(raw);
      if (!list || list.length === 0) return undefined;
      if (Array.isArray(raw) && raw.length > MAX_CHOICES) say(`"${base.title}": only the first ${MAX_CHOICES} choices are offered`);
      const minItems = count(p.minItems);
      const maxItems = count(p.maxItems);
      const d = Array.isArray(p.default) ? p.default.filter((v): v is string => typeof v === "string" && list.some((c) => c.value === v)) : undefined;
      return { ...base, type: "multiselect", choices: list, ...(minItems !== undefined ? { minItems } : {}), ...(maxItems !== undefined ? { maxItems } : {}), ...(d?.length ? { default: [...new Set(d)] } : {}) };
    }
    default:
      return undefined;
  }
}

/** The form's starting values: each field's default, where it has one. */
export function defaultsOf(fields: readonly ElicitField[]): ElicitContent {
  const out: ElicitContent = {};
  for (const f of fields) if (f.default !== undefined) out[f.name] = f.default;
  return out;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function formatProblem(format: string, v: string): string | undefined {
  switch (format) {
    case "email": return EMAIL.test(v) ? undefined : "is not an email address";
    case "uri": try { new URL(v); return undefined; } catch { return "is not a URI"; }
    case "date": return DATE.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : "is not a date (YYYY-MM-DD)";
    case "date-time": return /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : "is not a date and time";
    default: return undefined;
  }
}

/** What is wrong with one field's value (undefined: nothing); `undefined` value = left empty. */
export function fieldProblem(f: ElicitField, v: unknown): string | undefined {
  if (v === undefined || v === "" || (Array.isArray(v) && v.length === 0)) {
    return f.required ? "is required" : undefined;
  }
  switch (f.type) {
    case "text": {
      if (typeof v !== "string") return "must be text";
      if (v.length > MAX_TEXT) return `is longer than ${MAX_TEXT} characters`;
      if (f.minLength !== undefined && v.length < f.minLength) return `needs at least ${f.minLength} characters`;
      if (f.maxLength !== undefined && v.length > f.maxLength) return `takes at most ${f.maxLength} characters`;
      return f.format ? formatProblem(f.format, v) : undefined;
    }
    case "number": {
      if (typeof v !== "number" || !Number.isFinite(v)) return "must be a number";
      if (f.integer && !Number.isInteger(v)) return "must be a whole number";
      if (f.minimum !== undefined && v < f.minimum) return `must be at least ${f.minimum}`;
      if (f.maximum !== undefined && v > f.maximum) return `must be at most ${f.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof v === "boolean" ? undefined : "must be yes or no";
    case "select":
      return typeof v === "string" && f.choices.some((c) => c.value === v) ? undefined : "must be one of the choices";
    case "multiselect": {
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string" || !f.choices.some((c) => c.value === x)) || new Set(v).size !== v.length) return "must be some of the choices";
      if (f.minItems !== undefined && v.length < f.minItems) return `needs at least ${f.minItems} choices`;
      if (f.maxItems !== undefined && v.length > f.maxItems) return `takes at most ${f.maxItems} choices`;
      return undefined;
    }
  }
}

/**
 * Checks an answer against the form: every field's value, no names the form does not have.
 * `ok` with the content to send (only the form's fields), or the problems by field name.
 */
export function validateAnswer(form: ElicitForm, content: unknown): { ok: true; content: ElicitContent } | { ok: false; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  if (!isRecord(content)) return { ok: false, problems: { "": "the answer is not a form" } };
  const out: ElicitContent = {};
  const names = new Set(form.fields.map((f) => f.name));
  for (const k of Object.keys(content)) if (!names.has(k)) problems[k] = "is not a field of this form";
  for (const f of form.fields) {
    const v = content[f.name];
    const problem = fieldProblem(f, v);
    if (problem) problems[f.name] = problem;
    else if (v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0)) out[f.name] = v as ElicitValue;
  }
  if (form.problems.some((p) => p.includes("it is required"))) problems[""] = "a required field cannot be shown";
  return Object.keys(problems).length ? { ok: false, problems } : { ok: true, content: out };
}
