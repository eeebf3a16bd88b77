/**
 * What `npm start` checks before it installs the browser VS Code (test/host/requirements.mjs): which
 * requirement is missing on a given machine, and the message that says how to install it.
 */
import * as assert from "node:assert/strict";
import type { MachineFacts } from "../host/requirements.mjs";
import { SYSTEM_REQUIREMENTS, checkMachine, requirementsReport } from "../host/requirements.mjs";

const CODE_SERVER = { codeServer: "4.100.3", start: true };
const DEBIAN_TOOLS = ["make", "g++", "python3", "rg", "krb5-config", "apt-get"];

/** A machine with these commands on PATH and these files. */
function machine(o: Partial<MachineFacts> & { commands?: string[]; files?: string[] } = {}): MachineFacts {
  const commands = new Set(o.commands ?? DEBIAN_TOOLS);
  const files = new Set(o.files ?? ["/usr/include/gssapi/gssapi.h"]);
  return {
    platform: "linux",
    nodeVersion: "20.19.1",
    apt: true,
    root: false,
    hasCommand: (name) => commands.has(name),
    hasFile: (path) => files.has(path),
    ...o,
  };
}

const ids = (m: MachineFacts, installing = true) => checkMachine(m, { installing }).missing.map((r) => r.id);

describe("npm start: what the machine needs for code-server", () => {
  it("finds nothing missing on a Debian machine set up like .ci/run does", () => {
    const check = checkMachine(machine(), { installing: true });
    assert.deepEqual(check, { ok: true, missing: [] });
  });

  it("names each missing build tool, ripgrep and the Kerberos headers (the header file or krb5-config will do)", () => {
    assert.deepEqual(ids(machine({ commands: ["apt-get"], files: [] })), ["toolchain", "python3", "kerberos", "ripgrep"]);
    assert.deepEqual(ids(machine({ commands: ["make", "python3", "rg"], files: [] })), ["toolchain", "kerberos"], "make without a C++ compiler");
    assert.deepEqual(ids(machine({ commands: ["make", "c++", "python3", "rg", "krb5-config"], files: [] })), []);
    assert.deepEqual(ids(machine({ commands: ["make", "clang++", "python3", "rg"] })), []);
  });

  it("asks for the Kerberos headers on Linux only", () => {
    assert.deepEqual(ids(machine({ platform: "darwin", commands: ["make", "clang++", "python3", "rg"], files: [] })), []);
  });

  it("checks the build tools only when code-server is still to be installed, and Node 20 always", () => {
    const bare = machine({ commands: [], files: [], nodeVersion: "22.11.0" });
    assert.deepEqual(checkMachine(bare, { installing: false }), { ok: false, node: "22.11.0", missing: [] });
    assert.equal(checkMachine(bare, { installing: true }).missing.length, SYSTEM_REQUIREMENTS.length);
    assert.deepEqual(checkMachine(machine({ nodeVersion: "20.0.0" }), { installing: false }), { ok: true, missing: [] });
    assert.equal(checkMachine(machine({ nodeVersion: "18.20.4" }), { installing: false }).node, "18.20.4");
  });

  it("says on Debian/Ubuntu exactly which apt command installs what is missing, with sudo unless root", () => {
    const m = machine({ commands: ["make", "g++", "python3", "apt-get"], files: [] });
    const report = requirementsReport(checkMachine(m, { installing: true }), m, CODE_SERVER);
    assert.match(report, /code-server 4\.100\.3/);
    assert.match(report, /✗ the Kerberos \(GSSAPI\) headers \(libkrb5-dev\) — /);
    assert.match(report, /✗ ripgrep \(rg\) — /, "no package name in brackets when the name says it");
    assert.ok(report.includes("\n  sudo apt-get update && sudo apt-get install -y libkrb5-dev ripgrep\n"), report);
    assert.doesNotMatch(report, /build-essential|python3|Node\.js 20 —/, "only what is missing");
    assert.match(report, /run `npm start` again/);
    assert.match(report, /desktop VS Code/);
    const forTests = requirementsReport(checkMachine(m, { installing: true }), m, { codeServer: "4.100.3" });
    assert.doesNotMatch(forTests, /npm start|desktop VS Code/, "the tests always need code-server");
    assert.match(forTests, /apt-get install -y libkrb5-dev ripgrep$/);

    const asRoot = machine({ commands: ["apt-get"], files: [], root: true });
    const rootReport = requirementsReport(checkMachine(asRoot, { installing: true }), asRoot, CODE_SERVER);
    assert.ok(rootReport.includes("\n  apt-get update && apt-get install -y build-essential python3 libkrb5-dev ripgrep\n"), rootReport);
  });

  it("says which Node.js runs and how to switch to Node 20", () => {
    const m = machine({ nodeVersion: "22.11.0" });
    const report = requirementsReport(checkMachine(m, { installing: true }), m, CODE_SERVER);
    assert.match(report, /✗ Node\.js 20 — this is Node\.js 22\.11\.0/);
    assert.match(report, /nvm install 20 && nvm use 20/);
    assert.doesNotMatch(report, /apt-get/, "nothing to install with apt");
  });

  it("on macOS points at the Xcode command line tools and Homebrew, once each", () => {
    const m = machine({ platform: "darwin", apt: false, commands: [], files: [] });
    const report = requirementsReport(checkMachine(m, { installing: true }), m, CODE_SERVER);
    assert.equal(report.match(/xcode-select --install/g)?.length, 1, report);
    assert.match(report, /\n {2}brew install ripgrep\n/);
    assert.doesNotMatch(report, /Kerberos|apt-get/);
  });

  it("elsewhere names what to install and the Debian packages as a hint", () => {
    const m = machine({ apt: false, commands: ["make", "g++", "python3"], files: ["/usr/include/gssapi/gssapi.h"] });
    const report = requirementsReport(checkMachine(m, { installing: true }), m, CODE_SERVER);
    assert.match(report, /✗ ripgrep \(rg\) — /);
    assert.match(report, /your system's package manager \(on Debian\/Ubuntu: ripgrep\)/);
    assert.doesNotMatch(report, /apt-get/);
  });

  it("on Windows says code-server does not run there and what to do instead", () => {
    const m = machine({ platform: "win32", apt: false });
    const check = checkMachine(m, { installing: true });
    assert.equal(check.ok, false);
    const report = requirementsReport(check, m, CODE_SERVER);
    assert.match(report, /does not run on Windows/);
    assert.match(report, /`code` on your PATH/);
    assert.match(report, /WSL/);
  });
});
