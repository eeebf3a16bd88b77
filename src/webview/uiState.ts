/**
 * UI-only state: what the reader folded, filtered, typed and where they scrolled. The part worth
 * keeping across a reload of the webview goes to `setState` (debounced); the rest lives in memory.
 * Session data never lives here — the host owns it.
 */
import type { Entry } from "../shared/viewModel";
import { foldQuery } from "./find";
import { isMentionRef, MAX_MENTIONS, type MentionRef } from "../shared/mentions";

export type FilterGroup = "thought" | "message" | "tool" | "plan" | "error";
export type Filters = Record<FilterGroup, boolean>;

export const FILTER_GROUPS: readonly FilterGroup[] = ["thought", "message", "tool", "plan", "error"];

function filterGroup(e: Entry): FilterGroup {
  switch (e.type) {
    case "thought": return "thought";
    case "message":
    case "user": return "message";
    case "tool": return "tool";
    case "plan": return "plan";
    case "notice":
    case "error":
    case "unknown": return "error";
  }
}

interface Persisted {
  v: 1;
  draft: string;
  turnOpen: Record<string, boolean>;
  filters: Filters;
  search: string;
  /** Search hides the entries without a match (otherwise it only finds them). */
  searchFilter?: boolean;
  /** The entry at the top of the view when it was saved, and where it started against the view's top (px). */
  anchor?: ScrollAnchor;
  /** Where the reader left other sessions they picked another one from, oldest first. */
  places?: ScrollAnchor[];
  stick: boolean;
  planOpen: boolean;
  /** Sent prompts, oldest first (↑/↓ in the prompt box). */
  history?: string[];
  /** Prompts typed while their session's turn ran, sent in order when it ends. */
  queue?: QueuedPrompt[];
  /** The chips in the prompt box (with the draft). */
  mentions?: MentionRef[];
}

/** A session's entry (its `data-entry-id`: ids are per session) and how far below the view's top it starts, in px (negative: above). */
export interface ScrollAnchor { session: string; id: string; offset: number }

export interface QueuedPrompt { sessionId: string; text: string; mentions?: MentionRef[] }

/** Longest prompt kept in the history or the queue (the webview's state is saved as a whole). */
const MAX_KEPT_PROMPT = 100_000;
export const MAX_QUEUED = 20;

const MAX_TURN_KEYS = 500;
/** Sessions whose place is kept for when they are picked again. */
const MAX_PLACES = 50;

/** A saved place, if it is one (the webview's state is the reader's, but read as untrusted all the same). */
function parseAnchor(a: unknown): ScrollAnchor | undefined {
  if (!a || typeof a !== "object") return undefined;
  const { session, id, offset } = a as Partial<ScrollAnchor>;
  return typeof session === "string" && session.length <= 1000 && typeof id === "string" && id.length <= 1000 && typeof offset === "number" && Number.isFinite(offset)
    ? { session, id, offset }
    : undefined;
}

const rounded = (a: ScrollAnchor): ScrollAnchor => ({ ...a, offset: Math.round(a.offset) });

export class UiState {
  draft = "";
  /** Turn key (`session:turnId`) → open (true) or folded (false); absent = the default. */
  turnOpen: Record<string, boolean> = {};
  filters: Filters = { thought: true, message: true, tool: true, plan: true, error: true };
  search = "";
  /** "Only entries that match": off, search finds matches in place (as an editor's find does). */
  searchFilter = false;
  /** Where the reader was, by entry; none while following the bottom. */
  anchor: ScrollAnchor | undefined;
  stick = true;
  planOpen = true;
  history: string[] = [];
  queue: QueuedPrompt[] = [];
  /** The prompt box's chips, kept with the draft across a reload. */
  mentions: MentionRef[] = [];
  /** Where the reader left each session they picked another one from, when it was not at its latest (the most recent MAX_PLACES, oldest first). */
  private readonly places = new Map<string, ScrollAnchor>();

  /** Per-entry open/closed overrides (thoughts, tool cards), keyed `session/entryId`. */
  readonly entryOpen = new Map<string, boolean>();
  /** Per-turn number of entries shown (the window grows with "Show earlier"). */
  readonly entryWindow = new Map<string, number>();
  /**
   * Per-turn last entry shown (its id), for a window that stops short of the turn's end: around a
   * match or revealed entry far above it. Absent: the window ends with the turn.
   */
  readonly entryEnd = new Map<string, string>();
  /** How many turns are shown at the end of the session. */
  turnsWindow = 40;
  /** Banner ids the reader dismissed. */
  readonly dismissed = new Set<string>();

