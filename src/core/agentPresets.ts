/**
 * What Add Agent… knows without VS Code: the entry schema of `agentThoughts.agents`, the presets
 * for well-known ACP agents (how each starts, what it needs, how to install it), which of a
 * preset's commands was found, the words its quick pick row shows, adding an entry to the user's
 * list without clobbering a same-named one, and checking a custom command typed by hand.
 */
import * as path from "node:path";
import { z } from "zod";

/** The built-in demo agent's name, which no entry may take. */
export const DEMO_AGENT = "Demo";

/** One entry of `agentThoughts.agents`, as the settings schema describes it. */
export const zAgentSetting = z.object({
  name: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
export type AgentSetting = z.infer<typeof zAgentSetting>;

/** One way a preset's agent starts. */
export interface AgentLaunch {
  command: string;
  args: readonly string[];
  /** Said beside the command line when this is the way found (e.g. what npx does first). */
  note?: string;
}

export interface InstallStep {
  /** The command to copy into a terminal; never run for the user. */
  command: string;
  /** Where it applies (all platforms when absent). */
  platforms?: readonly NodeJS.Platform[];
}

export interface AgentPreset {
  id: string;
  /** The entry's name, shown in Select Agent. */
  name: string;
  /** The quick pick's label. */
  title: string;
  /** Preference order: the first whose command is found is written. The first is what `install` gives. */
  launches: readonly AgentLaunch[];
  /** What it needs beyond the command: a login or an API key. */
  needs: string;
  install: readonly InstallStep[];
  docs: string;
}

const NPX_NOTE = "npx fetches it on first use";
const UNIX: readonly NodeJS.Platform[] = ["darwin", "linux"];

/**
 * The presets. Commands as the agents' own documentation and the recorded traces
 * (`../shared/fixtures/acp-traces`) start them: Gemini CLI takes `--acp` since 0.33
 * (`--experimental-acp` before, now deprecated); the Claude and Codex adapters moved from
 * `@zed-industries` to `@agentclientprotocol` (the old claude-code-acp still works when installed).
 */
export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    id: "claude",
    name: "Claude",
    title: "Claude Code",
    launches: [
      { command: "claude-agent-acp", args: [] },
      { command: "claude-code-acp", args: [], note: "the older adapter" },
      { command: "npx", args: ["-y", "@agentclientprotocol/claude-agent-acp"], note: NPX_NOTE },
    ],
    needs: "ANTHROPIC_API_KEY or a Claude login",
    install: [{ command: "npm install -g @agentclientprotocol/claude-agent-acp" }],
    docs: "https://github.com/agentclientprotocol/claude-agent-acp",
  },
  {
    id: "codex",
    name: "Codex",
    title: "Codex",
    launches: [
      { command: "codex-acp", args: [] },
      { command: "npx", args: ["-y", "@agentclientprotocol/codex-acp"], note: NPX_NOTE },
    ],
    needs: "OPENAI_API_KEY (or CODEX_API_KEY) or a ChatGPT login",
    install: [{ command: "npm install -g @agentclientprotocol/codex-acp" }],
    docs: "https://github.com/agentclientprotocol/codex-acp",
  },
  {
    id: "gemini",
    name: "Gemini",
    title: "Gemini CLI",
    launches: [
      { command: "gemini", args: ["--acp"] },
      { command: "npx", args: ["-y", "@google/gemini-cli", "--acp"], note: NPX_NOTE },
    ],
    needs: "a Google login (run gemini once in a terminal) or GEMINI_API_KEY",
    install: [{ command: "npm install -g @google/gemini-cli" }, { command: "brew install gemini-cli", platforms: UNIX }],
    docs: "https://github.com/google-gemini/gemini-cli",
  },
  {
    id: "goose",
    name: "Goose",
    title: "Goose",
    launches: [{ command: "goose", args: ["acp"] }],
    needs: "a provider set up with goose configure",
    install: [{ command: "brew install block-goose-cli", platforms: UNIX }],
    docs: "https://block.github.io/goose/docs/guides/acp-clients",
  },
  {
    id: "opencode",
    name: "OpenCode",
    title: "OpenCode",
    launches: [{ command: "opencode", args: ["acp"] }],
    needs: "a provider login: opencode auth login",
    install: [{ command: "npm install -g opencode-ai" }, { command: "brew install anomalyco/tap/opencode", platforms: UNIX }],
    docs: "https://opencode.ai/docs/cli/acp/",
  },
];

