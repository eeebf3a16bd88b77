/**
 * The panel's view model and the pure reducer that folds thought events into it. The host owns
 * the state and the webview keeps a replica by running the same reducer over the same event
 * batches, so both sides agree by construction.
 *
 * `reduce(state, events)` never mutates its input. Inside one batch it copies each object it
 * touches once and then edits the copy ("copy on first write"), so a batch of thousands of chunks
 * costs one copy of the turn, not one per chunk. Objects not touched keep their identity, which
 * is what lets the renderer skip them.
 */
import type {
  AvailableCommand, ConfigOption, Cuts, SessionAbilities, PermissionOption, PermissionOutcome, PlanEntry, SessionMode, StopReason, TerminalMeta, ThoughtEvent,
  ToolContent, ToolKind, ToolLocation,
} from "./events";
import { attachmentOf, type Attachment } from "./attachments";
import type { ElicitField } from "./elicitation";

/** Chips kept per prompt or user message (a replaying agent could send thousands). */
const MAX_ATTACHMENTS = 50;

/** What a tool card shows as its state (ACP statuses plus the ones the client knows). */
export type ToolViewStatus = "pending" | "awaiting_permission" | "in_progress" | "completed" | "failed" | "rejected" | "canceled";

export interface ToolEntry {
  type: "tool";
  id: string;
  toolCallId: string;
  title: string;
  toolKind: ToolKind;
  status: ToolViewStatus;
  announced: boolean;
  content: ToolContent[];
  locations: ToolLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** Output of an agent-run command streamed in `_meta`, and its exit. */
  terminalOutput?: string;
  terminalExit?: { exitCode?: number | null; signal?: string | null };
  permission?: { requestId: string; options: PermissionOption[]; outcome?: PermissionOutcome; by?: "user" | "policy" | "cancel"; guard?: string };
  /** What the panel cut of this call's fields (see `boundEvent`); the transcript has all of it. */
  cuts?: Cuts;
  startedAt: number;
  endedAt?: number;
}

export type Entry =
  | { type: "user"; id: string; text: string; attachments?: Attachment[]; at: number }
  | { type: "thought"; id: string; text: string; startedAt: number; endedAt?: number }
  | { type: "message"; id: string; text: string; messageId?: string; at: number }
  | ToolEntry
  /** `cut`: what of the plan the panel does not show (see `boundEvent`). */
  | { type: "plan"; id: string; entries: PlanEntry[]; cut?: string; at: number }
  | { type: "notice"; id: string; severity: string; title: string; description?: string; action?: "restartAgent"; at: number }
  | { type: "error"; id: string; message: string; detail?: string; fatal: boolean; at: number }
  | { type: "unknown"; id: string; what: string; reason: string; at: number };

export interface TurnView {
  turnId: number;
  prompt: string;
  /** What the prompt carries besides its text (file ranges, links, images), as chips. */
  attachments?: Attachment[];
  startedAt: number;
  endedAt?: number;
  stopReason?: StopReason;
  failed?: string;
  entries: Entry[];
}

/** An open form question of the agent (`elicitation_request`). */
export interface ElicitationView { requestId: string; message: string; fields: ElicitField[]; problems?: string[]; toolCallId?: string; at: number; url?: string; origin?: string }

export type SessionStatus = "idle" | "running" | "awaiting_permission" | "ended";

export interface SessionView {
  sessionId: string;
  agentName: string;
  /** The agent's name in the settings (restart it by this name). */
  agentId?: string;
  agentVersion?: string;
  cwd: string;
  /** The agent's own id for the session, and what the agent can do with sessions (continue, list…). */
  agentSessionId?: string;
  abilities?: SessionAbilities;
  /** The MCP servers the agent got with this session (names). */
  mcpServers?: string[];
  title?: string;
  status: SessionStatus;
  modes?: { currentModeId: string; availableModes: SessionMode[] };
  configOptions: ConfigOption[];
  models?: { currentModelId: string; availableModels: { modelId: string; name: string; description?: string }[] };
  commands: AvailableCommand[];
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } };
  /** The current plan (pinned in the panel). */
  plan?: PlanEntry[];
  /** What of the current plan the panel does not show. */
  planCut?: string;
  /** Notices and errors outside any turn, newest last. */
  banners: Entry[];
  turns: TurnView[];
  /**
   * toolCallId → [turn index, entry index], for in-place updates; the tool calls added since it was
   * last merged are in `newTools` (a later card of the same id wins). See `indexTool`.
   */
  toolIndex: Record<string, [number, number]>;
  newTools?: Record<string, [number, number]>;
  /** Open permission requests: requestId → toolCallId. */
  pendingPermissions: Record<string, string>;
  /** The agent's open form question (one at a time per session), pinned above the prompt box until answered. */
  elicitation?: ElicitationView;
  fatalError?: string;
  /** What to do about `fatalError` (the error's detail). */
  fatalHint?: string;
  /** Read back from a saved transcript (history: prompts start a new session). */
  restored?: boolean;
  /** A saved session: what the history index says about it, and how much of its transcript is in this view (see `SavedInfo`). */
  saved?: SavedInfo;
  /**
   * A view sent in pieces (a large snapshot: its newest turns first): this many earlier turns are
   * still on their way, with the first prompt (its title meanwhile) and when its last turn was
   * active (should none of its turns be in the view yet). Gone once they are in.
   */
  earlier?: { turns: number; prompt?: string; lastAt?: number };
  eventCount: number;
  lastSeq: number;
}

