/**
 * The host ↔ webview message protocol, one doc line per message.
 *
 * Host → webview messages are facts: a `snapshot` of the whole view state (on `ready`, or when the
 * webview reports a version gap; at most two per 500 ms, however often it asks; a large one in pieces, its newest turns first), then `patch`es carrying the events since the previous version,
 * paced: to a visible webview, the next once it says it has the last (`applied`; a webview that
 * does not answer still gets one a second), at most one per 8 ms, and `sessions`
 * carrying whole session views that replace the webview's (saved sessions listed, and read back:
 * newest turns first, then `turns` putting the earlier ones before them, in pieces). The webview applies each with the same pure functions as
 * the host, in the order they were sent.
 *
 * Webview → host messages are verbs. The host validates every one with `parseWebviewMessage`
 * and ignores (and logs) anything invalid.
 */
import { z } from "zod";
import { zodProblem } from "./validation";
import type { PackedEvent } from "./events";
import type { SessionView, TurnView, ViewState } from "./viewModel";
import { isMentionRef, MAX_MENTION_QUERY, MAX_MENTIONS, type MentionItem, type MentionRef } from "./mentions";
import { isPromptImage, MAX_DROPPED, MAX_IMAGES, type PromptImage } from "./images";

/** Settings and host facts the panel needs besides the session state. */
export interface HostInfo {
  agents: string[];
  defaultAgent: string;
  /** `agentThoughts.thinking.display`. */
  thinkingDisplay: "auto" | "expanded" | "collapsed";
  /** The session the panel shows. */
  activeSessionId?: string;
  /** An agent is being started for the next prompt. */
  starting?: string;
  /** The last error that is not part of a session (agent failed to start…). */
  hostError?: string;
  /** The agent `hostError` is about, when it is about one. */
  hostErrorAgent?: string;
  /** Sessions whose agent tried to continue them and could not, with why (shown read-only). */
  cannotContinue?: Record<string, string>;
  /** Turns that have a checkpoint (Restore checkpoint), per session. */
  checkpoints?: Record<string, number[]>;
}

export type HostMessage =
  /** The whole state; replaces whatever the webview had. */
  | { type: "snapshot"; version: number; state: ViewState; host: HostInfo }
  /** Events `from`+1 … `to` (inclusive), in order, packed (`packEvent`); apply only if the webview is at `from`. */
  | { type: "patch"; from: number; to: number; events: PackedEvent[] }
  /** Whole session views (saved sessions listed, a saved session read back) put in by `putSessions`; apply only at `from`. */
  | { type: "sessions"; from: number; to: number; sessions: SessionView[]; order: string[] }
  /**
   * A session's earlier turns, put before those it has (`prependTurns`; `done`: now it is whole); apply only at `from`:
   * a saved session read back (one step of the version), or a large snapshot's pieces (`from` = `to` = the snapshot's version; they come right after it, before anything else).
   */
  | { type: "turns"; from: number; to: number; sessionId: string; turns: TurnView[]; done: boolean }
  /** Host facts changed (settings, active session, agent starting). */
  | { type: "host"; host: HostInfo }
  /** Put the keyboard focus in the prompt box (after a command). */
  | { type: "focusPrompt" }
  /** Reveal an entry (e.g. "why this change?" from a diff). */
  | { type: "reveal"; sessionId: string; entryId?: string; toolCallId?: string }
  /** What `@query` request `requestId` can mention (best first, at most MAX_MENTION_ITEMS). */
  | { type: "mentions"; requestId: number; items: MentionItem[] }
  /** Chips for the prompt box from Attach Image or a drop (the host read and checked them), and what it refused, each with why. */
  | { type: "attach"; mentions: MentionRef[]; images: PromptImage[]; refused: string[] };

/** Our keys (session keys, permission request ids, tool call ids): `boundId` keeps agent-chosen ones far below this. */
const id = z.string().min(1).max(500);
/** Values the agent chose and gets back verbatim (permission option, mode, config option ids): bounded, but generously. */
const wireId = z.string().min(1).max(65_536);
/** An @-mention chip: kind, a bounded URI and label, an ordered 1-based line range or none. */
const mentionRef = z.custom<MentionRef>(isMentionRef, "a mention is { kind, uri, label, startLine?, endLine? } within bounds");
/** An image chip: PNG/JPEG/GIF/WebP base64 within MAX_IMAGE_BYTES, a bounded name and thumbnail. */
const promptImage = z.custom<PromptImage>(isPromptImage, "an image is { mimeType, data, name, thumbnail? } within bounds");

