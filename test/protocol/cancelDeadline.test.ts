/**
 * Stop always ends the turn: an agent that ignores `session/cancel` has the turn ended for it
 * after the cancel deadline, and neither its late answer nor its late updates reach the next turn.
 */
import * as assert from "node:assert/strict";
import { rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SessionManager } from "../../src/acp/sessionManager";
import { harness, type Harness } from "./harness";
import { until } from "../support/until";


describe("ACP client: an agent that ignores session/cancel", function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  afterEach(async () => { await h?.cleanup(); h = undefined; });

  it("the turn ends as cancelled at the deadline, with a Restart Agent notice; the late answer and updates stay out of the next turn", async () => {
    h = await harness({ turns: [[{ message: "working" }, { ignoreCancel: 1500, then: [{ message: "LATE-UPDATE" }] }], [{ message: "next turn" }]] });
    const c = await h.start(10_000, { cancelTimeoutMs: 300 });
    const s = await c.newSession(h.dir);
    const turn = s.prompt("go");
    await until(() => s.log.all().some((e) => e.kind === "message" && e.text === "working"), "the agent to start working", 5000);
    const t0 = Date.now();
    turn.cancel();
    const r = await turn.result;
    const took = Date.now() - t0;
    assert.equal(r.stopReason, "cancelled");
    assert.ok(took < 1200, `ended at the deadline, not when the agent answered (${took} ms)`);
    const notice = s.log.all().find((e) => e.kind === "notice");
    assert.ok(notice?.kind === "notice" && notice.action === "restartAgent" && notice.turnId === 1, JSON.stringify(notice));
    assert.match(notice.title, /^Scripted did not stop within 0\.3 s; the turn was ended here$/);
    assert.equal(s.stuck, true, "the agent has not answered yet");
    await until(() => !s.stuck, "the agent's late answer", 5000);
    const late = s.log.all().find((e) => e.kind === "message" && e.text === "LATE-UPDATE");
    assert.ok(late, "the late update is kept");
    assert.equal(late.turnId, undefined, "…outside any turn");
    const next = await s.prompt("again").result;
    assert.equal(next.text, "next turn", "the next turn has only its own text");
    assert.equal(next.stopReason, "end_turn");
  });

  it("while the agent has not answered, a new prompt goes to a new session of the same agent", async () => {
    const counter = path.join(os.tmpdir(), `at-cancel-${process.pid}-${Date.now()}.count`);
    h = await harness({ promptCounterFile: counter, turns: [[{ ignoreCancel: 3000 }], [{ message: "fresh" }]] });
    const spec = h.spec;
    const manager = new SessionManager(h.ports, { initializeTimeoutMs: 10_000, cancelTimeoutMs: 200, clientName: "t", clientVersion: "0", resolveAgent: () => spec });
    try {
      const first = manager.stream("go");
      const session = await until(() => manager.currentSession, "the session", 5000);
      await until(() => session.busy, "the turn to run", 5000);
      first.cancel();
      assert.equal((await first.result).stopReason, "cancelled");
      assert.equal(session.stuck, true);
      const second = await manager.stream("again", { sessionId: session.sessionId }).result;
      assert.notEqual(second.sessionId, session.sessionId, "a new session");
      assert.equal(second.text, "fresh");
      const fresh = manager.sessionById(second.sessionId)!;
      assert.ok(fresh.log.all().some((e) => e.kind === "notice" && /has not answered the turn you stopped, so this is a new session/.test(e.title)));
    } finally {
      manager.dispose();
      rmSync(counter, { force: true });
    }
  });
});
