// Where an `npm install code-server` stands, read from its log one line at a time (npm run with
// --foreground-scripts --loglevel=http, as codeServer.mjs does for `npm start`), and the line that
// says so. Pure, so the unit tests feed it a recorded log. An npm that words things differently only
// leaves the step where it was; the elapsed time still moves.

/** Short: with the package at work and the time they fit an 80-column line. */
export const INSTALL_STEPS = [
  "Downloading code-server",
  "Building code-server's native modules",
  "Installing VS Code's packages",
  "Installing the built-in extensions' packages",
];

/**
 * @typedef {object} InstallState
 * @property {number} step index into INSTALL_STEPS
 * @property {string} detail e.g. the package being built
 * @property {number} packages package downloads (or cache hits) seen so far
 */

/** @type {InstallState} */
export const INITIAL_INSTALL_STATE = Object.freeze({ step: 0, detail: "", packages: 0 });

/**
 * The state after one more line of the install's output (the same object when the line changes nothing).
 * @param {InstallState} state
 * @param {string} line
 * @returns {InstallState}
 */
export function readInstallLine(state, line) {
  if (/^npm http (fetch|cache) /.test(line)) {
    const packages = state.packages + 1;
    return state.step === 0
      ? { ...state, packages, detail: `${packages} ${packages === 1 ? "package" : "packages"}` }
      : { ...state, packages };
  }
  // code-server's postinstall: `npm install` in lib/vscode, then in lib/vscode/extensions.
  if (/^> code-server@\S+ postinstall$/.test(line) || /^Installing Code dependencies/.test(line)) {
    return state.step === 2 && state.detail === "" ? state : { ...state, step: 2, detail: "" };
  }
  if (state.step === 2 && /^added \d+ packages? in /.test(line)) return { ...state, step: 3, detail: "" };
  const script = /^> (@?[^@\s]+)@\S+ (?:preinstall|install|postinstall)$/.exec(line);
  if (script) {
    const name = script[1] ?? "";
    if (state.step < 2) return { ...state, step: 1, detail: name };
    return state.detail === name ? state : { ...state, detail: name };
  }
  return state;
}

/** 7 s → "0:07", 65 s → "1:05". */
export function formatElapsed(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** "[3/4] Installing VS Code's packages: kerberos" */
export function stepText(state) {
  const label = INSTALL_STEPS[state.step] ?? "";
  return `[${state.step + 1}/${INSTALL_STEPS.length}] ${label}${state.detail ? `: ${state.detail}` : ""}`;
}

/**
 * "[3/4] Installing VS Code's packages: kerberos · 0:42", cut to
 * `width` characters (a live terminal line must not wrap, or redrawing it leaves copies behind).
 * @param {InstallState} state
 * @param {number} elapsedMs
 * @param {number} [width]
 */
export function progressText(state, elapsedMs, width = Infinity) {
  const time = ` · ${formatElapsed(elapsedMs)}`;
  const text = stepText(state);
  if (text.length + time.length <= width) return text + time;
  return `${text.slice(0, Math.max(0, width - time.length - 1))}…${time}`;
}

/**
 * The part of a failed install's log worth showing: npm's error summary (without stack frames) and the
 * few lines of script output just before it (a compiler's or a postinstall's own complaint), never the
 * download chatter, npm's warnings or blank lines. Without an `npm error` line: the last lines.
 * @param {string} log
 * @param {number} [count] lines at most from each part
 * @returns {string[]}
 */
export function failureExcerpt(log, count = 8) {
  const lines = log.split(/\r?\n|\r/).filter((l) => l.trim() !== "" && !/^npm (http|warn) /.test(l) && !/^\[host\] /.test(l));
  const first = lines.findIndex((l) => /^npm error /.test(l));
  if (first < 0) return lines.slice(-2 * count);
  const errors = lines.slice(first).filter((l) => /^npm error /.test(l) && !/^npm error\s+at /.test(l) && l.trim() !== "npm error");
  return [...lines.slice(Math.max(0, first - count), first), ...errors.slice(0, count)];
}
