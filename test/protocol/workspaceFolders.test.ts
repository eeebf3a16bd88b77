/**
 * A multi-root workspace over real stdio: the other folders reach the agent as
 * `additionalDirectories` in session/new, session/resume and session/load when it declares
 * `sessionCapabilities.additionalDirectories`, and never when it does not (ACP forbids it).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { harness, type Harness } from "./harness";
import { recorded } from "../support/recorded";

describe("workspace folders for the agent", function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  // A folder of the test's own for the agent's record: a file named by the pid outlived its run,
  // and a later run with the same pid read the earlier run's requests too.
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), "at-dirs-")); });
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const received = (file: string): { method: string; params: Record<string, unknown> }[] =>
    recorded(file);

  it("sends the other folders with every session of an agent that declares additionalDirectories", async () => {
    const record = path.join(tmp, "received.jsonl");
    h = await harness({ recordFile: record, capabilities: { loadSession: true, sessionCapabilities: { additionalDirectories: {}, resume: {} } }, turns: [[{ message: "ok" }]] });
    h.spec.additionalDirectories = ["/work/other-folder", "/work/third"];
    const c = await h.start();
    const s = await c.newSession(h.dir);
    await s.close();
    await c.continueSession({ sessionId: "k.1:x", agentSessionId: s.agentSessionId, cwd: h.dir, lastSeq: 1, lastTurnId: 0, shownPrompts: [] });
    const sent = received(record).filter((m) => m.method === "session/new" || m.method === "session/resume");
    assert.deepEqual(sent.map((m) => [m.method, m.params.cwd, m.params.additionalDirectories]), [
      ["session/new", h.dir, ["/work/other-folder", "/work/third"]],
      ["session/resume", h.dir, ["/work/other-folder", "/work/third"]],
    ]);
  });

  it("sends none to an agent that does not declare it", async () => {
    const record = path.join(tmp, "received.jsonl");
    h = await harness({ recordFile: record, turns: [[{ message: "ok" }]] });
    h.spec.additionalDirectories = ["/work/other-folder"];
    const c = await h.start();
    await c.newSession(h.dir);
    const created = received(record).find((m) => m.method === "session/new");
    assert.ok(created);
    assert.equal("additionalDirectories" in created.params, false);
  });
});
