/**
 * Client terminals as child processes: shell strings, output limits, kill and release ending the
 * process; where a command may run (session folder, workspace folders) and the PATH it gets.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { mergeTerminalEnv, NodeTerminals, truncateStart } from "../../src/acp/nodeTerminals";

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

  it("a character split across output chunks reaches the mirror whole; an agent's outputByteLimit is capped", async () => {
    const seen: string[] = [];
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "at-term-utf8-")));
    const t = new NodeTerminals();
    t.listen({ output: (_id, text) => seen.push(text) });
    try {
      // "€" is e2 82 ac: print its first byte, pause, then the rest.
      const id = await t.create({ sessionId: "s", sessionCwd: dir, command: "printf '\\342'; sleep 0.2; printf '\\202\\254ok'", outputByteLimit: 2 ** 40 });
      await t.waitForExit("s", id);
      assert.equal(seen.join(""), "€ok");
      assert.ok(!seen.some((x) => x.includes("\ufffd")), `no replacement characters: ${JSON.stringify(seen)}`);
      const limit = (t as unknown as { terms: Map<string, { limit: number }> }).terms.get(id)!.limit;
      assert.equal(limit, 16 * 1024 * 1024);
    } finally {
      t.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a session holds at most 32 unreleased terminals and 64 MB of their output in all; releasing one makes room", async () => {
    const t = new NodeTerminals();
    const limitOf = (id: string): number => (t as unknown as { terms: Map<string, { limit: number }> }).terms.get(id)!.limit;
    try {
      const big: string[] = [];
      for (let i = 0; i < 3; i++) big.push(await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true", outputByteLimit: 16 * 1024 * 1024 }));
      const fourth = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true", outputByteLimit: 16 * 1024 * 1024 });
      assert.equal(limitOf(fourth), 16 * 1024 * 1024, "four of 16 MB fill the 64 MB");
      await assert.rejects(t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true" }), /this session has terminals not released that keep 64 MB of output; release one/);
      const other = await t.create({ sessionId: "other", sessionCwd: os.tmpdir(), command: "true" });
      assert.equal(limitOf(other), 1024 * 1024, "another session has room of its own");
      await t.release("s", big[0]!);
      const after = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true", outputByteLimit: 16 * 1024 * 1024 });
      assert.equal(limitOf(after), 16 * 1024 * 1024, "released: room again");
      for (const id of [...big.slice(1), fourth, after]) await t.release("s", id);
      const ids: string[] = [];
      for (let i = 0; i < 32; i++) ids.push(await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true", outputByteLimit: 1024 }));
      await assert.rejects(t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true" }), /this session has 32 terminals not released/);
      await t.release("s", ids[0]!);
      await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true" });
    } finally {
      t.dispose();
    }
  });

  it("creates asked all at once are held to the same caps; one under way when its session ends adds nothing", async () => {
    const t = new NodeTerminals();
    try {
      const all = await Promise.allSettled(Array.from({ length: 20 }, () => t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "true", outputByteLimit: 16 * 1024 * 1024 })));
      assert.equal(all.filter((r) => r.status === "fulfilled").length, 4, "four of 16 MB, not twenty");
      const odd = await t.create({ sessionId: "n", sessionCwd: os.tmpdir(), command: "true", outputByteLimit: Number.NaN });
      assert.equal((t as unknown as { terms: Map<string, { limit: number }> }).terms.get(odd)!.limit, 1024 * 1024, "a limit that is not a number: the default");
      const late = t.create({ sessionId: "gone", sessionCwd: os.tmpdir(), command: "true" });
      t.releaseSession("gone");
      await assert.rejects(late, /the session ended while the terminal was being created/);
      assert.ok(![...(t as unknown as { terms: Map<string, { sessionId: string }> }).terms.values()].some((x) => x.sessionId === "gone"));
      // Another session's end refuses only its own: a create under way for this one goes on.
      const other = t.create({ sessionId: "stays", sessionCwd: os.tmpdir(), command: "true" });
      t.releaseSession("ends");
      assert.match(await other, /^term-/);
      // Nor does a create under way when the terminals are disposed (the window closing) start its command.
      const closing = t.create({ sessionId: "stays", sessionCwd: os.tmpdir(), command: "true" });
      t.dispose();
      await assert.rejects(closing, /ended while the terminal was being created/);
      // An ended session leaves nothing behind (the window may end thousands).
      assert.equal((t as unknown as { creating: Set<unknown> }).creating.size, 0, "no create under way, nothing kept");
    } finally {
      t.dispose();
    }
  });

  it("kill ends a running command (and its children); release frees the id", async () => {
    const seen: string[] = [];
    const t = new NodeTerminals();
    t.listen({ output: (_id, text) => seen.push(text) });
    const id = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: "echo started; sleep 30 & wait" });
    const deadline = Date.now() + 5000;
    while (!seen.join("").includes("started") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await t.kill("s", id);
    // Ended by the kill, not by running its 30 s (the bench times it: terminals).
    const exit = await t.waitForExit("s", id);
    assert.ok(exit.signal !== null || exit.exitCode !== 0, JSON.stringify(exit));
    const out = await t.output("s", id);
    assert.match(out.output, /started/);
    assert.deepEqual(out.exitStatus, exit, "the terminal stays valid after kill");
    await t.release("s", id);
    await assert.rejects(t.output("s", id), /not found/i);
  });

  it("release of a running command kills it; other sessions cannot touch a terminal", async () => {
    const t = new NodeTerminals();
    const id = await t.create({ sessionId: "s", sessionCwd: os.tmpdir(), command: process.execPath, args: ["-e", "setInterval(() => {}, 1000); console.log(process.pid)"] });
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

/** Runs a shell command to its end and returns what it printed. */
async function run(t: NodeTerminals, sessionCwd: string, command: string, extra: { cwd?: string; env?: { name: string; value: string }[] } = {}): Promise<string> {
  const id = await t.create({ sessionId: "s", sessionCwd, command, ...extra });
  await t.waitForExit("s", id);
  const { output } = await t.output("s", id);
  await t.release("s", id);
  return output;
}

