/**
 * The whole panel: lays out header, banners, pinned plan, filter bar, transcript, the open
 * question, prompt box and live region once, then renders one frame at a time from the replica state — measuring the
 * scroll position first, writing the DOM, running post-write work, and settling the scroll last.
 */
import type { ThoughtEvent } from "../../shared/events";
import { awaitsTurns, type SessionView, type ViewState } from "../../shared/viewModel";
import type { HostInfo, WebviewMessage } from "../../shared/protocol";
import { h, toggleHidden } from "../dom";
import type { UiState } from "../uiState";
import { Announcer } from "./announcer";
import type { RenderCtx, Ticker } from "./context";
import { entryElement } from "./entryBase";
import { Rows } from "./rows";
import { Nearby } from "./nearby";
import { Finder } from "./finder";
import { runAfterLayout } from "./frame";
import { Banners, Header } from "./header";
import { PinnedPlan } from "./plan";
import { PromptBox } from "./promptBox";
import type { MentionItem, MentionRef } from "../../shared/mentions";
import type { PromptImage } from "../../shared/images";
import { PinnedQuestion } from "./question";
import { PinnedForm } from "./elicitation";
import { ScrollKeeper } from "./scroll";
import { searchableText } from "./searchText";
import { Toolbar } from "./toolbar";
import { TURN_WINDOW, Transcript } from "./transcript";

function sameKeys(set: ReadonlySet<string>, record: Record<string, unknown>): boolean {
  let n = 0;
  for (const k in record) {
    if (!set.has(k)) return false;
    n++;
  }
  return n === set.size;
}

/** The session the panel shows: the host's choice, else the newest. */
export function activeSession(state: ViewState, host: HostInfo): SessionView | undefined {
  const id = host.activeSessionId ?? state.order[state.order.length - 1];
  return id !== undefined ? state.sessions[id] : undefined;
}

export class Panel {
  readonly tickers = new Set<Ticker>();
  private readonly rows: Rows;
  private readonly nearby: Nearby;
  private readonly header: Header;
  private readonly banners: Banners;
  private readonly plan: PinnedPlan;
  private readonly toolbar: Toolbar;
  private readonly transcript: Transcript;
  private readonly scroll: ScrollKeeper;
  private readonly finder: Finder;
  private readonly prompt: PromptBox;
  private readonly question: PinnedQuestion;
  private readonly form: PinnedForm;
  private readonly announcer = new Announcer();
  private ctxVersion = 0;
  private ctxInputs: [number, string, string] = [-1, "", ""];
  private matcher: RenderCtx["matcher"];
  private pendingReveal: { sessionId: string; entryId?: string; toolCallId?: string } | undefined;
  /** What the last frame showed: a new turn or a new question in the same session brings the reader back to the bottom. */
  private seen: { sessionId: string; turn: number | undefined; awaiting: boolean; requests: ReadonlySet<string> } | undefined;

  constructor(root: HTMLElement, private readonly ui: UiState, private readonly post: (m: WebviewMessage) => void, private readonly invalidate: () => void) {
    this.header = new Header(post);
    this.banners = new Banners(ui, invalidate, post);
    this.plan = new PinnedPlan(ui);
    this.toolbar = new Toolbar(ui, invalidate, (dir) => this.finder.step(dir));
    this.transcript = new Transcript(() => {
      ui.turnsWindow += TURN_WINDOW;
      ui.layoutVersion++;
      invalidate();
    }, invalidate);
    this.rows = new Rows(this.transcript.el);
    this.nearby = new Nearby(this.transcript.el);
    this.scroll = new ScrollKeeper(this.transcript.el, ui, invalidate, () => {
      if (!this.transcript.showLatest(ui)) return;
      ui.layoutVersion++;
      invalidate();
    });
    this.finder = new Finder(this.transcript.el, this.transcript, {
      release: () => this.scroll.release(),
      invalidate,
      status: (s, announce) => this.toolbar.showFind(s, announce),
    }, [this.toolbar.el]);
    this.prompt = new PromptBox(ui, post);
    this.question = new PinnedQuestion(post);
    this.form = new PinnedForm(post);
    root.classList.add("panel");
    root.replaceChildren(
      this.header.el,
      this.banners.el,
      this.plan.el,
      this.toolbar.el,
      h("main", { class: "transcript-wrap" }, this.transcript.el),
      h("div", { class: "jump-row" }, this.scroll.jump),
      this.question.el,
      this.form.el,
      this.prompt.el,
      this.announcer.el,
    );
  }

  private context(session: SessionView, host: HostInfo): RenderCtx {
    if (this.ctxInputs[0] !== this.ui.filterVersion || this.ctxInputs[1] !== host.thinkingDisplay || this.ctxInputs[2] !== session.sessionId) {
      this.ctxInputs = [this.ui.filterVersion, host.thinkingDisplay, session.sessionId];
      this.ctxVersion++;
      const cwd = session.cwd;
      this.matcher = this.ui.matcher((e) => searchableText(e, cwd));
    }
    return {
      session, sessionId: session.sessionId, host, ui: this.ui, matcher: this.matcher, version: this.ctxVersion,
      tickers: this.tickers, rows: this.rows, nearby: this.nearby, post: this.post, invalidate: this.invalidate, editPrompt: (text) => this.prompt.edit(text),
    };
  }

