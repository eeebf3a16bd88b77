// Phase 2 of the reload test: after the reload the edit is still pending, and undo restores the original.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { api, EDITED, file, ORIGINAL } from "../shared";

describe("window reload, phase 2", function () {
  this.timeout(60_000);
  it("still lists the edit as pending, and Undo restores the original", async () => {
    assert.equal(fs.readFileSync(file(), "utf8"), EDITED);
    const changes = (await api())._test.changes;
    await changes.refresh();
    const pending = changes.pendingFiles().find((f) => f.path === file());
    assert.ok(pending, "the edit survived the reload");
    assert.equal(pending.base, ORIGINAL);
    assert.equal((await changes.hunksOf(file())).hunks.length, 2);
    await changes.undoFile(file());
    assert.equal(fs.readFileSync(file(), "utf8"), ORIGINAL);
  });
});
