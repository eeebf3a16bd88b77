/**
 * Saved transcripts: each chunk's text once on disk (and old lines still read), the index of saved
 * sessions (kept as events are written, rebuilt from head and tail when missing, damaged or behind,
 * updated when the byte budget removes sessions), and a session's tail read backwards to its last turn.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import nodeFs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ThoughtEvent, ThoughtEventBody } from "../../src/shared/events";
import type { SavedSession } from "../../src/shared/viewModel";
import { eventFromLine, transcriptLine } from "../../src/core/transcriptLines";
import { TranscriptStore } from "../../src/vscode/transcripts";
import { joinChunkRuns } from "../../src/core/sessionLog";
import { until } from "../support/until";

const quiet = { traceEnabled: false, info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined };
const text = (t: string): { text: string; content: { type: "text"; text: string } } => ({ text: t, content: { type: "text", text: t } });

/** A session's events as the session log numbers them: a start, then `turns` turns of `chunks` thought chunks and an answer. */
function session(id: string, turns: number, chunks = 3, at0 = 1_000): ThoughtEvent[] {
  const out: ThoughtEvent[] = [];
  let turnId: number | undefined;
  const push = (body: ThoughtEventBody): void => {
    if (body.kind === "turn_start") turnId = body.turnId;
    out.push({ ...body, seq: out.length + 1, at: at0 + out.length, sessionId: id, ...(turnId !== undefined ? { turnId } : {}) });
  };
  push({ kind: "session_start", agentName: "Claude Code", agentId: "Claude", cwd: "/work/project", agentSessionId: `agent-${id}`, abilities: { load: true, resume: true } });
  push({ kind: "commands", commands: [{ name: "review", description: "Review the code" }] });
  for (let t = 1; t <= turns; t++) {
    push({ kind: "turn_start", turnId: t, prompt: [{ type: "text", text: `prompt ${t} of ${id}` }] });
    push({ kind: "user_message", ...text(`prompt ${t} of ${id}`) });
    for (let c = 0; c < chunks; c++) push({ kind: "thought", ...text(`turn ${t} thought ${c} `) });
    push({ kind: "message", ...text(`answer ${t}`) });
    push({ kind: "turn_end", turnId: t, stopReason: "end_turn" });
  }
  return out;
}

