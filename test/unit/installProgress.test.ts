/**
 * The progress `npm start` shows while it installs the browser VS Code (test/host/installProgress.mjs),
 * read from recorded code-server installs (test/fixtures/install/: npm 11, --foreground-scripts
 * --loglevel=http, download lines thinned out).
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import type { InstallState } from "../host/installProgress.mjs";
import {
  INITIAL_INSTALL_STATE, INSTALL_STEPS, failureExcerpt, formatElapsed, progressText, readInstallLine, stepText,
} from "../host/installProgress.mjs";

const FIXTURES = path.resolve(__dirname, "..", "fixtures", "install");
const readLog = (name: string) => readFileSync(path.join(FIXTURES, name), "utf8");

/** Every state the log goes through, as "[step] detail", in order. */
function walk(log: string): string[] {
  const seen: string[] = [];
  let state: InstallState = INITIAL_INSTALL_STATE;
  for (const line of log.split("\n")) {
    const next = readInstallLine(state, line);
    if (next !== state) seen.push(`${next.step} ${next.detail}`.trim());
    state = next;
  }
  return seen;
}

describe("npm start: install progress", () => {
  it("goes through the four steps of a real install in order, naming the package being built", () => {
    const seen = walk(readLog("code-server-4.100.3.log"));
    assert.deepEqual(seen.slice(0, 3), ["0 1 package", "0 2 packages", "0 3 packages"]);
    const after = seen.filter((s) => !s.startsWith("0 "));
    assert.deepEqual(after, [
      "1 argon2",
      "2",
      "2 @parcel/watcher",
      "2 @vscode/deviceid",
      "2 @vscode/spdlog",
      "2 @vscode/windows-process-tree",
      "2 @vscode/windows-registry",
      "2 kerberos",
      "2 native-watchdog",
      "2 node-pty",
      "2 @vscode/ripgrep",
      "2 node-pty",
      "3",
      "3 vscode-extensions",
    ]);
  });

  it("returns the same state for lines that change nothing (warnings, compiler output, the last summary)", () => {
    const s: InstallState = { step: 3, detail: "vscode-extensions", packages: 9 };
    for (const line of ["npm warn Unknown env config \"nodedir\".", "  CXX(target) Release/obj.target/pty/src/unix/pty.o", "added 215 packages in 2m", ""]) {
      assert.equal(readInstallLine(s, line), s, line);
    }
  });

  it("says the step, what it works on and the time, within the terminal's width", () => {
    const s: InstallState = { step: 2, detail: "kerberos", packages: 0 };
    assert.equal(stepText(s), `[3/4] ${INSTALL_STEPS[2]}: kerberos`);
    assert.equal(progressText(s, 42_500), "[3/4] Installing VS Code's packages: kerberos · 0:42");
    assert.equal(progressText(INITIAL_INSTALL_STATE, 0), "[1/4] Downloading code-server · 0:00");
    const cut = progressText(s, 42_500, 30);
    assert.equal(cut.length, 30);
    assert.match(cut, /^\[3\/4\] Installing VS Co.*… · 0:42$/);
    for (const text of INSTALL_STEPS) assert.ok(`[4/4] ${text}: native-watchdog · 12:34`.length <= 79, text);
  });

  it("counts minutes and seconds", () => {
    assert.equal(formatElapsed(0), "0:00");
    assert.equal(formatElapsed(7_999), "0:07");
    assert.equal(formatElapsed(65_000), "1:05");
    assert.equal(formatElapsed(12 * 60_000), "12:00");
  });

  it("shows from a failed install the script's complaint and npm's error summary, without chatter or stack frames", () => {
    const excerpt = failureExcerpt(readLog("code-server-postinstall-failed.log"));
    assert.ok(excerpt.includes("ERROR: code-server currently requires node v20."), excerpt.join("\n"));
    assert.ok(excerpt.includes("npm error command sh -c sh ./postinstall.sh"), excerpt.join("\n"));
    assert.ok(excerpt.every((l) => !/^npm (http|warn) /.test(l) && l.trim() !== ""), excerpt.join("\n"));

    const network = [
      "npm http fetch GET 200 https://registry.npmjs.org/code-server 159ms",
      "npm error code ECONNREFUSED",
      "npm error FetchError: request to http://127.0.0.1:9/code-server failed",
      "npm error     at ClientRequest.<anonymous> (node:_http_client:101:11)",
      "npm error",
    ].join("\n");
    assert.deepEqual(failureExcerpt(network), [
      "npm error code ECONNREFUSED",
      "npm error FetchError: request to http://127.0.0.1:9/code-server failed",
    ]);
    assert.deepEqual(failureExcerpt("a\n\nb\nnpm warn x\nc", 1), ["b", "c"], "no npm error: the last lines");
  });
});
