/**
 * Nothing an agent's command starts keeps running unseen: what a command leaves behind (`cmd &`)
 * ends when its shell exits, and kill, release and shutdown end a command's whole process group
 * even when its shell already exited — SIGKILL for what ignores SIGTERM.
 */
import * as assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { NodeTerminals } from "../../src/acp/nodeTerminals";
import { ProcessGroup, terminateAllGroups } from "../../src/acp/processGroups";
import { alive, pidWritten } from "../support/processes";
import { until as untilWithin } from "../support/until";

const posix = process.platform !== "win32";

/** The shared `until`, within 5 s (these processes start and end in milliseconds). */
const until = <T>(fn: () => T | Promise<T>, what: string): Promise<NonNullable<T>> => untilWithin(fn, what, 5_000);

/** The pid a command wrote to `file`. */
const pidIn = (file: string): Promise<number> => until(() => pidWritten(file), `a pid in ${file}`);

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
  let dir: string;
  const started: number[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "at-groups-"));
    t = new NodeTerminals();
  });
  afterEach(async () => {
    t.dispose();
    rmSync(dir, { recursive: true, force: true });
    for (const pid of started.splice(0)) if (alive(pid)) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
    await terminateAllGroups(0);
  });

  it("a command that leaves `sleep &` behind reports its exit promptly, and the background process is gone", async () => {
    const id = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "sleep 300 & echo $!; echo hi" });
    const bg = await printedPid(t, id);
    started.push(bg);
    const exit = await within(3000, t.waitForExit("s", id), "the exit of a command whose shell has ended");
    assert.deepEqual(exit, { exitCode: 0, signal: null }, "the shell's own exit status");
    assert.match((await t.output("s", id)).output, /hi\n$/, "all output before the exit is there");
    await until(() => !alive(bg), `the background sleep (pid ${bg}) to be gone`);
  });

  it("a background process that ignores SIGTERM and holds no pipe is killed after the grace period", async () => {
    const ready = path.join(dir, "ready.pid");
    // The command ends once the child ignores SIGTERM (so its end cannot beat the trap).
    const id = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: `sh -c 'trap "" TERM; echo $$ > ${ready}; exec sleep 300' >/dev/null 2>&1 & while [ ! -s ${ready} ]; do sleep 0.05; done` });
    const bg = await pidIn(ready);
    started.push(bg);
    await within(3000, t.waitForExit("s", id), "the exit");
    await t.release("s", id);
    await until(() => !alive(bg), `the TERM-proof background sleep (pid ${bg}) to be gone`);
  });

  it("kill of a running command ends its children that ignore SIGTERM", async () => {
    const ready = path.join(dir, "ready.pid");
    const id = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: `sh -c 'trap "" TERM; echo $$ > ${ready}; exec sleep 300' & wait` });
    const bg = await pidIn(ready);
    started.push(bg);
    await t.kill("s", id);
    await within(4000, t.waitForExit("s", id), "the exit after kill");
    await until(() => !alive(bg), `the child (pid ${bg}) to be gone`);
  });

  (process.platform === "linux" ? it : it.skip)("kill of a running command also ends what it started in a session of its own (setsid)", async () => {
    const script = "const c = require('child_process').spawn('sleep', ['300'], { detached: true, stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);";
    const id = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: process.execPath, args: ["-e", script] });
    const escaped = await printedPid(t, id);
    started.push(escaped);
    await t.kill("s", id);
    await within(4000, t.waitForExit("s", id), "the exit after kill");
    await until(() => !alive(escaped), `the detached sleep (pid ${escaped}) to be gone`);
  });

  describe("on Windows (no process groups): the tree is ended with tree-kill, given the leader's pid", () => {
    /** A leader that has a child in its process group, so a group kill would end both. */
    function leaderWithChild(): { leader: ChildProcess; childPid: Promise<number> } {
      const ready = path.join(dir, "child.pid");
      const leader = spawn("/bin/sh", ["-c", `sleep 300 & echo $! > ${ready}; wait`], { detached: true, stdio: "ignore" });
      started.push(leader.pid!);
      return { leader, childPid: pidIn(ready).then((pid) => { started.push(pid); return pid; }) };
    }

    it("terminate asks tree-kill for SIGTERM, then SIGKILL after the grace, and never signals a group", async () => {
      const { leader, childPid } = leaderWithChild();
      const child = await childPid;
      const calls: [number, NodeJS.Signals][] = [];
      const group = new ProcessGroup(leader, { platform: "win32", killTree: (pid, signal, done) => { calls.push([pid, signal]); done(); } });
      await within(3000, group.terminate(100), "giving up on a tree that did not end");
      assert.deepEqual(calls, [[leader.pid!, "SIGTERM"], [leader.pid!, "SIGKILL"]]);
      assert.ok(alive(leader.pid!) && alive(child), "tree-kill did nothing here, and nothing else was signalled");
    });

    it("kill goes straight to SIGKILL, and the group is done once the tree is gone", async () => {
      const { leader, childPid } = leaderWithChild();
      const child = await childPid;
      const calls: [number, NodeJS.Signals][] = [];
      const group = new ProcessGroup(leader, {
        platform: "win32",
        killTree: (pid, signal, done) => { calls.push([pid, signal]); process.kill(-pid, "SIGKILL"); done(); },
      });
      await within(3000, group.kill(), "ending the tree");
      assert.deepEqual(calls, [[leader.pid!, "SIGKILL"]]);
      assert.equal(group.running, false);
      await until(() => !alive(child), "the child to be gone");
    });

    it("when tree-kill fails (or throws), the leader itself is killed", async () => {
      for (const fail of [(done: (err?: Error) => void) => done(new Error("taskkill failed")), () => { throw new Error("no taskkill"); }]) {
        const leader = spawn("sleep", ["300"], { stdio: "ignore" });
        started.push(leader.pid!);
        const group = new ProcessGroup(leader, { platform: "win32", killTree: (_pid, _signal, done) => fail(done) });
        await within(3000, group.terminate(5000), "ending the leader");
        assert.equal(group.running, false);
        await until(() => !alive(leader.pid!), "the leader to be gone");
      }
    });
  });

  it("on macOS and Linux the group is signalled and tree-kill is never used", async () => {
    for (const platform of ["darwin", "linux"] as const) {
      const ready = path.join(dir, `${platform}.pid`);
      const leader = spawn("/bin/sh", ["-c", `sleep 300 & echo $! > ${ready}; wait`], { detached: true, stdio: "ignore" });
      started.push(leader.pid!);
      const child = await pidIn(ready);
      started.push(child);
      const group = new ProcessGroup(leader, { platform, killTree: () => assert.fail(`tree-kill used on ${platform}`) });
      await within(4000, group.terminate(1000), "ending the group");
      assert.equal(group.running, false);
      await until(() => !alive(child) && !alive(leader.pid!), `the leader and its child to be gone (${platform})`);
    }
  });

  it("terminate ends a group whose leader already exited; terminateAllGroups escalates to SIGKILL", async () => {
    const ready = path.join(dir, "ready.pid");
    const leader = spawn("/bin/sh", ["-c", `sh -c 'trap "" TERM; echo $$ > ${ready}; exec sleep 300' >/dev/null 2>&1 &`], { detached: true, stdio: "ignore" });
    const group = new ProcessGroup(leader);
    await new Promise((r) => leader.on("exit", r));
    const member = await pidIn(ready);
    started.push(member);
    assert.ok(alive(member), "the member outlives its leader");
    assert.equal(group.running, true, "the group still runs without its leader");
    await terminateAllGroups(300);
    assert.equal(alive(member), false, "SIGKILL after the grace period");
    assert.equal(group.running, false);
  });
});