/**
 * A saved session as the history index (`transcripts/index.json`) knows it, without reading its
 * transcript: enough to list it and to show what it was.
 */
export interface SavedSession {
  sessionId: string;
  agentName: string;
  agentId?: string;
  cwd: string;
  agentSessionId?: string;
  abilities?: SessionAbilities;
  /** The agent's title for it (`session_info`). */
  title?: string;
  /** Its first prompt's text (cut short), for a session the agent gave no title. */
  prompt?: string;
  /** Its first and last events' times. */
  startedAt: number;
  lastAt: number;
  /** The transcript's size on disk. */
  bytes: number;
  turns: number;
}

/**
 * On a session read back from a saved transcript: what the index says about it and how much of
 * the transcript is folded into the view. `none`: nothing yet (turns empty; shown as loading);
 * `tail`: the session's start and its last turn(s), while the rest is read; `all`: every event;
 * `failed`: the transcript could not be read (a banner says why).
 */
export interface SavedInfo {
  bytes: number;
  turns: number;
  startedAt: number;
  lastAt: number;
  prompt?: string;
  loaded: "none" | "tail" | "all" | "failed";
}

export interface ViewState {
  /** Number of events folded in (across sessions) plus whole session views put in (`putSessions`); the protocol's version. */
  version: number;
  sessions: Record<string, SessionView>;
  /** Session ids in creation order. */
  order: string[];
}

/** The agent's name as the user configured it (Restart Agent takes it); older transcripts only have its own name. */
export function agentIdOf(s: SessionView): string {
  return s.agentId ?? s.agentName;
}

/** Whether a session's turn is under way (working, or waiting for a permission answer). */
export function isWorking(s: SessionView | undefined): boolean {
  return s?.status === "running" || s?.status === "awaiting_permission";
}

/**
 * The agent the next prompt from the panel goes to: the shown session's, unless another agent has
 * been selected since (then the prompt starts a new session with it). `switched` says which.
 */
export function nextAgent(s: SessionView | undefined, defaultAgent: string): { name: string; switched: boolean } {
  if (!s || agentIdOf(s) === defaultAgent) return { name: s?.agentName ?? defaultAgent, switched: false };
  return { name: defaultAgent, switched: true };
}

/** A session to continue (resume or load): our key, the agent's id for it, and how far the panel shows it. */
export interface SessionToContinue {
  sessionId: string;
  agentSessionId: string;
  cwd: string;
  lastSeq: number;
  lastTurnId: number;
  /** The prompts of the turns the panel shows, oldest first (a load's replay of these is dropped). */
  shownPrompts: string[];
}

/**
 * How a session that is not running (saved, closed, its agent died) can be continued by the agent
 * that made it; `abilities` is undefined for transcripts saved before they were recorded (then
 * the agent is asked and the answer decides). The agent's id comes from the session's start, or
 * for older transcripts from our key (`run.serial:agentId`) when it was kept whole.
 */
export function savedSessionOf(s: SessionView): SessionToContinue & { agentName: string; abilities?: SessionAbilities } {
  const fromKey = s.sessionId.slice(s.sessionId.indexOf(":") + 1);
  const agentSessionId = s.agentSessionId ?? (s.sessionId.includes(":") && !fromKey.includes("…") ? fromKey : "");
  return {
    sessionId: s.sessionId, agentSessionId, cwd: s.cwd, lastSeq: s.lastSeq,
    lastTurnId: s.turns.reduce((m, t) => Math.max(m, t.turnId), 0), shownPrompts: s.turns.map((t) => t.prompt),
    agentName: agentIdOf(s), ...(s.abilities ? { abilities: s.abilities } : {}),
  };
}

/**
 * Why a shown session that is not running cannot be continued by its agent (read-only history),
 * or undefined when a prompt in it continues it (or it is running).
 */
export function readOnlyReason(s: SessionView | undefined, failed?: string): string | undefined {
  if (!s || (s.status !== "ended" && !s.restored)) return undefined;
  const a = s.abilities;
  if (a && !a.resume && !a.load) return `${s.agentName} cannot continue saved sessions (it declares neither session/resume nor session/load)`;
  if (!savedSessionOf(s).agentSessionId) return "This transcript does not have the agent's id for the session";
  if (!s.cwd) return "This transcript does not have the session's folder";
  if (failed) return `${s.agentName} could not continue it: ${failed}`;
  return undefined;
}

/**
 * A short account of a session to start a new one with (Continue in a new session): its title and,
 * per turn, the prompt and the start of the agent's last message; at most `max` characters, the
 * newest turns kept. The user sees and edits it before it is sent.
 */