describe("transcripts", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "at-transcripts-"));
    dir = path.join(root, "transcripts");
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Writes a transcript as the store would, and (optionally) ages it. */
  function save(store: TranscriptStore, events: readonly ThoughtEvent[], ageMinutes = 0): string {
    const file = store.fileOf(events[0]!.sessionId)!;
    fs.writeFileSync(file, events.map((e) => transcriptLine(e) + "\n").join(""));
    if (ageMinutes) {
      const t = new Date(Date.now() - ageMinutes * 60_000);
      fs.utimesSync(file, t, t);
    }
    return file;
  }

  /** The saved sessions once the index is whole: what it read, and what a rebuild found. */
  async function savedAll(store: TranscriptStore): Promise<SavedSession[]> {
    const found: SavedSession[] = [];
    const sub = store.onDidIndex((s) => found.push(...s));
    const ready = await store.saved();
    await store.whenIndexed;
    sub.dispose();
    return [...ready, ...found];
  }

  describe("each chunk's text once", () => {
    it("writes a text chunk's text once and reads it back whole; other content blocks stay", () => {
      const events = session("s", 1);
      const thought = events.find((e) => e.kind === "thought")!;
      const line = transcriptLine(thought);
      assert.equal(line.split("turn 1 thought 0").length - 1, 1, "the text is on the line once");
      assert.ok(!line.includes('"content"'));
      assert.deepEqual(eventFromLine(line), { event: thought });
      const resource: ThoughtEvent = { seq: 9, at: 9, sessionId: "s", turnId: 1, kind: "user_message", text: "", content: { type: "resource", resource: { uri: "file:///a.ts", text: "code" } } };
      assert.deepEqual(eventFromLine(transcriptLine(resource)), { event: resource });
      const differs: ThoughtEvent = { seq: 10, at: 10, sessionId: "s", turnId: 1, kind: "message", text: "shown", content: { type: "text", text: "sent" } };
      assert.deepEqual(eventFromLine(transcriptLine(differs)), { event: differs }, "a block whose text differs is kept");
    });

    it("reads lines written before (the text twice) the same", () => {
      for (const e of session("old", 2)) assert.deepEqual(eventFromLine(JSON.stringify(e)), { event: e });
    });

    it("a session's transcript is smaller and reads back identical", async () => {
      const store = new TranscriptStore({ fsPath: root }, quiet);
      const events = session("s", 5, 200);
      const file = save(store, events);
      const before = events.map((e) => JSON.stringify(e) + "\n").join("").length;
      assert.ok(fs.statSync(file).size < before * 0.7, `${fs.statSync(file).size} bytes, ${before} with the text twice`);
      assert.deepEqual(await store.read(file), events);
      store.dispose();
    });
  });

  it("writes a run of text chunks as one line (each turn's thought here), and it reads back as the same text", async () => {
    const store = new TranscriptStore({ fsPath: root }, quiet);
    const events = session("runs", 3, 500);
    for (const e of events) store.write(e);
    store.dispose();
    const file = store.fileOf("runs")!;
    await until(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").includes('"kind":"turn_end","turnId":3'), "the transcript on disk");
    const back = await store.read(file);
    // Per turn: turn_start, the prompt, one thought, the answer, turn_end (after the start and commands).
    assert.equal(back.length, 2 + 3 * 5, "one line per run");
    const thoughts = back.filter((e) => e.kind === "thought");
    assert.deepEqual(thoughts.map((e) => (e.kind === "thought" ? e.text : "")), [1, 2, 3].map((t) => Array.from({ length: 500 }, (_, c) => `turn ${t} thought ${c} `).join("")));
    const last = events.filter((e) => e.kind === "thought" && e.turnId === 1).at(-1)!;
    assert.equal(thoughts[0]!.seq, last.seq, "a joined run carries its last chunk's sequence number");
    assert.equal(thoughts[0]!.at, events.find((e) => e.kind === "thought")!.at, "and its first chunk's time");
    assert.ok(back.every((e, i) => i === 0 || e.seq > back[i - 1]!.seq), "in order");
  });

  it("keeps more sessions streaming at once than it holds open whole and in order (the least recently written is closed), one file operation at a time", async () => {
    const store = new TranscriptStore({ fsPath: root }, quiet);
    const inside = store as unknown as { flush(): void; files: Map<string, number>; busy: unknown };
    // Every asynchronous write and close the store starts, and how many were under way at once.
    const real = { write: nodeFs.write, close: nodeFs.close };
    let underWay = 0;
    let most = 0;
    let closes = 0;
    const count = <T extends unknown[]>(args: T): T => {
      underWay++;
      most = Math.max(most, underWay);
      const i = args.findIndex((a) => typeof a === "function");
      const cb = args[i] as (...r: unknown[]) => void;
      args[i] = (...r: unknown[]) => {
        underWay--;
        cb(...r);
      };
      return args;
    };
    // The module object itself (what the store's calls read), not this file's namespace of it.
    const mutableFs = nodeFs as unknown as { write: (...a: unknown[]) => void; close: (...a: unknown[]) => void };
    mutableFs.write = (...a: unknown[]) => {
      Reflect.apply(real.write, nodeFs, count(a));
    };
    mutableFs.close = (...a: unknown[]) => {
      closes++;
      Reflect.apply(real.close, nodeFs, count(a));
    };
    assert.deepEqual(await store.saved(), [], "the index is read (only then is it written)");
    // More sessions than transcripts kept open (32); in each round two thirds of them (a different
    // two thirds each time) write their next turn, and the store's own callbacks run between rounds,
    // so a transcript closed to make room is written again while the store's writes are under way.
    const ids = Array.from({ length: 45 }, (_, k) => `many-${k}`);
    const turns = 6;
    const all = new Map(ids.map((id) => [id, session(id, turns, 4)]));
    const perTurn = 8; // turn_start, the prompt, 4 thoughts, the answer, turn_end
    const chunk = (id: string, t: number): ThoughtEvent[] => all.get(id)!.slice(t === 0 ? 0 : 2 + t * perTurn, 2 + (t + 1) * perTurn);
    const next = new Map(ids.map((id) => [id, 0]));
    let mostOpen = 0;
    try {
      for (let round = 0; [...next.values()].some((t) => t < turns); round++) {
        ids.forEach((id, k) => {
          const t = next.get(id)!;
          if (t >= turns || (round < 3 * turns && (k + round) % 3 === 0)) return;
          for (const e of chunk(id, t)) store.write(e);
          next.set(id, t + 1);
        });
        inside.flush();
        mostOpen = Math.max(mostOpen, inside.files.size);
        if (round % 2 === 1) await new Promise((r) => setTimeout(r, 0));
      }
      await until(() => !inside.busy, "the transcripts to be written");
    } finally {
      Object.assign(mutableFs, real);
    }
    assert.ok(closes > 0, "transcripts were closed to make room while sessions wrote");
    assert.ok(mostOpen > 0 && mostOpen <= 32, `at most 32 open: ${mostOpen}`);
    assert.equal(most, 1, "one file operation under way at a time");
    store.dispose();
    for (const id of ids) {
      const file = store.fileOf(id)!;
      const want = joinChunkRuns(all.get(id)!);
      await until(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length === want.length, `the transcript of ${id}`);
      assert.deepEqual(await store.read(file), want, id);
    }
    const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as { sessions: (SavedSession & { file: string })[] };
    for (const s of index.sessions) assert.equal(s.bytes, fs.statSync(path.join(dir, s.file)).size, `the index counts what is on disk for ${s.sessionId}`);
  });

  it("the index written as the window closes counts what still waits to be written", async () => {
    const store = new TranscriptStore({ fsPath: root }, quiet);
    const flush = (): void => (store as unknown as { flush(): void }).flush();
    await store.saved();
    const ids = Array.from({ length: 40 }, (_, k) => `closing-${k}`);
    const all = new Map(ids.map((id) => [id, session(id, 2, 4)]));
    // The first turn of each (the last 8 close the first 8 to make room), then at once the second: all of it waits when the window closes.
    for (const id of ids) for (const e of all.get(id)!.slice(0, 10)) store.write(e);
    flush();
    for (const id of ids) for (const e of all.get(id)!.slice(10)) store.write(e);
    store.dispose();
    const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as { sessions: (SavedSession & { file: string })[] };
    assert.equal(index.sessions.length, ids.length);
    for (const s of index.sessions) {
      const file = path.join(dir, s.file);
      await until(() => fs.existsSync(file) && fs.statSync(file).size === s.bytes, `${s.sessionId} on disk as long as the index says`);
      assert.deepEqual(await store.read(file), joinChunkRuns(all.get(s.sessionId)!), s.sessionId);
    }
  });

  it("as the window closes, what waits is written at once, whatever the number of sessions", async () => {
    const store = new TranscriptStore({ fsPath: root }, quiet);
    const inside = store as unknown as { flush(): void; busy?: { kind: string } };
    await store.saved();
    // More sessions than files kept open, and the window closes while one is being closed to make room.
    const ids = Array.from({ length: 40 }, (_, k) => `closing-now-${k}`);
    const all = new Map(ids.map((id) => [id, session(id, 2, 3)]));
    // The first close to make room ends only when the test lets it (a slow disk).
    type Close = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => void;
    const mutableFs = nodeFs as unknown as { close: Close };
    const real = mutableFs.close;
    let release: (() => void) | undefined;
    mutableFs.close = (fd, cb) => {
      mutableFs.close = real;
      real(fd, (err) => {
        release = () => cb(err);
      });
    };
    try {
      for (const id of ids) for (const e of all.get(id)!.slice(0, 9)) store.write(e);
      inside.flush();
      await until(() => release !== undefined && inside.busy?.kind === "close", "a file closed to make room");
    } finally {
      mutableFs.close = real;
    }
    for (const id of ids) for (const e of all.get(id)!.slice(9)) store.write(e);
    store.dispose();
    // Before any callback runs: every session whole on disk (a file being closed has had its writes).
    const whole = ids.filter((id) => {
      const file = store.fileOf(id)!;
      return fs.existsSync(file) && fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length === joinChunkRuns(all.get(id)!).length;
    });
    assert.equal(whole.length, ids.length, `written as the window closed: ${whole.length} of ${ids.length}`);
    release!();
    for (const id of ids) assert.deepEqual(await store.read(store.fileOf(id)!), joinChunkRuns(all.get(id)!), id);
    const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as { sessions: (SavedSession & { file: string })[] };
    for (const s of index.sessions) assert.equal(s.bytes, fs.statSync(path.join(dir, s.file)).size, `the index counts what is on disk for ${s.sessionId}`);
  });

  it("a write that fails part-way (a full disk) loses only its own lines: the next starts on a line of its own, and the index counts what is on disk", async () => {
    const errors: string[] = [];
    const store = new TranscriptStore({ fsPath: root }, { ...quiet, error: (m: string) => errors.push(m) });
    const flush = (): void => (store as unknown as { flush(): void }).flush();
    const inside = store as unknown as { busy: unknown };
    await store.saved();
    const events = session("full-disk", 3, 2);
    const turn = (t: number): ThoughtEvent[] => events.filter((e) => (t === 0 ? e.turnId === undefined : e.turnId === t));
    for (const e of [...turn(0), ...turn(1)]) store.write(e);
    flush();
    await until(() => !inside.busy, "the first turn written");
    // The next write takes half its text, then the disk is full.
    type Write = (fd: number, buf: Buffer, off: number, len: number, pos: null, cb: (err: NodeJS.ErrnoException | null, n: number) => void) => void;
    const mutableFs = nodeFs as unknown as { write: Write };
    const real = mutableFs.write;
    // As write(2) does: the first call takes part of the text, the next (for the rest) fails.
    mutableFs.write = (fd, buf, off, len, pos, cb) => {
      mutableFs.write = (_fd, _buf, _off, _len, _pos, next) => {
        mutableFs.write = real;
        setImmediate(() => next(Object.assign(new Error("no space left on device"), { code: "ENOSPC" }), 0));
      };
      real(fd, buf, off, Math.floor(len / 2), pos, cb);
    };
    try {
      for (const e of turn(2)) store.write(e);
      flush();
      await until(() => !inside.busy && mutableFs.write === real, "the failing write");
    } finally {
      mutableFs.write = real;
    }
    for (const e of turn(3)) store.write(e);
    store.dispose();
    const file = store.fileOf("full-disk")!;
    await until(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").endsWith("\n") && fs.readFileSync(file, "utf8").includes("answer 3"), "the third turn on disk");
    // Of turn 2, the lines wholly written before the disk filled and no more (the torn one is
    // skipped); turns 0, 1 and 3 read back whole.
    const got = await store.read(file);
    const before = joinChunkRuns([...turn(0), ...turn(1)]);
    const third = joinChunkRuns(turn(3));
    const second = got.slice(before.length, got.length - third.length);
    assert.deepEqual([...got.slice(0, before.length), ...got.slice(got.length - third.length)], [...before, ...third]);
    const written = joinChunkRuns(turn(2));
    assert.ok(second.length > 0 && second.length < written.length, `turn 2: ${second.length} of its ${written.length} lines`);
    assert.deepEqual(second, written.slice(0, second.length));
    assert.equal(errors.length, 1, errors.join("; "));
    const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as { sessions: (SavedSession & { file: string })[] };
    assert.equal(index.sessions[0]!.bytes, fs.statSync(file).size, "the index counts what is on disk");
  });

  describe("the index of saved sessions", () => {
    it("is kept as events are written, and a new window lists the sessions from it alone", async () => {
      const store = new TranscriptStore({ fsPath: root }, quiet);
      assert.deepEqual(await store.saved(), []);
      const events = [...session("live", 2), { seq: 17, at: 1_016, sessionId: "live", kind: "session_info", title: "Fix the parser" } as ThoughtEvent];
      for (const e of events) store.write(e);
      store.dispose();
      const file = store.fileOf("live")!;
      const lines = await until(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length === joinChunkRuns(events).length, "the transcript on disk");
      assert.ok(lines);
      const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as { sessions: (SavedSession & { file: string })[] };
      assert.deepEqual(index.sessions, [{
        file: path.basename(file), sessionId: "live", agentName: "Claude Code", agentId: "Claude", cwd: "/work/project", agentSessionId: "agent-live",
        abilities: { load: true, resume: true }, title: "Fix the parser", prompt: "prompt 1 of live", startedAt: 1_000, lastAt: 1_016, bytes: fs.statSync(file).size, turns: 2,
      }]);
      // Nothing but the index is read: the transcript's bytes do not matter (same size, nothing of a session in them).
      fs.writeFileSync(file, "#".repeat(fs.statSync(file).size));
      const next = new TranscriptStore({ fsPath: root }, quiet);
      const saved = await next.saved();
      assert.deepEqual(saved.map((s) => [s.sessionId, s.title, s.turns]), [["live", "Fix the parser", 2]]);
      assert.equal(next.startup.rebuilt, 0);
      next.dispose();
    });

    it("is rebuilt from the head and tail of each file when it is missing (transcripts of an older version)", async () => {
      const store = new TranscriptStore({ fsPath: root }, quiet);
      const a = session("a", 40, 50); // ~100 KB: its first lines and last 64 KB are read
      a.push({ seq: a.length + 1, at: 1_000 + a.length, sessionId: "a", kind: "session_info", title: "The agent's title" });
      // Written the old way (text twice), as before this version.
      fs.writeFileSync(store.fileOf("a")!, a.map((e) => JSON.stringify(e) + "\n").join(""));
      save(store, session("b", 1), 5);
      const saved = await savedAll(store);
      assert.equal(store.startup.rebuilt, 2);
      const byId = new Map(saved.map((s) => [s.sessionId, s]));
      assert.deepEqual(byId.get("a"), {
        sessionId: "a", agentName: "Claude Code", agentId: "Claude", cwd: "/work/project", agentSessionId: "agent-a", abilities: { load: true, resume: true },
        prompt: "prompt 1 of a", title: "The agent's title", startedAt: 1_000, lastAt: a[a.length - 1]!.at, bytes: fs.statSync(store.fileOf("a")!).size, turns: 40,
      });
      assert.equal(byId.get("b")?.turns, 1);
      store.dispose();
      // …and written, so the next window reads it alone.
      const next = new TranscriptStore({ fsPath: root }, quiet);
      assert.deepEqual((await next.saved()).map((s) => s.sessionId).sort(), ["a", "b"]);
      assert.equal(next.startup.rebuilt, 0);
      next.dispose();
    });

    it("a damaged index, or one behind its files (a crash before it was saved), is made good from the files", async () => {
      let store = new TranscriptStore({ fsPath: root }, quiet);
      save(store, session("a", 2));
      await savedAll(store);
      store.dispose();
      fs.writeFileSync(path.join(dir, "index.json"), '{"version":1,"sessions":[{"file":');
      store = new TranscriptStore({ fsPath: root }, quiet);
      assert.deepEqual((await savedAll(store)).map((s) => s.sessionId), ["a"]);
      assert.equal(store.startup.rebuilt, 1);
      store.dispose();
      // The file grew after the index was saved: its entry is stale.
      save(store, session("a", 3));
      store = new TranscriptStore({ fsPath: root }, quiet);
      const saved = await savedAll(store);
      assert.equal(store.startup.rebuilt, 1);
      assert.equal(saved[0]?.turns, 3);
      store.dispose();
    });

    it("a torn last line (a crash mid-write) is skipped: the session is listed from its last whole event, and reads back without it", async () => {
      const store = new TranscriptStore({ fsPath: root }, quiet);
      const events = session("torn", 2);
      const file = save(store, events);
      fs.appendFileSync(file, '{"seq":99,"at":5000,"sessionId":"torn","turnId":2,"kind":"thou');
      const [s] = await savedAll(store);
      assert.equal(s?.lastAt, events[events.length - 1]!.at);
      assert.equal(s?.turns, 2);
      assert.deepEqual(await store.read(file), events);
      const tail = await store.tail("torn");
      assert.deepEqual(tail?.map((e) => e.seq), [1, 2, ...events.filter((e) => e.seq > 2).map((e) => e.seq)], "a small file: its start and every turn");
      // A session continued in it starts its lines on a line of their own.
      store.write({ seq: events.length + 1, at: 6_000, sessionId: "torn", kind: "session_info", title: "continued" });
      store.dispose();
      await until(() => fs.readFileSync(file, "utf8").endsWith('"title":"continued"}\n'), "the new line");
      const again = await new TranscriptStore({ fsPath: root }, quiet).read(file);
      assert.equal(again.length, events.length + 1);
    });

    it("sessions the byte budget removes leave the index too", async () => {
      const notices: string[] = [];
      let store = new TranscriptStore({ fsPath: root }, quiet);
      const old = save(store, session("old", 20, 20), 10);
      save(store, session("new", 20, 20), 1);
      await savedAll(store);
      store.dispose();
      const size = fs.statSync(old).size;
      store = new TranscriptStore({ fsPath: root }, quiet, () => size * 1.5, (m) => notices.push(m));
      assert.deepEqual((await savedAll(store)).map((s) => s.sessionId), ["new"]);
      assert.ok(!fs.existsSync(old));
      assert.match(notices[0] ?? "", /Removed the oldest saved session/);
      store.dispose();
      const index = JSON.parse(fs.readFileSync(path.join(dir, "index.json"), "utf8")) as { sessions: SavedSession[] };
      assert.deepEqual(index.sessions.map((s) => s.sessionId), ["new"]);
    });
  });

  describe("a saved session's tail", () => {
    it("reads back from the end until its last turn starts: the session's start and that turn only", async () => {
      const store = new TranscriptStore({ fsPath: root }, quiet);
      // ~1.5 MB: the last turn alone is larger than one step back (256 KB).
      const events = session("big", 6, 2_000);
      // The turn's start as text inside a tool's raw input is no turn's start.
      const last = events.findLastIndex((e) => e.kind === "turn_start");
      const decoy = { seq: 0, at: 0, sessionId: "big", turnId: 6, kind: "tool_start", toolCallId: "t", announced: true, title: "Echo", rawInput: { kind: "turn_start" } } as ThoughtEvent;
      events.splice(last + 2, 0, decoy);
      events.forEach((e, i) => { e.seq = i + 1; });
      save(store, events);
      const tail = await store.tail("big");
      assert.ok(tail);
      assert.deepEqual(tail.slice(0, 2).map((e) => e.kind), ["session_start", "commands"], "the session's head before its first turn");
      assert.deepEqual(tail.slice(2), events.slice(last), "from the last turn's start to the end");
      store.dispose();
    });

    it("includes the turns before when the last one is small (at least one step back)", async () => {
      const store = new TranscriptStore({ fsPath: root }, quiet);
      const events = session("many", 2_000, 1);
      save(store, events);
      const tail = (await store.tail("many"))!;
      const turns = new Set(tail.flatMap((e) => (e.turnId !== undefined ? [e.turnId] : [])));
      assert.ok(turns.size > 1 && turns.size < 2_000, `${turns.size} turns`);
      assert.equal(tail[tail.length - 1]!.seq, events.length);
      const first = tail[2]!;
      assert.equal(first.kind, "turn_start", "whole turns only");
      store.dispose();
    });

    it("is undefined for a session without a transcript", async () => {
      const store = new TranscriptStore({ fsPath: root }, quiet);
      assert.equal(await store.tail("nobody"), undefined);
      store.dispose();
    });
  });
});
