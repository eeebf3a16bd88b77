/**
 * Transcripts: every session's event log, appended to a JSON Lines file in the workspace's storage
 * as it happens, so history survives a window reload or a crash even when the agent cannot load
 * sessions. On start the most recent ones are read back into the panel (as ended sessions), and
 * Show Sessions lists them beside the live ones.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as vscode from "vscode";
import type { ThoughtEvent } from "../shared/events";
import { parseThoughtEvent } from "../core/eventSchema";
import { stringifyJson } from "../core/json";
import { TimeSlice } from "../core/sleep";
import type { Logger } from "../acp/ports";

/** How many past sessions come back into the panel on start. */
const RESTORE_SESSIONS = 20;
/** Transcripts beyond this many are deleted, oldest first. */
const KEEP_SESSIONS = 200;
const OPEN_STREAMS = 8;
const FLUSH_MS = 200;

/** A saved transcript (its session id is in its events, not its name). */
export interface TranscriptInfo { file: string; modified: number }

export class TranscriptStore implements vscode.Disposable {
  private readonly streams = new Map<string, fs.WriteStream>();
  private readonly pending = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;
  /** Sessions deleted (Delete Session). */
  private readonly removed = new Set<string>();
  private readonly dir: string | undefined;

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
    if (!this.dir || this.removed.has(e.sessionId)) return;
    // Any depth: a value nested 10,000 deep is saved whole (JSON.stringify would throw).
    const line = stringifyJson(e);
    const lines = this.pending.get(e.sessionId);
    if (lines) lines.push(line);
    else this.pending.set(e.sessionId, [line]);
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const [sessionId, lines] of this.pending) {
      const file = this.fileOf(sessionId);
      if (!file) continue;
      let s = this.streams.get(sessionId);
      if (!s) {
        if (this.streams.size >= OPEN_STREAMS) {
          const [oldest, stream] = this.streams.entries().next().value as [string, fs.WriteStream];
          stream.end();
          this.streams.delete(oldest);
        }
        s = fs.createWriteStream(file, { flags: "a" });
        s.on("error", (err) => this.logger.error(`Cannot save the transcript ${file}: ${err.message}`));
        this.streams.set(sessionId, s);
      }
      s.write(lines.join("\n") + "\n");
    }
    this.pending.clear();
  }

  /**
   * Saved transcripts, newest first. The oldest beyond KEEP_SESSIONS, or beyond the byte budget
   * (the newest is always kept, and so are sessions still being written), are deleted; when the
   * budget removed any, `notify` says how many and how much.
   */
  list(): TranscriptInfo[] {
    if (!this.dir) return [];
    const out: (TranscriptInfo & { bytes: number })[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith(".jsonl")) continue;
      const file = path.join(this.dir, name);
      const st = fs.statSync(file);
      out.push({ file, modified: st.mtimeMs, bytes: st.size });
    }
    out.sort((a, b) => b.modified - a.modified);
    const budget = this.maxBytes();
    const live = new Set([...this.streams.keys()].map((id) => this.fileOf(id)));
    const kept: TranscriptInfo[] = [];
    let total = 0;
    let over = 0;
    let overBytes = 0;
    let full = false; // once one does not fit, every older one goes too (oldest first)
    for (const t of out) {
      const fits = kept.length === 0 || (!full && kept.length < KEEP_SESSIONS && total + t.bytes <= budget);
      if (fits || live.has(t.file)) {
        kept.push({ file: t.file, modified: t.modified });
        total += t.bytes;
        continue;
      }
      full = true;
      fs.rmSync(t.file, { force: true });
      if (kept.length < KEEP_SESSIONS) {
        over++;
        overBytes += t.bytes;
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

  /**
   * A transcript's events, each checked against the event vocabulary: a torn last line (crash
   * mid-write) or a line that is not an event of this session is skipped and logged; nothing
   * else is lost.
   */
  async read(file: string): Promise<ThoughtEvent[]> {
    const events: ThoughtEvent[] = [];
    let skipped = 0;
    let firstProblem = "";
    const text = await fs.promises.readFile(file, "utf8");
    // Parsed in slices of at most HOST_SLICE_MS, handing the extension host back between them: an
    // hour-long session is 100,000 lines, which took 0.2–0.5 s in one go.
    const slice = new TimeSlice();
    for (let pos = 0, n = 0; pos < text.length; n++) {
      const nl = text.indexOf("\n", pos);
      const end = nl < 0 ? text.length : nl;
      const line = text.slice(pos, end);
      pos = end + 1;
      if ((n & 127) === 127 && slice.due()) await slice.pause();
      if (!line.trim()) continue;
      let problem: string;
      try {
        const parsed = parseThoughtEvent(JSON.parse(line));
        if ("event" in parsed && (events.length === 0 || parsed.event.sessionId === events[0]!.sessionId)) {
          events.push(parsed.event);
          continue;
        }
        problem = "problem" in parsed ? parsed.problem : "an event of another session";
      } catch {
        problem = "not JSON";
      }
      if (skipped++ === 0) firstProblem = problem;
    }
    if (skipped) this.logger.warn(`Skipped ${skipped} damaged line(s) in ${path.basename(file)} (first: ${firstProblem})`);
    return events;
  }

  /** The most recent transcripts' events, oldest session first (to restore the panel); read without blocking the extension host. */
  async recent(): Promise<ThoughtEvent[][]> {
    const sessions = await Promise.all(this.list().slice(0, RESTORE_SESSIONS).reverse().map((t) => this.read(t.file)));
    return sessions.filter((e) => e.length > 0);
  }

  /** Deletes a session's saved transcript (Delete Session); what was still to be written goes too. */
  async remove(sessionId: string): Promise<void> {
    // Never written again in this window, whatever still arrives for it.
    this.removed.add(sessionId);
    this.pending.delete(sessionId);
    const stream = this.streams.get(sessionId);
    this.streams.delete(sessionId);
    if (stream) await new Promise<void>((resolve) => stream.end(resolve));
    const file = this.fileOf(sessionId);
    if (file) await fs.promises.rm(file, { force: true });
  }

  dispose(): void {
    this.flush();
    for (const s of this.streams.values()) s.end();
    this.streams.clear();
  }
}
