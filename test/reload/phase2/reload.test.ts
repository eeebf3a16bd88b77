// Phase 2 of the reload test: after the reload the edit is still pending, and undo restores the original.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as vscode from "vscode";
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

  it("brings the earlier session's transcript back into the panel as history", async () => {
    const a = await api();
    const deadline = Date.now() + 10_000;
    const find = (): string | undefined => {
      const state = a._test.controller.viewState;
      return state.order.find((id) => state.sessions[id]!.turns.some((t) => t.entries.some((e) => e.type === "message" && e.text.includes("REMEMBER-ME-42"))));
    };
    while (!find() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const id = find();
    assert.ok(id, "the transcript was restored");
    const session = a._test.controller.viewState.sessions[id]!;
    assert.equal(session.restored, true);
    assert.equal(session.status, "ended");
    assert.ok(session.turns[0]!.entries.some((e) => e.type === "thought" && e.text.includes("worth keeping")));
    assert.equal(await vscode.commands.executeCommand<string>("agentThoughts.showSessions", id), id);
    assert.equal(a._test.controller.activeSession, id);
  });
});
