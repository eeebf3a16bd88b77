/**
 * The working tree's changes for an @-mention: `git diff HEAD` of a workspace folder (staged and
 * unstaged), and the names of untracked files, bounded. A repository's `.git/config` and
 * `.gitattributes` are workspace-supplied, and several of their settings make git run programs on a
 * plain diff: an external diff (`diff.external`, `diff.<driver>.command`), a text converter
 * (`diff.<driver>.textconv`), a file-system monitor (`core.fsmonitor`), and clean filters
 * (`filter.<driver>.clean` / `process`, run on files whose stat changed). So git runs with fixed
 * arguments and no shell, `--no-ext-diff --no-textconv`, `core.fsmonitor` off, every filter the
 * configuration names emptied (through `GIT_CONFIG_*` in the environment, which takes any key),
 * no optional locks (a diff never writes the index), and only in a trusted workspace (the caller
 * checks). Reading the configuration (`git config --get-regexp`) runs nothing.
 */
import { spawn } from "node:child_process";
import { findCommand } from "../acp/spawn";

/** What a mention carries at most: the diff's first 200 KB. */
export const MAX_DIFF_CHARS = 200_000;
const MAX_UNTRACKED = 200;
const TIMEOUT_MS = 15_000;

interface Run { stdout: string; code: number | null; cut: boolean }

/** Runs the git at `file` with these arguments in `cwd`, keeping at most `max` characters of its output. */
function git(file: string, cwd: string, args: readonly string[], env: NodeJS.ProcessEnv, max: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, shell: false, stdio: ["ignore", "pipe", "ignore"], windowsHide: true });
    let out = "";
    let cut = false;
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (cut) return;
      out += chunk;
      if (out.length > max) {
        out = out.slice(0, max);
        cut = true;
        child.kill();
      }
    });
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout: out, code: cut ? 0 : code, cut });
    });
  });
}

/** The environment git runs with: no prompts, no optional locks, and `overrides` as configuration. */
export function gitEnv(base: NodeJS.ProcessEnv, overrides: ReadonlyArray<readonly [string, string]>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Git's own variables from the editor's environment (GIT_DIR, GIT_EXTERNAL_DIFF…) are not passed on.
  for (const [k, v] of Object.entries(base)) if (!/^GIT_/i.test(k)) env[k] = v;
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_OPTIONAL_LOCKS = "0";
  env.GIT_PAGER = "cat";
  env.GIT_CONFIG_COUNT = String(overrides.length);
  overrides.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

/** The configuration that keeps git from running anything, given the filter keys the repository names. */
export function safeOverrides(configKeys: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [["core.fsmonitor", "false"], ["diff.external", ""], ["core.pager", "cat"]];
  const drivers = new Set<string>();
  for (const key of configKeys) {
    const m = /^filter\.(.+)\.[^.]+$/is.exec(key.trim());
    if (m) drivers.add(m[1]!);
  }
  for (const d of drivers) out.push([`filter.${d}.clean`, ""], [`filter.${d}.smudge`, ""], [`filter.${d}.process`, ""], [`filter.${d}.required`, "false"]);
  return out;
}

/**
 * The changes of the repository at `folder` as text (a diff, then the untracked files), or a
 * sentence saying why there are none. Rejects when git cannot be run.
 */
export async function workingTreeChanges(folder: string): Promise<string> {
  // Found on PATH only, as every command is (acp/spawn.ts): Windows would run a git.exe the repository ships in the folder first.
  const file = await findCommand("git", folder, process.env);
  if (!file) throw new Error("git was not found on PATH");
  const plain = gitEnv(process.env, [["core.fsmonitor", "false"]]);
  const keys = await git(file, folder, ["config", "--null", "--name-only", "--get-regexp", "^filter\\."], plain, 100_000);
  const env = gitEnv(process.env, safeOverrides(keys.stdout.split("\0").filter(Boolean)));
  const base = ["--no-pager", "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames"];
  let diff = await git(file, folder, [...base, "HEAD", "--"], env, MAX_DIFF_CHARS);
  if (diff.code !== 0) diff = await git(file, folder, [...base, "--cached", "--"], env, MAX_DIFF_CHARS); // no commit yet
  if (diff.code !== 0) return "Not a git repository (or git failed).";
  const untracked = await git(file, folder, ["ls-files", "--others", "--exclude-standard", "-z"], env, 100_000);
  const names = untracked.code === 0 ? untracked.stdout.split("\0").filter(Boolean) : [];
  const parts: string[] = [];
  parts.push(diff.stdout.trim() ? diff.stdout + (diff.cut ? `\n[… the diff goes on; cut at ${MAX_DIFF_CHARS} characters]\n` : "") : "No changes to tracked files.\n");
  if (names.length) parts.push(`Untracked files:\n${names.slice(0, MAX_UNTRACKED).join("\n")}${names.length > MAX_UNTRACKED || untracked.cut ? "\n…" : ""}\n`);
  return parts.join("\n");
}
