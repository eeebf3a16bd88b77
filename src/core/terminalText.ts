/**
 * What a command's terminal mirror writes, as text: the next write into a read-only terminal
 * (a marker saying how much output was skipped, then the tail, with `\r\n` line ends), the exit
 * line, and the text (and exit status) of a command that reported its output only in `rawOutput`.
 */
import { stringifyJson } from "./json";
import { tailOf } from "./tailBuffer";

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
