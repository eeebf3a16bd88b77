/**
 * Transcripts: every session's event log, appended to a JSON Lines file in the workspace's storage
 * as it happens, so history survives a window reload or a crash even when the agent cannot load
 * sessions — and the index of them (`transcripts/index.json`), which is all a window reads on start.
 *
 * The index keeps per session its file, title, first prompt, agent, folder, times, size and turns,
 * and is kept current as events are written (saved atomically, at most once a second, and when the
 * window closes). One that is missing, damaged or behind its files (an older version, a crash) is
 * made good in the background from only the head and the tail of each file concerned. A saved
 * session's events are read when it is shown: its start and last turn(s) first (`tail`), then all
 * of it in batches (`events`), parsed in slices that hand the extension host back.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type * as vscode from "vscode";
import { z } from "zod";
import type { ThoughtEvent } from "../shared/events";
import type { SavedSession } from "../shared/viewModel";
import { Emitter } from "../core/emitter";
import { LOG_RUNS, RunQueue } from "../core/sessionLog";
import { TimeSlice } from "../core/sleep";
import { emptySaved, eventFromLine, noteEvent, transcriptLine } from "../core/transcriptLines";
import type { Logger } from "../acp/ports";

/** Transcripts beyond this many are deleted, oldest first. */
export const KEEP_SESSIONS = 200;
/**
 * Transcripts kept open for appending, the least recently written closed first. Fewer than the
 * sessions streaming at once made every flush close one and open another (with a synchronous
 * read of its last byte): with ten agents streaming and 8 open, 30 file operations on the
 * extension host's thread pool and 10 synchronous reads on its main thread every 200 ms.
 */
const OPEN_FILES = 32;
const FLUSH_MS = 200;
const INDEX_FILE = "index.json";
/** The index is saved at most this often while sessions are written. */
const INDEX_SAVE_MS = 1_000;
/** What is read of a file's head to index it (more, up to HEAD_MAX, when its first line is longer). */
const HEAD_BYTES = 64 * 1024;
const HEAD_MAX = 4 * 1024 * 1024;
/** What is read of a file's tail to index it. */
const INDEX_TAIL_BYTES = 64 * 1024;
/** Opening a saved session: its tail is read backwards in steps of this, until a turn starts and at least this much is read… */
const TAIL_STEP = 256 * 1024;
/** …but never more than this (a last turn larger than that is shown when the whole transcript is read). */
const TAIL_MAX = 16 * 1024 * 1024;
/** Reading a whole transcript: bytes read at a time, events handed over at a time. */
const READ_CHUNK = 1024 * 1024;
const EVENT_BATCH = 500;
/** Reading a transcript back looks at the clock at least this often (characters of its lines). */
const CHECK_BYTES = 64 * 1024;
const TEST_MODE = !!process.env.AGENT_THOUGHTS_TEST_MODE;

const zText = (max: number): z.ZodString => z.string().max(max);
const zIndex = z.object({
  version: z.literal(1),
  sessions: z.array(z.object({
    file: zText(200),
    sessionId: zText(100_000),
    agentName: zText(2_000),
    agentId: zText(2_000).optional(),
    cwd: zText(2_000),
    agentSessionId: zText(4_096).optional(),
    abilities: z.object({ load: z.boolean().optional(), resume: z.boolean().optional(), list: z.boolean().optional(), close: z.boolean().optional(), delete: z.boolean().optional(), fork: z.boolean().optional() }).optional(),
    title: zText(1_000).optional(),
    prompt: zText(1_000).optional(),
    startedAt: z.number(),
    lastAt: z.number(),
    bytes: z.number().int().nonnegative(),
    turns: z.number().int().nonnegative(),
  })).max(10_000),
});

/** A saved transcript on disk: its name in the folder, size, when it was last active (by the index, else the file) and last written. */
interface OnDisk { name: string; bytes: number; at: number; modified: number }

