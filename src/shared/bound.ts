/**
 * Bounds on what the panel keeps and draws of agent data. The session log, the transcript on disk
 * and Export Session keep every event whole; the panel (host view state, the messages posted to the
 * webview, the webview's DOM) gets `boundEvent(e)`: raw input/output cut to a depth, string length,
 * entry count and total size, plans and content lists cut to a count, terminal output to its tail.
 * Wherever something was cut the value says so in place ("… [truncated: 48,213 more entries]") and
 * the event's `cuts` says what, so the panel can show a marker. Pure: the webview may import it.
 */
import type { Cuts, PlanEntry, ThoughtEvent, ToolCallFields, ToolContent } from "./events";
import { withoutMediaData } from "./images";
import { pairSafeEnd } from "./utf16";
import { grouped } from "./digits";

export interface Limits {
  /** Containers nested deeper than this become a marker string. */
  depth: number;
  /** Characters kept of one string (object keys too). */
  string: number;
  /** Entries kept of one array or object. */
  entries: number;
  /** Characters (roughly, of the JSON) kept of one whole value. */
  total: number;
}

export const RAW_LIMITS: Limits = { depth: 24, string: 16_384, entries: 200, total: 64 * 1024 };
/** Plan entries the panel shows (a checklist; each one costs layout on every plan update), and characters of each. */
export const PLAN_ENTRIES = 50;
export const PLAN_TEXT = 2_000;
/** A tool call's content blocks and locations the panel shows, and characters of each text block. */
export const CONTENT_ENTRIES = 100;
export const CONTENT_TEXT = 64 * 1024;
export const LOCATIONS = 100;
/** Characters of a tool call's title and of a notice. */
export const TITLE_TEXT = 2_000;
/** Terminal output streamed in one event: its tail is what the card shows anyway. */
export const TERMINAL_TEXT = 256 * 1024;

/** What the marker says after the cut: where the rest is. */
export const FULL_DATA_HINT = "the full data is in the transcript and Export Session";

const count = grouped;

/** `s` cut to at most `max` UTF-16 units without splitting a surrogate pair. */
function cutString(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, pairSafeEnd(s, max));
}

/** A string cut to `max` characters with an in-place marker; `more` counts what was cut. */
function boundString(s: string, max: number): { text: string; more: number } {
  if (s.length <= max) return { text: s, more: 0 };
  const kept = cutString(s, max);
  return { text: `${kept}… [truncated: ${count(s.length - kept.length)} more characters]`, more: s.length - kept.length };
}

export interface Bounded<T = unknown> {
  value: T;
  /** What was cut, for the marker ("20,000,000 more characters; nested deeper than 24 levels"); absent when nothing was. */
  cut?: string;
}

/**
 * A copy of a JSON value within `limits` (the input itself when it already fits). Recursion stops
 * at `limits.depth`, so a value nested 10,000 deep costs no more stack than one nested 24 deep.
 */
