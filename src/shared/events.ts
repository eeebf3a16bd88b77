/**
 * The thought stream's vocabulary: every `ThoughtEvent` an ACP session can produce, as one
 * discriminated union on `kind`. Everything downstream (panel, diff review, terminals, exports,
 * the public API) reads these and nothing else, so the types are plain serialisable data.
 */
import type { ElicitField } from "./elicitation";

/** A content block as the agent sent it (ACP `ContentBlock`), kept verbatim but typed loosely. */
export type ContentBlock =
  | { type: "text"; text: string }
  /** `thumbnail` is ours, never the agent's: the panel's small picture of an image of the user's own prompt (never sent). */
  | { type: "image"; data: string; mimeType: string; uri?: string; thumbnail?: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }
  | { type: "resource"; resource: { uri: string; text?: string; blob?: string; mimeType?: string } };

export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";
export type ToolStatus = "pending" | "in_progress" | "completed" | "failed";
/** Where a tool call ended: ACP's terminal statuses plus `canceled` for calls left open when a turn ends. */
export type ToolOutcome = "completed" | "failed" | "canceled";

export type ToolContent =
  | { type: "content"; content: ContentBlock }
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

export interface ToolLocation { path: string; line?: number }

/**
 * A command's terminal output in a tool call update: what an agent streams itself in `_meta`
 * (Claude/Codex adapters) or reports only in `rawOutput` when the call completes, normalised; or,
 * with `client`, what a terminal Agent Thoughts runs for the agent (`terminal/create`) printed.
 */
export interface TerminalMeta {
  terminalId?: string;
  /** Reported by Agent Thoughts for a terminal it runs (`terminal/create`); never read from the wire. */
  client?: boolean;
  /** Output text appended by this update (from `terminal_output_delta`, or the new tail of `terminal_output`). */
  output?: string;
  /** True when `output` replaces everything seen so far rather than appending. */
  replace?: boolean;
  exit?: { exitCode?: number | null; signal?: string | null };
  info?: Record<string, unknown>;
}

/** Everything known about a tool call at one moment (fields absent = not yet known). */
export interface ToolCallFields {
  title?: string;
  toolKind?: ToolKind;
  status?: ToolStatus;
  content?: ToolContent[];
  locations?: ToolLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  terminal?: TerminalMeta;
}

export interface PlanEntry { content: string; priority: "high" | "medium" | "low"; status: "pending" | "in_progress" | "completed" }

export interface PermissionOption { optionId: string; name: string; kind: "allow_once" | "allow_always" | "reject_once" | "reject_always" }

export type PermissionOutcome = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

export interface AvailableCommand { name: string; description: string; hint?: string }

export interface ConfigOption {
  id: string;
  name: string;
  description?: string;
  category?: string;
  type: "select" | "boolean";
  currentValue: string | boolean;
  /** For `select`: the flattened choices (groups are flattened, group name kept). */
  options?: { value: string; name: string; description?: string; group?: string }[];
}

export interface SessionMode { id: string; name: string; description?: string }

/**
 * What an agent declared it can do with its sessions (`initialize`'s `loadSession` and
 * `sessionCapabilities`), kept with the session so a saved one knows how it can be continued.
 */
export interface SessionAbilities {
  /** `session/load`: opens a saved session and replays its history. */
  load?: boolean;
  /** `session/resume`: reopens a saved session without replaying it. */
  resume?: boolean;
  list?: boolean;
  close?: boolean;
  delete?: boolean;
  fork?: boolean;
}

/** What `session/new` (or `session/resume` / `session/load`) told us about the session. */
export interface SessionStartInfo {
  /** The agent's own name for itself (its `agentInfo`), else its name in the settings. */
  agentName: string;
  /** The agent's name in `agentThoughts.agents` (what Restart Agent and errors use). */
  agentId?: string;
  agentVersion?: string;
  cwd: string;
  /** The agent's own id for the session (what `session/load` and `session/resume` take). */
  agentSessionId?: string;
  /** What the agent can do with sessions (absent in transcripts saved before they were recorded). */
  abilities?: SessionAbilities;
  /** This start continues a saved session (same session, same card list), and how. */
  continued?: "resume" | "load";
  /** The names of the user's MCP servers the agent was given with this start. */
  mcpServers?: string[];
  modes?: { currentModeId: string; availableModes: SessionMode[] };
  configOptions?: ConfigOption[];
  /** Legacy (pre-config-option) model list some agents still return. */
  models?: { currentModelId: string; availableModels: { modelId: string; name: string; description?: string }[] };
}

