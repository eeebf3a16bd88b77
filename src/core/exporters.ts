/**
 * Session exports, from the session's event log: readable Markdown, and JSON Lines in three event
 * vocabularies — our own `ThoughtEvent`s (lossless, reads back), the delta format of a headless
 * agent CLI (thinking/text deltas, then complete records with `conversation_id` and `role`), and
 * AG-UI events. Pure functions: same events in, same text out (golden-file tested).
 */
import { contentText, type ThoughtEvent } from "../shared/events";
import { stringifyJson } from "./json";

export type ExportFormat = "markdown" | "thought-events" | "cli-deltas" | "ag-ui";

export const EXPORT_FORMATS: { id: ExportFormat; label: string; extension: string }[] = [
  { id: "markdown", label: "Markdown transcript", extension: "md" },
  { id: "thought-events", label: "JSON Lines: Agent Thoughts events (lossless)", extension: "jsonl" },
  { id: "cli-deltas", label: "JSON Lines: headless agent CLI deltas", extension: "jsonl" },
  { id: "ag-ui", label: "JSON Lines: AG-UI events", extension: "jsonl" },
];

export function exportSession(format: ExportFormat, events: readonly ThoughtEvent[]): string {
  switch (format) {
    case "markdown": return toMarkdown(events);
    case "thought-events": return jsonl(events);
    case "cli-deltas": return jsonl(toCliDeltas(events));
    case "ag-ui": return jsonl(toAgUi(events));
  }
}

function jsonl(records: readonly unknown[]): string {
  return records.map((r) => stringifyJson(r)).join("\n") + (records.length ? "\n" : "");
}

/** Reads our own JSON Lines back (the lossless format). */
export function parseThoughtEvents(text: string): ThoughtEvent[] {
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as ThoughtEvent);
}

const quote = (text: string): string => text.split("\n").map((l) => `> ${l}`).join("\n");

/** A readable transcript: prompts, thoughts (quoted), answers, tool calls, plans, decisions. */
export function toMarkdown(events: readonly ThoughtEvent[]): string {
  const out: string[] = [];
  let text: { kind: "thought" | "message"; value: string } | undefined;
  const flush = (): void => {
    if (!text) return;
    out.push(text.kind === "thought" ? `${quote(`💭 ${text.value.trim()}`)}\n` : `${text.value.trim()}\n`);
    text = undefined;
  };
  const titles = new Map<string, string>();
  // The plan changes many times a turn; the transcript shows where it ended up.
  let plan: string | undefined;
  const flushPlan = (): void => {
    if (plan) out.push(plan);
    plan = undefined;
  };
  for (const e of events) {
    if ((e.kind === "thought" || e.kind === "message") && text?.kind === e.kind) {
      text.value += e.text;
      continue;
    }
    flush();
    switch (e.kind) {
      case "session_start": out.push(`# ${e.agentName} session\n\n- Session: \`${e.sessionId}\`\n- Folder: \`${e.cwd}\`\n- Started: ${new Date(e.at).toISOString()}\n`); break;
      case "session_info": if (e.title) out.push(`**Title:** ${e.title}\n`); break;
      case "turn_start": out.push(`## Turn ${e.turnId}: ${e.prompt.map(contentText).join(" ").split("\n")[0]!.slice(0, 120)}\n\n${quote(e.prompt.map(contentText).join("\n"))}\n`); break;
      case "thought":
      case "message": text = { kind: e.kind, value: e.text }; break;
      case "plan": plan = `**Plan**\n\n${e.entries.map((p) => `- [${p.status === "completed" ? "x" : " "}] ${p.content}${p.status === "in_progress" ? " _(in progress)_" : ""}`).join("\n")}\n`; break;
      case "tool_start": titles.set(e.toolCallId, e.title); out.push(`- 🔧 **${e.title}** (${e.toolKind ?? "other"})\n`); break;
      case "tool_update": if (e.title) titles.set(e.toolCallId, e.title); break;
      case "tool_done": out.push(`  - ${e.outcome === "completed" ? "✅" : e.outcome === "failed" ? "❌" : "⏹"} ${titles.get(e.toolCallId) ?? e.toolCallId}: ${e.outcome}\n`); break;
      case "permission_request": out.push(`- 🔐 Permission asked: ${e.title} (${e.options.map((o) => o.name).join(" / ")})\n`); break;
      case "permission_outcome": out.push(`  - Answer: ${e.outcome.outcome === "selected" ? e.outcome.optionId : "cancelled"} (by ${e.by})\n`); break;
      case "elicitation_request": out.push(`- 📝 The agent asked: ${e.message.split("\n")[0]!.slice(0, 200)} (${e.url ?? e.fields.map((f) => f.title).join(", ")})\n`); break;
      case "elicitation_outcome": out.push(`  - Answer: ${e.action} (by ${e.by})\n`); break;
      case "notice": out.push(`> **${e.severity}:** ${e.title}${e.description ? ` — ${e.description}` : ""}\n`); break;
      case "error": out.push(`> **Error:** ${e.message}${e.detail ? `\n>\n${quote(e.detail)}` : ""}\n`); break;
      case "turn_end": flushPlan(); out.push(`_Turn ${e.turnId} ended: ${e.stopReason}_\n`); break;
      case "unknown": out.push(`_(not shown: ${e.what} — ${e.reason})_\n`); break;
      case "session_end": out.push("_Session closed_\n"); break;
      case "user_message": case "usage": case "mode": case "config_options": case "commands": case "compaction": case "compaction_summary": break;
    }
  }
  flush();
  flushPlan();
  return out.join("\n").replace(/\n{3,}/g, "\n\n");
}

