/** Edit review: hunks from baseline vs current; keep/undo per hunk restore exact text. */
import * as assert from "node:assert/strict";
import { computeHunks, keepHunk, proposedText, summarize, undoHunk } from "../../src/core/editReview";
import { EditLedger } from "../../src/core/editLedger";

const base = ["line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", ""].join("\n");
const current = ["line 1", "LINE 2 changed", "line 3", "line 4", "inserted a", "inserted b", "line 5", "line 6", "line 8", ""].join("\n");

describe("edit review", () => {
  it("finds each changed region as one hunk with line numbers and counts", () => {
    const hunks = computeHunks(base, current);
    assert.equal(hunks.length, 3);
    assert.deepEqual(hunks.map((h) => [h.curLine, h.added, h.removed]), [[1, 1, 1], [4, 2, 0], [8, 0, 1]]);
    assert.equal(hunks[0]!.baseText, "line 2\n");
    assert.equal(hunks[0]!.curText, "LINE 2 changed\n");
    assert.deepEqual(computeHunks(base, base), []);
  });

  it("undoing one hunk restores exactly its original text and leaves the others", () => {
    const [h0, h1, h2] = computeHunks(base, current);
    const afterUndo1 = undoHunk(current, h1!);
    assert.equal(afterUndo1, ["line 1", "LINE 2 changed", "line 3", "line 4", "line 5", "line 6", "line 8", ""].join("\n"));
    const remaining = computeHunks(base, afterUndo1);
    assert.equal(remaining.length, 2);
    assert.deepEqual([remaining[0]!.curText, remaining[1]!.baseText], [h0!.curText, h2!.baseText]);
    // Undo the rest one by one (re-deriving hunks each time, as the editor does): back to the original.
    let text = afterUndo1;
    for (let hs = computeHunks(base, text); hs.length; hs = computeHunks(base, text)) text = undoHunk(text, hs[0]!);
    assert.equal(text, base);
  });

  it("keeping a hunk moves it into the baseline; keeping all empties the review", () => {
    const [h0] = computeHunks(base, current);
    const base2 = keepHunk(base, h0!);
    const left = computeHunks(base2, current);
    assert.equal(left.length, 2);
    assert.ok(!left.some((h) => h.curText.includes("LINE 2")));
    let b = base;
    for (let hs = computeHunks(b, current); hs.length; hs = computeHunks(b, current)) b = keepHunk(b, hs[0]!);
    assert.equal(b, current);
  });

  it("handles CRLF, no trailing newline and a created file", () => {
    const crlfBase = "a\r\nb\r\nc";
    const crlfCur = "a\r\nB\r\nc";
    const [h] = computeHunks(crlfBase, crlfCur);
    assert.equal(undoHunk(crlfCur, h!), crlfBase);
    const created = computeHunks("", "new\nfile\n");
    assert.equal(created.length, 1);
    assert.equal(created[0]!.added, 2);
    assert.equal(undoHunk("new\nfile\n", created[0]!), "");
  });

  it("the ledger fixes the baseline at the first edit and reports file state", () => {
    const ledger = new EditLedger();
    ledger.recordEdit("/w/a.ts", "old\n", { sessionId: "s", toolCallId: "t1", at: 1 });
    ledger.recordEdit("/w/a.ts", "mid\n", { sessionId: "s", toolCallId: "t2", at: 2 });
    const f = ledger.get("/w/a.ts")!;
    assert.equal(f.base, "old\n");
    assert.deepEqual(f.origins.map((o) => o.toolCallId), ["t1", "t2"]);
    assert.deepEqual(summarize(f, "new\n"), { added: 1, removed: 1, hunks: 1, state: "pending" });
    ledger.setBase("/w/a.ts", "new\n");
    ledger.decide("/w/a.ts", "kept");
    assert.equal(summarize(ledger.get("/w/a.ts")!, "new\n").state, "kept");
    // A later agent edit after a decision starts a new review from what is on disk.
    ledger.recordEdit("/w/a.ts", "new\n", { sessionId: "s", toolCallId: "t3", at: 3 });
    assert.equal(ledger.get("/w/a.ts")!.base, "new\n");
    assert.equal(ledger.get("/w/a.ts")!.decided, undefined);
    const restored = new EditLedger(JSON.parse(JSON.stringify(ledger.toJSON())) as ReturnType<EditLedger["toJSON"]>);
    assert.deepEqual(restored.get("/w/a.ts"), ledger.get("/w/a.ts"));
    const created = new EditLedger();
    created.recordEdit("/w/new.ts", null, { sessionId: "s", at: 1 });
    assert.deepEqual(summarize(created.get("/w/new.ts")!, "x\n"), { added: 1, removed: 0, hunks: 1, state: "pending" });
    created.decide("/w/new.ts", "undone");
    assert.equal(summarize(created.get("/w/new.ts")!, null).state, "undone");
  });
});

describe("proposed edits", () => {
  it("applies a fragment diff in place, so the proposal shows in context", () => {
    assert.equal(proposedText("a\nb\nc\n", "b\n", "B\nB2\n"), "a\nB\nB2\nc\n");
  });

  it("takes a whole-file diff, a new file, or a fragment not in the file as the whole new text", () => {
    assert.equal(proposedText("a\nb\n", "a\nb\n", "x\n"), "x\n");
    assert.equal(proposedText(null, null, "new\n"), "new\n");
    assert.equal(proposedText("a\n", null, "x\n"), "x\n");
    assert.equal(proposedText("a\n", "", "x\n"), "x\n");
    assert.equal(proposedText("a\n", "zzz", "x\n"), "x\n");
  });
});