/** The body of each event; `ThoughtEvent` adds the envelope. */
export type ThoughtEventBody =
  | ({ kind: "session_start" } & SessionStartInfo)
  | { kind: "turn_start"; turnId: number; prompt: ContentBlock[] }
  | { kind: "user_message"; text: string; content: ContentBlock; messageId?: string }
  | { kind: "thought"; text: string; content: ContentBlock; messageId?: string }
  | { kind: "message"; text: string; content: ContentBlock; messageId?: string }
  /**
   * First sight of a tool call; `announced` is false when the agent never sent `tool_call` for it.
   * `toolCallId` is bounded (`boundId`); `agentToolCallId` is the agent's own id when that was longer.
   */
  | ({ kind: "tool_start"; toolCallId: string; agentToolCallId?: string; announced: boolean; title: string } & Omit<ToolCallFields, "title">)
  /** Changed fields only; `content` and `locations` replace the previous lists (ACP semantics). */
  | ({ kind: "tool_update"; toolCallId: string } & ToolCallFields)
  | { kind: "tool_done"; toolCallId: string; outcome: ToolOutcome; rawOutput?: unknown }
  | { kind: "plan"; entries: PlanEntry[] }
  | { kind: "usage"; used: number; size: number; cost?: { amount: number; currency: string } }
  | { kind: "session_info"; title?: string | null; updatedAt?: string | null }
  | { kind: "mode"; currentModeId: string }
  | { kind: "config_options"; options: ConfigOption[] }
  | { kind: "commands"; commands: AvailableCommand[] }
  /** `action`: a button the panel shows with it (only set by Agent Thoughts, never from the wire). */
  | { kind: "notice"; severity: string; title: string; description?: string; action?: "restartAgent" }
  | { kind: "compaction"; compactionId: string; status: string; summary?: string; error?: string }
  | { kind: "compaction_summary"; compactionId: string; text: string }
  /** `guard`: why this request always asks (it touches files that configure tools); "always" options are not offered then. */
  | { kind: "permission_request"; requestId: string; toolCallId: string; title: string; options: PermissionOption[]; toolCall: ToolCallFields; guard?: string }
  | { kind: "permission_outcome"; requestId: string; toolCallId: string; outcome: PermissionOutcome; by: "user" | "policy" | "cancel" }
  /** The agent asks the user to fill in a form (`elicitation/create`, form mode): its message and the normalised, bounded fields. */
  | { kind: "elicitation_request"; requestId: string; message: string; fields: ElicitField[]; problems?: string[]; toolCallId?: string; url?: string; origin?: string }
  /** How a form question was answered (the content itself is not kept: it may hold what the user typed for the agent only). */
  | { kind: "elicitation_outcome"; requestId: string; action: "accept" | "decline" | "cancel"; by: "user" | "cancel" }
  | { kind: "turn_end"; turnId: number; stopReason: StopReason; usage?: Record<string, unknown> }
  /** The session was closed (Close Session; `session/close` where the agent declared it); a prompt continues it. */
  | { kind: "session_end"; reason: "closed" }
  /** Something went wrong; `fatal` errors end the session (agent crashed, connection lost). */
  | { kind: "error"; message: string; detail?: string; code?: number; fatal: boolean }
  /** Anything the agent sent that we do not model (new or malformed update kinds) — never dropped. */
  | { kind: "unknown"; what: string; reason: string; raw: unknown };

export type ThoughtEventKind = ThoughtEventBody["kind"];

/** The envelope every event carries. */
export interface EventEnvelope {
  /** 1-based, dense and increasing within a session log. */
  seq: number;
  /**
   * A run of text chunks joined as one event (as the session log and transcripts keep them): its
   * first chunk's `seq` (`seq` is its last's). The panel names the entry after it, as it did live.
   */
  from?: number;
  /** Receipt time, milliseconds since the epoch. */
  at: number;
  /** Our session key (the agent's session id once known). */
  sessionId: string;
  /** The turn this event belongs to, when one was running. */
  turnId?: number;
  /**
   * Part of an agent's replay of earlier history (`session/load`): shown in the panel and kept in
   * the transcript, never acted on (no edit to review, checkpoint, terminal or status change).
   */
  replayed?: true;
  /** Only on what the panel gets (`boundEvent`): which fields were cut, and what of them; the log keeps the whole event. */
  cuts?: Cuts;
}

/** Field name → what was cut of it ("48,213 more entries"). */
export type Cuts = Partial<Record<"title" | "rawInput" | "rawOutput" | "content" | "locations" | "entries" | "options" | "raw" | "usage", string>>;

export type ThoughtEvent = EventEnvelope & ThoughtEventBody;

/** Narrow an event by kind: `EventOf<"thought">`. */
export type EventOf<K extends ThoughtEventKind> = EventEnvelope & Extract<ThoughtEventBody, { kind: K }>;

/** The events whose `content` is often only their `text` again. */
export type TextEvent = EventOf<"user_message" | "thought" | "message">;

/**
 * An event as a panel patch or a transcript line carries it: a text event whose content block is
 * only its text leaves the block out (else every character of a stream would travel twice).
 */
export type PackedEvent = ThoughtEvent extends infer E ? (E extends TextEvent ? Omit<E, "content"> & { content?: ContentBlock } : E) : never;

