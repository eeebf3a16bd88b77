/**
 * What an agent starts goes with it: a helper (grandchild) of an agent that crashes, and of an
 * agent that is stopped, even one that ignores SIGTERM, is gone afterwards.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import { harness, type Harness } from "./harness";
import type { PermissionAnswer } from "../../src/acp/ports";
import { NodeTerminals } from "../../src/acp/nodeTerminals";
import { alive, pidWritten } from "../support/processes";
import { until } from "../support/until";


const pidIn = (file: string): Promise<number> => until(() => pidWritten(file), `a pid in ${file}`, 5000);

(process.platform === "win32" ? describe.skip : describe)("ACP client: an agent's own processes", function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  const started: number[] = [];
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(path.join(os.tmpdir(), "at-procs-")); });
  afterEach(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await h?.cleanup();
    h = undefined;
    for (const pid of started.splice(0)) if (alive(pid)) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
  });

  it("a grandchild of an agent that crashes is gone after the crash", async () => {
    const child = path.join(tmp, "child.pid");
    h = await harness({ turns: [[{ spawnChild: { command: "exec sleep 300", pidFile: child } }, { message: "spawned" }, { crash: 3 }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    const turn = s.prompt("go");
    await assert.rejects(turn.result, /exited with code 3/);
    const pid = await pidIn(child);
    started.push(pid);
    await until(() => !alive(pid), `the crashed agent's child (pid ${pid}) to be gone`, 5000);
  });

  it("stopping an agent ends its grandchild that ignores SIGTERM", async () => {
    const child = path.join(tmp, "child.pid");
    const ready = path.join(tmp, "ready.pid");
    // The helper writes its pid once SIGTERM is ignored (a TERM that came earlier would be a false pass).
    h = await harness({ turns: [[{ spawnChild: { command: `trap '' TERM; echo $$ > ${ready}; exec sleep 300`, pidFile: child } }, { message: "spawned" }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    await s.prompt("go").result;
    const pid = await pidIn(ready);
    started.push(pid);
    c.dispose();
    await until(() => !alive(pid), `the stopped agent's child (pid ${pid}) to be gone`, 4000);
  });

  /** A process's autogroup as Linux reports it ("/autogroup-42 nice 19"); undefined without autogroups. */
  const autogroup = (pid: number | "self"): string | undefined => {
    try {
      return readFileSync(`/proc/${pid}/autogroup`, "utf8").trim();
    } catch {
      return undefined;
    }
  };

  /** The pid of a process an agent started at `priority` starts (a plain child: no session of its own), and the client's log. */
  const childOfAgentAt = async (priority: "low" | "normal"): Promise<{ pid: number; log: string }> => {
    const child = path.join(tmp, "child.pid");
    const agent = await harness({ turns: [[{ spawnChild: { command: "exec sleep 300", pidFile: child } }, { message: "spawned" }]] });
    h = agent;
    const c = await agent.start(10_000, { processPriority: priority });
    await (await c.newSession(agent.dir)).prompt("go").result;
    const pid = await pidIn(child);
    started.push(pid);
    return { pid, log: agent.logger.lines.join("\n") };
  };

  it("an agent at low priority, and what it starts, run at nice 10 (on Linux in an autogroup of nice 19); the editor's own priority is unchanged", async () => {
    const ours = { nice: os.getPriority(), autogroup: autogroup("self") };
    const { pid, log } = await childOfAgentAt("low");
    assert.equal(os.getPriority(pid), Math.max(10, ours.nice), "the agent's child inherits nice 10 (or ours, when lower still)");
    assert.match(log, /runs below the editor's CPU priority\./);
    if (ours.autogroup !== undefined) {
      // (Linux takes a user's autogroup nice once per 100 ms machine-wide: it may come a moment later.)
      await until(() => / nice 19$/.test(autogroup(pid) ?? ""), "the agent's session to be an autogroup of nice 19", 5000);
      assert.notEqual(autogroup(pid)?.split(" ")[0], ours.autogroup.split(" ")[0], "in an autogroup of its own");
    }
    assert.deepEqual({ nice: os.getPriority(), autogroup: autogroup("self") }, ours, "the editor's priority and autogroup are untouched");
  });

  /** A low-priority agent whose turn ignores a cancel for `ignoreMs`, its child's pid (in the agent's autogroup) and the turn. */
  const stoppableAgent = async (ignoreMs: number) => {
    const child = path.join(tmp, "child.pid");
    h = await harness({ turns: [[{ spawnChild: { command: "exec sleep 300", pidFile: child } }, { message: "spawned" }, { ignoreCancel: ignoreMs, then: [{ message: "done" }] }]] });
    const c = await h.start(10_000, { processPriority: "low", cancelTimeoutMs: 60_000 });
    const turn = (await c.newSession(h.dir)).prompt("go");
    const pid = await pidIn(child);
    started.push(pid);
    await until(() => / nice 19$/.test(autogroup(pid) ?? ""), "the agent's autogroup at nice 19", 5000);
    return { pid, turn };
  };

  (process.platform === "linux" && autogroup("self") !== undefined ? it : it.skip)("Stop gives a low-priority agent the editor's share until it answers the turn, then the lowest again", async () => {
    const editor = / nice (\d+)$/.exec(autogroup("self") ?? "")?.[1] ?? "0";
    const { pid, turn } = await stoppableAgent(1500);
    turn.cancel();
    await until(() => autogroup(pid)?.endsWith(` nice ${editor}`), "the stopping agent's autogroup at the editor's nice", 2000);
    await turn.result;
    await until(() => / nice 19$/.test(autogroup(pid) ?? ""), "the agent's autogroup back at nice 19 once it answered", 2000);
  });

  (process.platform === "linux" && autogroup("self") !== undefined ? it : it.skip)("an agent that ignores Stop keeps the editor's share no longer than 3 s", async () => {
    const editor = / nice (\d+)$/.exec(autogroup("self") ?? "")?.[1] ?? "0";
    const { pid, turn } = await stoppableAgent(20_000);
    const stopped = Date.now();
    turn.cancel();
    await until(() => autogroup(pid)?.endsWith(` nice ${editor}`), "the stopping agent's autogroup at the editor's nice", 2000);
    await until(() => / nice 19$/.test(autogroup(pid) ?? ""), "the agent's autogroup back at nice 19 while it still ignores the cancel", 6000);
    assert.ok(Date.now() - stopped >= 2900, `back at nice 19 after ${Date.now() - stopped} ms (the turn was still unanswered)`);
    let answered = false;
    void turn.result.then(() => { answered = true; }, () => { answered = true; });
    await Promise.resolve();
    assert.equal(answered, false, "the agent had not answered the turn");
  });

  /**
   * Answers a low-priority agent's permission request as `by` says, and samples its autogroup's
   * nice until the turn is over (the agent works 2 s after the answer): [ms after the answer, nice].
   */
  const answeredAgent = async (by: "user" | "policy"): Promise<[number, string][]> => {
    const child = path.join(tmp, "child.pid");
    h = await harness({ turns: [[
      { spawnChild: { command: "exec sleep 300", pidFile: child } },
      { message: "spawned" },
      { permission: { toolCall: { toolCallId: "p1", title: "Run the tests", kind: "execute" }, options: [{ optionId: "yes", name: "Allow", kind: "allow_once" }] }, onSelected: { yes: [{ sleep: 2000 }, { message: "done" }] } },
    ]] });
    const harnessed = h;
    let answer: ((a: PermissionAnswer) => void) | undefined;
    harnessed.permissions.decide = () => new Promise<PermissionAnswer>((resolve) => { answer = resolve; });
    const c = await harnessed.start(10_000, { processPriority: "low" });
    const turn = (await c.newSession(harnessed.dir)).prompt("go");
    const pid = await pidIn(child);
    started.push(pid);
    await until(() => / nice 19$/.test(autogroup(pid) ?? ""), "the agent's autogroup at nice 19", 5000);
    await until(() => answer, "the agent's permission request");
    let over = false;
    void turn.result.finally(() => { over = true; });
    const at = Date.now();
    answer!({ outcome: "selected", optionId: "yes", ...(by === "policy" ? { by } : {}) });
    const samples: [number, string][] = [];
    while (!over) {
      samples.push([Date.now() - at, / nice (-?\d+)$/.exec(autogroup(pid) ?? "")?.[1] ?? "?"]);
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal((await turn.result).stopReason, "end_turn");
    return samples;
  };
  const editorNice = / nice (\d+)$/.exec(autogroup("self") ?? "")?.[1] ?? "0";
  const answerable = process.platform === "linux" && autogroup("self") !== undefined && editorNice !== "19";
  const niceText = (samples: readonly [number, string][]): string => samples.filter(([, n], i) => i === 0 || n !== samples[i - 1]![1]).map(([t, n]) => `${n} from ${t} ms`).join(", ");

  (answerable ? it : it.skip)("the user's answer to a low-priority agent's permission request gives it the editor's share for about half a second, then the lowest again while it works on", async () => {
    const samples = await answeredAgent("user");
    const raised = samples.filter(([, n]) => n === editorNice).map(([t]) => t);
    assert.ok(raised.length > 0, `the agent's autogroup nice after the answer: ${niceText(samples)}`);
    // (Linux takes a user's autogroup nice once per 100 ms machine-wide: a change may come up to ~0.2 s late.)
    assert.ok(raised[0]! <= 400, `raised ${raised[0]} ms after the answer: ${niceText(samples)}`);
    assert.ok(raised[raised.length - 1]! <= 1_000, `still at the editor's nice ${raised[raised.length - 1]} ms after the answer (500 ms wanted): ${niceText(samples)}`);
    const last = samples[samples.length - 1]![0];
    assert.ok(last >= 1_500, `watched for ${last} ms`);
    assert.ok(samples.filter(([t]) => t > raised[raised.length - 1]!).every(([, n]) => n === "19"), `at nice 19 from then on: ${niceText(samples)}`);
  });

  (answerable ? it : it.skip)("a policy's answer (an allow-always rule) leaves a low-priority agent at the lowest share", async () => {
    const samples = await answeredAgent("policy");
    assert.ok(samples[samples.length - 1]![0] >= 1_500, `watched for ${samples[samples.length - 1]![0]} ms`);
    assert.ok(samples.every(([, n]) => n === "19"), `the agent's autogroup nice after the answer: ${niceText(samples)}`);
  });

  it("an agent at normal priority runs at the editor's priority", async () => {
    const { pid } = await childOfAgentAt("normal");
    assert.equal(os.getPriority(pid), os.getPriority());
    if (autogroup(pid) !== undefined) assert.match(autogroup(pid)!, / nice 0$/);
  });

  it("a command an agent runs in a terminal runs at the priority set for agents", async () => {
    for (const priority of ["low", "normal"] as const) {
      const t = new NodeTerminals({ priority: () => priority });
      try {
        const id = await t.create({ sessionId: "s", sessionCwd: tmp, command: process.execPath, args: ["-e", "console.log('nice=' + require('os').getPriority())"] });
        await t.waitForExit("s", id);
        assert.match((await t.output("s", id)).output, new RegExp(`nice=${priority === "low" ? Math.max(10, os.getPriority()) : os.getPriority()}\\b`), priority);
      } finally {
        t.dispose();
      }
    }
  });

  (process.platform === "linux" ? it : it.skip)("stopping an agent ends a child it started in a session of its own (setsid), and that child's children", async () => {
    const child = path.join(tmp, "child.pid");
    const grandchild = path.join(tmp, "grandchild.pid");
    h = await harness({ turns: [[{ spawnChild: { command: `sleep 300 & echo $! > ${grandchild}; exec sleep 301`, pidFile: child, detached: true } }, { message: "spawned" }]] });
    const c = await h.start();
    const s = await c.newSession(h.dir);
    await s.prompt("go").result;
    const pid = await pidIn(child);
    const gpid = await pidIn(grandchild);
    started.push(pid, gpid);
    c.dispose();
    await until(() => !alive(pid) && !alive(gpid), `the detached child (pid ${pid}) and its child (pid ${gpid}) to be gone`, 4000);
  });
});
