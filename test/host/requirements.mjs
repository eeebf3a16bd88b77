// What the machine needs before code-server 4.100.3 (the VS Code that `npm start` runs in the browser)
// can be installed and run: Node.js 20, a C/C++ toolchain, Python 3 and the Kerberos headers to build
// VS Code's native modules, and ripgrep (see test/host/README.md). `checkMachine` and
// `requirementsReport` are pure (facts about the machine in, what is missing and what to type out), so
// the unit tests cover them; `probeMachine` gathers the facts.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";

export const REQUIRED_NODE_MAJOR = 20;

/**
 * @typedef {object} MachineFacts
 * @property {string} platform process.platform
 * @property {string} nodeVersion process.versions.node
 * @property {(name: string) => boolean} hasCommand an executable of that name is on PATH
 * @property {(path: string) => boolean} hasFile
 * @property {boolean} apt apt-get is there (Debian, Ubuntu and their kin)
 * @property {boolean} root running as root (no sudo in the command to type)
 */

/**
 * @typedef {object} Requirement
 * @property {string} id
 * @property {string} what what to install, as a person names it
 * @property {string} why what needs it
 * @property {string} apt the Debian/Ubuntu package that provides it
 * @property {string} [mac] how to get it on macOS
 * @property {string[]} [platforms] where it is needed (default: everywhere code-server runs)
 * @property {(m: MachineFacts) => boolean} met
 */

/** @type {readonly Requirement[]} In the order `apt-get install` lists them. */
export const SYSTEM_REQUIREMENTS = [
  {
    id: "toolchain",
    what: "a C/C++ compiler and make",
    why: "npm builds VS Code's native modules (node-pty, kerberos, …) from source",
    apt: "build-essential",
    mac: "xcode-select --install",
    met: (m) => m.hasCommand("make") && ["g++", "c++", "clang++"].some((c) => m.hasCommand(c)),
  },
  {
    id: "python3",
    what: "Python 3",
    why: "node-gyp runs it to build those modules",
    apt: "python3",
    mac: "xcode-select --install",
    met: (m) => m.hasCommand("python3"),
  },
  {
    id: "kerberos",
    what: "the Kerberos (GSSAPI) headers",
    why: "VS Code's kerberos module is compiled against them",
    apt: "libkrb5-dev",
    platforms: ["linux"],
    met: (m) => m.hasFile("/usr/include/gssapi/gssapi.h") || m.hasCommand("krb5-config"),
  },
  {
    id: "ripgrep",
    what: "ripgrep (rg)",
    why: "VS Code searches with it; without it, its installer downloads rg from GitHub",
    apt: "ripgrep",
    mac: "brew install ripgrep",
    met: (m) => m.hasCommand("rg"),
  },
];

/**
 * @typedef {object} MachineCheck
 * @property {boolean} ok
 * @property {string} [unsupported] why code-server cannot run here at all
 * @property {string} [node] the Node.js version when it is not the one code-server needs
 * @property {Requirement[]} missing
 */

/**
 * What stands between this machine and a working code-server. `installing`: code-server is still to be
 * installed (the build tools matter only then; Node 20 matters always, its native modules are built for it).
 * @param {MachineFacts} m
 * @param {{ installing: boolean }} o
 * @returns {MachineCheck}
 */
export function checkMachine(m, { installing }) {
  if (m.platform === "win32") {
    return { ok: false, unsupported: "code-server, the VS Code that runs in the browser, does not run on Windows", missing: [] };
  }
  const major = Number(m.nodeVersion.split(".")[0]);
  const node = major === REQUIRED_NODE_MAJOR ? undefined : m.nodeVersion;
  const missing = installing
    ? SYSTEM_REQUIREMENTS.filter((r) => (!r.platforms || r.platforms.includes(m.platform)) && !r.met(m))
    : [];
  return { ok: node === undefined && missing.length === 0, ...(node === undefined ? {} : { node }), missing };
}

/** The apt command that installs what is missing (sudo unless root; update first, for fresh machines). */
export function aptCommand(missing, root) {
  const sudo = root ? "" : "sudo ";
  return `${sudo}apt-get update && ${sudo}apt-get install -y ${missing.map((r) => r.apt).join(" ")}`;
}

/**
 * What to tell the person running `npm start` when checkMachine found something: each missing thing with
 * what needs it, and how to install it on this machine.
 * @param {MachineCheck} check
 * @param {MachineFacts} m
 * @param {{ codeServer: string, start?: boolean }} o the code-server version, for the message; `start`:
 *   for `npm start`, which can open a desktop VS Code instead (the tests always need code-server)
 * @returns {string}
 */
export function requirementsReport(check, m, { codeServer, start = false }) {
  if (check.unsupported) {
    return `${check.unsupported}.\nInstall VS Code and put \`code\` on your PATH (then \`npm start\` opens it), or work in WSL.`;
  }
  const lines = [`VS Code in the browser (code-server ${codeServer}) needs:`, ""];
  if (check.node) {
    lines.push(`  ✗ Node.js ${REQUIRED_NODE_MAJOR} — this is Node.js ${check.node}; code-server ${codeServer} is built for and runs on Node.js ${REQUIRED_NODE_MAJOR} only`);
  }
  for (const r of check.missing) {
    const pkg = m.apt && !r.what.startsWith(r.apt) ? ` (${r.apt})` : "";
    lines.push(`  ✗ ${r.what}${pkg} — ${r.why}`);
  }
  lines.push("");
  if (check.missing.length > 0) {
    if (m.apt) {
      lines.push("Install them with:", "", `  ${aptCommand(check.missing, m.root)}`, "");
    } else if (m.platform === "darwin") {
      const steps = [...new Set(check.missing.map((r) => r.mac).filter((s) => s !== undefined))];
      lines.push("Install them with:", "", ...steps.map((s) => `  ${s}`), "");
    } else {
      lines.push("Install them with your system's package manager (on Debian/Ubuntu: "
        + `${check.missing.map((r) => r.apt).join(", ")}).`, "");
    }
  }
  if (check.node) {
    lines.push(`Switch to Node.js ${REQUIRED_NODE_MAJOR}, e.g. with nvm: \`nvm install ${REQUIRED_NODE_MAJOR} && nvm use ${REQUIRED_NODE_MAJOR}\` `
      + "(or from https://nodejs.org/en/download).", "");
  }
  if (start) {
    lines.push("Then run `npm start` again.",
      "Or install desktop VS Code: with `code` on your PATH, `npm start` opens it instead and needs none of this.");
  }
  return lines.join("\n").trimEnd();
}

/** Whether an executable file of that name is in one of PATH's folders. */
function onPath(name, path = process.env.PATH ?? "") {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return true;
    } catch { /* not here */ }
  }
  return false;
}

/** @returns {MachineFacts} this machine */
export function probeMachine() {
  return {
    platform: process.platform,
    nodeVersion: process.versions.node,
    hasCommand: (name) => onPath(name),
    hasFile: (path) => existsSync(path),
    apt: process.platform === "linux" && onPath("apt-get"),
    root: process.getuid?.() === 0,
  };
}
