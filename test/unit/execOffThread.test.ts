/** execFile from a worker thread: the same results as on this thread, matched to their calls. */
import * as assert from "node:assert/strict";
import * as os from "node:os";
import { execOffThread, setExecWorkerIdleMs } from "../../src/vscode/execOffThread";

const options = { cwd: os.tmpdir(), env: { ...process.env, AT_WORD: "from the env" }, maxBuffer: 1024 * 1024 };

describe("execOffThread", () => {
  it("gives a command's output, its stdin and env, and a non-zero exit as an error with the code", async () => {
    const ok = await execOffThread("/bin/sh", ["-c", "printf '%s|' \"$AT_WORD\"; cat; printf oops >&2"], { ...options, input: "piped in" });
    assert.equal(ok.error, undefined);
    assert.equal(ok.stdout.toString("utf8"), "from the env|piped in");
    assert.equal(ok.stderr.toString("utf8"), "oops");
    const failed = await execOffThread("/bin/sh", ["-c", "echo no >&2; exit 3"], options);
    assert.equal(failed.error?.code, 3);
    assert.equal(failed.stderr.toString("utf8"), "no\n");
    const missing = await execOffThread("/no/such/program", [], options);
    assert.equal(missing.error?.code, "ENOENT");
  });

  it("runs a lowPriority child below the editor's CPU priority from before it reads its input, and others at the editor's", async function () {
    if (process.platform !== "linux") this.skip();
    // The child reads its input first, then says its nice value (/proc/<pid>/stat, field 19).
    const niceOf = async (lowPriority: boolean): Promise<number> => {
      const r = await execOffThread("/bin/sh", ["-c", "read line; cut -d' ' -f19 /proc/$$/stat"], { ...options, input: "go\n", lowPriority });
      assert.equal(r.error, undefined, r.stderr.toString("utf8"));
      return Number(r.stdout.toString("utf8").trim());
    };
    const own = os.getPriority();
    assert.equal(await niceOf(true), Math.max(os.constants.priority.PRIORITY_BELOW_NORMAL, own));
    assert.equal(await niceOf(false), own);
  });

  it("answers many calls at once, each with its own output", async () => {
    const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => execOffThread("/bin/sh", ["-c", `sleep 0.0${i % 5}; echo ${i}`], options)));
    assert.deepEqual(runs.map((r) => r.stdout.toString("utf8").trim()), Array.from({ length: 12 }, (_, i) => String(i)));
  });

  it("a call made just as an idle worker ends goes to a new worker", async () => {
    setExecWorkerIdleMs(0);
    try {
      for (let i = 0; i < 5; i++) {
        assert.equal((await execOffThread("/bin/echo", ["a"], options)).stdout.toString("utf8"), "a\n");
        // The idle timer (set when the answer came) fires first, then this call.
        await new Promise((r) => setTimeout(r, 0));
        const b = await execOffThread("/bin/echo", ["b"], options);
        assert.equal(b.error, undefined, `call ${i} right after the worker went idle: ${b.error?.message ?? ""}`);
        assert.equal(b.stdout.toString("utf8"), "b\n");
      }
    } finally {
      setExecWorkerIdleMs(30_000);
    }
  });

  it("a command that exits without reading its input fails only itself, not the calls beside it", async () => {
    const runs = await Promise.all([
      execOffThread("/bin/sh", ["-c", "sleep 0.2; echo first"], options),
      execOffThread("/bin/sh", ["-c", "exit 0"], { ...options, input: "x".repeat(4 * 1024 * 1024) }),
      execOffThread("/bin/sh", ["-c", "sleep 0.2; echo third"], options),
    ]);
    assert.equal(runs[0].stdout.toString("utf8"), "first\n");
    assert.equal(runs[1].error, undefined, "its exit (0) is its answer");
    assert.equal(runs[2].stdout.toString("utf8"), "third\n");
  });
});