export function sessionSummary(s: SessionView, max = 4000): string {
  const clip = (t: string, n: number): string => {
    const one = t.replace(/\s+/g, " ").trim();
    return one.length > n ? `${one.slice(0, n - 1)}…` : one;
  };
  const head = `Continuing an earlier session with ${s.agentName}${s.title ? ` ("${clip(s.title, 120)}")` : ""}. What happened there:`;
  const lines: string[] = [];
  let used = head.length;
  for (let i = s.turns.length - 1; i >= 0; i--) {
    const t = s.turns[i]!;
    let answer = "";
    for (let j = t.entries.length - 1; j >= 0 && !answer; j--) {
      const e = t.entries[j]!;
      if (e.type === "message") answer = e.text;
    }
    const line = `${i + 1}. Asked: ${clip(t.prompt || "(attachments only)", 300)}${answer ? `\n   Answer: ${clip(answer, 500)}` : ""}`;
    if (used + line.length + 1 > max - 40) {
      lines.unshift(`(${i + 1} earlier turn${i === 0 ? "" : "s"} left out)`);
      break;
    }
    lines.unshift(line);
    used += line.length + 1;
  }
  return `${head}\n${lines.join("\n")}\n\nNow: `;
}

export const EMPTY_STATE: ViewState = { version: 0, sessions: {}, order: [] };

/** The tool card of a tool call, read-only (the reducer keeps `toolIndex` pointing at it). */
export function findToolEntry(state: ViewState, sessionId: string, toolCallId: string): ToolEntry | undefined {
  const s = state.sessions[sessionId];
  return s ? toolEntryIn(s, toolCallId) : undefined;
}

/** The tool card of a tool call in one session. */
export function toolEntryIn(s: SessionView, toolCallId: string): ToolEntry | undefined {
  return toolAt(s, toolCallId)?.entry;
}

/** Where the tool card of a tool call is in one session: [turn index, entry index]. */
export function toolPosition(s: SessionView, toolCallId: string): readonly [number, number] | undefined {
  return toolAt(s, toolCallId)?.pos;
}

/** The tool card of a tool call and where it is, as the session's tool index has it (checked to be that tool call's card). */
function toolAt(s: SessionView, toolCallId: string): { pos: [number, number]; entry: ToolEntry } | undefined {
  const pos = indexedIn(s, toolCallId);
  const entry = pos ? s.turns[pos[0]]?.entries[pos[1]] : undefined;
  return pos && entry?.type === "tool" && entry.toolCallId === toolCallId ? { pos, entry } : undefined;
}

/** The panel's stand-in for a saved session whose transcript has not been read yet. */
export function savedView(s: SavedSession): SessionView {
  return {
    sessionId: s.sessionId, agentName: s.agentName, cwd: s.cwd, status: "ended", configOptions: [], commands: [], banners: [], turns: [],
    toolIndex: {}, pendingPermissions: {}, eventCount: 0, lastSeq: 0, restored: true,
    ...(s.agentId !== undefined ? { agentId: s.agentId } : {}),
    ...(s.agentSessionId !== undefined ? { agentSessionId: s.agentSessionId } : {}),
    ...(s.abilities ? { abilities: s.abilities } : {}),
    ...(s.title !== undefined ? { title: s.title } : {}),
    saved: { bytes: s.bytes, turns: s.turns, startedAt: s.startedAt, lastAt: s.lastAt, ...(s.prompt !== undefined ? { prompt: s.prompt } : {}), loaded: "none" },
  };
}

/** Whether the session is saved history whose transcript is not (all) in the view yet. */
export function isLoading(s: SessionView | undefined): boolean {
  return !!s?.restored && (s.saved?.loaded === "none" || s.saved?.loaded === "tail");
}

/** Whether turns of the session are still to come before those the view has (a saved session being read, or a view sent in pieces). */
export function awaitsTurns(s: SessionView | undefined): boolean {
  return isLoading(s) || !!s?.earlier;
}

/**
 * Puts whole session views into the state — saved sessions listed from the index, or a saved
 * session's view once (part of) its transcript is folded — replacing those with the same id, in
 * `order` (every session id, new ones included). One step of the protocol's version: a view that
 * a webview missed shows up as a gap like a missed patch.
 */
export function putSessions(state: ViewState, views: readonly SessionView[], order: readonly string[]): ViewState {
  const sessions = { ...state.sessions };
  for (const v of views) sessions[v.sessionId] = v;
  return { version: state.version + 1, sessions, order: order.filter((id) => sessions[id] !== undefined) };
}

/**
 * A tool call's position in a tool index. The id is the agent's: only the index's own keys count
 * (`constructor` or `toString` would otherwise find Object's).
 */
function indexed(index: Record<string, [number, number]>, toolCallId: string): [number, number] | undefined {
  return Object.hasOwn(index, toolCallId) ? index[toolCallId] : undefined;
}

/** Where the session's tool index has a tool call: the newest additions first. */
function indexedIn(s: SessionView, toolCallId: string): [number, number] | undefined {
  return (s.newTools && indexed(s.newTools, toolCallId)) ?? indexed(s.toolIndex, toolCallId);
}