export class TranscriptStore implements vscode.Disposable {
  /**
   * Transcripts open for appending (file descriptors), the least recently written first. Writes
   * go one at a time, whatever the number of sessions (see `pump`).
   */
  private readonly files = new Map<string, number>();
  /** Text waiting to be appended, per session, in the order the sessions' text was queued. */
  private readonly queued = new Map<string, string[]>();
  /** The file operation under way (at most one; Delete Session closes its file alongside), and the session it is for. */
  private busy: { sessionId: string; kind: "write" | "close"; done: Promise<void> } | undefined;
  /** Sessions a write failed for (said once, until one succeeds). */
  private readonly failed = new Set<string>();
  /** Sessions written in this window (never deleted to keep under the budget while the window lives). */
  private readonly written = new Set<string>();
  /** Events waiting for the next flush, per session, runs of text chunks joined (as the log keeps them). */
  private readonly pending = new Map<string, RunQueue>();
  private timer: NodeJS.Timeout | undefined;
  /** Sessions deleted (Delete Session). */
  private readonly removed = new Set<string>();
  private readonly dir: string | undefined;
  /** Every session the index knows (saved and written in this window), by session key. */
  private readonly index = new Map<string, SavedSession>();
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();
  private loading: Promise<SavedSession[]> | undefined;
  /** The index on disk has been read into `index` (only then may it be written). */
  private indexRead = false;
  private disposed = false;
  private readonly indexed = new Emitter<SavedSession[]>();
  /** Saved sessions the index did not know, as the background rebuild finds them. */
  readonly onDidIndex = this.indexed.event;
  /** Resolves once every saved session is in the index (after a rebuild, if one was needed). */
  whenIndexed: Promise<void> = Promise.resolve();
  /**
   * Start-up figures for the tests and the benchmark: how long reading the index took, when the
   * index was whole (ms after this store was made), how many files had to be indexed from their
   * head and tail, and (test mode only) the longest extension-host block until then.
   */
  readonly startup = { indexReadMs: NaN, indexedMs: NaN, rebuilt: 0, longestBlockMs: NaN };
  private readonly created = performance.now();
  private probe = TEST_MODE ? monitorEventLoopDelay({ resolution: 1 }) : undefined;

  /**
   * `maxBytes`: what all saved transcripts of this workspace may take (the user's
   * `agentThoughts.history.maxMegabytes`); `notify` says what was removed to stay under it.
   */
  constructor(
    storage: Pick<vscode.Uri, "fsPath"> | undefined,
    private readonly logger: Logger,
    private readonly maxBytes: () => number = () => Infinity,
    private readonly notify: (message: string) => void = () => undefined,
  ) {
    this.dir = storage ? path.join(storage.fsPath, "transcripts") : undefined;
    if (this.dir) fs.mkdirSync(this.dir, { recursive: true });
    this.probe?.enable();
  }

  /**
   * The file of a session's transcript, named by a hash of our session key: nothing the agent
   * chose reaches the file system (no name too long, no two sessions sharing a file).
   */
  fileOf(sessionId: string): string | undefined {
    return this.dir ? path.join(this.dir, `${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}.jsonl`) : undefined;
  }

