/** Client terminals as child processes: shell strings, output limits, kill and release ending the process. */
import * as assert from "node:assert/strict";
import * as os from "node:os";
import { NodeTerminals, truncateStart } from "../../src/acp/nodeTerminals";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("NodeTerminals", () => {
  it("truncates from the start at a character boundary", () => {
    const buf = Buffer.from("ab€cd"); // € is 3 bytes
    const { buf: out, truncated } = truncateStart(buf, 4);
    assert.equal(truncated, true);
    assert.equal(out.toString("utf8"), "cd");
    assert.equal(truncateStart(buf, 100).truncated, false);
  });

  it("kill ends a running command (and its children); release frees the id", async () => {
    const seen: string[] = [];
    const t = new NodeTerminals(() => os.tmpdir(), { output: (_id, text) => seen.push(text) });
    const id = await t.create({ sessionId: "s", command: "echo started; sleep 30 & wait" });
    const deadline = Date.now() + 5000;
    while (!seen.join("").includes("started") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    await t.kill("s", id);
    const exit = await t.waitForExit("s", id);
    assert.ok(Date.now() - started < 3000, "killed promptly");
    assert.ok(exit.signal !== null || exit.exitCode !== 0, JSON.stringify(exit));
    const out = await t.output("s", id);
    assert.match(out.output, /started/);
    assert.deepEqual(out.exitStatus, exit, "the terminal stays valid after kill");
    await t.release("s", id);
    await assert.rejects(t.output("s", id), /not found/i);
  });

  it("release of a running command kills it; other sessions cannot touch a terminal", async () => {
    const t = new NodeTerminals(() => os.tmpdir());
    const id = await t.create({ sessionId: "s", command: process.execPath, args: ["-e", "setInterval(() => {}, 1000); console.log(process.pid)"] });
    let pid = 0;
    const deadline = Date.now() + 5000;
    while (!pid && Date.now() < deadline) {
      pid = Number((await t.output("s", id)).output.trim()) || 0;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(pid > 0 && alive(pid));
    await assert.rejects(t.kill("other-session", id), /not found/i);
    await t.release("s", id);
    const gone = Date.now() + 3000;
    while (alive(pid) && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
    assert.equal(alive(pid), false, "the process does not outlive its release");
    t.dispose();
  });
});