/** Sets a tool call's position as a key of the index's own, whatever the id (`__proto__` would otherwise set the prototype). */
function setIndexed(index: Record<string, [number, number]>, toolCallId: string, pos: [number, number]): void {
  Object.defineProperty(index, toolCallId, { value: pos, writable: true, enumerable: true, configurable: true });
}

/** Where each tool card of these turns is — toolCallId → [turn index + `offset`, entry index] — as `toolIndex` has it (a later card of the same id wins). */
export function toolIndexOf(turns: readonly TurnView[], offset = 0): Record<string, [number, number]> {
  const index: Record<string, [number, number]> = {};
  turns.forEach((t, i) => t.entries.forEach((e, j) => { if (e.type === "tool") setIndexed(index, e.toolCallId, [i + offset, j]); }));
  return index;
}

/** The session view with these turns, its tool index made from them. */
export function withTurns(s: SessionView, turns: TurnView[]): SessionView {
  const { newTools: _, ...rest } = s;
  return { ...rest, turns, toolIndex: toolIndexOf(turns) };
}

/**
 * A saved session's earlier turns, put before those its view has: a session read back reaches the
 * panel in pieces, its newest turns first. `done`: these are its first turns, so the view is whole
 * (`saved.loaded` becomes `all`). One step of the protocol's version, like `putSessions`.
 */
export function prependTurns(state: ViewState, sessionId: string, turns: readonly TurnView[], done: boolean): ViewState {
  const s = state.sessions[sessionId];
  if (!s) return { ...state, version: state.version + 1 };
  const { earlier, ...whole } = withTurns(s, [...turns, ...s.turns]);
  // A view sent in pieces: `done` ends that, and says nothing about a saved session's reading.
  const left = earlier ? earlier.turns - turns.length : 0;
  const view: SessionView = earlier
    ? (done || left <= 0 ? whole : { ...whole, earlier: { ...earlier, turns: left } })
    : done && s.saved ? { ...whole, saved: { ...s.saved, loaded: "all" as const } } : whole;
  return { ...state, version: state.version + 1, sessions: { ...state.sessions, [sessionId]: view } };
}

/** What a list of sessions says about one: its title or first prompt, its turns, when it was last active and, saved, its size. */
export function sessionFacts(s: SessionView): { title?: string; turns: number; lastAt?: number; bytes?: number } {
  const first = (s.earlier ? s.earlier.prompt?.trim() : s.turns[0]?.prompt.trim()) || s.saved?.prompt?.trim();
  const title = s.title ?? (first || undefined);
  const last = s.turns[s.turns.length - 1];
  const saved = s.restored ? s.saved : undefined;
  const lastAt = saved ? saved.lastAt : last ? last.endedAt ?? last.startedAt : s.earlier?.lastAt;
  return {
    ...(title !== undefined ? { title } : {}),
    turns: saved && saved.loaded !== "all" ? saved.turns : s.turns.length + (s.earlier?.turns ?? 0),
    ...(lastAt !== undefined ? { lastAt } : {}),
    ...(saved ? { bytes: saved.bytes } : {}),
  };
}

/** Marks sessions as history read back from transcripts: ended, and not continued by prompts. */
export function markRestored(state: ViewState, sessionIds: readonly string[]): ViewState {
  const sessions = { ...state.sessions };
  for (const id of sessionIds) {
    const s = sessions[id];
    if (s) sessions[id] = { ...withoutElicitation(s), restored: true, status: "ended", pendingPermissions: {}, turns: s.turns.map((t) => (t.endedAt === undefined ? interrupted(s, t) : t)) };
  }
  return { ...state, sessions };
}

/** A session without its open form question (nobody can answer it any more). */
function withoutElicitation(s: SessionView): SessionView {
  if (!s.elicitation) return s;
  const { elicitation: _gone, ...rest } = s;
  void _gone;
  return rest;
}

const OPEN_TOOL: ReadonlySet<ToolViewStatus> = new Set(["pending", "awaiting_permission", "in_progress"]);

/**
 * A saved turn that never ended: VS Code (or the extension host) went away while it ran. Say so,
 * rather than show it as still working; its open tool calls can no longer finish.
 */
function interrupted(s: SessionView, t: TurnView): TurnView {
  let last = t.startedAt;
  const entries = t.entries.map((e): Entry => {
    const at = e.type === "thought" || e.type === "tool" ? e.endedAt ?? e.startedAt : e.at;
    last = Math.max(last, at);
    if (e.type === "thought" && e.endedAt === undefined) return { ...e, endedAt: e.startedAt };
    if (e.type === "tool" && (OPEN_TOOL.has(e.status) || (e.permission && !e.permission.outcome))) {
      // Nobody can answer a question of a turn that is over: no live buttons after a reload.
      const permission = e.permission && !e.permission.outcome ? { ...e.permission, outcome: { outcome: "cancelled" as const }, by: "cancel" as const } : e.permission;
      return { ...e, ...(OPEN_TOOL.has(e.status) ? { status: "canceled" as const } : {}), ...(permission ? { permission } : {}) };
    }
    return e;
  });
  return { ...t, entries, endedAt: last, failed: `Interrupted: VS Code reloaded or closed while ${agentIdOf(s)} was working on this turn` };
}

