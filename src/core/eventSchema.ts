/**
 * The thought-event vocabulary as a zod schema, for events read back from disk (saved
 * transcripts): a file that was damaged, written by another version or edited by hand must not
 * reach the view model with the wrong shapes. The compile-time checks at the bottom keep the
 * schema and `ThoughtEvent` in step.
 */
import { z } from "zod";
import type { ThoughtEvent } from "../shared/events";
import { zodProblem } from "../shared/validation";

const zContentBlock = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string(), uri: z.string().optional(), thumbnail: z.string().optional() }),
  z.object({ type: z.literal("audio"), data: z.string(), mimeType: z.string() }),
  z.object({ type: z.literal("resource_link"), uri: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional(), size: z.number().optional() }),
  z.object({ type: z.literal("resource"), resource: z.object({ uri: z.string(), text: z.string().optional(), blob: z.string().optional(), mimeType: z.string().optional() }) }),
]);

/** The vocabulary's enums and permission options, shared with the mapper that reads them off the wire. */
export const zToolKind = z.enum(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]);
export const zToolStatus = z.enum(["pending", "in_progress", "completed", "failed"]);

const zToolContent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("content"), content: zContentBlock }),
  z.object({ type: z.literal("diff"), path: z.string(), oldText: z.string().nullable(), newText: z.string() }),
  z.object({ type: z.literal("terminal"), terminalId: z.string() }),
]);

const zFieldBase = { name: z.string(), title: z.string(), description: z.string().optional(), required: z.boolean() };
const zChoices = z.array(z.object({ value: z.string(), title: z.string() }));
const zElicitField = z.discriminatedUnion("type", [
  z.object({ ...zFieldBase, type: z.literal("text"), minLength: z.number().optional(), maxLength: z.number().optional(), format: z.enum(["email", "uri", "date", "date-time"]).optional(), default: z.string().optional() }),
  z.object({ ...zFieldBase, type: z.literal("number"), integer: z.boolean(), minimum: z.number().optional(), maximum: z.number().optional(), default: z.number().optional() }),
  z.object({ ...zFieldBase, type: z.literal("boolean"), default: z.boolean().optional() }),
  z.object({ ...zFieldBase, type: z.literal("select"), choices: zChoices, default: z.string().optional() }),
  z.object({ ...zFieldBase, type: z.literal("multiselect"), choices: zChoices, minItems: z.number().optional(), maxItems: z.number().optional(), default: z.array(z.string()).optional() }),
]);