  render(state: ViewState, host: HostInfo): void {
    // Going to a match stops following the bottom until the reader scrolls away from it.
    if (this.scroll.stick && this.finder.holding()) this.scroll.release();
    const session = activeSession(state, host);
    // Another session picked: the place in the one drawn is read now, while its layout is that of the last frame.
    this.scroll.switching(session?.sessionId);
    this.followNews(session);
    const ctx = session ? this.context(session, host) : undefined;
    this.header.render(state, session, host);
    this.banners.render(session, host);
    this.plan.render(session);
    // After a reload, or picking a session left unfollowed, the place the reader was at is drawn, however the windows around it start.
    const place = session && ctx ? this.scroll.restoreTarget(session.sessionId) : undefined;
    const placeFound = !!place && !!session && !!ctx && this.transcript.prepareReveal(session, ctx, place, undefined, false) !== undefined;
    this.transcript.render(session, ctx, session?.agentName ?? host.defaultAgent);
    this.finder.render(session, ctx);
    this.toolbar.render();
    toggleHidden(this.toolbar.el, !session);
    this.question.render(session);
    this.form.render(session);
    this.prompt.render(session, host, state.sessions);
    this.announcer.flush();
    if (session && ctx && this.pendingReveal?.sessionId === session.sessionId) {
      const { entryId, toolCallId } = this.pendingReveal;
      this.pendingReveal = undefined;
      const id = this.transcript.prepareReveal(session, ctx, entryId, toolCallId);
      if (id) {
        this.transcript.render(session, ctx, session.agentName);
        this.scroll.revealed();
        const el = entryElement(this.transcript.el, id);
        if (el) {
          el.scrollIntoView({ block: "center" });
          el.classList.add("flash");
          setTimeout(() => el.classList.remove("flash"), 1600);
        }
      }
    }
    runAfterLayout();
    this.finder.reveal();
    this.scroll.setLatestHidden(!!session && this.transcript.hidesLatest);
    // A saved session's earlier turns come after its last (and a large snapshot's): a place not among those yet waits for them.
    this.scroll.settle(session && session.turns.length > 0 ? session.sessionId : undefined, !!place && !placeFound && awaitsTurns(session));
    // What this frame put off drawing and is near where the view now is: drawn in this frame.
    this.nearby.check();
  }

  /** A prompt the user just sent, or a question the agent just asked, is at the bottom: show it. */
  private followNews(session: SessionView | undefined): void {
    if (!session) {
      this.seen = undefined;
      return;
    }
    const last = this.seen;
    // A new turn is a new last one; earlier turns put before those shown (a saved session's, a
    // large snapshot's), or the first ones of a view sent in pieces, are not news.
    const turn = session.turns[session.turns.length - 1]?.turnId;
    const awaiting = !!session.earlier;
    const requests = last?.sessionId === session.sessionId && last.turn === turn && sameKeys(last.requests, session.pendingPermissions)
      ? last.requests
      : new Set(Object.keys(session.pendingPermissions));
    this.seen = { sessionId: session.sessionId, turn, awaiting, requests };
    if (last?.sessionId !== session.sessionId) return;
    if ((turn !== last.turn && !(last.turn === undefined && last.awaiting)) || [...requests].some((r) => !last.requests.has(r))) {
      this.scroll.follow();
      this.finder.letGo();
    }
  }

  /** Feeds a patch's events to the announcer. */
  observe(events: readonly ThoughtEvent[], state: ViewState, host: HostInfo): void {
    this.announcer.observe(events, state, activeSession(state, host)?.sessionId);
  }

  resetAnnouncements(): void {
    this.announcer.reset();
  }

  focusPrompt(): void {
    this.prompt.focus();
  }

  /** The host's answer to an `@query` typed in the prompt box. */
  mentions(requestId: number, items: readonly MentionItem[]): void {
    this.prompt.onMentions(requestId, items);
  }

  /** Chips the host read for Attach Image or a drop, and what it refused. */
  attach(mentions: readonly MentionRef[], images: readonly PromptImage[], refused: readonly string[]): void {
    void this.prompt.onAttach(mentions, images, refused);
  }

  /** Shows an entry (asks the host to switch sessions first when needed). */
  reveal(state: ViewState, host: HostInfo, target: { sessionId: string; entryId?: string; toolCallId?: string }): void {
    this.pendingReveal = target;
    if (activeSession(state, host)?.sessionId !== target.sessionId && state.sessions[target.sessionId]) {
      this.post({ type: "selectSession", sessionId: target.sessionId });
    }
    this.invalidate();
  }
}
