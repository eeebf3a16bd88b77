/**
 * What a command's terminal mirror writes, as text: the next write into a read-only terminal
 * (a marker saying how much output was skipped, then the tail, with `\r\n` line ends), the exit
 * line, the text (and exit status) of a command that reported its output only in `rawOutput`, and
 * the terminal's name: the command or the tool call's real title, never a placeholder such as
 * "Terminal", made safe to show; and a terminal's output as an @-mention carries it.
 */
import stripAnsi from "strip-ansi";
import { stringifyJson } from "./json";
import { plainText } from "./plainText";
import { tailOf } from "./tailBuffer";
import { pairSafeEnd } from "../shared/utf16";

/** After a skip, the tail written below the marker: short enough to stay in xterm's scrollback. */
const TAIL_CHARS = 32 * 1024;
const TAIL_LINES = 400;

export function formatSize(chars: number): string {
  if (chars < 1024) return `${chars} B`;
  if (chars < 1024 * 1024) return `${(chars / 1024).toFixed(1)} KB`;
  if (chars < 1024 * 1024 * 1024) return `${(chars / 1024 / 1024).toFixed(1)} MB`;
  return `${(chars / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

/**
 * One write into a terminal of `text` (what arrived since the last write) when `skipped`
 * characters before it were not written. After a skip only the tail is written, under a marker
 * that starts on a line of its own. Empty `out` when there is nothing to write.
 */
export function terminalWrite(text: string, skipped: number, atLineStart: boolean): { out: string; atLineStart: boolean; flooded: boolean } {
  let out = "";
  let shown = text;
  if (skipped > 0) {
    shown = tailOf(text, TAIL_CHARS, TAIL_LINES);
    const total = skipped + text.length - shown.length;
    out = `${atLineStart ? "" : "\r\n"}\x1b[2m[… ${formatSize(total)} of output skipped; the last ${formatSize(shown.length)} follow …]\x1b[0m\r\n`;
    atLineStart = true;
  }
  if (shown) {
    out += shown.replace(/\r?\n/g, "\r\n");
    atLineStart = shown.endsWith("\n");
  }
  return { out, atLineStart, flooded: skipped > 0 };
}

/** The line a terminal shows when its command ended. */
export function exitLine(exit: { exitCode?: number | null; signal?: string | null }): string {
  return `\n[process exited ${exit.signal ? `by signal ${exit.signal}` : `with code ${exit.exitCode ?? "?"}`}]\n`;
}

/** The output text of a `rawOutput` in a field agents are known to use (or the value itself when it is a string). */
export function rawOutputField(raw: unknown): string | undefined {
  if (typeof raw === "string") return raw;
  if (typeof raw === "object" && raw !== null) {
    const r = raw as { output?: unknown; stdout?: unknown; formatted_output?: unknown; aggregated_output?: unknown };
    for (const v of [r.formatted_output, r.aggregated_output, r.output, r.stdout]) if (typeof v === "string") return v;
  }
  return undefined;
}

/** The exit code a `rawOutput` reports (codex-acp: `exit_code`), if any. */
export function rawOutputExit(raw: unknown): { exitCode: number; signal: null } | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as { exit_code?: unknown; exitCode?: unknown };
  const code = r.exit_code ?? r.exitCode;
  return typeof code === "number" && Number.isInteger(code) ? { exitCode: code, signal: null } : undefined;
}

/** A command's output from a tool call's `rawOutput`: the first string field agents are known to use, else the whole value as JSON. */
export function rawOutputText(raw: unknown): string {
  if (raw === undefined) return "";
  const field = rawOutputField(raw);
  if (field !== undefined) return field;
  try {
    return JSON.stringify(raw, null, 2);
  } catch {
    return stringifyJson(raw); // nested too deep to indent
  }
}

/**
 * Titles agents give a command's tool call before they know the command (Claude's adapters say
 * "Terminal", then send the command in a later update), and the ones Agent Thoughts gives a call
 * that has none: a terminal is not named after these.
 */
const PLACEHOLDER_TITLES = new Set([
  "", "terminal", "bash", "shell", "sh", "command", "commands", "run", "exec", "execute", "execute command", "run command",
  "run shell command", "run_shell_command", "run terminal command", "shell command", "terminal command", "running command", "tool", "tool call",
]);

export function isPlaceholderTitle(title: string): boolean {
  const t = unquoted(title.trim()).trim().toLowerCase();
  return PLACEHOLDER_TITLES.has(t) || /^tool call /.test(t);
}

/** A command in backticks (`` `ls -la` ``, as claude-code-acp titles them), without them. */
function unquoted(t: string): string {
  return t.length > 2 && t.startsWith("`") && t.endsWith("`") && !t.slice(1, -1).includes("`") ? t.slice(1, -1) : t;
}

/** The shells whose `-c` script is the command a user knows (`["/bin/bash", "-lc", "npm test"]` is `npm test`). */
const SHELL = /(^|[\\/])(ba|z|da|k|fi)?sh(\.exe)?$/i;

/** The command a tool call's `rawInput` names (`command` as a string, or an argument list), if any. */
export function commandOf(rawInput: unknown): string | undefined {
  if (typeof rawInput !== "object" || rawInput === null) return undefined;
  const c = (rawInput as { command?: unknown }).command;
  if (typeof c === "string") return c.trim() ? c : undefined;
  if (!Array.isArray(c) || c.length === 0 || !c.every((a): a is string => typeof a === "string")) return undefined;
  if (c.length === 3 && SHELL.test(c[0]!) && /^-[a-z]*c$/.test(c[1]!)) return c[2]!.trim() ? c[2] : undefined;
  return c.join(" ");
}

/** What a command's terminal is named after so far; `real` when it is the command or a real title, not a placeholder. */
export interface CommandName { text: string; real: boolean }

/**
 * The name a command's terminal gets after a tool call update: a real title (the latest one), else
 * the command its `rawInput` names, else what it had, else the placeholder title.
 */
export function nextCommandName(prev: CommandName | undefined, title: string | undefined, rawInput: unknown): CommandName | undefined {
  if (title !== undefined && !isPlaceholderTitle(title)) return { text: title, real: true };
  if (prev?.real) return prev;
  const command = commandOf(rawInput);
  if (command !== undefined) return { text: command, real: true };
  return title !== undefined ? { text: title, real: false } : prev;
}

/** Characters of a terminal's name (the tab list shows about this many). */
export const TERMINAL_NAME_CHARS = 60;

/**
 * Agent text as a terminal's name: one line, without escape sequences, control, bidirectional or
 * invisible formatting characters, without the backticks around a command, `$(icon)` syntax
 * broken (see `plainText`), cut to `max` characters with "…"; `fallback` when nothing is left.
 */
export function terminalName(text: string, fallback = "Command", max = TERMINAL_NAME_CHARS): string {
  // eslint-disable-next-line no-control-regex
  let t = text.slice(0, 4 * max + 64).replace(/\u001b(\[[0-?]*[ -/]*[@-~]?|\][^\u0007\u001b]*(\u0007|\u001b\\)?)?/g, " ")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g, " ")
    .replace(/\s+/g, " ").trim();
  t = unquoted(t).trim();
  if (!t) return fallback;
  if (t.length > max) {
    t = `${t.slice(0, pairSafeEnd(t, max - 1)).trimEnd()}…`;
  }
  return plainText(t);
}

/**
 * A terminal's output as an agent reads it (an @-mention): colours and cursor moves taken out (by
 * `strip-ansi`, which knows the escape sequences terminals use), a line a carriage return went back
 * over (a progress bar) as it was left, line ends made `\n`, and only the last `max` characters, cut
 * at a line start, with a note of how much came before.
 */
export function mentionedTerminalText(raw: string, max: number): string {
  const plain = stripAnsi(raw).split("\n").map((line) => {
    const t = line.replace(/\r+$/, "");
    return t.slice(t.lastIndexOf("\r") + 1);
  }).join("\n");
  if (plain.length <= max) return plain;
  const tail = plain.slice(plain.length - max);
  const nl = tail.indexOf("\n");
  const kept = nl >= 0 ? tail.slice(nl + 1) : tail;
  return `[… ${plain.length - kept.length} earlier characters left out]\n${kept}`;
}
