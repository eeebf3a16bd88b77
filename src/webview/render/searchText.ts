/**
 * What each transcript entry shows as text, for find and for "only entries that match": the same
 * cleaned strings the renderers draw (a message as the text its markdown renders to), and the
 * selectors of the elements that draw them. Find counts matches from these strings for entries
 * not on the page (folded turns, earlier entries, a closed card's body) and from the page for the
 * rest, so both must agree: keep this in step with entries.ts, toolCard.ts and plan.ts.
 */
import type { Entry, ToolEntry } from "../../shared/viewModel";
import { cleanBlock, cleanInline, displayPath } from "../dom";
import { foldCase } from "../find";
import { markdownText } from "../markdown";
import { markdownStart, MESSAGE_MARKDOWN_MAX, THOUGHT_MARKDOWN_MAX } from "./entries";
import { MAX_LOCATIONS, TEXT_LIMIT, terminalTail, toolTitle } from "./toolCard";

/** The elements inside an entry that show its searchable text, in the order of `entryFields`. */
export const REGIONS: Record<Entry["type"], string> = {
  user: ".user-text",
  thought: ".thought-text",
  message: ".message-body",
  tool: ".tool-title, .tool-locations .label, .tool-content .tool-text, .tool-content .link .label, .tool-content .diff-path, .terminal-preview",
  plan: ".plan-text",
  notice: ".notice-title, .notice-desc",
  error: ".notice-title, .notice-detail",
  unknown: ".notice-text .ut",
};

/** The element showing a turn's prompt (inside `.turn-prompt`). */
export const PROMPT_REGION = ".prompt-text";

/** A turn's prompt as the turn shows it. */
export function shownPrompt(prompt: string): string {
  return cleanBlock(prompt.slice(0, 50_000));
}

/** What a tool card shows in its body (drawn only while the card is open). */
export function toolBodyFields(e: ToolEntry, cwd: string): string[] {
  const out: string[] = [];
  for (const l of e.locations.slice(0, MAX_LOCATIONS)) {
    const line = typeof l.line === "number" && Number.isInteger(l.line) && l.line >= 1 ? l.line : undefined;
    out.push(`${cleanInline(displayPath(l.path, cwd), 300)}${line ? `:${line}` : ""}`);
  }
  for (const c of e.content) {
    switch (c.type) {
      case "content": {
        const b = c.content;
        switch (b.type) {
          case "text": out.push(cleanBlock(b.text.slice(0, TEXT_LIMIT))); break;
          case "resource_link": out.push(cleanInline(b.title ?? b.name, 300)); break;
          case "resource": out.push(b.resource.text !== undefined ? cleanBlock(b.resource.text.slice(0, TEXT_LIMIT)) : cleanInline(b.resource.uri, 300)); break;
          case "image":
          case "audio": break;
        }
        break;
      }
      case "diff": out.push(cleanInline(displayPath(c.path, cwd), 300)); break;
      case "terminal": break;
    }
  }
  if (e.terminalOutput) out.push(cleanBlock(terminalTail(e.terminalOutput)));
  return out;
}

/** Markdown up to `max`; past it, its whole blocks within that and plain text after them (as entries.ts draws a thought or a message). */
function drawnText(text: string, max: number): string {
  if (text.length <= max) return markdownText(text);
  const start = markdownStart(text, max);
  return (start > 0 ? markdownText(text.slice(0, start)) : "") + cleanBlock(text.slice(start));
}

/** An entry's text as drawn, field by field (a tool card's title first, then its body). */
export function entryFields(e: Entry, cwd: string): string[] {
  switch (e.type) {
    case "user": return [cleanBlock(e.text)];
    // A thought without the blank lines it starts with.
    case "thought": return [drawnText(e.text.replace(/^[ \t\r\n]*\n/, ""), THOUGHT_MARKDOWN_MAX)];
    case "message": return [drawnText(e.text, MESSAGE_MARKDOWN_MAX)];
    case "tool": return [toolTitle(e), ...toolBodyFields(e, cwd)];
    case "plan": return e.entries.map((p) => cleanInline(p.content, 2000));
    case "notice": return [cleanInline(e.title, 1000), ...(e.description ? [cleanBlock(e.description.slice(0, 20_000))] : [])];
    case "error": return [e.fatal ? `Agent stopped: ${cleanInline(e.message, 1000)}` : cleanInline(e.message, 1000), ...(e.detail ? [cleanBlock(e.detail.slice(0, 20_000))] : [])];
    case "unknown": return [cleanInline(e.what, 200), cleanInline(e.reason, 500)];
  }
}

/** Folded fields joined by line breaks (no query holds one, so no match spans two fields). */
export function foldFields(fields: readonly string[]): string {
  return foldCase(fields.join("\n"));
}

const folded = new WeakMap<Entry, string>();

/** An entry's searchable text, folded; cached per entry object (the reducer replaces what changed). */
export function searchableText(e: Entry, cwd: string): string {
  let t = folded.get(e);
  if (t === undefined) {
    t = foldFields(entryFields(e, cwd));
    folded.set(e, t);
  }
  return t;
}