  /** Bumped when filters or search change (every entry's visibility must be re-checked). */
  filterVersion = 0;
  /** Bumped when folding or windows change (the transcript's structure must be re-checked). */
  layoutVersion = 0;

  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly store: { getState(): unknown; setState(s: unknown): void }) {
    this.load(store.getState());
  }

  private load(raw: unknown): void {
    if (!raw || typeof raw !== "object") return;
    const p = raw as Partial<Persisted>;
    if (p.v !== 1) return;
    if (typeof p.draft === "string") this.draft = p.draft;
    if (p.turnOpen && typeof p.turnOpen === "object") {
      for (const [k, v] of Object.entries(p.turnOpen)) if (typeof v === "boolean") this.turnOpen[k] = v;
    }
    if (p.filters && typeof p.filters === "object") {
      for (const g of FILTER_GROUPS) if (typeof p.filters[g] === "boolean") this.filters[g] = p.filters[g];
    }
    if (typeof p.search === "string") this.search = p.search;
    if (typeof p.searchFilter === "boolean") this.searchFilter = p.searchFilter;
    this.anchor = parseAnchor(p.anchor);
    if (Array.isArray(p.places)) {
      for (const a of p.places.slice(-MAX_PLACES)) {
        const place = parseAnchor(a);
        if (place) this.setPlace(place);
      }
    }
    if (typeof p.stick === "boolean") this.stick = p.stick;
    if (typeof p.planOpen === "boolean") this.planOpen = p.planOpen;
    if (Array.isArray(p.history)) this.history = p.history.filter((t): t is string => typeof t === "string" && t.length <= MAX_KEPT_PROMPT).slice(-100);
    if (Array.isArray(p.queue)) {
      this.queue = p.queue.filter((q): q is QueuedPrompt => !!q && typeof q === "object" && typeof q.sessionId === "string" && q.sessionId.length <= 500 && typeof q.text === "string" && q.text.length <= MAX_KEPT_PROMPT)
        .map((q) => {
          const mentions = Array.isArray(q.mentions) ? q.mentions.filter(isMentionRef).slice(0, MAX_MENTIONS) : [];
          return { sessionId: q.sessionId, text: q.text, ...(mentions.length ? { mentions } : {}) };
        }).filter((q) => q.text.trim() !== "" || q.mentions !== undefined).slice(0, MAX_QUEUED);
    }
    if (Array.isArray(p.mentions)) this.mentions = p.mentions.filter(isMentionRef).slice(0, MAX_MENTIONS);
  }

  /** Saves soon (coalescing bursts such as typing or scrolling). */
  save(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), 250);
  }

  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const keys = Object.keys(this.turnOpen);
    if (keys.length > MAX_TURN_KEYS) for (const k of keys.slice(0, keys.length - MAX_TURN_KEYS)) delete this.turnOpen[k];
    const p: Persisted = {
      v: 1, draft: this.draft, turnOpen: this.turnOpen, filters: this.filters, search: this.search, searchFilter: this.searchFilter,
      ...(this.anchor ? { anchor: rounded(this.anchor) } : {}), stick: this.stick, planOpen: this.planOpen,
      ...(this.places.size ? { places: [...this.places.values()].map(rounded) } : {}),
      history: this.history.filter((t) => t.length <= MAX_KEPT_PROMPT), queue: this.queue,
      ...(this.mentions.length ? { mentions: this.mentions } : {}),
    };
    this.store.setState(p);
  }

  /** The place the reader left `session` at, if kept. */
  placeOf(session: string): ScrollAnchor | undefined {
    return this.places.get(session);
  }

  /** Keeps where the reader left a session (its most recent); the oldest goes past MAX_PLACES. Saved soon. */
  keepPlace(place: ScrollAnchor): void {
    this.setPlace(place);
    if (this.places.size > MAX_PLACES) this.places.delete(this.places.keys().next().value as string);
    this.save();
  }

  /** Sets `place` as its session's most recent. */
  private setPlace(place: ScrollAnchor): void {
    this.places.delete(place.session);
    this.places.set(place.session, place);
  }

  /** The reader left `session` at its latest: it opens there. */
  dropPlace(session: string): void {
    if (this.places.delete(session)) this.save();
  }

  setFilter(g: FilterGroup, on: boolean): void {
    this.filters = { ...this.filters, [g]: on };
    this.filterVersion++;
    this.save();
  }

  setSearch(q: string): void {
    if (q === this.search) return;
    const filtered = this.searchFilter && (foldQuery(q) !== "" || this.query !== "");
    this.search = q;
    // Finding in place leaves every entry where it is; only the filter changes what is shown.
    if (filtered) this.filterVersion++;
    this.save();
  }

  setSearchFilter(on: boolean): void {
    if (on === this.searchFilter) return;
    this.searchFilter = on;
    this.filterVersion++;
    this.save();
  }

  /** The search as matched (folded), or "" when there is nothing to find. */
  get query(): string {
    return foldQuery(this.search);
  }

  setTurnOpen(key: string, open: boolean): void {
    this.turnOpen[key] = open;
    this.layoutVersion++;
    this.save();
  }

  /** True when the search hides the entries without a match. */
  get searchFiltering(): boolean {
    return this.searchFilter && this.query !== "";
  }

  /** True when some entries may be hidden (a kind is off, or the search filters). */
  get filtering(): boolean {
    return this.searchFiltering || FILTER_GROUPS.some((g) => !this.filters[g]);
  }

  /**
   * The visibility test for the current filters, or undefined when nothing is filtered.
   * `searchable` is an entry's folded text as find sees it (render/searchText.ts).
   */
  matcher(searchable: (e: Entry) => string): ((e: Entry) => boolean) | undefined {
    if (!this.filtering) return undefined;
    const filters = this.filters;
    const q = this.searchFiltering ? this.query : "";
    return (e) => filters[filterGroup(e)] && (!q || searchable(e).includes(q));
  }
}