export function boundValue(input: unknown, limits: Limits = RAW_LIMITS): Bounded {
  let budget = limits.total;
  let chars = 0;
  let entries = 0;
  let deep = false;
  let size = false;
  let changed = false;
  const walk = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case "string": {
        const max = Math.max(16, Math.min(limits.string, budget));
        budget -= Math.min(v.length, max) + 2;
        if (v.length <= max) return v;
        const b = boundString(v, max);
        chars += b.more;
        changed = true;
        return b.text;
      }
      case "number":
      case "boolean":
        budget -= 8;
        return v;
      case "undefined":
        return v;
      case "bigint":
        changed = true;
        return String(v);
      case "symbol":
      case "function":
        changed = true;
        return undefined;
      case "object": {
        if (v === null) {
          budget -= 4;
          return v;
        }
        if (depth >= limits.depth) {
          deep = true;
          changed = true;
          budget -= 48;
          return `… [truncated: nested deeper than ${limits.depth} levels]`;
        }
        budget -= 2;
        if (Array.isArray(v)) {
          const out: unknown[] = [];
          const n = Math.min(v.length, limits.entries);
          let i = 0;
          for (; i < n && budget > 0; i++) out.push(walk(v[i], depth + 1));
          if (i < v.length) {
            if (i < n) size = true;
            entries += v.length - i;
            changed = true;
            out.push(`… [truncated: ${count(v.length - i)} more entries]`);
          }
          return out;
        }
        const out: Record<string, unknown> = {};
        let kept = 0;
        let total = 0;
        for (const key in v) {
          if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
          total++;
          if (kept >= limits.entries || budget <= 0) {
            if (kept < limits.entries) size = true;
            continue;
          }
          kept++;
          const k = key.length > limits.string ? boundString(key, limits.string) : undefined;
          if (k) {
            chars += k.more;
            changed = true;
          }
          budget -= (k?.text ?? key).length + 3;
          out[k?.text ?? key] = walk((v as Record<string, unknown>)[key], depth + 1);
        }
        if (total > kept) {
          entries += total - kept;
          changed = true;
          out["…"] = `[truncated: ${count(total - kept)} more entries]`;
        }
        return out;
      }
    }
  };
  const value = walk(input, 0);
  if (!changed) return { value: input };
  const parts: string[] = [];
  if (chars) parts.push(`${count(chars)} more characters`);
  if (entries) parts.push(`${count(entries)} more entries`);
  if (deep) parts.push(`nested deeper than ${limits.depth} levels`);
  if (size) parts.push(`over the ${Math.round(limits.total / 1024)} KB size limit`);
  if (parts.length === 0) parts.push("values that are not JSON");
  return { value, cut: parts.join(", ") };
}

/** A list cut to `max` entries; the cut says how many more there were. */
function boundList<T>(list: readonly T[], max: number, what: string): Bounded<T[]> {
  if (list.length <= max) return { value: list as T[] };
  return { value: list.slice(0, max), cut: `${count(list.length - max)} more ${what}` };
}

function boundContent(content: readonly ToolContent[]): Bounded<ToolContent[]> {
  const list = boundList(content, CONTENT_ENTRIES, "content blocks");
  let chars = 0;
  let changed = list.cut !== undefined;
  const value = list.value.map((c): ToolContent => {
    if (c.type !== "content") return c; // diffs stay whole: Open diff shows them from the view state
    const block = c.content;
    if (block.type === "text" && block.text.length > CONTENT_TEXT) {
      const b = boundString(block.text, CONTENT_TEXT);
      chars += b.more;
      changed = true;
      return { type: "content", content: { type: "text", text: b.text } };
    }
    if (block.type === "resource" && block.resource.text !== undefined && block.resource.text.length > CONTENT_TEXT) {
      const b = boundString(block.resource.text, CONTENT_TEXT);
      chars += b.more;
      changed = true;
      return { type: "content", content: { ...block, resource: { ...block.resource, text: b.text } } };
    }
    if ((block.type === "image" || block.type === "audio") && block.data.length > 0) {
      // The panel shows a note for these, never the data.
      changed = true;
      return { type: "content", content: { ...block, data: "" } };
    }
    return c;
  });
  if (!changed) return { value: content as ToolContent[] };
  const cut = [list.cut, chars ? `${count(chars)} more characters` : undefined].filter(Boolean).join(", ");
  return { value, ...(cut ? { cut } : {}) };
}

/** Bounds tool call fields in place on `out` (a copy), recording cuts. */
function boundToolFields(out: ToolCallFields, cuts: Cuts): void {
  if (out.title !== undefined && out.title.length > TITLE_TEXT) {
    const b = boundString(out.title, TITLE_TEXT);
    out.title = b.text;
    cuts.title = `${count(b.more)} more characters`;
  }
  for (const field of ["rawInput", "rawOutput"] as const) {
    if (out[field] === undefined) continue;
    const b = boundValue(out[field]);
    out[field] = b.value;
    if (b.cut) cuts[field] = b.cut;
  }
  if (out.content) {
    const b = boundContent(out.content);
    out.content = b.value;
    if (b.cut) cuts.content = b.cut;
  }
  if (out.locations) {
    const b = boundList(out.locations, LOCATIONS, "locations");
    out.locations = b.value;
    if (b.cut) cuts.locations = b.cut;
  }
  const t = out.terminal;
  if (t) {
    let terminal = t;
    if (t.output !== undefined && t.output.length > TERMINAL_TEXT) {
      // The view keeps only the tail of a terminal's output: a long append is the same as replacing with its tail.
      terminal = { ...terminal, output: t.output.slice(-TERMINAL_TEXT), replace: true };
    }
    if (t.info !== undefined) {
      const b = boundValue(t.info);
      if (b.cut) terminal = { ...terminal, info: b.value as Record<string, unknown> };
    }
    out.terminal = terminal;
  }
}