/** Tracks the objects copied in this batch so each is copied at most once. */
class Draft {
  private readonly owned = new WeakSet<object>();
  own<T extends object>(o: T): T {
    if (this.owned.has(o)) return o;
    const copy = (Array.isArray(o) ? o.slice() : { ...o }) as T;
    this.owned.add(copy);
    return copy;
  }
  fresh<T extends object>(o: T): T {
    this.owned.add(o);
    return o;
  }
}

/** Folds a batch of events into the state; returns the input unchanged for an empty batch. */
export function reduce(state: ViewState, events: readonly ThoughtEvent[]): ViewState {
  if (events.length === 0) return state;
  const d = new Draft();
  const next = d.own(state);
  next.sessions = d.own(state.sessions);
  for (const e of events) apply(d, next, e);
  next.version = state.version + events.length;
  return next;
}

function session(d: Draft, s: ViewState, e: ThoughtEvent): SessionView {
  let view = s.sessions[e.sessionId];
  if (!view) {
    view = d.fresh<SessionView>({
      sessionId: e.sessionId, agentName: "agent", cwd: "", status: "idle", configOptions: [], commands: [], banners: [], turns: [],
      toolIndex: {}, pendingPermissions: {}, eventCount: 0, lastSeq: 0,
    });
    s.order = d.own(s.order);
    s.order.push(e.sessionId);
  } else {
    view = d.own(view);
  }
  s.sessions[e.sessionId] = view;
  return view;
}

/** The turn the event belongs to, copied for writing; undefined outside turns. */
function turn(d: Draft, v: SessionView, turnId: number | undefined): TurnView | undefined {
  if (turnId === undefined) return undefined;
  const idx = v.turns.length - 1;
  const last = v.turns[idx];
  if (!last || last.turnId !== turnId) return undefined;
  v.turns = d.own(v.turns);
  const t = d.own(last);
  t.entries = d.own(t.entries);
  v.turns[idx] = t;
  return t;
}

function lastEntry(t: TurnView): Entry | undefined {
  return t.entries[t.entries.length - 1];
}

function withChip(list: Attachment[] | undefined, chip: Attachment): Attachment[] {
  return list && list.length >= MAX_ATTACHMENTS ? list : [...(list ?? []), chip];
}

/**
 * Text appended to an entry by the batch that made it: `from` is the entry it grew from (the state
 * before) and `added` what came after `from`'s text. A renderer that drew `from` draws only this:
 * reading the tail of the grown text (a slice, a character) makes V8 copy the whole string first,
 * which for a thought of 5 MB cost the panel about 2 ms and 5 MB of garbage a frame. Each record
 * forgets the one two steps back, so only the last few steps are kept; a renderer further behind
 * reads the text itself.
 */
interface Growth { from: object | undefined; added: string[] }
const growth = new WeakMap<object, Growth>();
/** Only the webview draws from these (the host does not keep them: each keeps earlier versions' texts alive). */
let trackingGrowth = false;

/** Records what text entries grow by from now on, in this process (the webview, at its start). */
export function trackTextGrowth(): void {
  trackingGrowth = true;
}

/**
 * What was appended to `entry`'s text since it was `drawn` (an earlier version of it), or
 * undefined when that is not known here. The walk back ends where recordGrowth cut the chain.
 */
export function appendedSince(entry: object, drawn: object): string | undefined {
  const steps: string[][] = [];
  for (let cur: object | undefined = entry; cur !== drawn; ) {
    const g: Growth | undefined = cur === undefined ? undefined : growth.get(cur);
    if (!g) return undefined;
    steps.push(g.added);
    cur = g.from;
  }
  let out = "";
  for (let i = steps.length - 1; i >= 0; i--) out += steps[i]!.join("");
  return out;
}

/** `c` (a copy of `last`, or `last` itself when this batch made it) grows by `text`; the record two steps back forgets where it came from. */
function recordGrowth(c: object, last: object, text: string): void {
  if (c === last) {
    growth.get(c)?.added.push(text);
    return;
  }
  const before = growth.get(last);
  const older = before?.from && growth.get(before.from);
  if (older) older.from = undefined;
  growth.set(c, { from: last, added: [text] });
}

/** Appends streamed text to the turn's last entry (which the caller checked is a text entry). */
function appendText(d: Draft, t: TurnView, last: Extract<Entry, { text: string }>, text: string): void {
  const c = d.own(last);
  if (trackingGrowth) recordGrowth(c, last, text);
  c.text += text;
  t.entries[t.entries.length - 1] = c;
}

function closeThought(d: Draft, t: TurnView, at: number): void {
  const last = lastEntry(t);
  if (last?.type === "thought" && last.endedAt === undefined) {
    const c = d.own(last);
    // A finished thought grows no more: its record (and the earlier versions it keeps alive) goes.
    growth.delete(c);
    c.endedAt = at;
    t.entries[t.entries.length - 1] = c;
  }
}

