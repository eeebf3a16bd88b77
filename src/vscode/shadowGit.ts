/**
 * A "shadow" git repository per workspace folder, kept in the extension's storage: it snapshots
 * the folder's files (tracked and untracked, minus what .gitignore excludes) as commits that only
 * Agent Thoughts sees, so a turn can be rolled back even when the agent changed files by running
 * commands. It never touches the user's own repository, index, hooks or config: its git dir is
 * ours, and git runs without the system and global configuration (no hooks path, no filter
 * drivers, no fsmonitor daemons that a workspace's .gitattributes could point at).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Logger } from "../acp/ports";
import { execOffThread } from "./execOffThread";

export interface FileChange { status: "added" | "modified" | "deleted"; path: string }

const MAX_BUFFER = 256 * 1024 * 1024;

export class ShadowGit {
  private readonly gitDir: string;
  private ready: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(storageDir: string, readonly workTree: string, private readonly logger: Logger) {
    const id = createHash("sha256").update(workTree).digest("hex").slice(0, 16);
    this.gitDir = path.join(storageDir, "checkpoints", id);
  }

  /** Runs git from a worker thread (starting a process blocks the thread that starts it; see execOffThread), below the editor's CPU priority. */
  private async run(args: readonly string[], input?: string): Promise<Buffer> {
    const r = await execOffThread("git", ["-c", "core.fsmonitor=false", "-c", "core.quotepath=false", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", ...args], {
      cwd: this.workTree,
      maxBuffer: MAX_BUFFER,
      // A snapshot of a large workspace is seconds of git: the extension host goes first.
      lowPriority: true,
      env: {
        // None of the user's GIT_* variables (an index file, object dir, config parameters, exec path…).
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^GIT_/i.test(k))),
        GIT_DIR: this.gitDir,
        GIT_WORK_TREE: this.workTree,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: process.platform === "win32" ? "NUL" : "/dev/null",
        GIT_TERMINAL_PROMPT: "0",
        GIT_OPTIONAL_LOCKS: "0",
        GIT_AUTHOR_NAME: "Agent Thoughts", GIT_AUTHOR_EMAIL: "checkpoints@agent-thoughts.invalid",
        GIT_COMMITTER_NAME: "Agent Thoughts", GIT_COMMITTER_EMAIL: "checkpoints@agent-thoughts.invalid",
      },
      ...(input !== undefined ? { input } : {}),
    });
    if (r.error) throw new Error(`git ${args[0] ?? ""} failed: ${r.stderr.toString("utf8").trim().slice(0, 500) || r.error.message}`);
    return r.stdout;
  }

  /** One git command at a time per repository (they share an index). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      if (!fs.existsSync(path.join(this.gitDir, "HEAD"))) {
        fs.mkdirSync(this.gitDir, { recursive: true });
        await this.run(["init", "--quiet"]);
        // Nested repositories and the user's own git dir are never snapshotted as content.
        fs.mkdirSync(path.join(this.gitDir, "info"), { recursive: true });
        fs.writeFileSync(path.join(this.gitDir, "info", "exclude"), ".git\n");
        // Checkpoints are chained and referenced, and never collected behind our back.
        await this.run(["config", "gc.auto", "0"]);
        this.logger.info(`Checkpoints for ${this.workTree} kept in ${this.gitDir}`);
      }
    })();
    return this.ready;
  }

  /** Snapshots the folder as it is now; returns the commit. */
  snapshot(message: string): Promise<string> {
    return this.serial(async () => {
      await this.init();
      await this.run(["add", "--all", "--ignore-errors", "--", "."]).catch((err: unknown) => {
        // Unreadable files are skipped; the rest is still snapshotted.
        this.logger.warn(`Checkpoint of ${this.workTree}: ${err instanceof Error ? err.message : String(err)}`);
      });
      // One commit on the shadow repository's own branch: it keeps every checkpoint reachable, and
      // nothing runs on commit (no hooks in our git dir, no global config).
      await this.run(["commit", "--quiet", "--allow-empty", "--no-verify", "--no-gpg-sign", "-m", message]);
      return this.head();
    });
  }

  /** The commit the shadow branch points at, read from the git dir (no process to spawn). */
  private async head(): Promise<string> {
    const head = fs.readFileSync(path.join(this.gitDir, "HEAD"), "utf8").trim();
    const ref = head.startsWith("ref: ") ? head.slice(5) : undefined;
    if (!ref) return head;
    try {
      return fs.readFileSync(path.join(this.gitDir, ref), "utf8").trim();
    } catch {
      return (await this.run(["rev-parse", "HEAD"])).toString("utf8").trim();
    }
  }

  /** Files that differ between two snapshots. */
  diff(from: string, to: string): Promise<FileChange[]> {
    return this.serial(async () => {
      const out = (await this.run(["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to])).toString("utf8");
      const parts = out.split("\0").filter((p) => p !== "");
      const changes: FileChange[] = [];
      for (let i = 0; i + 1 < parts.length; i += 2) {
        const code = parts[i]!;
        const file = parts[i + 1]!;
        const status = code.startsWith("A") ? "added" : code.startsWith("D") ? "deleted" : "modified";
        changes.push({ status, path: path.join(this.workTree, file) });
      }
      return changes;
    });
  }

  /** A file's bytes in a snapshot; undefined when it is not in it. */
  read(commit: string, file: string): Promise<Buffer | undefined> {
    const rel = path.relative(this.workTree, file).split(path.sep).join("/");
    return this.serial(() => this.run(["cat-file", "blob", `${commit}:${rel}`]).catch(() => undefined));
  }
}