  /**
   * Queues an event; lines are written per session every FLUSH_MS in one write. A flood of chunks
   * would otherwise cost one stream write each on the extension host's busiest path.
   */
  write(e: ThoughtEvent): void {
    if (!this.dir || this.disposed || this.removed.has(e.sessionId)) return;
    let saved = this.index.get(e.sessionId);
    if (!saved) {
      saved = emptySaved(e);
      this.index.set(e.sessionId, saved);
    }
    noteEvent(saved, e);
    this.written.add(e.sessionId);
    let queue = this.pending.get(e.sessionId);
    if (!queue) this.pending.set(e.sessionId, queue = new RunQueue(LOG_RUNS));
    queue.push(e);
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const [sessionId, queue] of this.pending) {
      if (!this.dir) continue;
      // One line per event, a run of text chunks as one (a thought streamed as thousands of chunks
      // is a few lines, not thousands); any depth: a value nested 10,000 deep is saved whole.
      this.append(sessionId, queue.take().map((e) => transcriptLine(e)).join("\n") + "\n");
    }
    this.pending.clear();
    this.scheduleSave();
    // Once the window has closed, `dispose` writes the queue itself.
    if (!this.disposed) this.pump();
  }

  /** Queues text for a session's transcript (appended in order by `pump`). */
  private append(sessionId: string, text: string): void {
    // Counted as it is queued (the index written when the window closes counts text still waiting).
    this.countBytes(sessionId, text);
    const texts = this.queued.get(sessionId);
    if (texts) texts.push(text);
    else this.queued.set(sessionId, [text]);
  }

  private countBytes(sessionId: string, text: string): void {
    const saved = this.index.get(sessionId);
    if (saved) saved.bytes += Buffer.byteLength(text);
  }

  /**
   * Appends the waiting text, one file operation at a time for all sessions: a session's text is
   * written whole, then the next session's. The text that comes meanwhile joins the next write,
   * and a session's lines are in the order of its writes (a file closed to make room is closed
   * before anything else is written).
   *
   * Each asynchronous file operation goes to the thread pool the extension host shares with VS
   * Code's own file access and the compression of its messages to the workbench. Handing it one
   * write per streaming session at once made the main thread wait inside the hand-over (glibc's
   * condition variable) until a pool thread woken by the one before had run: with ten agents
   * streaming on two cores, up to 41 ms at a time and 0.2 s in 18 s. One at a time: at most
   * 6.5 ms, 0.06 s in 18 s (the pool's other users meet that wait more often instead), and the
   * transcripts hold at most one of the pool's four threads, not all of them with VS Code's work
   * queued behind.
   */
  private pump(): void {
    if (this.busy) return;
    const next = this.queued.entries().next();
    if (next.done) {
      // The window closed and everything is written: the files are closed.
      if (this.disposed) this.closeAll();
      return;
    }
    const [sessionId, texts] = next.value;
    const file = this.fileOf(sessionId);
    if (!file || this.removed.has(sessionId)) {
      this.queued.delete(sessionId);
      return this.pump();
    }
    let fd = this.files.get(sessionId);
    // (Once the window has closed, every file is closed when the queue is written: none to make room.)
    if (fd === undefined && this.files.size >= OPEN_FILES && !this.disposed) {
      // The least recently written is closed first; this session's text waits for it (still first in line).
      const [oldest, oldFd] = this.files.entries().next().value as [string, number];
      this.files.delete(oldest);
      this.run(oldest, "close", (done) => fs.close(oldFd, () => done()));
      return;
    }
    this.queued.delete(sessionId);
    if (fd !== undefined) {
      // The most recently written last (a Map keeps insertion order): the first is the one to close.
      this.files.delete(sessionId);
      this.files.set(sessionId, fd);
    } else {
      fd = this.open(sessionId, file, texts);
      if (fd === undefined) return this.pump();
    }
    const data = Buffer.from(texts.join(""));
    const target = fd;
    this.run(sessionId, "write", (done) => writeAll(target, data, (err, written) => {
      if (err) this.writeFailed(sessionId, target, data.length - written, err);
      else this.failed.delete(sessionId);
      done();
    }));
  }

  /**
   * Opens a session's transcript for appending (`texts`: what will be written first, given a
   * line break first when the file ends in a torn line); undefined when it cannot be opened, the
   * texts then dropped and uncounted.
   */
  private open(sessionId: string, file: string, texts: string[]): number | undefined {
    // A file a crash (or a failed write) left with a torn last line: the new lines start on a line of their own.
    if (!endsWithNewline(file)) {
      texts.unshift("\n");
      this.countBytes(sessionId, "\n");
    }
    try {
      const fd = fs.openSync(file, "a");
      this.files.set(sessionId, fd);
      return fd;
    } catch (err) {
      this.writeFailed(sessionId, undefined, Buffer.byteLength(texts.join("")), err as NodeJS.ErrnoException);
      return undefined;
    }
  }

  /**
   * A transcript's text could not be written (`lost` bytes of it): the index stops counting them,
   * and the file is closed, so the next write opens it again and starts on a line of its own
   * should the failed one have left part of a line. Said once until a write succeeds again.
   */
  private writeFailed(sessionId: string, fd: number | undefined, lost: number, err: NodeJS.ErrnoException): void {
    const saved = this.index.get(sessionId);
    if (saved) saved.bytes = Math.max(0, saved.bytes - lost);
    if (fd !== undefined && this.files.get(sessionId) === fd) {
      this.files.delete(sessionId);
      fs.close(fd, () => undefined);
    }
    if (this.failed.has(sessionId)) return;
    this.failed.add(sessionId);
    this.logger.error(`Cannot save the transcript of ${sessionId}: ${err.message}`);
  }

  /** Starts the one file operation; the next starts when it ends. */
  private run(sessionId: string, kind: "write" | "close", op: (done: () => void) => void): void {
    const done = new Promise<void>((resolve) => {
      op(() => {
        this.busy = undefined;
        resolve();
        this.pump();
      });
    });
    this.busy = { sessionId, kind, done };
  }

  /**
   * Writes what is queued now, synchronously (the window is closing: the extension host may end
   * before writes one at a time would), however many files that opens. A session whose write is
   * under way keeps its text queued, written after it (a file being closed to make room has had
   * all its writes: its session opens it again here).
   */
  private writeQueuedNow(): void {
    for (const [sessionId, texts] of [...this.queued]) {
      if (this.busy?.sessionId === sessionId && this.busy.kind === "write") continue;
      this.queued.delete(sessionId);
      const file = this.fileOf(sessionId);
      if (!file || this.removed.has(sessionId)) continue;
      const fd = this.files.get(sessionId) ?? this.open(sessionId, file, texts);
      if (fd === undefined) continue;
      const data = Buffer.from(texts.join(""));
      const { err, written } = writeAllSync(fd, data);
      if (err) this.writeFailed(sessionId, fd, data.length - written, err);
    }
  }

  /** Closes every transcript file (the window closed and everything is written). */
  private closeAll(): void {
    for (const fd of this.files.values()) {
      try {
        fs.closeSync(fd);
      } catch {
        // already closed
      }
    }
    this.files.clear();
  }

  /**
   * The saved sessions, newest first, from the index alone (read once per window). Transcripts
   * beyond KEEP_SESSIONS or the byte budget are deleted first, oldest first (the newest is always
   * kept, and so are sessions still being written); when the budget removed any, `notify` says how
   * many and how much. Files the index does not know (or knows at another size) are indexed in the
   * background from their head and tail and reported through `onDidIndex`.
   */
  saved(): Promise<SavedSession[]> {
    this.loading ??= this.load();
    return this.loading;
  }

  private async load(): Promise<SavedSession[]> {
    const dir = this.dir;
    if (!dir) {
      this.finishStartup();
      return [];
    }
    const known = await this.readIndex(dir);
    const names = (await fs.promises.readdir(dir)).filter((n) => n.endsWith(".jsonl"));
    const files: OnDisk[] = [];
    for (const name of names) {
      const st = await fs.promises.stat(path.join(dir, name)).catch(() => undefined);
      if (st?.isFile()) files.push({ name, bytes: st.size, at: known.get(name)?.lastAt ?? st.mtimeMs, modified: st.mtimeMs });
    }
    files.sort((a, b) => b.at - a.at || b.modified - a.modified);
    const kept = await this.evict(dir, files);
    const ready: SavedSession[] = [];
    const stale: OnDisk[] = [];
    for (const f of kept) {
      const entry = known.get(f.name);
      if (entry && entry.bytes === f.bytes) {
        if (!this.index.has(entry.sessionId)) this.index.set(entry.sessionId, entry);
        ready.push(entry);
      } else stale.push(f);
    }
    this.indexRead = true;
    this.startup.indexReadMs = performance.now() - this.created;
    if (stale.length || known.size !== ready.length) this.scheduleSave();
    this.startup.rebuilt = stale.length;
    this.whenIndexed = this.rebuild(dir, stale).catch((err: unknown) => this.logger.error(`Could not index the saved sessions: ${String(err)}`)).finally(() => this.finishStartup());
    return ready;
  }

  private finishStartup(): void {
    this.startup.indexedMs = performance.now() - this.created;
    if (this.probe) {
      this.probe.disable();
      this.startup.longestBlockMs = this.probe.max / 1e6;
      this.probe = undefined;
    }
  }

  /** The index on disk by file name; empty (and the files indexed again) when it is missing or damaged. */
  private async readIndex(dir: string): Promise<Map<string, SavedSession>> {
    const out = new Map<string, SavedSession>();
    let text: string;
    try {
      text = await fs.promises.readFile(path.join(dir, INDEX_FILE), "utf8");
    } catch {
      return out; // none yet (a new workspace, or transcripts saved by a version without one)
    }
    let parsed: z.infer<typeof zIndex>;
    try {
      const r = zIndex.safeParse(JSON.parse(text));
      if (!r.success) throw new Error(r.error.issues[0]?.message ?? "invalid");
      parsed = r.data;
    } catch (err) {
      this.logger.warn(`The index of saved sessions is damaged (${err instanceof Error ? err.message : String(err)}); indexing the transcripts again.`);
      return out;
    }
    for (const { file, ...entry } of parsed.sessions) {
      // An entry names its file by the session's hash; one that does not (edited by hand) is indexed again.
      if (path.basename(this.fileOf(entry.sessionId) ?? "") === file) out.set(file, entry);
    }
    return out;
  }

  /** Deletes what is over KEEP_SESSIONS or the byte budget (`files` newest first); returns the rest. */
  private async evict(dir: string, files: readonly OnDisk[]): Promise<OnDisk[]> {
    const budget = this.maxBytes();
    const live = new Set([...this.written].map((id) => path.basename(this.fileOf(id) ?? "")));
    const kept: OnDisk[] = [];
    let total = 0;
    let over = 0;
    let overBytes = 0;
    let full = false; // once one does not fit, every older one goes too (oldest first)
    for (const f of files) {
      const fits = kept.length === 0 || (!full && kept.length < KEEP_SESSIONS && total + f.bytes <= budget);
      if (fits || live.has(f.name)) {
        kept.push(f);
        total += f.bytes;
        continue;
      }
      full = true;
      await fs.promises.rm(path.join(dir, f.name), { force: true });
      if (kept.length < KEEP_SESSIONS) {
        over++;
        overBytes += f.bytes;
      }
    }
    if (over > 0) {
      const mb = (n: number): string => `${(n / 1_048_576).toFixed(n < 10_485_760 ? 1 : 0)} MB`;
      const message = `Removed the ${over === 1 ? "oldest saved session" : `${over} oldest saved sessions`} (${mb(overBytes)}) to keep this workspace's history under ${mb(budget)} (agentThoughts.history.maxMegabytes).`;
      this.logger.info(message);
      this.notify(message);
    }
    return kept;
  }

  /** Indexes files from their head and tail, newest first, in slices; reports what it found as it goes. */
  private async rebuild(dir: string, stale: readonly OnDisk[]): Promise<void> {
    if (stale.length === 0) return;
    this.logger.info(`Indexing ${stale.length} saved session(s) the index did not know.`);
    const slice = new TimeSlice();
    let found: SavedSession[] = [];
    for (const f of stale) {
      const s = await this.summarize(path.join(dir, f.name), f.bytes).catch((err: unknown) => {
        this.logger.warn(`Could not index ${f.name}: ${String(err)}`);
        return undefined;
      });
      // A file whose first event names a session that hashes to another file is not ours to list.
      if (s && path.basename(this.fileOf(s.sessionId) ?? "") === f.name && !this.index.has(s.sessionId)) {
        this.index.set(s.sessionId, s);
        found.push(s);
      }
      if (slice.due()) {
        if (found.length) this.indexed.fire(found);
        found = [];
        await slice.pause();
      }
    }
    if (found.length) this.indexed.fire(found);
    this.scheduleSave();
  }

  /** A transcript's index entry from its first lines and its last 64 KB; undefined when no event in its head can be read. */
  async summarize(file: string, bytes: number): Promise<SavedSession | undefined> {
    const fh = await fs.promises.open(file, "r");
    try {
      const head = await readHead(fh, bytes);
      const tailFrom = Math.max(0, bytes - INDEX_TAIL_BYTES);
      const tail = await readRange(fh, tailFrom, bytes);
      const headLines = splitLines(head.buf, true, head.end === bytes);
      let first: ThoughtEvent | undefined;
      let s: SavedSession | undefined;
      let lastSeq = 0;
      for (const line of headLines) {
        const r = eventFromLine(line);
        if (!("event" in r)) continue;
        first ??= r.event;
        if (r.event.sessionId !== first.sessionId) continue;
        s ??= emptySaved(first);
        noteEvent(s, r.event);
        lastSeq = r.event.seq;
        if (r.event.kind === "turn_start") break; // its prompt is all the head has to say
      }
      if (!s || !first) return undefined;
      // The tail: its titles, its last readable event (the time) and the last one in a turn (the turn count).
      const tailLines = splitLines(tail, tailFrom === 0, true);
      const ours = (line: string): ThoughtEvent | undefined => {
        const r = eventFromLine(line);
        return "event" in r && r.event.sessionId === first.sessionId && r.event.seq > lastSeq ? r.event : undefined;
      };
      for (const line of tailLines) {
        const e = line.includes('"kind":"session_info"') ? ours(line) : undefined;
        if (e) noteEvent(s, e);
      }
      let last: ThoughtEvent | undefined;
      for (let i = tailLines.length - 1; i >= 0 && last?.turnId === undefined; i--) {
        const e = ours(tailLines[i]!);
        if (!e) continue;
        if (!last) noteEvent(s, e);
        last = e;
        if (e.turnId !== undefined) s.turns = Math.max(s.turns, e.turnId);
      }
      s.bytes = bytes;
      return s;
    } finally {
      await fh.close();
    }
  }

  /**
   * What to show at once of a saved session: the events of its head before its first turn (the
   * agent, its modes and commands) and those from the start of its last turn(s) — its tail read
   * backwards in steps until a turn starts in it (at most TAIL_MAX). Undefined when the file
   * cannot be read or no turn starts within reach.
   */
  async tail(sessionId: string): Promise<ThoughtEvent[] | undefined> {
    const file = this.fileOf(sessionId);
    if (!file) return undefined;
    const fh = await fs.promises.open(file, "r").catch(() => undefined);
    if (!fh) return undefined;
    try {
      const bytes = (await fh.stat()).size;
      const head = await readHead(fh, bytes);
      const out: ThoughtEvent[] = [];
      let lastSeq = 0;
      for (const line of splitLines(head.buf, true, head.end === bytes)) {
        const r = eventFromLine(line);
        if (!("event" in r) || r.event.sessionId !== sessionId) continue;
        if (r.event.kind === "turn_start") break;
        out.push(r.event);
        lastSeq = r.event.seq;
      }
      // Back from the end until a line that starts a turn is in what was read (the turns of a
      // small file start in its head: those lines are read twice, which costs nothing).
      let from = bytes;
      let buf = Buffer.alloc(0);
      let start = -1;
      while (start < 0 && from > 0 && bytes - from < TAIL_MAX) {
        const next = Math.max(0, from - TAIL_STEP);
        buf = Buffer.concat([await readRange(fh, next, from), buf]);
        from = next;
        start = turnStartIn(buf, from === 0);
      }
      if (start < 0) return from === 0 ? out : undefined;
      const slice = new TimeSlice();
      const lines = splitLines(buf.subarray(start), true, true);
      for (let i = 0; i < lines.length; i++) {
        if ((i & 127) === 127 && slice.due()) await slice.pause();
        const r = eventFromLine(lines[i]!);
        if ("event" in r && r.event.sessionId === sessionId && r.event.seq > lastSeq) out.push(r.event);
      }
      return out;
    } finally {
      await fh.close();
    }
  }

  /** A saved session's events, in batches, read and checked in slices (see `eventsOf`). */
  events(sessionId: string): AsyncGenerator<ThoughtEvent[]> {
    const file = this.fileOf(sessionId);
    if (!file) throw new Error("no workspace storage");
    return this.eventsOf(file);
  }

  /**
   * A transcript's events in batches, each checked against the event vocabulary: a torn last line
   * (crash mid-write) or a line that is not an event of this session is skipped and logged;
   * nothing else is lost. Read a megabyte at a time and parsed in slices of at most HOST_SLICE_MS,
   * handing the extension host back between them: an hour-long session is 100,000 lines.
   */
  async *eventsOf(file: string): AsyncGenerator<ThoughtEvent[]> {
    let sessionId: string | undefined;
    let skipped = 0;
    let firstProblem = "";
    let batch: ThoughtEvent[] = [];
    let rest = "";
    const slice = new TimeSlice();
    const stream = fs.createReadStream(file, { encoding: "utf8", highWaterMark: READ_CHUNK });
    const take = (line: string): void => {
      if (!line.trim()) return;
      const r = eventFromLine(line);
      if ("event" in r && (sessionId ??= r.event.sessionId) === r.event.sessionId) {
        batch.push(r.event);
        return;
      }
      if (skipped++ === 0) firstProblem = "problem" in r ? r.problem : "an event of another session";
    };
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = rest + chunk;
      let pos = 0;
      // The clock is read every 128 lines, or sooner after long ones (a joined run of chunks, a command's output).
      let checked = 0;
      for (let n = 0; ; n++) {
        const nl = text.indexOf("\n", pos);
        if (nl < 0) break;
        take(text.slice(pos, nl));
        pos = nl + 1;
        if (batch.length >= EVENT_BATCH) {
          yield batch;
          batch = [];
        }
        if ((n & 127) === 127 || pos - checked > CHECK_BYTES) {
          checked = pos;
          if (slice.due()) await slice.pause();
        }
      }
      rest = text.slice(pos);
    }
    take(rest);
    if (batch.length) yield batch;
    if (skipped) this.logger.warn(`Skipped ${skipped} damaged line(s) in ${path.basename(file)} (first: ${firstProblem})`);
  }

  /** A transcript's events (all of them; see `eventsOf`). */
  async read(file: string): Promise<ThoughtEvent[]> {
    const out: ThoughtEvent[] = [];
    for await (const batch of this.eventsOf(file)) for (const e of batch) out.push(e);
    return out;
  }

  private scheduleSave(): void {
    if (!this.dir || this.disposed) return;
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      this.saving = this.saving.then(() => this.saveIndex()).catch((err: unknown) => this.logger.warn(`Could not save the index of saved sessions: ${String(err)}`));
    }, INDEX_SAVE_MS);
  }

  private indexText(): string {
    const sessions = [...this.index.values()].filter((s) => s.bytes > 0).map((s) => ({ file: path.basename(this.fileOf(s.sessionId) ?? ""), ...s }));
    return JSON.stringify({ version: 1, sessions });
  }

  /** Written to a temporary file and renamed over the index, so a crash never leaves half an index. */
  private async saveIndex(): Promise<void> {
    // Only an index that was read can be written: this window alone does not know the saved sessions.
    if (!this.dir || this.disposed || !this.loading) return;
    await this.loading;
    const target = path.join(this.dir, INDEX_FILE);
    const temp = `${target}.${process.pid}.tmp`;
    await fs.promises.writeFile(temp, this.indexText());
    if (!this.disposed) await fs.promises.rename(temp, target);
  }

  /** Deletes a session's saved transcript (Delete Session); what was still to be written goes too. */
  async remove(sessionId: string): Promise<void> {
    // Never written again in this window, whatever still arrives for it.
    this.removed.add(sessionId);
    this.pending.delete(sessionId);
    this.queued.delete(sessionId);
    // Its write (or the close of its file) under way ends first; then its file is closed.
    while (this.busy?.sessionId === sessionId) await this.busy.done;
    const fd = this.files.get(sessionId);
    if (fd !== undefined) {
      this.files.delete(sessionId);
      await new Promise<void>((resolve) => fs.close(fd, () => resolve()));
    }
    const file = this.fileOf(sessionId);
    if (file) await fs.promises.rm(file, { force: true });
    // And gone from the index, so the next window does not list it.
    if (this.index.delete(sessionId)) this.scheduleSave();
  }

  dispose(): void {
    this.disposed = true;
    this.flush();
    this.writeQueuedNow();
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    // The index as it stands when the window closes; should a save still in flight land after it,
    // the sessions it is behind on are indexed again (from head and tail) on the next start.
    if (this.dir && this.indexRead) {
      try {
        const target = path.join(this.dir, INDEX_FILE);
        fs.writeFileSync(`${target}.${process.pid}.last.tmp`, this.indexText());
        fs.renameSync(`${target}.${process.pid}.last.tmp`, target);
      } catch (err) {
        this.logger.warn(`Could not save the index of saved sessions: ${String(err)}`);
      }
    }
    // A write under way and what waits for it end the queue; then (or now) the files are closed.
    if (!this.busy) this.pump();
    this.indexed.dispose();
    this.probe?.disable();
  }
}

