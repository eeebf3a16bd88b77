/**
 * The thought panel's host side: owns the view state (folded from the thought stream), and keeps
 * every open webview (the sidebar `WebviewView` and the editor `WebviewPanel`) in sync over one
 * ordered channel — a snapshot on `ready`, then one patch at a time with the coalesced
 * events since. Validates and carries out the webview's verbs.
 */
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentStatus, SessionManager } from "../acp/sessionManager";
import { boundEvent } from "../shared/bound";
import type { ThoughtEvent } from "../shared/events";
import {
  agentIdOf, EMPTY_STATE, findToolEntry, isLoading, markRestored, prependTurns, putSessions, reduce, savedView, withTurns, type SavedInfo, type SavedSession, type SessionView, type ToolEntry, type ViewState,
} from "../shared/viewModel";
import { parseWebviewMessage, type HostInfo, type HostMessage, type WebviewMessage } from "../shared/protocol";
import type { AgentRegistry } from "./agents";
import type { Logger } from "../acp/ports";
import type { PermissionBroker } from "./permissionBroker";
import type { ToolOutputs } from "./toolOutputs";
import { plainText } from "../core/plainText";
import { coalesce, HeldText, nextPatch, patchHeldUntil, patchQueue, shareLoggedText, type ViewProgress } from "../core/panelPatches";
import { QuestionSight } from "../core/questionSight";
import { TimeSlice } from "../core/sleep";
import { planSnapshot, type SnapshotPiece } from "../core/snapshotPieces";
import type { AgentLinks } from "./links";
import type { Checkpoints } from "./checkpoints";
import type { MentionPort } from "./mentions";
import type { PromptFilesPort } from "./promptFiles";

/**
 * Patches go out at most this often (one after a quiet spell goes at once). The pace is the
 * webview's: the next patch waits until it has the last one (a round trip, ~10 ms), so one is on
 * its way at a time and the next frame draws what arrived meanwhile.
 */
const FRAME_MS = 8;
/**
 * A patch waits until a visible webview has the one before it, but no longer than this (a webview
 * that never answers still gets its patches, at this pace).
 */
const APPLIED_WAIT_MS = 1_000;
const MAX_GAP_MS = 100;
/**
 * A snapshot is the whole view state, serialised on the extension host's thread and carried to the
 * webview whole: a webview asking in a loop (a bug, or a script that got into it) would otherwise
 * keep the host doing nothing else, and with a state of megabytes pile copies up faster than they
 * are carried (seen: a 10 MB state asked for 300 times held the host 32 s and took it to 2.7 GB).
 * So a webview has one snapshot on its way at a time (one asked for meanwhile waits until it has
 * arrived, or the window below and at least SNAPSHOT_FLIGHT_MS after it was posted), and at most
 * SNAPSHOT_BURST within a window counted from when each arrived: SNAPSHOT_COST_TIMES the host time a
 * snapshot takes (the less of the last two, so one slowed by a collection does not stretch it), at
 * least SNAPSHOT_WINDOW_MS and at most SNAPSHOT_WINDOW_MAX_MS: asks in a loop so cost the host a
 * tenth of its time, whatever the state's size. One asked for sooner comes when the time is up,
 * however often it was asked meanwhile. The burst lets a panel reloaded just after its last
 * snapshot have the next at once; and a panel the user hid and shows again (an editor panel loads
 * anew when shown) has its `ready` answered without the window (only the user can do that).
 */
const SNAPSHOT_WINDOW_MS = 500;
const SNAPSHOT_WINDOW_MAX_MS = 20_000;
const SNAPSHOT_BURST = 2;
const SNAPSHOT_COST_TIMES = 20;
const SNAPSHOT_FLIGHT_MS = 2_000;
/** An ask for a snapshot older than the last one posted is taken as sent before that one arrived, this long after it was posted. */
const STALE_ASK_MS = 30_000;
/** After a post fails, a fresh snapshot follows after 100, 200, 400… ms, at most this many times in a row. */
const POST_RETRIES = 6;
const POST_RETRY_MS = 100;
/** How long an editor panel shown again, its patches stopped while hidden, may take to say ready before it is sent a snapshot anyway. */
const SHOWN_READY_WAIT_MS = 5_000;

const TEST_MODE = !!process.env.AGENT_THOUGHTS_TEST_MODE;

/** A question the visible panel has not put on screen within this long comes as a notification too. */
export const UNSEEN_QUESTION_MS = 1500;

/** Reading a saved session back: events folded per reduce call (slices of HOST_SLICE_MS in between). */
const FOLD_BATCH = 500;
/**
 * A saved session read back reaches the panel in pieces of whole turns of about this much JSON,
 * newest first: posting a message serialises it in one go on the extension host (an hour-long
 * session's view is ~4.5 MB, ~50 ms in one post here).
 */
const PIECE_BYTES = 512 * 1024;
/** A snapshot's pieces are smaller: each is posted at once, in the same task that makes it. */
const SNAPSHOT_PIECE_CHARS = 256 * 1024;
/** The text of sessions the panel does not show reaches it this often (HeldText). */
const HELD_MS = 250;

function* chunks<T>(list: readonly T[], size: number): Iterable<T[]> {
  for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size);
}

/**
 * A session's view folded from its events off to the side, in slices (the host keeps answering
 * the panel and the agents meanwhile), as the live path folds them: coalesced, bounded for the panel.
 */
async function foldSliced(batches: Iterable<ThoughtEvent[]> | AsyncIterable<ThoughtEvent[]>, sessionId: string): Promise<SessionView | undefined> {
  let side: ViewState = EMPTY_STATE;
  const slice = new TimeSlice();
  for await (const batch of batches) {
    side = reduce(side, coalesce(batch).map(boundEvent));
    if (slice.due()) await slice.pause();
  }
  return side.sessions[sessionId];
}

/** What the panel needs of the saved sessions (`TranscriptStore`). */
export interface SavedHistory {
  /** The saved sessions the index knows, without reading their transcripts. */
  saved(): Promise<SavedSession[]>;
  /** More saved sessions, as an index that was missing or behind is made good. */
  onDidIndex(listener: (sessions: SavedSession[]) => void): { dispose(): void };
  /** A session's start and its last turn(s), to show at once; undefined when there is no such tail to read. */
  tail(sessionId: string): Promise<ThoughtEvent[] | undefined>;
  /** All of a session's events, in batches, read without blocking the extension host. */
  events(sessionId: string): AsyncIterable<ThoughtEvent[]>;
}