export const webviewMessageSchema = z.discriminatedUnion("type", [
  /** The webview is loaded (or reloaded) and wants a snapshot. */
  z.object({ type: z.literal("ready"), version: z.number().int().nonnegative().optional() }),
  /** The webview saw a version gap and needs a fresh snapshot. */
  z.object({ type: z.literal("requestSnapshot"), have: z.number().int().nonnegative() }),
  /**
   * The webview's replica holds the state up to `version` (said as each patch lands, before the
   * frame that draws it). The host posts the next patch to a visible webview only once it has the
   * one before, so one patch is on its way at a time and the next frame draws all that came; a
   * panel that falls behind (a busy renderer, ten agents at once) handles messages later and so
   * gets fewer, larger patches instead of a queue that delays everything behind it.
   */
  z.object({ type: z.literal("applied"), version: z.number().int().nonnegative() }),
  /**
   * Send a prompt to the session (default: the shown one; a session not running is continued by
   * its agent when it can be), or with `newSession` to a new session of the default agent;
   * `mentions` are the @-mentioned chips, sent after the text as ACP blocks (workspace files only);
   * `images` go last, as `image` blocks, only to an agent that declares it takes images.
   */
  z.object({ type: z.literal("sendPrompt"), text: z.string().max(1_000_000), sessionId: id.optional(), newSession: z.literal(true).optional(), mentions: z.array(mentionRef).max(MAX_MENTIONS).optional(), images: z.array(promptImage).max(MAX_IMAGES).optional() })
    .refine((m) => m.text.length > 0 || (m.mentions?.length ?? 0) > 0 || (m.images?.length ?? 0) > 0, "a prompt has text, mentions or images"),
  /** Attach Image: the host shows VS Code's file picker (PNG, JPEG, GIF, WebP) and answers `attach` with what the user picked. */
  z.object({ type: z.literal("pickImages") }),
  /** Files dropped on the prompt box (`text/uri-list`): the host answers `attach` (workspace files only). */
  z.object({ type: z.literal("dropUris"), uris: z.array(z.string().min(1).max(4096)).min(1).max(MAX_DROPPED) }),
  /** What can be @-mentioned for this query (files, open editors, the selection, problems); answered by `mentions`. */
  z.object({ type: z.literal("mentionQuery"), requestId: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), query: z.string().max(MAX_MENTION_QUERY) }),
  /** Cancel the running turn of a session. */
  z.object({ type: z.literal("cancelTurn"), sessionId: id }),
  /** Answer a permission request with one of the agent's options, or cancel it (`optionId` null). */
  z.object({ type: z.literal("resolvePermission"), sessionId: id, requestId: id, optionId: wireId.nullable() }),
  /** These open permission requests are on screen in this (visible) view: no notification needed. */
  z.object({ type: z.literal("questionSeen"), sessionId: id, requestIds: z.array(id).min(1).max(1000) }),
  /** Answer the agent's open form question: accept with the form's values (checked again by the host), decline or cancel. */
  z.object({
    type: z.literal("answerElicitation"), sessionId: id, requestId: id, action: z.enum(["accept", "decline", "cancel"]),
    content: z.record(z.string().max(200), z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(500)).max(200)])).optional(),
  }),
  /** Open a file (at a 1-based line) in an editor. */
  z.object({ type: z.literal("openLocation"), path: z.string().min(1).max(4096), line: z.number().int().positive().optional() }),
  /** Open the diff of a tool call's diff content (index into its content list). */
  z.object({ type: z.literal("openDiff"), sessionId: id, toolCallId: id, index: z.number().int().nonnegative() }),
  /** Show the terminal of a tool call. */
  z.object({ type: z.literal("revealTerminal"), sessionId: id, toolCallId: id }),
  /** Roll the workspace back to just before a turn (the host asks which files first). */
  z.object({ type: z.literal("restoreCheckpoint"), sessionId: id, turnId: z.number().int().positive() }),
  /** Open a link from agent markdown (the host checks the scheme). */
  z.object({ type: z.literal("openLink"), href: z.string().min(1).max(8192) }),
  /** Start a fresh session with the default agent. */
  z.object({ type: z.literal("newSession") }),
  /** Show another session in the panel. */
  z.object({ type: z.literal("selectSession"), sessionId: id }),
  /** Pick the default agent. */
  z.object({ type: z.literal("selectAgent"), name: id.optional() }),
  /** Switch the session's mode. */
  z.object({ type: z.literal("setMode"), sessionId: id, modeId: wireId }),
  /** Change a session config option (model, thought level…). */
  z.object({ type: z.literal("setConfigOption"), sessionId: id, configId: wireId, value: z.union([z.string().max(65_536), z.boolean()]) }),
  /** Stop an agent and start a fresh session with it (the banner of a crashed agent). */
  z.object({ type: z.literal("restartAgent"), agentName: id }),
  /** Show the extension's log (Agent Thoughts: Show Log). */
  z.object({ type: z.literal("showLog") }),
  /** Open the agent settings (a start failure is usually a wrong command). */
  z.object({ type: z.literal("openAgentSettings") }),
  /** Copy text to the clipboard (webviews cannot always). */
  z.object({ type: z.literal("copy"), text: z.string().max(10_000_000) }),
]);

export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** Validates a message from the webview; returns a reason when invalid. */
export function parseWebviewMessage(raw: unknown): { ok: true; message: WebviewMessage } | { ok: false; reason: string } {
  const r = webviewMessageSchema.safeParse(raw);
  if (r.success) return { ok: true, message: r.data };
  return { ok: false, reason: zodProblem(r.error) };
}
