/** execFile from a worker thread: the same results as on this thread, matched to their calls. */
import * as assert from "node:assert/strict";
import * as os from "node:os";
import { execOffThread } from "../../src/vscode/execOffThread";

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

  it("answers many calls at once, each with its own output", async () => {
    const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => execOffThread("/bin/sh", ["-c", `sleep 0.0${i % 5}; echo ${i}`], options)));
    assert.deepEqual(runs.map((r) => r.stdout.toString("utf8").trim()), Array.from({ length: 12 }, (_, i) => String(i)));
  });
});