interface View extends ViewProgress {
  webview: vscode.Webview;
  kind: "sidebar" | "editor";
  /** False until the webview says `ready`; patches go only to ready views. */
  ready: boolean;
  visible: () => boolean;
  /** Failed posts since the last delivered snapshot, and the pending re-sync. */
  failures: number;
  resync?: NodeJS.Timeout;
  /** When its last SNAPSHOT_BURST snapshots arrived (performance.now()), oldest first, and the one asked for that waits for the window. */
  snapshotsAt: number[];
  asked?: NodeJS.Timeout;
  /** The snapshot on its way (when its post ended), and the host time the last two took. */
  inFlight?: { at: number };
  snapshotCosts: { ms: number }[];
  /** An editor panel hidden since its last snapshot; and the ask waiting is the `ready` of its showing again (no window). */
  hidden?: boolean;
  askedShown?: boolean;
  /** The version of the last snapshot posted to it, and when. */
  snapshotVersion?: { version: number; at: number };
  /** A snapshot's pieces on their way (`planSnapshot`): what is posted to it meanwhile waits in `queue`, in order, and goes after them. */
  filling?: Filling;
  /** What waited behind a fill that ended early and is not state (a reveal, focus): it goes after the next snapshot. */
  afterSnapshot: HostMessage[];
}

/** A snapshot's pieces being posted (`fill`). */
interface Filling {
  queue: [HostMessage, (() => void) | undefined][];
  /** The snapshot's host time so far: its entry in the view's `snapshotCosts` (its window). */
  cost: { ms: number };
  inFlight: { at: number };
  /** Pieces posted, and those that reached the webview (or failed to); posted all. */
  posted: number;
  settled: number;
  complete: boolean;
  figures: FillFigures;
}

/** What a snapshot in pieces took (for tests and the benchmark); `hostMs`, its cost in all, once it has `ended`. */
export interface FillFigures { pieces: number; headMs: number; hostMs: number; longestMs: number; tookMs: number; ended: boolean; whole: boolean }

/**
 * A verb about something that is not there (any more): an unknown session, permission request or
 * tool call, a second answer, a cancel with no turn. Stale views and double clicks send these, and
 * so could a script in the webview; they are logged and ignored, never shown as an error.
 */
class OutOfStateMessage extends Error {}