/** What the PATH says about a preset. */
export type Detection =
  | { state: "checking" }
  | { state: "found"; launch: AgentLaunch; file: string }
  | { state: "missing" };

/** The first of the preset's launches whose command `find` locates (it returns the file, or undefined). */
export async function detect(preset: AgentPreset, find: (command: string) => Promise<string | undefined>): Promise<Detection> {
  const files = await Promise.all(preset.launches.map((l) => find(l.command)));
  const i = files.findIndex((f) => f !== undefined);
  const launch = preset.launches[i];
  const file = files[i];
  return launch && file ? { state: "found", launch, file } : { state: "missing" };
}

/** The install commands that apply on `platform`. */
export function installSteps(preset: AgentPreset, platform: NodeJS.Platform): InstallStep[] {
  return preset.install.filter((s) => !s.platforms || s.platforms.includes(platform));
}

/** The settings entry for a preset started the way `launch` says (the preferred way by default). */
export function presetEntry(preset: AgentPreset, launch: AgentLaunch | undefined = preset.launches[0]): AgentSetting {
  const l = launch ?? { command: preset.id, args: [] };
  return l.args.length ? { name: preset.name, command: l.command, args: [...l.args] } : { name: preset.name, command: l.command };
}

/** A command line to read (arguments with spaces or quotes are quoted). */
export function commandLine(command: string, args: readonly string[] = []): string {
  const show = (s: string): string => (s === "" || /[\s"']/.test(s) ? `"${s.replace(/"/g, '\\"')}"` : s);
  return [command, ...args].map(show).join(" ");
}

export interface PresetRow { label: string; description: string; detail: string }

/**
 * A preset's quick pick row: found (where), not installed (how to install), or still being looked
 * for; what it runs and what it needs; whether an entry of that name is already in the settings.
 * `cwd`: the folder agents start in — on Windows a command there wins over PATH, which is said.
 */
export function presetRow(preset: AgentPreset, detection: Detection, opts: { platform: NodeJS.Platform; cwd: string; added: boolean }): PresetRow {
  const api = opts.platform === "win32" ? path.win32 : path.posix;
  const added = opts.added ? " · already in your settings" : "";
  // What it needs first: a detail line is cut at the quick pick's width.
  const needs = `Needs ${preset.needs}`;
  switch (detection.state) {
    case "checking": {
      const first = preset.launches[0];
      return { label: preset.title, description: `looking on PATH…${added}`, detail: `${needs} · runs ${first ? commandLine(first.command, first.args) : preset.id}` };
    }
    case "found": {
      const { launch, file } = detection;
      const inCwd = opts.platform === "win32" && sameDir(api.dirname(file), opts.cwd, opts.platform);
      const where = inCwd ? `found in the workspace folder, not on PATH: ${file}` : `found at ${file}`;
      return { label: preset.title, description: `${where}${added}`, detail: `${needs} · runs ${commandLine(launch.command, launch.args)}${launch.note ? ` (${launch.note})` : ""}` };
    }
    case "missing": {
      const step = installSteps(preset, opts.platform)[0];
      return { label: preset.title, description: `not installed${added}`, detail: `Install: ${step ? step.command : `see ${preset.docs}`} · needs ${preset.needs}` };
    }
  }
}

function sameDir(a: string, b: string, platform: NodeJS.Platform): boolean {
  const api = platform === "win32" ? path.win32 : path.posix;
  const norm = (p: string): string => api.resolve(p).toLowerCase();
  return norm(a) === norm(b);
}

/** The entries of the setting's value as the user's settings hold it (a value that is not a list has none). */
function entries(current: unknown): unknown[] {
  return Array.isArray(current) ? [...(current as unknown[])] : [];
}

function nameOf(entry: unknown): string | undefined {
  return typeof entry === "object" && entry !== null && typeof (entry as { name?: unknown }).name === "string" ? (entry as { name: string }).name : undefined;
}

/** The names of the entries in the setting's value. */
export function agentNames(current: unknown): string[] {
  return entries(current).map(nameOf).filter((n): n is string => n !== undefined);
}

/** Two entries that start the same agent the same way (missing args/env count as empty). */
export function sameAgent(a: unknown, b: AgentSetting): boolean {
  const parsed = zAgentSetting.safeParse(a);
  if (!parsed.success) return false;
  const norm = (e: AgentSetting): string => JSON.stringify([e.name, e.command, e.args ?? [], Object.entries(e.env ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)), e.cwd ?? null]);
  return norm(parsed.data) === norm(b);
}

/**
 * Adding `entry` to the user's `agentThoughts.agents`: appended (`add`), already there as it is
 * (`same`: nothing to write), or another entry has its name (`clash`: ask before replacing). The
 * other entries are kept as they are, even ones that are not valid.
 */
export type Merge =
  | { kind: "add"; agents: unknown[] }
  | { kind: "same" }
  | { kind: "clash"; existing: unknown };

export function mergeAgent(current: unknown, entry: AgentSetting): Merge {
  const list = entries(current);
  const existing = list.find((e) => nameOf(e) === entry.name);
  if (existing === undefined) return { kind: "add", agents: [...list, entry] };
  return sameAgent(existing, entry) ? { kind: "same" } : { kind: "clash", existing };
}

/** The list with the first entry named like `entry` replaced by it, in its place (appended when none). */
export function replaceAgent(current: unknown, entry: AgentSetting): unknown[] {
  const list = entries(current);
  const i = list.findIndex((e) => nameOf(e) === entry.name);
  if (i < 0) return [...list, entry];
  list[i] = entry;
  return list;
}

/** `base`, or `base 2`, `base 3`… — the first name no entry (nor the demo agent) has. */
export function unusedName(current: unknown, base: string): string {
  const taken = new Set([DEMO_AGENT, ...agentNames(current)]);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base} ${n}`)) return `${base} ${n}`;
}

/** How an existing entry reads in a question about replacing it. */
export function describeEntry(entry: unknown): string {
  const parsed = zAgentSetting.safeParse(entry);
  if (!parsed.success) return "an entry that is not valid";
  const e = parsed.data;
  return `${commandLine(e.command, e.args)}${e.env && Object.keys(e.env).length ? ` with ${Object.keys(e.env).join(", ")} set` : ""}${e.cwd ? ` in ${e.cwd}` : ""}`;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_NAME = 60;

/** Why `name` cannot name a new agent, or undefined when it can. */
export function checkAgentName(name: string): string | undefined {
  const n = name.trim();
  if (n === "") return "Give the agent a name, e.g. My Agent.";
  if (CONTROL.test(n)) return "A name has no line breaks or control characters.";
  if (n.length > MAX_NAME) return `At most ${MAX_NAME} characters.`;
  if (n === DEMO_AGENT) return `${DEMO_AGENT} is the built-in demo agent's name.`;
  return undefined;
}

/** Why `command` cannot be an agent's command, or undefined when it can. */
export function checkCommand(command: string): string | undefined {
  const c = command.trim();
  if (c === "") return "Enter the program to run: a name on your PATH (gemini, npx) or a full path.";
  if (CONTROL.test(c)) return "A command has no line breaks or control characters.";
  if (/\s/.test(c) && !/[\\/]/.test(c)) return `Only the program goes here; its arguments come next (e.g. ${c.split(/\s+/)[0] ?? ""} here, then ${c.split(/\s+/).slice(1).join(" ")}).`;
  return undefined;
}

/**
 * Arguments typed on one line, split at spaces; "double" or 'single' quotes keep spaces (and the
 * characters below) in one argument. Backslashes stay as typed, so Windows paths need no escaping.
 * No shell runs the agent, so an unquoted pipe, redirect or `;` is refused rather than passed on
 * as an argument nobody meant. (Hand-written: shell-quote applies POSIX backslash escapes, which
 * eat Windows paths; string-argv keeps quotes inside `--x='a b'` or, in 0.4, cannot be required;
 * neither reports an unclosed quote.)
 */
export function parseArgs(line: string): { args: string[] } | { error: string } {
  if (CONTROL.test(line.replace(/\t/g, " "))) return { error: "Arguments go on one line, without control characters." };
  const args: string[] = [];
  let current = "";
  let inArg = false;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inArg = true;
    } else if (/\s/.test(ch)) {
      if (inArg) args.push(current);
      current = "";
      inArg = false;
    } else if (/[|&;<>]/.test(ch)) {
      return { error: `The agent runs without a shell, so ${ch} would reach it as an argument: leave pipes and redirects out (quote it if the agent wants it).` };
    } else {
      current += ch;
      inArg = true;
    }
  }
  if (quote) return { error: `A ${quote === '"' ? "double" : "single"} quote is not closed.` };
  if (inArg) args.push(current);
  return { args };
}