function pushEntry(d: Draft, v: SessionView, t: TurnView | undefined, entry: Entry, at: number): void {
  if (!t) {
    v.banners = d.own(v.banners);
    v.banners.push(d.fresh(entry));
    return;
  }
  closeThought(d, t, at);
  t.entries.push(d.fresh(entry));
}

/** Tool calls added to `newTools` before they are merged into `toolIndex`. */
const NEW_TOOLS = 64;

/**
 * Puts a tool call's position in the session's index. A copy of the whole index for every batch
 * that adds a tool call cost as much as the session had tool calls (the largest share of what the
 * reducer allocated in a long session); the newest are copied instead, and merged into the whole
 * index once every NEW_TOOLS.
 */
function indexTool(d: Draft, v: SessionView, toolCallId: string, pos: [number, number]): void {
  const added = d.own(v.newTools ?? {});
  setIndexed(added, toolCallId, pos);
  if (Object.keys(added).length < NEW_TOOLS) {
    v.newTools = added;
    return;
  }
  v.toolIndex = { ...v.toolIndex, ...added };
  delete v.newTools;
}

/** The tool entry for an id, copied for writing. */
function tool(d: Draft, v: SessionView, toolCallId: string): ToolEntry | undefined {
  const found = toolAt(v, toolCallId);
  if (!found) return undefined;
  const { pos: [ti, ei], entry } = found;
  const t0 = v.turns[ti]!;
  v.turns = d.own(v.turns);
  const t = d.own(t0);
  t.entries = d.own(t.entries);
  v.turns[ti] = t;
  const c = d.own(entry);
  t.entries[ei] = c;
  return c;
}

type ToolCutField = "title" | "rawInput" | "rawOutput" | "content" | "locations";
const TOOL_CUT_FIELDS: readonly ToolCutField[] = ["title", "rawInput", "rawOutput", "content", "locations"];

/** For each field the event sets, records what was cut of it (or that nothing was, any more). */
function setCuts(c: ToolEntry, e: { cuts?: Cuts } & Partial<Record<ToolCutField, unknown>>, fields: readonly ToolCutField[]): void {
  let cuts: Cuts | undefined = c.cuts;
  for (const f of fields) {
    if (e[f] === undefined) continue;
    const cut = e.cuts?.[f];
    if (cut === cuts?.[f]) continue;
    cuts = { ...cuts };
    if (cut) cuts[f] = cut;
    else delete cuts[f];
  }
  if (cuts === c.cuts) return;
  if (cuts && Object.keys(cuts).length > 0) c.cuts = cuts;
  else delete c.cuts;
}

const isFinal = (s: ToolViewStatus): boolean => s === "completed" || s === "failed" || s === "rejected" || s === "canceled";
/** A call the user rejected or whose turn was cancelled stays so when the agent then reports it failed (it did not run, or was stopped). */
const stoppedByUser = (s: ToolViewStatus): boolean => s === "rejected" || s === "canceled";

