/**
 * Maps raw ACP `session/update` payloads (as they came off the wire, before any SDK validation)
 * into `ThoughtEventBody`s, one session at a time. It is stateful only where ACP needs memory:
 * which tool calls exist (an update for an unknown id still starts a card), their last status
 * (to emit `tool_done` once), and which are still open when a turn ends (they become canceled).
 *
 * Parsing is lenient by design: an unknown tool kind becomes `other`, an unknown content entry
 * is reported as an `unknown` event next to the rest, an unknown or malformed update becomes an
 * `unknown` event. Nothing the agent sends is dropped silently.
 */
import { z } from "zod";
import type {
  AvailableCommand, ConfigOption, ContentBlock, PermissionOption, PlanEntry, TerminalMeta, ThoughtEventBody,
  ToolCallFields, ToolContent, ToolKind, ToolLocation, ToolStatus,
} from "../shared/events";
import { zodProblem } from "../shared/validation";
import { zPermissionOption, zToolKind, zToolStatus } from "./eventSchema";
import { boundId } from "./ids";
import { stringifyJson } from "./json";
import { rawOutputExit, rawOutputField, rawOutputText } from "./terminalText";


const zContent = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string(), uri: z.string().nullish() }),
  z.object({ type: z.literal("audio"), data: z.string(), mimeType: z.string() }),
  z.object({
    type: z.literal("resource_link"), uri: z.string(), name: z.string(), title: z.string().nullish(),
    description: z.string().nullish(), mimeType: z.string().nullish(), size: z.number().nullish(),
  }),
  z.object({
    type: z.literal("resource"),
    resource: z.object({ uri: z.string(), text: z.string().optional(), blob: z.string().optional(), mimeType: z.string().nullish() }),
  }),
]);

const zChunk = z.object({ content: zContent, messageId: z.string().nullish() });
const zLocation = z.object({ path: z.string(), line: z.number().int().nullish() });
const zPlanEntry = z.object({
  content: z.string(),
  priority: z.enum(["high", "medium", "low"]).catch("medium"),
  status: z.enum(["pending", "in_progress", "completed"]).catch("pending"),
});
const zCommand = z.object({ name: z.string(), description: z.string().catch(""), input: z.object({ hint: z.string() }).nullish().catch(undefined) });
const zSelectChoice = z.object({ value: z.string(), name: z.string(), description: z.string().nullish() });
const zConfigOption = z.object({
  id: z.string(), name: z.string(), description: z.string().nullish(), category: z.string().nullish(),
  type: z.enum(["select", "boolean"]), currentValue: z.union([z.string(), z.boolean()]),
  options: z.array(z.union([zSelectChoice, z.object({ group: z.string(), name: z.string(), options: z.array(zSelectChoice) })])).optional(),
});