/** A text event whose content block is only its text again (a text block with nothing else in it). */
export function isPlainText(e: TextEvent): boolean {
  return e.content.type === "text" && e.content.text === e.text && fieldsAtMost(e.content, 2);
}

/** Whether `o` has at most `n` enumerable fields; counted in place (Object.keys would allocate an array for every chunk of a stream). */
function fieldsAtMost(o: object, n: number): boolean {
  let count = 0;
  for (const key in o) if (Object.hasOwn(o, key) && ++count > n) return false;
  return true;
}

/** `e` packed: a text block that only repeats the event's text left out. */
export function packEvent(e: ThoughtEvent): PackedEvent {
  if ((e.kind === "user_message" || e.kind === "thought" || e.kind === "message") && isPlainText(e)) {
    const { content: _content, ...rest } = e;
    return rest;
  }
  return e;
}

/** A packed event whole again: a text event without a content block gets its text as one. */
export function unpackEvent(e: PackedEvent): ThoughtEvent {
  if (e.kind !== "user_message" && e.kind !== "thought" && e.kind !== "message") return e;
  return e.content === undefined ? { ...e, content: { type: "text", text: e.text } } : { ...e, content: e.content };
}

/** Plain text of a content block, for logs and summaries. */
export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case "text": return block.text;
    case "image": return `[image ${block.mimeType}]`;
    case "audio": return `[audio ${block.mimeType}]`;
    case "resource_link": return `[${block.title ?? block.name}](${block.uri})`;
    case "resource": return block.resource.text ?? `[resource ${block.resource.uri}]`;
  }
}

/** One line describing an event, for the log channel. */
export function describeEvent(e: ThoughtEvent): string {
  const head = `#${e.seq}${e.turnId !== undefined ? ` t${e.turnId}` : ""} ${e.kind}`;
  switch (e.kind) {
    case "session_start": return `${head} agent=${e.agentName} cwd=${e.cwd}`;
    case "turn_start": return `${head} ${JSON.stringify(e.prompt.map(contentText).join(" ").slice(0, 200))}`;
    case "user_message":
    case "thought":
    case "message": return `${head} ${JSON.stringify(e.text)}`;
    case "tool_start": return `${head} ${e.toolCallId} ${e.toolKind ?? "other"} ${JSON.stringify(e.title)}${e.announced ? "" : " (unannounced)"}`;
    case "tool_update": return `${head} ${e.toolCallId}${e.status ? ` status=${e.status}` : ""}${e.title ? ` ${JSON.stringify(e.title)}` : ""}`;
    case "tool_done": return `${head} ${e.toolCallId} ${e.outcome}`;
    case "plan": return `${head} ${e.entries.slice(0, 50).map((p) => `[${p.status === "completed" ? "x" : p.status === "in_progress" ? "~" : " "}] ${p.content.slice(0, 200)}`).join("; ")}${e.entries.length > 50 ? ` (+${e.entries.length - 50} more)` : ""}`;
    case "usage": return `${head} ${e.used}/${e.size}${e.cost ? ` ${e.cost.amount} ${e.cost.currency}` : ""}`;
    case "session_info": return `${head} title=${JSON.stringify(e.title ?? null)}`;
    case "mode": return `${head} ${e.currentModeId}`;
    case "config_options": return `${head} ${e.options.map((o) => `${o.id}=${String(o.currentValue)}`).join(", ")}`;
    case "commands": return `${head} ${e.commands.map((c) => "/" + c.name).join(" ")}`;
    case "notice": return `${head} [${e.severity}] ${e.title}${e.description ? `: ${e.description}` : ""}`;
    case "compaction": return `${head} ${e.compactionId} ${e.status}`;
    case "compaction_summary": return `${head} ${e.compactionId} ${JSON.stringify(e.text)}`;
    case "permission_request": return `${head} ${e.requestId} for ${e.toolCallId} ${JSON.stringify(e.title)} options=${e.options.map((o) => o.optionId).join("|")}`;
    case "permission_outcome": return `${head} ${e.requestId} ${e.outcome.outcome === "selected" ? e.outcome.optionId : "cancelled"} by ${e.by}`;
    case "elicitation_request": return `${head} ${e.requestId} ${JSON.stringify(e.message.slice(0, 200))} ${e.url ? `url=${e.url.slice(0, 300)}` : `fields=${e.fields.map((f) => f.name).join("|")}`}`;
    case "elicitation_outcome": return `${head} ${e.requestId} ${e.action} by ${e.by}`;
    case "turn_end": return `${head} ${e.stopReason}`;
    case "session_end": return `${head} ${e.reason}`;
    case "error": return `${head}${e.fatal ? " FATAL" : ""} ${e.message}${e.detail ? ` — ${e.detail}` : ""}`;
    case "unknown": return `${head} ${e.what}: ${e.reason}`;
  }
}
