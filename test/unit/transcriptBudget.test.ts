/** Saved transcripts stay under the workspace's byte budget: oldest removed first, the newest always kept, and the user told. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SavedSession } from "../../src/shared/viewModel";
import { TranscriptStore } from "../../src/vscode/transcripts";

const quiet = { traceEnabled: false, info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined };

describe("transcript byte budget", () => {
  let root: string;
  beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), "at-budget-")); });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** A session's transcript of about `kb` KB, last written `ageMinutes` ago. */
  function save(store: TranscriptStore, id: string, kb: number, ageMinutes: number): string {
    const file = store.fileOf(id)!;
    const start = { seq: 1, at: 1, sessionId: id, kind: "session_start", agentName: "Demo", cwd: "/w" };
    const thought = { seq: 2, at: 2, sessionId: id, kind: "thought", text: "x".repeat(kb * 1024 - 200) };
    fs.writeFileSync(file, `${JSON.stringify(start)}\n${JSON.stringify(thought)}\n`);
    const t = new Date(Date.now() - ageMinutes * 60_000);
    fs.utimesSync(file, t, t);
    return file;
  }

  /** Saved sessions, newest first, once the index is whole. */
  async function listed(store: TranscriptStore): Promise<string[]> {
    const found: SavedSession[] = [];
    const sub = store.onDidIndex((s) => found.push(...s));
    found.push(...await store.saved());
    await store.whenIndexed;
    sub.dispose();
    return found.map((s) => s.sessionId);
  }

  it("removes the oldest until the rest fit, keeps the order newest first, and says what it removed", async () => {
    const notices: string[] = [];
    const store = new TranscriptStore({ fsPath: root }, quiet, () => 300 * 1024, (m) => notices.push(m));
    save(store, "a", 100, 1);
    save(store, "b", 150, 2);
    const third = save(store, "c", 100, 3); // 350 KB with the two newer: over
    const small = save(store, "d", 10, 4); // would fit, but it is older than one that did not: it goes too
    assert.deepEqual(await listed(store), ["a", "b"]);
    assert.ok(!fs.existsSync(third) && !fs.existsSync(small));
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /Removed the 2 oldest saved sessions \(0\.1 MB\) to keep this workspace's history under 0\.3 MB/);
    store.dispose();
    const next = new TranscriptStore({ fsPath: root }, quiet, () => 300 * 1024, (m) => notices.push(m));
    assert.deepEqual(await listed(next), ["a", "b"], "nothing more goes on the next look");
    assert.equal(notices.length, 1);
    next.dispose();
  });

  it("always keeps the newest session, even when it alone is over the budget", async () => {
    const store = new TranscriptStore({ fsPath: root }, quiet, () => 10 * 1024);
    save(store, "big", 50, 1);
    const old = save(store, "old", 5, 2);
    assert.deepEqual(await listed(store), ["big"]);
    assert.ok(!fs.existsSync(old));
    store.dispose();
  });
});