/** Writes all of `data` at the end of the file open for appending as `fd` (a write may take only part of it); `written`: how much did go. */
function writeAll(fd: number, data: Buffer, done: (err: NodeJS.ErrnoException | null, written: number) => void, from = 0): void {
  fs.write(fd, data, from, data.length - from, null, (err, written) => {
    const total = from + (err ? 0 : written);
    if (err || total >= data.length) done(err, total);
    else if (written === 0) done(tookNone(), total);
    else writeAll(fd, data, done, total);
  });
}

/** `writeAll`, synchronously. */
function writeAllSync(fd: number, data: Buffer): { err?: NodeJS.ErrnoException; written: number } {
  let written = 0;
  try {
    while (written < data.length) {
      const n = fs.writeSync(fd, data, written, data.length - written);
      if (n === 0) return { err: tookNone(), written };
      written += n;
    }
    return { written };
  } catch (err) {
    return { err: err as NodeJS.ErrnoException, written };
  }
}

/** A write that took none of its text (and no error said why). */
function tookNone(): NodeJS.ErrnoException {
  return Object.assign(new Error("the file took none of the text"), { code: "EIO" });
}

/** Whether a file is empty or ends with a line break (reads its last byte). */
function endsWithNewline(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    const size = fs.fstatSync(fd).size;
    if (size === 0) return true;
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } catch {
    return true; // no file yet
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

async function readRange(fh: fs.promises.FileHandle, from: number, to: number): Promise<Buffer> {
  const buf = Buffer.alloc(to - from);
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, from + off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off < buf.length ? buf.subarray(0, off) : buf;
}

/** A file's first HEAD_BYTES, more (up to HEAD_MAX) when its first line is longer; `end`: where what was read ends. */
async function readHead(fh: fs.promises.FileHandle, bytes: number): Promise<{ buf: Buffer; end: number }> {
  let end = Math.min(bytes, HEAD_BYTES);
  let buf = await readRange(fh, 0, end);
  while (end < bytes && end < HEAD_MAX && buf.indexOf(0x0a) < 0) {
    const next = Math.min(bytes, end * 2, HEAD_MAX);
    buf = Buffer.concat([buf, await readRange(fh, end, next)]);
    end = next;
  }
  return { buf, end };
}

/**
 * The lines in `buf`, as text. A buffer that does not start at a line's start (`atStart` false)
 * drops its first, partial line, and one that does not end at the file's end (`atEnd` false) its
 * last; at the file's end a torn last line (a crash mid-write) is kept, and fails to parse.
 */
function splitLines(buf: Buffer, atStart: boolean, atEnd: boolean): string[] {
  let from = 0;
  let to = buf.length;
  if (!atStart) {
    const nl = buf.indexOf(0x0a);
    if (nl < 0) return [];
    from = nl + 1;
  }
  if (!atEnd) {
    to = buf.lastIndexOf(0x0a) + 1;
    if (to <= from) return [];
  }
  // Whole UTF-8 sequences only: a cut is always right after a line break (or at the file's ends).
  return buf.toString("utf8", from, to).split("\n").filter((l) => l.trim() !== "");
}

/** Where in `buf` the first line that starts a turn begins (a line of `"kind":"turn_start"`), or -1. */
function turnStartIn(buf: Buffer, atStart: boolean): number {
  const needle = Buffer.from('"kind":"turn_start"');
  let pos = 0;
  if (!atStart) {
    const nl = buf.indexOf(0x0a);
    if (nl < 0) return -1;
    pos = nl + 1;
  }
  for (;;) {
    const hit = buf.indexOf(needle, pos);
    if (hit < 0) return -1;
    const lineStart = buf.lastIndexOf(0x0a, hit) + 1;
    const lineEnd = buf.indexOf(0x0a, hit);
    const r = eventFromLine(buf.toString("utf8", lineStart, lineEnd < 0 ? buf.length : lineEnd));
    // The same text inside a tool's raw input is not a turn's start.
    if ("event" in r && r.event.kind === "turn_start") return lineStart;
    if (lineEnd < 0) return -1;
    pos = lineEnd + 1;
  }
}