/** Fields shared by `tool_call`, `tool_call_update` and a permission request's `toolCall`. */
const zToolFields = z.object({
  toolCallId: z.string().min(1),
  title: z.string().nullish(),
  kind: z.string().nullish(),
  status: z.string().nullish(),
  content: z.array(z.unknown()).nullish(),
  locations: z.array(z.unknown()).nullish(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  _meta: z.record(z.string(), z.unknown()).nullish(),
});
type RawToolFields = z.infer<typeof zToolFields>;

/** The start of a value's JSON, for a problem report (any depth, any size). */
function preview(v: unknown, max = 200): string {
  return (stringifyJson(v) ?? String(v)).slice(0, max);
}

export function parseContentBlock(raw: unknown): ContentBlock | undefined {
  const r = zContent.safeParse(raw);
  if (!r.success) return undefined;
  const c = r.data;
  switch (c.type) {
    case "text": return { type: "text", text: c.text };
    case "image": return { type: "image", data: c.data, mimeType: c.mimeType, ...(c.uri ? { uri: c.uri } : {}) };
    case "audio": return { type: "audio", data: c.data, mimeType: c.mimeType };
    case "resource_link": return {
      type: "resource_link", uri: c.uri, name: c.name,
      ...(c.title != null ? { title: c.title } : {}), ...(c.description != null ? { description: c.description } : {}),
      ...(c.mimeType != null ? { mimeType: c.mimeType } : {}), ...(c.size != null ? { size: c.size } : {}),
    };
    case "resource": return {
      type: "resource",
      resource: { uri: c.resource.uri, ...(c.resource.text !== undefined ? { text: c.resource.text } : {}), ...(c.resource.blob !== undefined ? { blob: c.resource.blob } : {}), ...(c.resource.mimeType != null ? { mimeType: c.resource.mimeType } : {}) },
    };
  }
}

function textOf(block: ContentBlock): string {
  return block.type === "text" ? block.text : block.type === "resource" ? (block.resource.text ?? "") : "";
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Normalises the `_meta` terminal extensions of Claude and Codex adapters. */
export function terminalMetaOf(meta: Record<string, unknown> | null | undefined): TerminalMeta | undefined {
  if (!meta) return undefined;
  const delta = record(meta.terminal_output_delta) ?? record(meta.terminalOutputDelta);
  const full = record(meta.terminal_output) ?? record(meta.terminalOutput);
  const exit = record(meta.terminal_exit) ?? record(meta.terminalExit);
  const info = record(meta.terminal_info) ?? record(meta.terminalInfo);
  if (!delta && !full && !exit && !info) return undefined;
  const id = [delta, full, exit, info].map((r) => r?.terminal_id ?? r?.terminalId).find((x) => typeof x === "string");
  const out: TerminalMeta = {};
  if (typeof id === "string") out.terminalId = id;
  const data = delta?.data ?? full?.data;
  if (typeof data === "string") out.output = data;
  if (exit) {
    const code = exit.exit_code ?? exit.exitCode;
    const signal = exit.signal;
    out.exit = { exitCode: typeof code === "number" ? code : null, signal: typeof signal === "string" ? signal : null };
  }
  if (info) out.info = info;
  return out;
}

interface Parsed { fields: ToolCallFields; problems: string[] }

function parseToolFields(raw: RawToolFields): Parsed {
  const problems: string[] = [];
  const fields: ToolCallFields = {};
  if (raw.title != null) fields.title = raw.title;
  if (raw.kind != null) {
    const kind = zToolKind.safeParse(raw.kind);
    fields.toolKind = kind.success ? kind.data : "other";
    if (fields.toolKind === "other" && raw.kind !== "other") problems.push(`unknown tool kind "${raw.kind}" shown as other`);
  }
  if (raw.status != null) {
    const status = zToolStatus.safeParse(raw.status);
    if (status.success) fields.status = status.data;
    else problems.push(`unknown tool status "${raw.status}" ignored`);
  }
  if (raw.content != null) {
    fields.content = [];
    for (const entry of raw.content) {
      const c = parseToolContent(entry);
      if (c) fields.content.push(c);
      else problems.push(`unrecognised tool content ${preview(entry)}`);
    }
  }
  if (raw.locations != null) {
    fields.locations = [];
    for (const l of raw.locations) {
      const r = zLocation.safeParse(l);
      if (r.success) fields.locations.push(r.data.line != null ? { path: r.data.path, line: r.data.line } : { path: r.data.path } satisfies ToolLocation);
      else problems.push(`unrecognised location ${preview(l)}`);
    }
  }
  if (raw.rawInput !== undefined) fields.rawInput = raw.rawInput;
  if (raw.rawOutput !== undefined) fields.rawOutput = raw.rawOutput;
  const terminal = terminalMetaOf(raw._meta);
  if (terminal) fields.terminal = terminal;
  return { fields, problems };
}

function parseToolContent(entry: unknown): ToolContent | undefined {
  const r = record(entry);
  if (!r) return undefined;
  switch (r.type) {
    case "content": {
      const block = parseContentBlock(r.content);
      return block ? { type: "content", content: block } : undefined;
    }
    case "diff":
      if (typeof r.path !== "string" || typeof r.newText !== "string") return undefined;
      return { type: "diff", path: r.path, oldText: typeof r.oldText === "string" ? r.oldText : null, newText: r.newText };
    case "terminal":
      return typeof r.terminalId === "string" ? { type: "terminal", terminalId: r.terminalId } : undefined;
    default:
      return undefined;
  }
}

interface ToolState {
  status: ToolStatus;
  done: boolean;
  /** Everything the agent said of this tool call, oldest first (the same objects the events carry). */
  seen: ToolCallFields[];
}

/** Per-session mapper; create one for each session. */
export class SessionUpdateMapper {
  private readonly tools = new Map<string, ToolState>();

  /** Maps one `update` object of a `session/update` notification. */
  map(update: unknown): ThoughtEventBody[] {
    const u = record(update);
    const kind = u?.sessionUpdate;
    if (!u || typeof kind !== "string") {
      return [{ kind: "unknown", what: "session/update", reason: "update has no sessionUpdate kind", raw: update }];
    }
    const bad = (reason: string): ThoughtEventBody[] => [{ kind: "unknown", what: kind, reason, raw: update }];
    switch (kind) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const eventKind = kind === "user_message_chunk" ? "user_message" : kind === "agent_message_chunk" ? "message" : "thought";
        // Nearly every update of a stream is a plain text chunk: taken without the schema (what it
        // would give), which cost most of the host's allocations per chunk.
        const c = record(u.content);
        if (c?.type === "text" && typeof c.text === "string" && (u.messageId === undefined || u.messageId === null || typeof u.messageId === "string")) {
          const text = c.text;
          return [u.messageId ? { kind: eventKind, content: { type: "text", text }, text, messageId: u.messageId } : { kind: eventKind, content: { type: "text", text }, text }];
        }
        const r = zChunk.safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        const content = parseContentBlock(r.data.content);
        if (!content) return bad("unrecognised content block");
        const messageId = r.data.messageId ?? undefined;
        const ev = { content, text: textOf(content), ...(messageId ? { messageId } : {}) };
        return [{ kind: eventKind, ...ev }];
      }
      case "tool_call":
      case "tool_call_update": {
        const r = zToolFields.safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        return this.tool(r.data, kind === "tool_call", update);
      }
      case "plan": {
        const r = z.object({ entries: z.array(zPlanEntry) }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        return [{ kind: "plan", entries: r.data.entries satisfies PlanEntry[] }];
      }
      case "plan_update": {
        // Unstable ACP: only the item form maps onto our checklist; file/markdown plans stay visible as unknown.
        const plan = record(u.plan);
        if (plan?.type === "items") {
          const r = z.array(zPlanEntry).safeParse(plan.entries);
          if (r.success) return [{ kind: "plan", entries: r.data }];
          return bad(zodProblem(r.error));
        }
        return bad(`plan_update of type ${String(plan?.type)} is not shown as a checklist`);
      }
      case "available_commands_update": {
        const r = z.object({ availableCommands: z.array(zCommand) }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        return [{
          kind: "commands",
          commands: r.data.availableCommands.map((c): AvailableCommand => ({ name: c.name, description: c.description, ...(c.input?.hint ? { hint: c.input.hint } : {}) })),
        }];
      }
      case "current_mode_update": {
        const r = z.object({ currentModeId: z.string() }).safeParse(u);
        return r.success ? [{ kind: "mode", currentModeId: r.data.currentModeId }] : bad(zodProblem(r.error));
      }
      case "config_option_update": {
        const r = z.object({ configOptions: z.array(z.unknown()) }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        const { options, problems } = parseConfigOptions(r.data.configOptions);
        const out: ThoughtEventBody[] = [{ kind: "config_options", options }];
        if (problems.length) out.push({ kind: "unknown", what: kind, reason: problems.join("; "), raw: update });
        return out;
      }
      case "session_info_update": {
        const r = z.object({ title: z.string().nullish(), updatedAt: z.string().nullish() }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        return [{ kind: "session_info", ...(r.data.title !== undefined ? { title: r.data.title } : {}), ...(r.data.updatedAt !== undefined ? { updatedAt: r.data.updatedAt } : {}) }];
      }
      case "usage_update": {
        const r = z.object({ used: z.number(), size: z.number(), cost: z.object({ amount: z.number(), currency: z.string() }).nullish() }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        return [{ kind: "usage", used: r.data.used, size: r.data.size, ...(r.data.cost ? { cost: r.data.cost } : {}) }];
      }
      case "notice": {
        const r = z.object({ severity: z.string(), title: z.string(), description: z.string().nullish() }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        return [{ kind: "notice", severity: r.data.severity, title: r.data.title, ...(r.data.description ? { description: r.data.description } : {}) }];
      }
      case "compaction_update": {
        const r = z.object({ compactionId: z.string(), status: z.string(), summary: z.string().nullish(), error: z.string().nullish() }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        return [{
          kind: "compaction", compactionId: r.data.compactionId, status: r.data.status,
          ...(r.data.summary ? { summary: r.data.summary } : {}), ...(r.data.error ? { error: r.data.error } : {}),
        }];
      }
      case "compaction_summary_chunk": {
        const r = z.object({ compactionId: z.string(), content: z.unknown() }).safeParse(u);
        if (!r.success) return bad(zodProblem(r.error));
        const block = parseContentBlock(r.data.content);
        if (!block) return bad("unrecognised content block");
        return [{ kind: "compaction_summary", compactionId: r.data.compactionId, text: textOf(block) }];
      }
      default:
        return bad("update kind not modelled by Agent Thoughts");
    }
  }

  /** A permission request; starts a tool card first when the tool call was never announced. */
  permissionRequest(requestId: string, toolCall: unknown, options: unknown): ThoughtEventBody[] {
    const tc = zToolFields.safeParse(toolCall);
    const opts = z.array(z.unknown()).safeParse(options);
    const out: ThoughtEventBody[] = [];
    const parsedOptions: PermissionOption[] = [];
    for (const o of opts.success ? opts.data : []) {
      const r = zPermissionOption.safeParse(o);
      if (r.success) parsedOptions.push(r.data);
      else out.push({ kind: "unknown", what: "session/request_permission", reason: `unrecognised permission option ${preview(o)}`, raw: o });
    }
    const toolCallId = tc.success ? boundId(tc.data.toolCallId) : `permission-${requestId}`;
    let fields: ToolCallFields = {};
    if (tc.success) {
      const parsed = parseToolFields(tc.data);
      fields = parsed.fields;
      const known = this.tools.get(toolCallId);
      if (!known) out.push(...this.start(toolCallId, false, fields, tc.data.toolCallId));
      else if (Object.keys(fields).length) {
        known.seen.push(fields);
        out.push({ kind: "tool_update", toolCallId, ...fields });
      }
    } else {
      out.push({ kind: "unknown", what: "session/request_permission", reason: `toolCall: ${zodProblem(tc.error)}`, raw: toolCall });
    }
    out.push({ kind: "permission_request", requestId, toolCallId, title: fields.title ?? "Permission requested", options: parsedOptions, toolCall: fields });
    return out;
  }

  /** What the agent has said of a tool call so far (for judging a permission request on it), and its latest kind. */
  toolCall(toolCallId: string): { kind: ToolKind | undefined; seen: readonly ToolCallFields[] } | undefined {
    const state = this.tools.get(toolCallId);
    if (!state) return undefined;
    return { kind: state.seen.findLast((f) => f.toolKind !== undefined)?.toolKind, seen: state.seen };
  }

  /** Closes the turn: tool calls still open are canceled (Zed does the same). */
  endTurn(): ThoughtEventBody[] {
    const out: ThoughtEventBody[] = [];
    for (const [toolCallId, state] of this.tools) {
      if (!state.done) {
        state.done = true;
        out.push({ kind: "tool_done", toolCallId, outcome: "canceled" });
      }
    }
    return out;
  }


  private tool(raw: RawToolFields, announced: boolean, update: unknown): ThoughtEventBody[] {
    const { fields, problems } = parseToolFields(raw);
    const id = boundId(raw.toolCallId);
    const out: ThoughtEventBody[] = [];
    const known = this.tools.get(id);
    if (!known || (announced && known.done)) {
      // A fresh tool_call, an update for an id never announced, or a duplicate id after completion: a new card.
      out.push(...this.start(id, announced, fields, raw.toolCallId));
    } else {
      // A repeated tool_call for an open id (claude-code-acp announces calls again with more detail): an update, as Zed treats it.
      known.seen.push(fields);
      if (fields.status) known.status = fields.status;
      addRawCommandOutput(known, fields);
      out.push({ kind: "tool_update", toolCallId: id, ...fields });
      out.push(...this.finish(id, known, raw.rawOutput));
    }
    if (problems.length) out.push({ kind: "unknown", what: raw.toolCallId ? `tool call ${id}` : "tool call", reason: problems.join("; "), raw: update });
    return out;
  }

  /** `id` is the bounded id every event carries; `wireId` the agent's own (kept on `tool_start` when longer). */
  private start(id: string, announced: boolean, fields: ToolCallFields, wireId: string): ThoughtEventBody[] {
    const state: ToolState = { status: fields.status ?? "pending", done: false, seen: [fields] };
    this.tools.set(id, state);
    addRawCommandOutput(state, fields);
    const { title, ...rest } = fields;
    const out: ThoughtEventBody[] = [{
      kind: "tool_start", toolCallId: id, ...(wireId !== id ? { agentToolCallId: wireId } : {}), announced,
      title: title ?? (announced ? "Tool call" : `Tool call ${id}`), ...rest,
    }];
    out.push(...this.finish(id, state, fields.rawOutput));
    return out;
  }

  private finish(id: string, state: ToolState, rawOutput: unknown): ThoughtEventBody[] {
    if (state.done || (state.status !== "completed" && state.status !== "failed")) return [];
    state.done = true;
    return [{ kind: "tool_done", toolCallId: id, outcome: state.status, ...(rawOutput !== undefined ? { rawOutput } : {}) }];
  }
}

/**
 * A command the agent ran itself whose output it reports only in `rawOutput` when the call
 * completes (codex-acp): that output (and the exit code it names) becomes the update's terminal
 * output, so the command's terminal and its card's preview show it as they show streamed output.
 * A command is a call the agent said runs in a terminal of its own (terminal `_meta`), or an
 * `execute` call that shows no terminal Agent Thoughts runs, whose `rawOutput` has an output field.
 * Nothing changes when the agent streamed output for it.
 */
function addRawCommandOutput(state: ToolState, fields: ToolCallFields): void {
  if (state.done || (state.status !== "completed" && state.status !== "failed") || fields.rawOutput == null) return;
  const { seen } = state;
  if (seen.some((f) => f.terminal?.output !== undefined)) return;
  let text: string | undefined;
  if (seen.some((f) => f.terminal)) text = rawOutputText(fields.rawOutput);
  else if (seen.findLast((f) => f.toolKind !== undefined)?.toolKind === "execute" && !seen.some((f) => f.content?.some((c) => c.type === "terminal"))) text = rawOutputField(fields.rawOutput);
  else return;
  const exit = fields.terminal?.exit ?? rawOutputExit(fields.rawOutput);
  if (!text && !exit) return;
  fields.terminal = { ...fields.terminal, ...(text ? { output: text.endsWith("\n") ? text : `${text}\n` } : {}), ...(exit ? { exit } : {}) };
}

/** Parses config options, flattening grouped select choices. */
export function parseConfigOptions(raw: readonly unknown[]): { options: ConfigOption[]; problems: string[] } {
  const options: ConfigOption[] = [];
  const problems: string[] = [];
  for (const o of raw) {
    const r = zConfigOption.safeParse(o);
    if (!r.success) {
      problems.push(`config option ${preview(o, 120)}: ${zodProblem(r.error)}`);
      continue;
    }
    const d = r.data;
    const choices = d.options?.flatMap((c) => "options" in c
      ? c.options.map((x) => ({ value: x.value, name: x.name, group: c.name, ...(x.description ? { description: x.description } : {}) }))
      : [{ value: c.value, name: c.name, ...(c.description ? { description: c.description } : {}) }]);
    options.push({
      id: d.id, name: d.name, type: d.type, currentValue: d.currentValue,
      ...(d.description ? { description: d.description } : {}), ...(d.category ? { category: d.category } : {}),
      ...(choices ? { options: choices } : {}),
    });
  }
  return { options, problems };
}