function boundPlan(entries: readonly PlanEntry[]): Bounded<PlanEntry[]> {
  const list = boundList(entries, PLAN_ENTRIES, "entries");
  let chars = 0;
  const value = list.value.map((p) => {
    if (p.content.length <= PLAN_TEXT) return p;
    const b = boundString(p.content, PLAN_TEXT);
    chars += b.more;
    return { ...p, content: b.text };
  });
  if (!list.cut && !chars) return { value: entries as PlanEntry[] };
  return { value, cut: [list.cut, chars ? `${count(chars)} more characters` : undefined].filter(Boolean).join(", ") };
}

const hasCuts = (c: Cuts): boolean => Object.keys(c).length > 0;

/**
 * The event as the panel gets it: the same event when it fits (most do), else a copy with bounded
 * fields and `cuts` naming what was cut.
 */
export function boundEvent(e: ThoughtEvent): ThoughtEvent {
  switch (e.kind) {
    case "tool_start":
    case "tool_update": {
      const cuts: Cuts = {};
      const out = { ...e };
      if (out.kind === "tool_start") delete out.agentToolCallId;
      boundToolFields(out, cuts);
      return hasCuts(cuts) ? { ...out, cuts } : out;
    }
    case "tool_done": {
      if (e.rawOutput === undefined) return e;
      const b = boundValue(e.rawOutput);
      return b.cut ? { ...e, rawOutput: b.value, cuts: { rawOutput: b.cut } } : e;
    }
    case "plan": {
      const b = boundPlan(e.entries);
      return b.cut ? { ...e, entries: b.value, cuts: { entries: b.cut } } : e;
    }
    case "permission_request": {
      const cuts: Cuts = {};
      const toolCall = { ...e.toolCall };
      boundToolFields(toolCall, cuts);
      const title = boundString(e.title, TITLE_TEXT);
      const options = boundList(e.options, CONTENT_ENTRIES, "options");
      if (options.cut) cuts.options = options.cut;
      if (title.more) cuts.title = `${count(title.more)} more characters`;
      return hasCuts(cuts) ? { ...e, title: title.text, options: options.value, toolCall, cuts } : e;
    }
    case "unknown": {
      const b = boundValue(e.raw);
      return b.cut ? { ...e, raw: b.value, cuts: { raw: b.cut } } : e;
    }
    case "turn_end": {
      if (e.usage === undefined) return e;
      const b = boundValue(e.usage);
      return b.cut ? { ...e, usage: b.value as Record<string, unknown>, cuts: { usage: b.cut } } : e;
    }
    case "user_message": {
      // A prompt's image (an agent's replay too) goes to the panel as its chip, never its megabytes.
      const content = withoutMediaData(e.content);
      return content === e.content ? e : { ...e, content };
    }
    case "turn_start": {
      const prompt = e.prompt.map(withoutMediaData);
      return prompt.every((c, i) => c === e.prompt[i]) ? e : { ...e, prompt };
    }
    case "notice": {
      const title = boundString(e.title, TITLE_TEXT);
      const description = e.description !== undefined ? boundString(e.description, CONTENT_TEXT) : undefined;
      if (!title.more && !description?.more) return e;
      return { ...e, title: title.text, ...(description ? { description: description.text } : {}), cuts: { title: "long text" } };
    }
    default:
      return e;
  }
}

/** The marker line shown where something was cut. */
export function truncatedNote(cut: string): string {
  return `… truncated: ${cut}; ${FULL_DATA_HINT}.`;
}