export class ThoughtPanelController implements vscode.Disposable {
  private state: ViewState = EMPTY_STATE;
  private readonly pending = patchQueue();
  private timer: NodeJS.Timeout | undefined;
  /** When the last patch went out: the next one follows at least a frame later (a lone event goes at once). */
  private flushedAt = 0;
  /** The time between patches: a frame, or as long as the webview took to apply the last one (at most MAX_GAP_MS). */
  private gapMs = FRAME_MS;
  /** The text of sessions the panel does not show, on its way at the HELD_MS pace. */
  private readonly held = new HeldText();
  private heldTimer: NodeJS.Timeout | undefined;
  /** The patch timer is waiting for a webview's `applied`. */
  private holding = false;
  private readonly views = new Set<View>();
  private activeSessionId: string | undefined;
  /** Agent start-up and the last failure outside any session, as the manager reported them. */
  private agentStatus: AgentStatus = {};
  private readonly disposables: vscode.Disposable[] = [];
  private editorPanel: vscode.WebviewPanel | undefined;
  private pendingReveal: { sessionId: string; toolCallId: string; at: number } | undefined;
  private readonly sight = new QuestionSight();
  /** Sessions deleted from the panel. */
  private readonly forgotten = new Set<string>();
  /**
   * TEST ONLY — faults the integration tests inject, honoured only when AGENT_THOUGHTS_TEST_MODE is
   * set (by test/host/runTests.mjs): the panel's event listener throws for the next
   * `throwingEvents` events, and the next `failingPosts` posts (to `failingKind` views only, when
   * set) fail without being sent; a snapshot's pieces go `pieceDelayMs` apart (a slow host).
   */
  readonly testFaults: { throwingEvents: number; failingPosts: number; failingKind?: View["kind"]; failAfterMs?: number; pieceDelayMs?: number } = { throwingEvents: 0, failingPosts: 0 };
  /** Counters for tests and the benchmark. */
  readonly stats = {
    /** The last snapshot sent in pieces: how many, the host time its first message and all of them took, the longest piece's, and ms from the first to the last. */
    lastFill: { pieces: 0, headMs: 0, hostMs: 0, longestMs: 0, tookMs: 0, ended: false, whole: false } as FillFigures,
    /** Messages that waited behind a snapshot's pieces. */
    fillQueued: 0,
    posts: 0, patches: 0, snapshots: 0, snapshotsAtOnce: 0, snapshotsDeferred: 0, snapshotsShown: 0, staleAsks: 0, eventsIn: 0, eventsPosted: 0, invalidMessages: 0, ignoredMessages: 0, prompts: 0, lastReadyAt: 0, lastSnapshotPostMs: 0, snapshotPostMs: 0, snapshotPostsMs: [] as number[], failedPosts: 0, resyncs: 0, resyncsHidden: 0, snapshotsToHidden: 0,
    /** The last saved session opened: ms from asking until its last turn(s), and until all of it, were in the state; the longest its posts took. */
    savedTailMs: NaN, savedLoadMs: NaN, savedPostMs: 0,
    /** Times a patch waited for a webview to apply the one before it. */
    heldPatches: 0,
    /** Events of sessions not shown that waited to go to the panel with others (HeldText). */
    heldEvents: 0,
    /** The last messages from a panel (not `applied`): when each reached the extension host (epoch ms), its type and session. */
    received: [] as [number, string, string][],
    /** Pages of agents' URL questions opened (each only on the user's click). */
    elicitationLinksOpened: 0,
  };
  private history: SavedHistory | undefined;
  /** Saved sessions being read, each once however many ask. */
  private readonly loads = new Map<string, Promise<boolean>>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly manager: SessionManager,
    private readonly registry: AgentRegistry,
    private readonly broker: PermissionBroker,
    private readonly logger: Logger,
    private readonly outputs: ToolOutputs,
    private readonly links: AgentLinks,
    private readonly checkpoints: Pick<Checkpoints, "turns" | "onDidChange">,
    private readonly mentions?: MentionPort,
    private readonly promptFiles?: PromptFilesPort,
  ) {
    this.disposables.push(
      manager.onEvent((e) => this.onEvent(e)),
      manager.onSession((s) => this.setActive(s.sessionId)),
      manager.onStatus((st) => { this.agentStatus = st; this.postHost(); }),
      checkpoints.onDidChange(() => this.postHost()),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration("agentThoughts")) this.postHost(); }),
    );
  }

  /** The current view state (for tests and exports). */
  get viewState(): ViewState {
    this.releaseHeld();
    this.flush();
    return this.state;
  }

  /** The session the panel shows. */
  get activeSession(): string | undefined {
    return this.activeSessionId;
  }

  get anyVisible(): boolean {
    return this.visibleViews().length > 0;
  }

  /** The views on screen now (a hidden one draws nothing). */
  private visibleViews(): View[] {
    return [...this.views].filter((v) => v.visible());
  }

  /**
   * Whether a visible view puts the request in front of the user within `ms` (the pinned question
   * reports itself once on screen); false at once when no view is visible.
   */
  seenWithin(requestId: string, ms: number): Promise<boolean> {
    return this.anyVisible ? this.sight.whenSeen(requestId, ms) : Promise.resolve(false);
  }

  private onEvent(e: ThoughtEvent): void {
    if (TEST_MODE && this.testFaults.throwingEvents > 0) {
      this.testFaults.throwingEvents--;
      throw new Error(`test fault: the panel's listener throws on event #${e.seq}`);
    }
    this.stats.eventsIn++;
    if (this.forgotten.has(e.sessionId)) return;
    if (e.kind === "elicitation_request") this.notifyQuestion(e);
    const now = this.held.take(e, this.shownSession());
    if (now.length === 0) {
      this.stats.heldEvents++;
      this.heldTimer ??= setTimeout(() => this.releaseHeld(), HELD_MS);
      return;
    }
    for (const x of now) this.pending.push(x);
    this.schedule();
  }

  /** Held text goes to the panel with the next patch: a session's (shown now), or every session's (their pace). */
  private releaseHeld(sessionId?: string): void {
    if (sessionId === undefined) {
      clearTimeout(this.heldTimer);
      this.heldTimer = undefined;
    }
    const released = this.held.release(sessionId);
    if (released.length === 0) return;
    for (const x of released) this.pending.push(x);
    this.schedule();
  }

  /** The next patch: at least FRAME_MS after the last one, once every visible ready webview has the last one. */
  private schedule(): void {
    if (this.timer) return;
    // No one sees a hidden panel: it is kept current at a slower pace (shown again, it draws and answers at once).
    const gap = this.visibleViews().some((v) => v.ready) ? this.gapMs : MAX_GAP_MS;
    this.timer = setTimeout(() => this.tick(), Math.max(0, this.flushedAt + gap - performance.now()));
  }

  /** A view was shown or hidden: the next patch goes at the pace for what is now seen. */
  visibilityChanged(): void {
    // An editor panel loads anew when shown (a sidebar view keeps its page).
    for (const v of this.views) {
      if (v.kind !== "editor") continue;
      if (!v.visible()) v.hidden = true;
      else if (v.hidden && !v.ready && !v.asked && !v.resync) {
        // Shown again with its patches stopped: its new page's ready brings the state; should no ready come, a snapshot does.
        v.resync = setTimeout(() => {
          v.resync = undefined;
          if (this.views.has(v) && !v.ready && !v.asked && v.visible()) this.snapshot(v);
        }, SHOWN_READY_WAIT_MS);
      }
    }
    if (!this.timer || this.holding) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule();
  }

  private tick(): void {
    this.timer = undefined;
    const now = performance.now();
    // A hidden webview, kept current at its slower pace, holds nothing up.
    const waitUntil = patchHeldUntil(this.visibleViews(), now, APPLIED_WAIT_MS);
    if (waitUntil === 0) {
      this.flush();
      return;
    }
    // A webview does not have the last one yet: its `applied` sends this one (appliedBy); this timer is the fallback.
    this.stats.heldPatches++;
    this.holding = true;
    this.timer = setTimeout(() => {
      this.holding = false;
      this.tick();
    }, waitUntil - now);
  }

  /** A webview has the state up to `version`: a patch held for it goes now. */
  private appliedBy(v: View, version: number): void {
    // The last one's round trip (posted → the webview says it has it) sets the pace: a patch no
    // sooner than that after the last, so a busy renderer keeps time for the user's clicks and keys.
    if (version >= v.posted && v.applied < v.posted) this.gapMs = Math.min(MAX_GAP_MS, Math.max(FRAME_MS, performance.now() - v.postedAt));
    v.applied = Math.max(v.applied, version);
    if (!this.holding) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.holding = false;
    this.schedule();
  }

  /**
   * An agent's question the panel does not put in front of the user (it is hidden, or shows
   * another session) comes as a notification too: Show brings the panel with it, Decline answers.
   */
  private notifyQuestion(e: Extract<ThoughtEvent, { kind: "elicitation_request" }>): void {
    // One the panel puts on screen (it reports that) needs no notification; one it does not, within a moment, does.
    void this.seenWithin(e.requestId, UNSEEN_QUESTION_MS).then((seen) => { if (!seen) this.showQuestionNotice(e); });
  }

  private showQuestionNotice(e: Extract<ThoughtEvent, { kind: "elicitation_request" }>): void {
    const s = this.state.sessions[e.sessionId];
    // Answered (or gone) meanwhile: nothing to ask any more.
    if (s && s.lastSeq >= e.seq && s.elicitation?.requestId !== e.requestId) return;
    const agent = s?.agentName ?? "The agent";
    const what = e.origin ? `asks you to open ${e.origin}` : "asks you a question";
    const text = plainText(`${agent} ${what}: ${e.message.length > 300 ? `${e.message.slice(0, 300)}…` : e.message}`);
    void vscode.window.showInformationMessage(text, "Show", "Decline").then(async (choice) => {
      if (choice === "Show") {
        if (this.state.sessions[e.sessionId]) this.select(e.sessionId);
        await vscode.commands.executeCommand("agentThoughts.panel.focus");
      } else if (choice === "Decline") {
        const refused = this.manager.sessionById(e.sessionId)?.answerElicitation(e.requestId, "decline");
        if (refused) void vscode.window.showInformationMessage("That question was already answered.");
      }
    });
  }

  /** Folds pending events and posts one patch to each ready view. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.holding = false;
    const next = nextPatch(this.state, this.pending);
    if (!next) return;
    this.flushedAt = performance.now();
    this.state = next.state;
    this.stats.patches++;
    this.stats.eventsPosted += next.patch.events.length;
    for (const v of this.views) if (v.ready) this.post(v, next.patch);
    for (const e of next.patch.events) if (e.kind === "turn_end" && e.turnId !== undefined) this.shareTurnText(e.sessionId, e.turnId);
  }

  /** A turn that ended keeps its text once: its entries take the session log's strings (shareLoggedText). */
  private shareTurnText(sessionId: string, turnId: number): void {
    const turn = this.state.sessions[sessionId]?.turns.find((t) => t.turnId === turnId);
    const log = this.manager.sessionById(sessionId)?.log;
    if (turn && log) shareLoggedText(turn, log.turn(turnId));
  }

  /** The session the panel shows: the one picked, else the newest (as the webview has it). */
  private shownSession(): string | undefined {
    return this.activeSessionId ?? this.state.order[this.state.order.length - 1];
  }

  /** Shows a session: its held text goes with the next patch. */
  private setActive(sessionId: string | undefined): void {
    this.activeSessionId = sessionId;
    const id = this.shownSession();
    if (id !== undefined) this.releaseHeld(id);
    this.postHost();
  }

  private hostInfo(): HostInfo {
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const display = config.get<string>("thinking.display");
    return {
      agents: this.registry.names(),
      defaultAgent: this.registry.defaultName(),
      thinkingDisplay: display === "expanded" || display === "collapsed" ? display : "auto",
      ...(this.activeSessionId ? { activeSessionId: this.activeSessionId } : {}),
      ...(this.agentStatus.starting ? { starting: this.agentStatus.starting } : {}),
      ...(this.agentStatus.error ? { hostError: this.agentStatus.error, ...(this.agentStatus.errorAgent ? { hostErrorAgent: this.agentStatus.errorAgent } : {}) } : {}),
      checkpoints: this.checkpoints.turns(),
      ...(Object.keys(this.manager.cannotContinue()).length ? { cannotContinue: this.manager.cannotContinue() } : {}),
    };
  }

  private postHost(): void {
    const msg: HostMessage = { type: "host", host: this.hostInfo() };
    for (const v of this.views) if (v.ready) this.post(v, msg);
  }

  /** `settled` is told when the message has reached the webview or failed to; `piece`: part of the snapshot being filled in (others wait for it). */
  private post(v: View, msg: HostMessage, settled?: () => void, piece?: View["filling"]): void {
    if (v.filling && v.filling !== piece) {
      v.filling.queue.push([msg, settled]);
      this.stats.fillQueued++;
      return;
    }
    this.stats.posts++;
    const version = msg.type === "snapshot" ? msg.version : msg.type === "patch" || msg.type === "sessions" || msg.type === "turns" ? msg.to : undefined;
    if (version !== undefined) {
      v.posted = version;
      v.postedAt = performance.now();
    }
    const failed = (reason: string): void => {
      settled?.();
      this.postFailed(v, msg.type, reason);
    };
    if (TEST_MODE && this.testFaults.failingPosts > 0 && (!this.testFaults.failingKind || this.testFaults.failingKind === v.kind)) {
      this.testFaults.failingPosts--;
      // As a real post fails: at once, or (failAfterMs) some time after it was made, as one to a webview closed meanwhile does.
      const after = this.testFaults.failAfterMs;
      if (after === undefined) queueMicrotask(() => failed("test fault"));
      else setTimeout(() => failed("test fault"), after);
      return;
    }
    let sent: Thenable<boolean>;
    try {
      sent = v.webview.postMessage(msg);
    } catch (err) {
      failed(err instanceof Error ? err.message : String(err));
      return;
    }
    sent.then((delivered) => {
      if (!delivered) failed("not delivered");
      else {
        settled?.();
        if (msg.type === "snapshot") v.failures = 0;
      }
    }, (err: unknown) => failed(err instanceof Error ? err.message : String(err)));
  }

  /**
   * A message that did not reach the webview leaves it behind (and, unnoticed, stuck at an old
   * version): stop patching it and send a fresh snapshot shortly, with growing pauses, a bounded
   * number of times in a row. A view that went away is left alone (a new one says `ready`).
   */
  private postFailed(v: View, what: HostMessage["type"], reason: string): void {
    this.stats.failedPosts++;
    v.ready = false;
    // Closed since the post was made (its webview is disposed: nothing to re-sync, nor to ask).
    if (!this.views.has(v)) return;
    // An editor panel the user hid has no page (it loads anew, and says ready, when shown): a
    // snapshot now would cost the host its post for nothing, a whole state each time.
    if (v.kind === "editor" && !v.visible()) {
      v.hidden = true;
      return;
    }
    if (v.resync) return;
    if (v.failures >= POST_RETRIES) {
      if (v.failures === POST_RETRIES) this.logger.warn(`The ${v.kind} panel did not take ${POST_RETRIES} snapshots in a row (last: ${reason}); it re-syncs when it reloads.`);
      v.failures++;
      return;
    }
    this.logger.warn(`A ${what} for the ${v.kind} panel was not delivered (${reason}); sending a fresh snapshot.`);
    const delay = POST_RETRY_MS * 2 ** v.failures;
    v.failures++;
    v.resync = setTimeout(() => {
      v.resync = undefined;
      if (!this.views.has(v) || v.ready) return;
      // Hidden since the post failed: its page is gone (shown again, it loads and says ready).
      if (v.kind === "editor" && !v.visible()) {
        v.hidden = true;
        this.stats.resyncsHidden++;
        return;
      }
      this.stats.resyncs++;
      this.snapshot(v);
    }, delay);
  }

  /**
   * A webview asked for a snapshot: now, or when the one on its way has arrived and SNAPSHOT_BURST
   * snapshots are no longer within the window (one for any number of asks meanwhile); `shown`: it
   * says `ready` as it loads again. A webview that asks has nothing usable until then: no patches
   * go to it, and none wait for it.
   */
  private snapshotAsked(v: View, shown = false): void {
    v.ready = false;
    if (shown && v.hidden && v.visible()) {
      v.hidden = false;
      v.askedShown = true;
      this.stats.snapshotsShown++;
    }
    if (v.asked) {
      if (v.askedShown) this.snapshotLater(v, this.snapshotWait(v));
      return;
    }
    const wait = this.snapshotWait(v);
    if (wait <= 0) {
      this.stats.snapshotsAtOnce++;
      v.applied = 0;
      this.snapshot(v);
      return;
    }
    this.stats.snapshotsDeferred++;
    this.snapshotLater(v, wait);
  }

  /** How long until a webview may have its next snapshot (≤ 0: now); re-planned when the one on its way arrives. */
  private snapshotWait(v: View): number {
    const now = performance.now();
    if (v.inFlight) return v.inFlight.at + (v.askedShown ? SNAPSHOT_FLIGHT_MS : Math.max(SNAPSHOT_FLIGHT_MS, this.snapshotWindow(v))) - now;
    if (v.askedShown || v.snapshotsAt.length < SNAPSHOT_BURST) return 0;
    return v.snapshotsAt[0]! + this.snapshotWindow(v) - now;
  }

  private snapshotWindow(v: View): number {
    const cost = v.snapshotCosts.length ? Math.min(...v.snapshotCosts.map((c) => c.ms)) : 0;
    return Math.min(SNAPSHOT_WINDOW_MAX_MS, Math.max(SNAPSHOT_WINDOW_MS, SNAPSHOT_COST_TIMES * cost));
  }

  /** The snapshot's window starts (it arrived, or is taken to have: it failed, or another follows it). */
  private snapshotEnded(v: View): void {
    v.inFlight = undefined;
    v.snapshotsAt.push(performance.now());
    if (v.snapshotsAt.length > SNAPSHOT_BURST) v.snapshotsAt.shift();
  }

  private snapshotLater(v: View, wait: number): void {
    clearTimeout(v.asked);
    v.asked = setTimeout(() => {
      v.asked = undefined;
      if (!this.views.has(v)) return;
      v.applied = 0;
      try {
        this.snapshot(v);
      } catch (err) {
        this.logger.error(`The ${v.kind} panel's snapshot failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }, Math.max(0, wait));
  }

  /** A snapshot reached the webview (or failed to): its window starts, and one asked for meanwhile is planned anew. */
  private snapshotArrived(v: View, inFlight: View["inFlight"]): void {
    if (v.inFlight !== inFlight) return;
    this.snapshotEnded(v);
    if (v.asked && this.views.has(v)) this.snapshotLater(v, this.snapshotWait(v));
  }

  private snapshot(v: View): void {
    this.flush();
    this.stats.snapshots++;
    if (v.kind === "editor" && !v.visible()) this.stats.snapshotsToHidden++;
    this.stats.lastReadyAt = Date.now();
    // This one answers an ask waiting for the window, and a re-sync after a failed post.
    clearTimeout(v.resync);
    v.resync = undefined;
    clearTimeout(v.asked);
    v.asked = undefined;
    v.askedShown = false;
    v.ready = true;
    // One still on its way (a resync, a forgotten session, or it never said it arrived) counts as arrived now.
    if (v.inFlight) this.snapshotEnded(v);
    // This one replaces the last one's pieces still to come; what waited behind them and is not state goes after it.
    if (v.filling) this.fillEnded(v, v.filling, false);
    const started = performance.now();
    const version = this.state.version;
    v.snapshotVersion = { version, at: started };
    const inFlight = { at: started };
    v.inFlight = inFlight;
    const plan = planSnapshot(this.state, this.shownSession(), SNAPSHOT_PIECE_CHARS);
    const inPieces = plan.head !== this.state;
    // One in pieces has arrived when its last piece has.
    this.post(v, { type: "snapshot", version, state: plan.head, host: this.hostInfo() }, inPieces ? undefined : () => this.snapshotArrived(v, inFlight));
    const ended = performance.now();
    inFlight.at = ended;
    const cost = { ms: ended - started };
    v.snapshotCosts.push(cost);
    if (v.snapshotCosts.length > 2) v.snapshotCosts.shift();
    this.stats.lastSnapshotPostMs = Math.round(cost.ms);
    this.stats.snapshotPostMs += cost.ms;
    if (inPieces) this.fill(v, version, plan.pieces, cost, inFlight);
    else this.snapshotCost(cost.ms);
    const after = v.afterSnapshot;
    v.afterSnapshot = [];
    for (const msg of after) this.post(v, msg);
    if (this.pendingReveal && Date.now() - this.pendingReveal.at < 30_000) {
      this.post(v, { type: "reveal", sessionId: this.pendingReveal.sessionId, toolCallId: this.pendingReveal.toolCallId });
    }
    this.pendingReveal = undefined;
    this.loadShown();
  }

  /** What a snapshot cost the host, all of it (its pieces too), once it is posted. */
  private snapshotCost(ms: number): void {
    this.stats.snapshotPostsMs.push(ms);
    if (this.stats.snapshotPostsMs.length > 50) this.stats.snapshotPostsMs.shift();
  }

  /**
   * Posts a snapshot's pieces, one a macrotask (the host answers agents and the panel in between),
   * as `turns` at the snapshot's version; what is posted to the view meanwhile goes after them.
   * Each piece's host time adds to the snapshot's cost (its window), and it has arrived when the
   * last piece has. A newer snapshot, an ask for one, or a failed post ends it early.
   */
  private fill(v: View, version: number, pieces: Generator<SnapshotPiece, void, undefined>, cost: { ms: number }, inFlight: { at: number }): void {
    const figures: FillFigures = { pieces: 0, headMs: cost.ms, hostMs: 0, longestMs: 0, tookMs: 0, ended: false, whole: false };
    const filling: Filling = { queue: [], cost, inFlight, posted: 0, settled: 0, complete: false, figures };
    v.filling = filling;
    this.stats.lastFill = figures;
    const began = performance.now();
    const settled = (): void => {
      filling.settled++;
      if (filling.complete && filling.settled === filling.posted) this.snapshotArrived(v, inFlight);
    };
    const step = (): void => {
      if (v.filling !== filling) return;
      // Gone, or not taking patches any more (it asked for a snapshot, or a post to it failed): a new snapshot will do.
      if (!this.views.has(v) || !v.ready) {
        this.fillEnded(v, filling, false);
        return;
      }
      const started = performance.now();
      try {
        const next = pieces.next();
        if (next.done) {
          figures.tookMs = performance.now() - began;
          this.fillEnded(v, filling, true);
          return;
        }
        const { sessionId, turns, done } = next.value;
        filling.posted++;
        this.post(v, { type: "turns", from: version, to: version, sessionId, turns, done }, settled, filling);
      } catch (err) {
        this.fillEnded(v, filling, false);
        this.postFailed(v, "turns", err instanceof Error ? err.message : String(err));
        return;
      }
      const now = performance.now();
      const ms = now - started;
      inFlight.at = now;
      figures.pieces++;
      figures.longestMs = Math.max(figures.longestMs, ms);
      cost.ms += ms;
      this.stats.snapshotPostMs += ms;
      later();
    };
    const later = (): void => {
      // (Read before each piece: a test can slow the first pieces and let the rest go.)
      const delay = TEST_MODE ? this.testFaults.pieceDelayMs : undefined;
      if (delay === undefined) setImmediate(step);
      else setTimeout(step, delay);
    };
    later();
  }

  /**
   * A fill is over: `whole`, its last piece posted (what waited behind it goes now); or ended
   * early (what waited and is not state goes after the next snapshot; the snapshot counts as
   * arrived, so one asked for meanwhile is planned anew).
   */
  private fillEnded(v: View, filling: Filling, whole: boolean): void {
    if (v.filling === filling) v.filling = undefined;
    filling.complete = true;
    filling.figures.ended = true;
    filling.figures.whole = whole;
    filling.figures.hostMs = filling.cost.ms;
    this.snapshotCost(filling.cost.ms);
    if (whole) {
      for (const [msg, settled] of filling.queue) this.post(v, msg, settled);
      if (filling.settled === filling.posted) this.snapshotArrived(v, filling.inFlight);
      return;
    }
    for (const [msg, settled] of filling.queue) {
      settled?.();
      if (msg.type === "reveal" || msg.type === "focusPrompt") v.afterSnapshot.push(msg);
    }
    this.snapshotArrived(v, filling.inFlight);
  }

  /** Connects a webview (sidebar or editor) to the controller. */
  attach(webview: vscode.Webview, kind: View["kind"], visible: () => boolean, lifetime: vscode.Disposable[]): void {
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, "dist"), vscode.Uri.joinPath(this.extensionUri, "media")] };
    webview.html = this.html(webview, kind);
    // A disposed webview's `visible` throws; one the controller still holds (its dispose on its way) counts as not shown.
    const shown = (): boolean => {
      try {
        return visible();
      } catch {
        return false;
      }
    };
    const view: View = { webview, kind, ready: false, visible: shown, failures: 0, posted: 0, postedAt: 0, applied: 0, snapshotsAt: [], snapshotCosts: [], afterSnapshot: [] };
    this.views.add(view);
    lifetime.push(
      webview.onDidReceiveMessage((raw: unknown) => this.receive(view, raw)),
      { dispose: () => { this.views.delete(view); clearTimeout(view.resync); clearTimeout(view.asked); } },
    );
  }

  /** Opens (or reveals) the panel as an editor tab. */
  openInEditor(): void {
    if (this.editorPanel) {
      this.editorPanel.reveal(undefined, false);
      return;
    }
    const panel = vscode.window.createWebviewPanel("agentThoughts.editorPanel", "Agent Thoughts", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, { retainContextWhenHidden: false });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "icon.svg");
    this.editorPanel = panel;
    const lifetime: vscode.Disposable[] = [];
    this.attach(panel.webview, "editor", () => panel.visible, lifetime);
    lifetime.push(panel.onDidChangeViewState(() => this.visibilityChanged()));
    panel.onDidDispose(() => {
      this.editorPanel = undefined;
      for (const d of lifetime) d.dispose();
    });
  }

  /** Shows a tool call (and the thought before it) in the panel: "why this change?". */
  reveal(sessionId: string, toolCallId: string): void {
    if (isLoading(this.state.sessions[sessionId])) {
      // A saved session not read yet: shown now, and the tool call once its turns are in.
      this.select(sessionId);
      void this.ensureLoaded(sessionId).then((ok) => { if (ok) this.reveal(sessionId, toolCallId); });
      return;
    }
    this.flush();
    this.setActive(sessionId);
    const ready = [...this.views].filter((v) => v.ready);
    for (const v of ready) this.post(v, { type: "reveal", sessionId, toolCallId });
    // A panel still loading gets it right after its snapshot.
    this.pendingReveal = ready.length ? undefined : { sessionId, toolCallId, at: Date.now() };
  }

  /**
   * Lists the saved sessions as history, from the index only: each is a stand-in (`savedView`)
   * until it is shown, then read (`ensureLoaded`). On start the newest is the one shown.
   */
  async restore(history: SavedHistory): Promise<void> {
    this.history = history;
    this.disposables.push(history.onDidIndex((found) => this.listSaved(found)));
    this.listSaved(await history.saved());
  }

  /**
   * Removes a session from the panel (Delete Session); events still on their way for it are
   * dropped, so it cannot come back half.
   */
  forget(sessionId: string): void {
    this.flush();
    this.forgotten.add(sessionId);
    // Its text still held goes nowhere.
    this.held.release(sessionId);
    if (!this.state.sessions[sessionId]) return;
    const sessions = { ...this.state.sessions };
    delete sessions[sessionId];
    this.state = { version: this.state.version + 1, sessions, order: this.state.order.filter((id) => id !== sessionId) };
    if (this.activeSessionId === sessionId) this.activeSessionId = this.state.order[this.state.order.length - 1];
    for (const v of this.views) if (v.ready) this.snapshot(v);
  }


  private listSaved(found: readonly SavedSession[]): void {
    const views = found.filter((s) => !this.state.sessions[s.sessionId]).map(savedView);
    if (views.length === 0) return;
    // Saved sessions first, oldest first, then this window's in the order they started.
    const added = new Map(views.map((v) => [v.sessionId, v]));
    const lastAt = (id: string): number => (this.state.sessions[id] ?? added.get(id))?.saved?.lastAt ?? 0;
    const history = (id: string): boolean => !!this.state.sessions[id]?.restored && !!this.state.sessions[id]?.saved;
    const saved = [...this.state.order.filter(history), ...added.keys()].sort((a, b) => lastAt(a) - lastAt(b));
    this.putSessions(views, [...saved, ...this.state.order.filter((id) => !history(id))]);
    if (!this.activeSessionId) this.setActive(saved[saved.length - 1]);
    this.loadShown();
  }

  /** Puts whole session views into the state, and sends them to every ready view in the same ordered channel as the patches. */
  private putSessions(views: SessionView[], order: readonly string[]): void {
    this.flush();
    const from = this.state.version;
    this.state = putSessions(this.state, views, order);
    const started = performance.now();
    for (const v of this.views) if (v.ready) this.post(v, { type: "sessions", from, to: this.state.version, sessions: views, order: this.state.order });
    this.stats.savedPostMs = Math.max(this.stats.savedPostMs, performance.now() - started);
  }

  /** The shown session, when it is saved and not read yet and a panel is there to show it: read it. */
  private loadShown(): void {
    const id = this.activeSessionId;
    if (id && this.views.size > 0 && isLoading(this.state.sessions[id])) void this.ensureLoaded(id);
  }

  /**
   * Resolves once a session's whole transcript is folded into the view state: at once for a live
   * session or one already read; false when there is no such session or its transcript cannot be
   * read. A saved session shows its last turn(s) first, then all of it.
   */
  ensureLoaded(sessionId: string): Promise<boolean> {
    const s = this.state.sessions[sessionId];
    if (!s || s.saved?.loaded === "failed") return Promise.resolve(false);
    if (!isLoading(s)) return Promise.resolve(true);
    let loading = this.loads.get(sessionId);
    if (!loading) {
      loading = this.load(sessionId).finally(() => this.loads.delete(sessionId));
      this.loads.set(sessionId, loading);
    }
    return loading;
  }

  private async load(sessionId: string): Promise<boolean> {
    const history = this.history;
    if (!history) return false;
    const started = performance.now();
    try {
      const tail = await history.tail(sessionId);
      const shown = tail?.length ? await foldSliced(chunks(tail, FOLD_BATCH), sessionId) : undefined;
      if (shown && this.state.sessions[sessionId]?.saved?.loaded === "none") {
        this.putSaved(sessionId, shown, "tail");
        this.stats.savedTailMs = performance.now() - started;
      }
      const all = await foldSliced(history.events(sessionId), sessionId);
      if (!all) throw new Error("its transcript has no events of this session");
      await this.putWhole(sessionId, all);
      this.stats.savedLoadMs = performance.now() - started;
      return true;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.error(`Could not read the saved session ${sessionId}: ${message}`);
      this.putSaved(sessionId, undefined, "failed", message);
      return false;
    }
  }

  /**
   * A saved session's whole view, marked as history, put in (and posted) in pieces of whole turns
   * (PIECE_BYTES), newest first: its view with its last turns, then `prependTurns` until it is whole.
   */
  private async putWhole(sessionId: string, folded: SessionView): Promise<void> {
    const whole = markRestored({ version: 0, sessions: { [sessionId]: folded }, order: [sessionId] }, [sessionId]).sessions[sessionId]!;
    const slice = new TimeSlice();
    const starts: number[] = [];
    let size = 0;
    for (let i = whole.turns.length - 1; i >= 0; i--) {
      const bytes = JSON.stringify(whole.turns[i]).length;
      if (size > 0 && size + bytes > PIECE_BYTES) {
        starts.push(i + 1);
        size = 0;
      }
      size += bytes;
      if (slice.due()) await slice.pause();
    }
    starts.push(0);
    const last = whole.turns.slice(starts[0]);
    if (!this.putSaved(sessionId, withTurns(whole, last), starts[0] === 0 ? "all" : "tail")) return;
    for (let k = 1; k < starts.length; k++) {
      await slice.pause();
      // Only while it still stands for the saved session (the agent may take it back meanwhile).
      if (!this.state.sessions[sessionId]?.restored) return;
      this.flush();
      const from = this.state.version;
      const turns = whole.turns.slice(starts[k], starts[k - 1]);
      const done = starts[k] === 0;
      this.state = prependTurns(this.state, sessionId, turns, done);
      const started = performance.now();
      for (const v of this.views) if (v.ready) this.post(v, { type: "turns", from, to: this.state.version, sessionId, turns, done });
      this.stats.savedPostMs = Math.max(this.stats.savedPostMs, performance.now() - started);
    }
  }

  /** A saved session's view, read back (`folded`) as far as `loaded` says, marked as history; or the stand-in saying it cannot be read. False when the session no longer stands for a saved one. */
  private putSaved(sessionId: string, folded: SessionView | undefined, loaded: SavedInfo["loaded"], problem = ""): boolean {
    const current = this.state.sessions[sessionId];
    // Only what still stands for the saved session: one the agent took back meanwhile is live.
    if (!current?.restored || !current.saved) return false;
    const saved: SavedInfo = { ...current.saved, loaded };
    let view: SessionView;
    if (folded) {
      const marked = markRestored({ version: 0, sessions: { [sessionId]: folded }, order: [sessionId] }, [sessionId]).sessions[sessionId]!;
      // The index's title until the event that set it is read.
      view = { ...marked, saved, ...(marked.title === undefined && loaded === "tail" && current.title !== undefined ? { title: current.title } : {}) };
    } else {
      view = { ...current, saved, banners: [...current.banners, { type: "notice", id: "saved-unreadable", severity: "error", title: `Could not read this saved session: ${problem}`, at: Date.now() }] };
    }
    this.putSessions([view], this.state.order);
    return true;
  }

  /** Shows a session in the panel (reading it first when it is saved and not read yet). */
  select(sessionId: string): void {
    if (!this.state.sessions[sessionId]) return;
    this.setActive(sessionId);
    this.loadShown();
  }

  /** Asks the views to focus the prompt box. */
  focusPrompt(): void {
    for (const v of this.views) if (v.ready) this.post(v, { type: "focusPrompt" });
  }

  private html(webview: vscode.Webview, kind: View["kind"]): string {
    const nonce = randomBytes(16).toString("base64");
    const uri = (...p: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...p)).toString();
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `script-src 'nonce-${nonce}'`,
    ].join("; ");
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="preload" href="${uri("dist", "codicons", "codicon.ttf")}" as="font" type="font/ttf" crossorigin>
<link rel="stylesheet" href="${uri("dist", "codicons", "codicon.css")}">
<link rel="stylesheet" href="${uri("media", "panel.css")}">
<title>Agent Thoughts</title>
</head>
<body data-agent-thoughts-view="${kind}">
<div id="root"></div>
<script nonce="${nonce}" src="${uri("dist", "webview.js")}"></script>
</body>
</html>`;
  }

  private receive(view: View, raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.stats.invalidMessages++;
      this.logger.warn(`Ignored an invalid message from the ${view.kind} panel: ${parsed.reason}`);
      return;
    }
    this.handle(view, parsed.message).catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof OutOfStateMessage) {
        this.stats.ignoredMessages++;
        this.logger.warn(`Ignored ${parsed.message.type} from the ${view.kind} panel: ${message}`);
        return;
      }
      this.logger.error(`Panel action ${parsed.message.type} failed: ${message}`);
      void vscode.window.showErrorMessage(plainText(`Agent Thoughts: ${message}`));
    });
  }

  private async handle(view: View, m: WebviewMessage): Promise<void> {
    if (m.type !== "applied") {
      this.stats.received.push([performance.timeOrigin + performance.now(), m.type, "sessionId" in m ? m.sessionId ?? "" : ""]);
      if (this.stats.received.length > 100) this.stats.received.shift();
    }
    switch (m.type) {
      case "ready":
        this.snapshotAsked(view, true);
        return;
      case "requestSnapshot": {
        // Asked before the last snapshot reached it (a webview asks again when one is slow to come): that one answers it.
        const last = view.snapshotVersion;
        if (last && m.have < last.version && performance.now() - last.at < STALE_ASK_MS) {
          this.stats.staleAsks++;
          return;
        }
        this.snapshotAsked(view);
        return;
      }
      case "applied":
        this.appliedBy(view, m.version);
        return;
      case "sendPrompt": {
        this.stats.prompts++;
        const sessionId = m.newSession ? undefined : m.sessionId ?? this.activeSessionId;
        const shown = sessionId ? this.state.sessions[sessionId] : undefined;
        // Continue the shown session unless the user has picked another agent since: running, or
        // not (saved, closed, its agent died), when its agent takes it back (resume or load).
        const same = shown && agentIdOf(shown) === this.registry.defaultName();
        this.clearHostError();
        const images = m.images?.length ? this.promptFiles?.imageBlocks(m.images) ?? { blocks: [], refused: ["images cannot be sent from here"] } : undefined;
        if (images?.refused.length) {
          // The panel checked these already: a refusal here is a forged or broken message. Nothing is sent; the box gets the prompt back.
          this.logger.warn(`Refused a prompt's images: ${images.refused.join("; ")}`);
          this.agentStatus = { error: `The prompt was not sent: ${images.refused.join("; ")}` };
          this.postHost();
          return;
        }
        const mentioned = m.mentions?.length && this.mentions ? await this.mentions.blocks(m.mentions) : [];
        const extra = [...mentioned, ...(images?.blocks ?? [])];
        // Chips alone make a prompt; an empty one (no text, every mention left out) is not sent.
        if (!m.text.trim() && extra.length === 0) throw new Error("nothing to send: the prompt has no text and none of its mentions could be read (see the log)");
        const prompt = extra.length ? [...(m.text.trim() ? [{ type: "text" as const, text: m.text }] : []), ...extra] : m.text;
        // Failures are shown as events/banners.
        this.manager.run(prompt, same ? { sessionId: shown.sessionId } : { newSession: true }).catch(() => undefined);
        return;
      }
      case "mentionQuery": {
        const items = this.mentions ? await this.mentions.query(m.query) : [];
        // An answer is not state: one lost is just a list not shown (the next keystroke asks again).
        if (this.views.has(view)) void view.webview.postMessage({ type: "mentions", requestId: m.requestId, items } satisfies HostMessage).then(undefined, () => undefined);
        return;
      }
      case "pickImages":
      case "dropUris": {
        if (!this.promptFiles) return;
        const attached = m.type === "pickImages" ? await this.promptFiles.pickImages() : await this.promptFiles.dropped(m.uris);
        if (attached.refused.length) this.logger.info(`Not attached: ${attached.refused.join("; ")}`);
        // Like `mentions`, an answer is not state: the webview adds the chips to its box.
        if (this.views.has(view)) void view.webview.postMessage({ type: "attach", ...attached } satisfies HostMessage).then(undefined, () => undefined);
        return;
      }
      case "cancelTurn": {
        const session = this.requireSession(m.sessionId);
        if (!session.busy) throw new OutOfStateMessage(`no turn is running in session ${m.sessionId}`);
        session.cancelTurn();
        return;
      }
      case "questionSeen": {
        this.requireSession(m.sessionId);
        const s = this.state.sessions[m.sessionId];
        if (view.visible()) this.sight.markSeen(m.requestIds.filter((r) => (s !== undefined && Object.hasOwn(s.pendingPermissions, r)) || s?.elicitation?.requestId === r));
        return;
      }
      case "resolvePermission": {
        this.requireSession(m.sessionId);
        if (!this.broker.resolve(m.requestId, m.optionId, m.sessionId)) throw new OutOfStateMessage(`permission request ${m.requestId} of session ${m.sessionId} is not open or has no option ${String(m.optionId)}`);
        return;
      }
      case "answerElicitation": {
        const session = this.requireSession(m.sessionId);
        // A URL question opens its page only now, on the user's click, through the scheme-checked opener.
        const url = m.action === "accept" ? session.elicitationUrl(m.requestId) : undefined;
        if (url) this.stats.elicitationLinksOpened++;
        // Not opened (VS Code's "open this site?" dismissed): the agent is told the user did not go, and the panel is not left waiting.
        const action = url && await this.links.openLink(url) === "refused" ? "cancel" : m.action;
        const refused = session.answerElicitation(m.requestId, action, m.content);
        if (refused) throw new OutOfStateMessage(refused);
        return;
      }
      case "openLocation":
        await this.links.openFile(path.isAbsolute(m.path) ? m.path : path.join(this.sessionCwd(), m.path), m.line);
        return;
      case "openDiff":
        if (this.requireTool(m.sessionId, m.toolCallId).content[m.index]?.type !== "diff") throw new OutOfStateMessage(`tool call ${m.toolCallId} has no diff at ${m.index}`);
        await this.outputs.openDiff(this.state, m.sessionId, m.toolCallId, m.index);
        return;
      case "revealTerminal":
        this.requireTool(m.sessionId, m.toolCallId);
        this.outputs.revealTerminal(this.state, m.sessionId, m.toolCallId);
        return;
      case "openLink":
        await this.links.openLink(m.href);
        return;
      case "restoreCheckpoint":
        await vscode.commands.executeCommand("agentThoughts.restoreCheckpoint", m.sessionId, m.turnId);
        return;
      case "newSession": {
        this.clearHostError();
        await this.manager.sessionFor(undefined, true);
        return;
      }
      case "selectSession":
        if (!this.state.sessions[m.sessionId]) throw new OutOfStateMessage(`no session ${m.sessionId}`);
        this.select(m.sessionId);
        return;
      case "selectAgent":
        await vscode.commands.executeCommand("agentThoughts.selectAgent", m.name);
        this.postHost();
        return;
      case "setMode":
        await this.requireSession(m.sessionId).setMode(m.modeId);
        return;
      case "setConfigOption":
        await this.requireSession(m.sessionId).setConfigOption(m.configId, m.value);
        return;
      case "restartAgent":
        this.clearHostError();
        this.postHost();
        await vscode.commands.executeCommand("agentThoughts.restartAgent", m.agentName);
        return;
      case "showLog":
        await vscode.commands.executeCommand("agentThoughts.showLog");
        return;
      case "openAgentSettings":
        await vscode.commands.executeCommand("workbench.action.openSettings", "agentThoughts.agents");
        return;
      case "copy":
        await vscode.env.clipboard.writeText(m.text);
        return;
    }
  }

  /** The user acts on a start failure (prompt, new session, retry): its banner goes. */
  private clearHostError(): void {
    const { starting } = this.agentStatus;
    this.agentStatus = starting ? { starting } : {};
  }

  private requireSession(sessionId: string): NonNullable<ReturnType<SessionManager["sessionById"]>> {
    const s = this.manager.sessionById(sessionId);
    if (!s) throw new OutOfStateMessage(`no session ${sessionId}`);
    return s;
  }

  private requireTool(sessionId: string, toolCallId: string): ToolEntry {
    const tool = findToolEntry(this.state, sessionId, toolCallId);
    if (!tool) throw new OutOfStateMessage(`no tool call ${toolCallId} in session ${sessionId}`);
    return tool;
  }

  private sessionCwd(): string {
    const s = this.activeSessionId ? this.state.sessions[this.activeSessionId] : undefined;
    return s?.cwd || vscode.workspace.workspaceFolders?.[0]?.uri.fsPath || "/";
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.heldTimer);
    for (const v of this.views) {
      clearTimeout(v.resync);
      clearTimeout(v.asked);
    }
    this.sight.dispose();
    for (const d of this.disposables) d.dispose();
    this.editorPanel?.dispose();
  }
}

/** The sidebar view. */
export class ThoughtViewProvider implements vscode.WebviewViewProvider {
  static readonly viewId = "agentThoughts.panel";
  private view: vscode.WebviewView | undefined;

  constructor(private readonly controller: ThoughtPanelController) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const lifetime: vscode.Disposable[] = [];
    this.controller.attach(view.webview, "sidebar", () => view.visible, lifetime);
    lifetime.push(view.onDidChangeVisibility(() => this.controller.visibilityChanged()));
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
      for (const d of lifetime) d.dispose();
    });
  }

  /** Shows the sidebar view without taking focus. */
  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${ThoughtViewProvider.viewId}.focus`);
  }
}