/**
 * The delta vocabulary of a headless agent CLI: streaming deltas (`thinking-start`, `thinking-delta`,
 * `thinking-end`, `text-delta`, `content-end`), each followed by the complete record (`thinking`,
 * `text`), plus `tool-use` and `tool-result`; every record has `conversation_id` and `role`.
 */
export function toCliDeltas(events: readonly ThoughtEvent[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let open: { kind: "thinking" | "text"; value: string; conversation: string } | undefined;
  const close = (): void => {
    if (!open) return;
    const base = { conversation_id: open.conversation, role: "assistant" };
    if (open.kind === "thinking") out.push({ type: "thinking-end", ...base }, { type: "thinking", ...base, thinking: open.value });
    else out.push({ type: "content-end", ...base }, { type: "text", ...base, text: open.value });
    open = undefined;
  };
  const tools = new Map<string, { name: string; input: unknown }>();
  for (const e of events) {
    const base = { conversation_id: e.sessionId, role: "assistant" };
    if (e.kind === "thought" || e.kind === "message") {
      const kind = e.kind === "thought" ? "thinking" : "text";
      if (open?.kind !== kind) {
        close();
        open = { kind, value: "", conversation: e.sessionId };
        if (kind === "thinking") out.push({ type: "thinking-start", ...base });
      }
      open.value += e.text;
      out.push({ type: kind === "thinking" ? "thinking-delta" : "text-delta", ...base, delta: e.text });
      continue;
    }
    switch (e.kind) {
      case "turn_start": close(); out.push({ type: "text", conversation_id: e.sessionId, role: "user", text: e.prompt.map(contentText).join("\n") }); break;
      case "tool_start": close(); tools.set(e.toolCallId, { name: e.title, input: e.rawInput ?? {} }); break;
      case "tool_update": {
        const t = tools.get(e.toolCallId);
        if (t && e.title) t.name = e.title;
        if (t && e.rawInput !== undefined) t.input = e.rawInput;
        break;
      }
      case "tool_done": {
        close();
        const t = tools.get(e.toolCallId);
        out.push({ type: "tool-use", ...base, id: e.toolCallId, name: t?.name ?? e.toolCallId, input: t?.input ?? {} });
        out.push({ type: "tool-result", conversation_id: e.sessionId, role: "tool", tool_use_id: e.toolCallId, is_error: e.outcome !== "completed", content: e.rawOutput ?? e.outcome });
        break;
      }
      case "turn_end": close(); break;
      case "error": close(); out.push({ type: "error", ...base, message: e.message }); break;
      default: break;
    }
  }
  close();
  return out;
}

/** AG-UI events: a run per turn, text messages, tool calls with their arguments and results, plan steps. */
export function toAgUi(events: readonly ThoughtEvent[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let message: { id: string; thinking: boolean } | undefined;
  let runId: string | undefined;
  const stepState = new Map<string, string>();
  const endMessage = (): void => {
    if (!message) return;
    out.push(message.thinking ? { type: "THINKING_TEXT_MESSAGE_END" } : { type: "TEXT_MESSAGE_END", messageId: message.id });
    if (message.thinking) out.push({ type: "THINKING_END" });
    message = undefined;
  };
  for (const e of events) {
    const at = { timestamp: e.at };
    if (e.kind === "thought" || e.kind === "message") {
      const thinking = e.kind === "thought";
      if (!message || message.thinking !== thinking) {
        endMessage();
        message = { id: `${e.sessionId}:m${e.seq}`, thinking };
        out.push(...(thinking ? [{ type: "THINKING_START", ...at }, { type: "THINKING_TEXT_MESSAGE_START", ...at }] : [{ type: "TEXT_MESSAGE_START", messageId: message.id, role: "assistant", ...at }]));
      }
      out.push(thinking ? { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: e.text, ...at } : { type: "TEXT_MESSAGE_CONTENT", messageId: message.id, delta: e.text, ...at });
      continue;
    }
    switch (e.kind) {
      case "turn_start":
        runId = `${e.sessionId}:turn-${e.turnId}`;
        out.push({ type: "RUN_STARTED", threadId: e.sessionId, runId, ...at });
        break;
      case "tool_start":
        endMessage();
        out.push({ type: "TOOL_CALL_START", toolCallId: e.toolCallId, toolCallName: e.title, ...at });
        if (e.rawInput !== undefined) out.push({ type: "TOOL_CALL_ARGS", toolCallId: e.toolCallId, delta: stringifyJson(e.rawInput), ...at });
        break;
      case "tool_update":
        if (e.rawInput !== undefined) out.push({ type: "TOOL_CALL_ARGS", toolCallId: e.toolCallId, delta: stringifyJson(e.rawInput), ...at });
        break;
      case "tool_done":
        endMessage();
        out.push({ type: "TOOL_CALL_END", toolCallId: e.toolCallId, ...at });
        out.push({ type: "TOOL_CALL_RESULT", messageId: `${e.sessionId}:r${e.seq}`, toolCallId: e.toolCallId, content: stringifyJson(e.rawOutput ?? e.outcome), role: "tool", ...at });
        break;
      case "plan":
        for (const p of e.entries) {
          const before = stepState.get(p.content);
          if (p.status === before) continue;
          stepState.set(p.content, p.status);
          if (p.status === "in_progress" || (p.status === "completed" && before !== "in_progress")) out.push({ type: "STEP_STARTED", stepName: p.content, ...at });
          if (p.status === "completed") out.push({ type: "STEP_FINISHED", stepName: p.content, ...at });
        }
        break;
      case "turn_end":
        endMessage();
        out.push({ type: "RUN_FINISHED", threadId: e.sessionId, runId: runId ?? `${e.sessionId}:turn-${e.turnId}`, result: { stopReason: e.stopReason }, ...at });
        runId = undefined;
        break;
      case "error":
        endMessage();
        if (e.turnId !== undefined || e.fatal) out.push({ type: "RUN_ERROR", message: e.message, ...(e.code !== undefined ? { code: String(e.code) } : {}), ...at });
        break;
      default: break;
    }
  }
  endMessage();
  return out;
}