const zToolFields = {
  toolKind: zToolKind.optional(),
  status: zToolStatus.optional(),
  content: z.array(zToolContent).optional(),
  locations: z.array(z.object({ path: z.string(), line: z.number().optional() })).optional(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  terminal: z.object({
    terminalId: z.string().optional(),
    client: z.boolean().optional(),
    output: z.string().optional(),
    replace: z.boolean().optional(),
    exit: z.object({ exitCode: z.number().nullable().optional(), signal: z.string().nullable().optional() }).optional(),
    info: z.record(z.string(), z.unknown()).optional(),
  }).optional(),
};

export const zPermissionOption = z.object({ optionId: z.string(), name: z.string(), kind: z.enum(["allow_once", "allow_always", "reject_once", "reject_always"]) });

const zConfigOption = z.object({
  id: z.string(), name: z.string(), description: z.string().optional(), category: z.string().optional(),
  type: z.enum(["select", "boolean"]), currentValue: z.union([z.string(), z.boolean()]),
  options: z.array(z.object({ value: z.string(), name: z.string(), description: z.string().optional(), group: z.string().optional() })).optional(),
});

const chunk = { text: z.string(), content: zContentBlock, messageId: z.string().optional() };

/** What every stored event carries besides its kind's fields. */
const envelope = {
  seq: z.number().int().positive(),
  from: z.number().int().positive().optional(),
  at: z.number(),
  sessionId: z.string(),
  turnId: z.number().optional(),
  replayed: z.literal(true).optional(),
  cuts: z.record(z.string(), z.string()).optional(),
};

/** One kind of stored event: its fields and the envelope's (a field of both, `turnId`, as the kind has it). */
function stored<S extends z.ZodRawShape>(shape: S): z.ZodObject<Omit<typeof envelope, keyof S> & S> {
  return z.object({ ...envelope, ...shape });
}

/**
 * A thought event as stored; `parse` checks one read back from disk. One object schema per kind,
 * each with the envelope's fields (seq, at, …): an intersection of the envelope and the kinds
 * parsed every event twice and merged the two results, most of reading a transcript back.
 */
export const zThoughtEvent = z.discriminatedUnion("kind", [
  stored({
    kind: z.literal("session_start"), agentName: z.string(), agentId: z.string().optional(), agentVersion: z.string().optional(), cwd: z.string(),
    agentSessionId: z.string().optional(),
    abilities: z.object({ load: z.boolean().optional(), resume: z.boolean().optional(), list: z.boolean().optional(), close: z.boolean().optional(), delete: z.boolean().optional(), fork: z.boolean().optional() }).optional(),
    continued: z.enum(["resume", "load"]).optional(),
    mcpServers: z.array(z.string()).optional(),
    modes: z.object({ currentModeId: z.string(), availableModes: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional() })) }).optional(),
    configOptions: z.array(zConfigOption).optional(),
    models: z.object({ currentModelId: z.string(), availableModels: z.array(z.object({ modelId: z.string(), name: z.string(), description: z.string().optional() })) }).optional(),
  }),
  stored({ kind: z.literal("turn_start"), turnId: z.number(), prompt: z.array(zContentBlock) }),
  stored({ kind: z.literal("user_message"), ...chunk }),
  stored({ kind: z.literal("thought"), ...chunk }),
  stored({ kind: z.literal("message"), ...chunk }),
  stored({ kind: z.literal("tool_start"), toolCallId: z.string(), agentToolCallId: z.string().optional(), announced: z.boolean(), title: z.string(), ...zToolFields }),
  stored({ kind: z.literal("tool_update"), toolCallId: z.string(), title: z.string().optional(), ...zToolFields }),
  stored({ kind: z.literal("tool_done"), toolCallId: z.string(), outcome: z.enum(["completed", "failed", "canceled"]), rawOutput: z.unknown().optional() }),
  stored({ kind: z.literal("plan"), entries: z.array(z.object({ content: z.string(), priority: z.enum(["high", "medium", "low"]), status: z.enum(["pending", "in_progress", "completed"]) })) }),
  stored({ kind: z.literal("usage"), used: z.number(), size: z.number(), cost: z.object({ amount: z.number(), currency: z.string() }).optional() }),
  stored({ kind: z.literal("session_info"), title: z.string().nullable().optional(), updatedAt: z.string().nullable().optional() }),
  stored({ kind: z.literal("mode"), currentModeId: z.string() }),
  stored({ kind: z.literal("config_options"), options: z.array(zConfigOption) }),
  stored({ kind: z.literal("commands"), commands: z.array(z.object({ name: z.string(), description: z.string(), hint: z.string().optional() })) }),
  stored({ kind: z.literal("notice"), severity: z.string(), title: z.string(), description: z.string().optional(), action: z.literal("restartAgent").optional() }),
  stored({ kind: z.literal("compaction"), compactionId: z.string(), status: z.string(), summary: z.string().optional(), error: z.string().optional() }),
  stored({ kind: z.literal("compaction_summary"), compactionId: z.string(), text: z.string() }),
  stored({
    kind: z.literal("permission_request"), requestId: z.string(), toolCallId: z.string(), title: z.string(), options: z.array(zPermissionOption),
    toolCall: z.object({ title: z.string().optional(), ...zToolFields }), guard: z.string().optional(),
  }),
  stored({
    kind: z.literal("permission_outcome"), requestId: z.string(), toolCallId: z.string(),
    outcome: z.discriminatedUnion("outcome", [z.object({ outcome: z.literal("selected"), optionId: z.string() }), z.object({ outcome: z.literal("cancelled") })]),
    by: z.enum(["user", "policy", "cancel"]),
  }),
  stored({ kind: z.literal("elicitation_request"), requestId: z.string(), message: z.string(), fields: z.array(zElicitField), problems: z.array(z.string()).optional(), toolCallId: z.string().optional(), url: z.string().optional(), origin: z.string().optional() }),
  stored({ kind: z.literal("elicitation_outcome"), requestId: z.string(), action: z.enum(["accept", "decline", "cancel"]), by: z.enum(["user", "cancel"]) }),
  stored({ kind: z.literal("session_end"), reason: z.literal("closed") }),
  stored({ kind: z.literal("turn_end"), turnId: z.number(), stopReason: z.enum(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]), usage: z.record(z.string(), z.unknown()).optional() }),
  stored({ kind: z.literal("error"), message: z.string(), detail: z.string().optional(), code: z.number().optional(), fatal: z.boolean() }),
  stored({ kind: z.literal("unknown"), what: z.string(), reason: z.string(), raw: z.unknown() }),
]);

/** A stored event checked against the vocabulary, or why it does not fit. */
export function parseThoughtEvent(value: unknown): { event: ThoughtEvent } | { problem: string } {
  const r = zThoughtEvent.safeParse(value);
  return r.success ? { event: r.data } : { problem: zodProblem(r.error) };
}

// Compile-time: every kind of ThoughtEvent has a schema (a parsed event is a ThoughtEvent: see parseThoughtEvent).
type MissingKinds = Exclude<ThoughtEvent["kind"], z.infer<typeof zThoughtEvent>["kind"]>;
const allKinds: MissingKinds extends never ? true : MissingKinds = true;
void allKinds;
