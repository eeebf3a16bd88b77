/**
 * Nothing an agent's command starts keeps running unseen: what a command leaves behind (`cmd &`)
 * ends when its shell exits, and kill, release and shutdown end a command's whole process group
 * even when its shell already exited — SIGKILL for what ignores SIGTERM.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as os from "node:os";
import { NodeTerminals } from "../../src/acp/nodeTerminals";
import { ProcessGroup, terminateAllGroups } from "../../src/acp/processGroups";
import { alive } from "../support/processes";

const posix = process.platform !== "win32";

async function until<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 5000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The pid a command printed on its first output line. */
async function printedPid(t: NodeTerminals, id: string): Promise<number> {
  return until(async () => Number((await t.output("s", id)).output.split("\n")[0]) || undefined, "the command to print a pid");
}

const within = async <T>(ms: number, p: Promise<T>, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
};

(posix ? describe : describe.skip)("Process groups: nothing keeps running", () => {
  let t: NodeTerminals;
  const started: number[] = [];
  beforeEach(() => { t = new NodeTerminals(() => os.tmpdir()); });
  afterEach(async () => {
    t.dispose();
    for (const pid of started.splice(0)) if (alive(pid)) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
    await terminateAllGroups(0);
  });

  it("a command that leaves `sleep &` behind reports its exit promptly, and the background process is gone", async () => {
    const id = await t.create({ sessionId: "s", command: "sleep 300 & echo $!; echo hi" });
    const bg = await printedPid(t, id);
    started.push(bg);
    const exit = await within(3000, t.waitForExit("s", id), "the exit of a command whose shell has ended");
    assert.deepEqual(exit, { exitCode: 0, signal: null }, "the shell's own exit status");
    assert.match((await t.output("s", id)).output, /hi\n$/, "all output before the exit is there");
    await until(() => !alive(bg), `the background sleep (pid ${bg}) to be gone`);
  });

  it("a background process that ignores SIGTERM and holds no pipe is killed after the grace period", async () => {
    const id = await t.create({ sessionId: "s", command: "(trap '' TERM; exec sleep 300) >/dev/null 2>&1 & echo $!" });
    const bg = await printedPid(t, id);
    started.push(bg);
    await within(3000, t.waitForExit("s", id), "the exit");
    await t.release("s", id);
    await until(() => !alive(bg), `the TERM-proof background sleep (pid ${bg}) to be gone`);
  });

  it("kill of a running command ends its children that ignore SIGTERM", async () => {
    const id = await t.create({ sessionId: "s", command: "(trap '' TERM; exec sleep 300) & echo $!; wait" });
    const bg = await printedPid(t, id);
    started.push(bg);
    await t.kill("s", id);
    await within(4000, t.waitForExit("s", id), "the exit after kill");
    await until(() => !alive(bg), `the child (pid ${bg}) to be gone`);
  });

  it("terminate ends a group whose leader already exited; terminateAllGroups escalates to SIGKILL", async () => {
    const leader = spawn("/bin/sh", ["-c", "(trap '' TERM; exec sleep 300) >/dev/null 2>&1 & echo $!"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    const group = new ProcessGroup(leader);
    let out = "";
    leader.stdout.on("data", (b: Buffer) => { out += b.toString(); });
    await new Promise((r) => leader.on("close", r));
    const member = Number(out.trim());
    started.push(member);
    assert.ok(alive(member), "the member outlives its leader");
    assert.equal(group.running, true, "the group still runs without its leader");
    const t0 = Date.now();
    await terminateAllGroups(300);
    assert.equal(alive(member), false, "SIGKILL after the grace period");
    assert.equal(group.running, false);
    assert.ok(Date.now() - t0 < 2500, `bounded (${Date.now() - t0} ms)`);
  });
});
