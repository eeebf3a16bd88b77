/**
 * @-mentions in the prompt box, the parts both sides share: the `@query` at the caret, what the host
 * offers for it (workspace files and folders, symbols, open editors, the selection, a file's or the
 * workspace's problems, a terminal's output, the working tree's changes), the chips a pick becomes,
 * and the bounded reference each chip is sent as with the prompt (the host turns it into an ACP
 * block, reading only workspace files).
 */
export type MentionKind = "file" | "folder" | "symbol" | "editor" | "selection" | "problems" | "workspaceProblems" | "terminal" | "changes";

/** A chip in the prompt box, and what `sendPrompt` carries for it. */
export interface MentionRef {
  kind: MentionKind;
  /**
   * A `file:` URI (without fragment): the file, folder or symbol's file; for the workspace's problems
   * and changes, the workspace folder. A terminal is named by the host's own key
   * (`agent-thoughts-terminal:…`), looked up among the terminals it keeps, never opened as a path.
   */
  uri: string;
  /** 1-based, inclusive (a selection). */
  startLine?: number;
  endLine?: number;
  /** What the chip says ("hello.ts", "hello.ts:1-2", "Problems in hello.ts"). */
  label: string;
}

/** A row of the completion list: a reference plus where it lives (the workspace-relative path). */
export interface MentionItem extends MentionRef {
  detail: string;
}

export const MAX_MENTIONS = 20;
export const MAX_MENTION_ITEMS = 50;
export const MAX_MENTION_QUERY = 200;
const MAX_URI = 4096;
const MAX_LABEL = 200;

const KINDS: readonly MentionKind[] = ["file", "folder", "symbol", "editor", "selection", "problems", "workspaceProblems", "terminal", "changes"];

/** The scheme of a terminal mention's key (not a file: the host looks it up, it is never read as a path). */
export const TERMINAL_MENTION_SCHEME = "agent-thoughts-terminal";

/** Whether a value is a well-formed, bounded reference (from saved webview state or the wire). */
export function isMentionRef(x: unknown): x is MentionRef {
  if (!x || typeof x !== "object") return false;
  const r = x as Record<string, unknown>;
  const line = (v: unknown): boolean => v === undefined || (typeof v === "number" && Number.isSafeInteger(v) && v >= 1);
  if (!KINDS.includes(r.kind as MentionKind) || typeof r.uri !== "string" || r.uri.length === 0 || r.uri.length > MAX_URI) return false;
  if (typeof r.label !== "string" || r.label.length > MAX_LABEL || !line(r.startLine) || !line(r.endLine)) return false;
  if ((r.startLine === undefined) !== (r.endLine === undefined)) return false;
  return r.startLine === undefined || (r.endLine as number) >= (r.startLine as number);
}

/**
 * The `@query` the caret is in: an `@` at the start or after white space, then no white space up to
 * the caret. `start` is the index of the `@`; `end` where the word ends (the caret may be inside it).
 */
export function mentionAt(value: string, caret: number): { start: number; end: number; query: string } | undefined {
  const before = value.slice(0, caret);
  const m = /(^|\s)@(\S*)$/.exec(before);
  if (!m) return undefined;
  const start = caret - m[2]!.length - 1;
  const after = /^\S*/.exec(value.slice(caret))?.[0] ?? "";
  const query = m[2]! + after;
  if (query.length > MAX_MENTION_QUERY) return undefined;
  return { start, end: caret + after.length, query };
}

/** The text with the `@query` at `start`…`end` taken out (and one space after it, if two would meet). */
export function withoutMention(value: string, start: number, end: number): { value: string; caret: number } {
  let tail = value.slice(end);
  const head = value.slice(0, start);
  if ((head === "" || /\s$/.test(head)) && /^ /.test(tail)) tail = tail.slice(1);
  return { value: head + tail, caret: head.length };
}

/**
 * How well a path matches a fuzzy query (the query's characters in order, case-insensitive), or
 * undefined when it does not. Higher is better: matches in the file name, at its start, and
 * contiguous runs count most; shorter paths win ties.
 */
export function fuzzyScore(query: string, path: string): number | undefined {
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  if (!q) return 0;
  const nameStart = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\")) + 1;
  const name = p.slice(nameStart);
  if (name.startsWith(q)) return 1000 - p.length;
  if (name.includes(q)) return 800 - p.length;
  if (p.includes(q)) return 600 - p.length;
  let score = 0;
  let i = 0;
  let last = -2;
  for (let j = 0; j < p.length && i < q.length; j++) {
    if (p[j] !== q[i]) continue;
    score += (j === last + 1 ? 5 : 1) + (j >= nameStart ? 2 : 0);
    last = j;
    i++;
  }
  return i === q.length ? score - p.length / 100 : undefined;
}

/**
 * Items ordered best match first (stable), those that do not match left out, at most `max`. Each is
 * matched on its `detail`, or on the best of `keys` (the active file's problems, labelled "Problems
 * in hello.ts", then beats the workspace's for `@prob`).
 */
export function rankMentions<T extends { detail: string }>(query: string, items: readonly T[], max = MAX_MENTION_ITEMS, keys: (item: T) => readonly string[] = (item) => [item.detail]): T[] {
  const best = (item: T): number | undefined => {
    let top: number | undefined;
    for (const k of keys(item)) {
      const s = fuzzyScore(query, k);
      if (s !== undefined && (top === undefined || s > top)) top = s;
    }
    return top;
  };
  return items
    .map((item, i) => ({ item, i, s: best(item) }))
    .filter((x): x is { item: T; i: number; s: number } => x.s !== undefined)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, max)
    .map((x) => x.item);
}

function sameRef(a: MentionRef, b: MentionRef): boolean {
  return a.kind === b.kind && a.uri === b.uri && a.startLine === b.startLine && a.endLine === b.endLine;
}

/** The chips with one more (a repeat is not added twice; at most MAX_MENTIONS). */
export function addMention(list: readonly MentionRef[], ref: MentionRef): MentionRef[] {
  if (list.some((r) => sameRef(r, ref)) || list.length >= MAX_MENTIONS) return [...list];
  return [...list, { kind: ref.kind, uri: ref.uri, ...(ref.startLine !== undefined && ref.endLine !== undefined ? { startLine: ref.startLine, endLine: ref.endLine } : {}), label: ref.label.slice(0, MAX_LABEL) }];
}

/** The chips without the one at `index`. */
export function removeMention(list: readonly MentionRef[], index: number): MentionRef[] {
  return list.filter((_, i) => i !== index);
}

/** The URI a reference is sent with: a range as an editor links it (`#L1-L2`). */
export function mentionUri(ref: Pick<MentionRef, "uri" | "startLine" | "endLine">): string {
  const base = ref.uri.replace(/#.*$/, "");
  return ref.startLine !== undefined && ref.endLine !== undefined ? `${base}#L${ref.startLine}-L${ref.endLine}` : base;
}
