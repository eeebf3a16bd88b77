/** The review ledger read back from workspace storage: valid entries come back as stored, malformed ones are dropped with a reason, nothing throws. */
import * as assert from "node:assert/strict";
import { EditLedger, parseStoredLedger, type TrackedFile } from "../../src/core/editLedger";

const full: TrackedFile = {
  path: "/w/a.ts",
  base: "old\n",
  origins: [{ sessionId: "s1", toolCallId: "t1", at: 1 }, { sessionId: "s1", at: 2, by: "command" }],
  decided: "undone",
  baseReported: "fragment",
  userEdits: [{ start: 0, end: 3 }],
  createdDirs: ["/w/new"],
  deletedText: "created\n",
};
const created: TrackedFile = { path: "/w/b.ts", base: null, origins: [{ sessionId: "s2", at: 3 }] };

describe("stored review ledger", () => {
  it("reads back what the ledger stores (a JSON round trip)", () => {
    const ledger = new EditLedger([full, created]);
    const stored: unknown = JSON.parse(JSON.stringify(ledger.toJSON()));
    assert.deepEqual(parseStoredLedger(stored), { files: [full, created], problems: [] });
  });

  it("nothing stored is an empty ledger, without a problem", () => {
    assert.deepEqual(parseStoredLedger(undefined), { files: [], problems: [] });
    assert.deepEqual(parseStoredLedger([]), { files: [], problems: [] });
  });

  it("a value that is not a list gives no files and says why", () => {
    for (const raw of [null, 42, "x", { path: "/w/a.ts" }]) {
      const r = parseStoredLedger(raw);
      assert.deepEqual(r.files, []);
      assert.equal(r.problems.length, 1);
      assert.match(r.problems[0]!, /not a list/);
    }
  });

  it("drops malformed entries, each with a reason, and keeps the rest", () => {
    const r = parseStoredLedger([
      full,
      { path: "/w/c.ts", base: 7, origins: [] },
      { path: "", base: null, origins: [] },
      { path: "/w/d.ts", base: null, origins: [{ sessionId: "s", at: "yesterday" }] },
      { path: "/w/e.ts", base: "x", origins: [], decided: "maybe" },
      { path: "/w/f.ts", base: "x", origins: [], userEdits: [{ start: 5, end: 2 }] },
      null,
      created,
    ]);
    assert.deepEqual(r.files, [full, created]);
    assert.equal(r.problems.length, 6);
    assert.match(r.problems[0]!, /^entry 1: base/);
    assert.match(r.problems[2]!, /^entry 3: origins\.0\.at/);
  });

  it("leaves out fields it does not know (a newer or older version's)", () => {
    const r = parseStoredLedger([{ ...created, somethingNew: true }]);
    assert.deepEqual(r.files, [created]);
  });
});