function apply(d: Draft, s: ViewState, e: ThoughtEvent): void {
  const v = session(d, s, e);
  v.eventCount++;
  v.lastSeq = e.seq;
  switch (e.kind) {
    case "session_start":
      v.agentName = e.agentName;
      if (e.agentId) v.agentId = e.agentId;
      if (e.agentVersion) v.agentVersion = e.agentVersion;
      v.cwd = e.cwd;
      if (e.agentSessionId) v.agentSessionId = e.agentSessionId;
      if (e.abilities) v.abilities = e.abilities;
      if (e.mcpServers) v.mcpServers = e.mcpServers.slice(0, 64);
      if (e.continued) {
        // The agent took the saved session back: it is live again, in the same card list.
        delete v.restored;
        delete v.saved;
        delete v.fatalError;
        delete v.fatalHint;
        v.status = "idle";
      }
      if (e.modes) v.modes = e.modes;
      if (e.configOptions) v.configOptions = e.configOptions;
      if (e.models) v.models = e.models;
      return;
    case "turn_start": {
      v.turns = d.own(v.turns);
      v.turns.push(d.fresh<TurnView>({ turnId: e.turnId, prompt: "", startedAt: e.at, entries: d.fresh([]) }));
      v.status = "running";
      return;
    }
    case "user_message": {
      const t = turn(d, v, e.turnId);
      const chip = attachmentOf(e.content);
      if (chip) {
        const last = t && lastEntry(t);
        if (t && t.entries.length === 0) t.attachments = withChip(t.attachments, chip);
        else if (t && last?.type === "user") {
          const c = d.own(last);
          c.attachments = withChip(c.attachments, chip);
          t.entries[t.entries.length - 1] = c;
        } else pushEntry(d, v, t, { type: "user", id: `e${e.seq}`, text: "", attachments: [chip], at: e.at }, e.at);
        return;
      }
      if (t && t.entries.length === 0 && !t.prompt) {
        t.prompt = e.text;
        return;
      }
      const last = t && lastEntry(t);
      if (t && last?.type === "user") {
        appendText(d, t, last, e.text);
        return;
      }
      pushEntry(d, v, t, { type: "user", id: `e${e.seq}`, text: e.text, at: e.at }, e.at);
      return;
    }
    case "thought": {
      const t = turn(d, v, e.turnId);
      const last = t && lastEntry(t);
      if (t && last?.type === "thought" && last.endedAt === undefined) {
        appendText(d, t, last, e.text);
        return;
      }
      pushEntry(d, v, t, { type: "thought", id: `e${e.from ?? e.seq}`, text: e.text, startedAt: e.at }, e.at);
      return;
    }
    case "message": {
      const t = turn(d, v, e.turnId);
      const last = t && lastEntry(t);
      if (t && last?.type === "message" && (e.messageId === undefined || last.messageId === e.messageId)) {
        appendText(d, t, last, e.text);
        return;
      }
      pushEntry(d, v, t, { type: "message", id: `e${e.from ?? e.seq}`, text: e.text, at: e.at, ...(e.messageId ? { messageId: e.messageId } : {}) }, e.at);
      return;
    }
    case "tool_start": {
      const t = turn(d, v, e.turnId);
      const entry: ToolEntry = {
        type: "tool", id: `e${e.seq}`, toolCallId: e.toolCallId, title: e.title, toolKind: e.toolKind ?? "other",
        status: e.status ?? "pending", announced: e.announced, content: e.content ?? [], locations: e.locations ?? [], startedAt: e.at,
        ...(e.rawInput !== undefined ? { rawInput: e.rawInput } : {}), ...(e.rawOutput !== undefined ? { rawOutput: e.rawOutput } : {}),
      };
      setCuts(entry, e, TOOL_CUT_FIELDS);
      applyTerminal(entry, e.terminal);
      if (!t) {
        // A tool call outside a turn (late update): show it as its own pseudo-turn-less banner.
        pushEntry(d, v, undefined, entry, e.at);
        return;
      }
      pushEntry(d, v, t, entry, e.at);
      indexTool(d, v, e.toolCallId, [v.turns.length - 1, t.entries.length - 1]);
      return;
    }
    case "tool_update": {
      const c = tool(d, v, e.toolCallId);
      if (!c) return;
      if (e.title !== undefined) c.title = e.title;
      if (e.toolKind !== undefined) c.toolKind = e.toolKind;
      if (e.status !== undefined && !(isFinal(c.status) && (e.status === "pending" || e.status === "in_progress")) && !(stoppedByUser(c.status) && e.status === "failed")) {
        if (c.status !== "awaiting_permission" || e.status !== "pending") c.status = e.status;
      }
      if (e.content !== undefined) c.content = e.content;
      if (e.locations !== undefined) c.locations = e.locations;
      if (e.rawInput !== undefined) c.rawInput = e.rawInput;
      if (e.rawOutput !== undefined) c.rawOutput = e.rawOutput;
      setCuts(c, e, TOOL_CUT_FIELDS);
      applyTerminal(c, e.terminal);
      return;
    }
    case "tool_done": {
      const c = tool(d, v, e.toolCallId);
      if (!c) return;
      if (!(stoppedByUser(c.status) && e.outcome !== "completed")) c.status = e.outcome;
      c.endedAt = e.at;
      if (e.rawOutput !== undefined) c.rawOutput = e.rawOutput;
      setCuts(c, e, ["rawOutput"]);
      return;
    }
    case "plan": {
      v.plan = e.entries;
      const cut = e.cuts?.entries;
      if (cut) v.planCut = cut;
      else delete v.planCut;
      const t = turn(d, v, e.turnId);
      if (!t) return;
      // One plan card per turn, updated in place.
      const idx = t.entries.findIndex((x) => x.type === "plan");
      if (idx >= 0) {
        const c = d.own(t.entries[idx] as Extract<Entry, { type: "plan" }>);
        c.entries = e.entries;
        if (cut) c.cut = cut;
        else delete c.cut;
        c.at = e.at;
        t.entries[idx] = c;
      } else {
        pushEntry(d, v, t, { type: "plan", id: `e${e.seq}`, entries: e.entries, ...(cut ? { cut } : {}), at: e.at }, e.at);
      }
      return;
    }
    case "usage":
      v.usage = { used: e.used, size: e.size, ...(e.cost ? { cost: e.cost } : {}) };
      return;
    case "session_info":
      if (e.title !== undefined) {
        if (e.title === null) delete v.title;
        else v.title = e.title;
      }
      return;
    case "mode":
      if (v.modes) v.modes = { ...v.modes, currentModeId: e.currentModeId };
      else v.modes = { currentModeId: e.currentModeId, availableModes: [] };
      return;
    case "config_options":
      v.configOptions = e.options;
      return;
    case "commands":
      v.commands = e.commands;
      return;
    case "notice":
      pushEntry(d, v, turn(d, v, e.turnId), { type: "notice", id: `e${e.seq}`, severity: e.severity, title: e.title, at: e.at, ...(e.description ? { description: e.description } : {}), ...(e.action ? { action: e.action } : {}) }, e.at);
      return;
    case "compaction":
      pushEntry(d, v, turn(d, v, e.turnId), { type: "notice", id: `e${e.seq}`, severity: e.error ? "error" : "info", title: `Context compaction ${e.status}`, at: e.at, ...(e.summary || e.error ? { description: e.error ?? e.summary } : {}) }, e.at);
      return;
    case "compaction_summary":
      return;
    case "permission_request": {
      v.pendingPermissions = d.own(v.pendingPermissions);
      v.pendingPermissions[e.requestId] = e.toolCallId;
      v.status = "awaiting_permission";
      const c = tool(d, v, e.toolCallId);
      if (c) {
        c.permission = { requestId: e.requestId, options: e.options, ...(e.guard ? { guard: e.guard } : {}) };
        if (!isFinal(c.status)) c.status = "awaiting_permission";
      }
      return;
    }
    case "permission_outcome": {
      v.pendingPermissions = d.own(v.pendingPermissions);
      delete v.pendingPermissions[e.requestId];
      if (v.status === "awaiting_permission" && Object.keys(v.pendingPermissions).length === 0) v.status = "running";
      const c = tool(d, v, e.toolCallId);
      if (c?.permission?.requestId === e.requestId) {
        c.permission = { ...c.permission, outcome: e.outcome, by: e.by };
        const chosen = e.outcome.outcome === "selected" ? c.permission.options.find((o) => o.optionId === (e.outcome as { optionId: string }).optionId) : undefined;
        if (chosen?.kind.startsWith("reject")) c.status = "rejected";
        else if (e.outcome.outcome === "cancelled") c.status = "canceled";
        else if (c.status === "awaiting_permission") c.status = "pending";
      }
      return;
    }
    case "elicitation_request":
      v.elicitation = { requestId: e.requestId, message: e.message, fields: e.fields, at: e.at, ...(e.problems?.length ? { problems: e.problems } : {}), ...(e.toolCallId ? { toolCallId: e.toolCallId } : {}), ...(e.url && e.origin ? { url: e.url, origin: e.origin } : {}) };
      return;
    case "elicitation_outcome": {
      const asked = v.elicitation?.requestId === e.requestId ? v.elicitation.message : undefined;
      if (asked !== undefined) delete v.elicitation;
      const said = e.action === "accept" ? "You answered the agent's question" : e.action === "decline" ? "You declined the agent's question" : e.by === "cancel" ? "The agent's question was cancelled with its turn" : "You cancelled the agent's question";
      pushEntry(d, v, turn(d, v, e.turnId), { type: "notice", id: `e${e.seq}`, severity: "info", title: said, at: e.at, ...(asked ? { description: asked.length > 300 ? `${asked.slice(0, 300)}…` : asked } : {}) }, e.at);
      return;
    }
    case "session_end":
      // Whether a prompt continues it, or why not, is said above the prompt box.
      pushEntry(d, v, undefined, { type: "notice", id: `e${e.seq}`, severity: "info", title: "Session closed", at: e.at }, e.at);
      v.status = "ended";
      v.pendingPermissions = {};
      delete v.elicitation;
      return;
    case "turn_end":
    case "error": {
      const t = turn(d, v, e.turnId);
      if (e.kind === "error") {
        pushEntry(d, v, t, { type: "error", id: `e${e.seq}`, message: e.message, fatal: e.fatal, at: e.at, ...(e.detail ? { detail: e.detail } : {}) }, e.at);
        if (e.fatal) {
          v.fatalError = e.message;
          if (e.detail) v.fatalHint = e.detail;
          v.status = "ended";
        }
      }
      if (t) {
        closeThought(d, t, e.at);
        t.endedAt = e.at;
        if (e.kind === "turn_end") t.stopReason = e.stopReason;
        else t.failed = e.message;
      }
      if (v.status !== "ended" && (e.kind === "turn_end" || t)) {
        v.status = "idle";
        v.pendingPermissions = {};
        delete v.elicitation;
      }
      return;
    }
    case "unknown":
      pushEntry(d, v, turn(d, v, e.turnId), { type: "unknown", id: `e${e.seq}`, what: e.what, reason: e.reason, at: e.at }, e.at);
      return;
  }
}

/**
 * The view keeps the tail of a command's streamed output (the card shows its last lines; the
 * pseudoterminal and the transcript have the rest). Trimmed at twice the size, so appending stays
 * linear however much a command prints.
 */
export const TERMINAL_VIEW_CHARS = 256 * 1024;

function applyTerminal(c: ToolEntry, meta: TerminalMeta | undefined): void {
  if (!meta) return;
  if (meta.output !== undefined) {
    const out = meta.replace ? meta.output : (c.terminalOutput ?? "") + meta.output;
    c.terminalOutput = out.length > 2 * TERMINAL_VIEW_CHARS ? out.slice(-TERMINAL_VIEW_CHARS) : out;
  }
  if (meta.exit) c.terminalExit = meta.exit;
}