describe("NodeTerminals: PATH from the agent", () => {
  const USER_PATH = ["/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter);

  it("ignores an empty PATH and says so", () => {
    const notes: string[] = [];
    const env = mergeTerminalEnv({ PATH: USER_PATH, HOME: "/h" }, [{ name: "PATH", value: "" }, { name: "FOO", value: "bar" }], (m) => notes.push(m));
    assert.equal(env.PATH, USER_PATH);
    assert.equal(env.FOO, "bar", "other variables still apply");
    assert.equal(env.HOME, "/h");
    assert.match(notes.join("\n"), /ignored an empty PATH/);
    assert.equal(mergeTerminalEnv({ PATH: USER_PATH }, [{ name: "PATH", value: ` ${path.delimiter} ` }]).PATH, USER_PATH, "separators and blanks only count as empty");
  });

  it("keeps the agent's entries first and appends the user's entries it lacks", () => {
    const notes: string[] = [];
    const agentPath = ["/agent/bin", "/usr/bin"].join(path.delimiter);
    const env = mergeTerminalEnv({ PATH: USER_PATH }, [{ name: "PATH", value: agentPath }], (m) => notes.push(m));
    assert.equal(env.PATH, ["/agent/bin", "/usr/bin", "/usr/local/bin", "/bin"].join(path.delimiter));
    assert.match(notes.join("\n"), /lacks 2 of the user's entries/);
  });

  it("leaves a PATH that already has every user entry as the agent sent it, silently", () => {
    const notes: string[] = [];
    const agentPath = ["/bin", "/agent/bin", "/usr/bin", "/usr/local/bin"].join(path.delimiter);
    assert.equal(mergeTerminalEnv({ PATH: USER_PATH }, [{ name: "PATH", value: agentPath }], (m) => notes.push(m)).PATH, agentPath);
    assert.deepEqual(notes, []);
  });

  it("skips variables that cannot be set", () => {
    const notes: string[] = [];
    const env = mergeTerminalEnv({}, [{ name: "", value: "x" }, { name: "A=B", value: "x" }, { name: "OK", value: "1" }], (m) => notes.push(m));
    assert.deepEqual(Object.keys(env), ["OK"]);
    assert.equal(notes.length, 2);
  });

  it("a command run with PATH=\"\" still finds the user's tools", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "at-env-"));
    const logged: string[] = [];
    const t = new NodeTerminals({ baseEnv: { PATH: USER_PATH }, logger: { info: (m) => logged.push(m), warn: (m) => logged.push(m) } });
    try {
      assert.equal(await run(t, dir, "printf %s \"$PATH\"", { env: [{ name: "PATH", value: "" }] }), USER_PATH);
      assert.equal(await run(t, dir, "printf %s \"$PATH\"", { env: [{ name: "PATH", value: "/agent/bin" }] }), ["/agent/bin", USER_PATH].join(path.delimiter));
      assert.match(logged.join("\n"), /empty PATH/);
    } finally {
      t.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("NodeTerminals: where commands may run", () => {
  let root: string;
  let ws: string;
  let other: string;
  let t: NodeTerminals;
  const warnings: string[] = [];

  before(() => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "at-cwd-")));
    ws = path.join(root, "ws");
    other = path.join(root, "other-folder");
    for (const d of [path.join(ws, "sub"), other, path.join(root, "outside"), path.join(root, "ws-sibling")]) mkdirSync(d, { recursive: true });
    symlinkSync(path.join(root, "outside"), path.join(ws, "escape"));
    symlinkSync(path.join(ws, "sub"), path.join(root, "outside", "back-in"));
    t = new NodeTerminals({ allowedRoots: () => [other], logger: { info: () => undefined, warn: (m) => warnings.push(m) } });
  });
  after(() => {
    t.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it("runs in the session folder, a folder below it (relative cwds resolve against it) and another workspace folder", async () => {
    assert.equal(await run(t, ws, "pwd -P"), `${ws}\n`, "no cwd: the session folder");
    assert.equal(await run(t, ws, "pwd -P", { cwd: "sub" }), `${path.join(ws, "sub")}\n`);
    assert.equal(await run(t, ws, "pwd -P", { cwd: `${ws}/sub/../sub/.` }), `${path.join(ws, "sub")}\n`);
    assert.equal(await run(t, ws, "pwd -P", { cwd: other }), `${other}\n`);
    // A symlink from outside that points back in is judged by where it leads.
    assert.equal(await run(t, ws, "pwd -P", { cwd: path.join(root, "outside", "back-in") }), `${path.join(ws, "sub")}\n`);
  });

  const refused = async (cwd: string, message: RegExp): Promise<void> => {
    const before = warnings.length;
    await assert.rejects(t.create({ sessionId: "s", sessionCwd: ws, command: "echo should not run", cwd }), (err: unknown) => {
      assert.ok(err instanceof RequestError, String(err));
      assert.equal(err.code, -32602);
      assert.match(err.message, message);
      return true;
    });
    assert.equal(warnings.length, before + 1, "the refusal is logged");
    assert.match(warnings[warnings.length - 1]!, /Refused terminal\/create "echo should not run"/);
  };

  it("refuses a cwd outside, however it is spelled", async () => {
    await refused("/etc", /^Invalid params: cwd \/etc is outside the workspace$/);
    await refused("..", new RegExp(`cwd ${root} is outside the workspace`));
    await refused("sub/../../outside", new RegExp(`cwd ${path.join(root, "outside")} is outside the workspace`));
    await refused(path.join(root, "ws-sibling"), /outside the workspace/); // shares a prefix with the session folder
    await refused("escape", new RegExp(`cwd ${path.join(ws, "escape")} is outside the workspace \\(it resolves to ${path.join(root, "outside")}\\)`));
    await refused("escape/", /outside the workspace/);
  });

  it("refuses a cwd that does not exist", async () => {
    await refused("no-such-folder", new RegExp(`cwd ${path.join(ws, "no-such-folder")} does not exist`));
  });
});
