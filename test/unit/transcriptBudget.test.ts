/** Saved transcripts stay under the workspace's byte budget: oldest removed first, the newest always kept, and the user told. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { TranscriptStore } from "../../src/vscode/transcripts";

const quiet = { traceEnabled: false, info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined };

describe("transcript byte budget", () => {
  let root: string;
  beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), "at-budget-")); });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  function save(dir: string, name: string, kb: number, ageMinutes: number): string {
    const file = path.join(dir, `${name}.jsonl`);
    fs.writeFileSync(file, "x".repeat(kb * 1024));
    const t = new Date(Date.now() - ageMinutes * 60_000);
    fs.utimesSync(file, t, t);
    return file;
  }

  it("removes the oldest until the rest fit, keeps the order newest first, and says what it removed", () => {
    const notices: string[] = [];
    const store = new TranscriptStore({ fsPath: root }, quiet, () => 300 * 1024, (m) => notices.push(m));
    const dir = path.join(root, "transcripts");
    const newest = save(dir, "a", 100, 1);
    const second = save(dir, "b", 150, 2);
    const third = save(dir, "c", 100, 3); // 350 KB with the two newer: over
    const small = save(dir, "d", 10, 4); // would fit, but it is older than one that did not: it goes too
    assert.deepEqual(store.list().map((t) => t.file), [newest, second]);
    assert.ok(!fs.existsSync(third) && !fs.existsSync(small));
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /Removed the 2 oldest saved sessions \(0\.1 MB\) to keep this workspace's history under 0\.3 MB/);
    assert.deepEqual(store.list().map((t) => t.file), [newest, second], "nothing more goes on the next look");
    assert.equal(notices.length, 1);
    store.dispose();
  });

  it("always keeps the newest session, even when it alone is over the budget", () => {
    const store = new TranscriptStore({ fsPath: root }, quiet, () => 10 * 1024);
    const dir = path.join(root, "transcripts");
    const newest = save(dir, "big", 50, 1);
    save(dir, "old", 5, 2);
    assert.deepEqual(store.list().map((t) => t.file), [newest]);
    store.dispose();
  });
});
