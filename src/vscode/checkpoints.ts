/**
 * Restore checkpoint: every prompt turn gets a snapshot of the workspace folders just before the
 * agent starts (awaited, so the agent's first write comes after it) and one when the turn ends,
 * in shadow repositories (shadowGit.ts) — so changes the agent made by running commands (`sed -i`,
 * a generator, `git checkout`) roll back too, not only its file writes. Restoring turn N shows
 * the files changed since N began (a pick list, all ticked, the ones the user edited between
 * turns marked), writes the picked ones back through VS Code, and can itself be undone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import { CheckpointIndex, parseCheckpoints, userGaps, type Checkpoint } from "../core/checkpoints";
import { contentText, type ThoughtEvent } from "../shared/events";
import { plainText } from "../core/plainText";
import { isInside } from "../core/paths";
import type { AgentChanges } from "./agentChanges";
import { readCurrent, writeWholeText } from "./documents";
import { realpathOrParentSync } from "./guard";
import { ShadowGit, type FileChange } from "./shadowGit";
import { count } from "../core/words";

export const CHECKPOINTS_KEY = "agentThoughts.checkpoints.v1";
/** Larger files are not offered for review when a command changed them. */
const REVIEW_TEXT_BYTES = 5 * 1024 * 1024;

interface RestoreItem { file: string; folder: string; status: FileChange["status"]; userEdited: boolean }

export class Checkpoints implements vscode.Disposable {
  private readonly index: CheckpointIndex;
  private readonly repos = new Map<string, ShadowGit>();
  private readonly starting = new Map<string, { turnId: number; prompt: string }>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a checkpoint is added (the panel shows its button). */
  readonly onDidChange = this.changed.event;
  /** The state before the last restore, so it can be undone. */
  private lastRestore: { snapshot: Record<string, string>; items: RestoreItem[] } | undefined;
  /** How long each "before" snapshot took (ms), newest last (the log and the bench). */
  readonly timings: number[] = [];

  private warmTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly storageDir: string | undefined,
    private readonly state: vscode.Memento,
    private readonly logger: Logger,
    /** Agent Changes: a restore's writes are not user edits to fold into review baselines. */
    private readonly review: Pick<AgentChanges, "outsideWrite" | "recordTurnChange">,
  ) {
    const stored = parseCheckpoints(state.get<unknown>(CHECKPOINTS_KEY));
    if (stored.dropped) logger.warn(`${stored.dropped} stored checkpoint(s) were damaged and are not offered`);
    this.index = new CheckpointIndex(stored.checkpoints);
    // The first snapshot of a workspace hashes every file (seconds on a large one); later ones only
    // look at what changed. Take it in the background soon after start, so no turn waits for it.
    this.warmTimer = setTimeout(() => { this.warmTimer = undefined; this.warm("start-up"); }, 3000);
  }

  private warm(why: string): void {
    if (!this.enabled) return;
    const started = Date.now();
    void this.snapshotAll(why).then(
      () => this.logger.debug(`Checkpoint warm-up (${why}) took ${Date.now() - started} ms`),
      (err: unknown) => this.logger.warn(`Checkpoint warm-up failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  private get enabled(): boolean {
    return this.storageDir !== undefined && vscode.workspace.getConfiguration("agentThoughts").get<boolean>("checkpoints.enabled", true);
  }

  private repo(folder: string): ShadowGit {
    let r = this.repos.get(folder);
    if (!r) {
      r = new ShadowGit(this.storageDir!, folder, this.logger);
      this.repos.set(folder, r);
    }
    return r;
  }

  private folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  }

  private async snapshotAll(message: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    await Promise.all(this.folders().map(async (folder) => { out[folder] = await this.repo(folder).snapshot(message); }));
    return out;
  }

  onEvent(e: ThoughtEvent): void {
    // Only starts and ends of turns matter; the setting is read for those alone (not per chunk).
    if (e.kind === "turn_start") {
      if (this.enabled) this.starting.set(e.sessionId, { turnId: e.turnId, prompt: e.prompt.map(contentText).join(" ").slice(0, 200) });
    } else if (e.kind === "turn_end" || (e.kind === "error" && e.turnId !== undefined)) {
      if (this.enabled) void this.afterTurn(e.sessionId);
    }
  }

  /** Called before a prompt goes to the agent: the turn's "before" snapshot. Never throws. */
  async beforePrompt(sessionId: string): Promise<void> {
    const turn = this.starting.get(sessionId);
    if (!this.enabled || !turn) return;
    this.starting.delete(sessionId);
    const started = Date.now();
    try {
      const before = await this.snapshotAll(`before turn ${turn.turnId} of ${sessionId}`);
      this.index.add({ sessionId, turnId: turn.turnId, prompt: turn.prompt, at: Date.now(), before });
      const ms = Date.now() - started;
      this.timings.push(ms);
      this.timings.splice(0, Math.max(0, this.timings.length - 100));
      this.logger.debug(`Checkpoint before turn ${turn.turnId} took ${ms} ms`);
      await this.persist();
      this.changed.fire();
    } catch (err) {
      this.logger.warn(`No checkpoint for turn ${turn.turnId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Now, in the clock files are stamped with: the kernel stamps a file with a coarse clock that can
   * be a few ms behind `Date.now()`, so a file written just after a turn ended could look written
   * before it (and be taken for the agent's). A file's time compared with this one, written at the
   * same moment, is on the same clock.
   */
  private fileClockNow(): number {
    try {
      const marker = path.join(this.storageDir!, "checkpoints", ".turn-ended");
      fs.mkdirSync(path.dirname(marker), { recursive: true });
      fs.writeFileSync(marker, "");
      return fs.statSync(marker).mtimeMs;
    } catch {
      return Date.now();
    }
  }

  private async afterTurn(sessionId: string): Promise<void> {
    const c = this.index.open(sessionId);
    if (!c) return;
    // Taken as the turn's end is seen (before anything that follows it can write a file).
    const endedAt = this.fileClockNow();
    try {
      c.after = await this.snapshotAll(`after turn ${c.turnId} of ${sessionId}`);
      await this.persist();
      await this.reviewTurnChanges(c, endedAt);
    } catch (err) {
      this.logger.warn(`No end-of-turn snapshot for turn ${c.turnId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Files the turn changed that review does not know about (commands the agent ran) become reviewable, against our snapshot. */
  private async reviewTurnChanges(c: Checkpoint, endedAt: number): Promise<void> {
    for (const [folder, before] of Object.entries(c.before)) {
      const after = c.after?.[folder];
      if (!after || after === before) continue;
      const repo = this.repo(folder);
      for (const ch of await repo.diff(before, after)) {
        // The end-of-turn snapshot is taken a moment after the turn ended: a file written after
        // the end (by the user, the next test, another tool) is not the turn's. Deletions carry no
        // time, so they are left to Restore checkpoint.
        if (ch.status === "deleted") continue;
        const modified = await fs.promises.stat(ch.path).then((st) => st.mtimeMs, () => Number.POSITIVE_INFINITY);
        // Stamped in the same clock tick as the turn's end, or later: not the turn's (taking a
        // file the user just made for the agent's would let Undo delete it).
        if (modified >= endedAt) continue;
        const old = ch.status === "added" ? undefined : await repo.read(before, ch.path);
        if (old && (old.length > REVIEW_TEXT_BYTES || old.subarray(0, 8000).includes(0))) continue;
        await this.review.recordTurnChange(ch.path, old === undefined ? null : new TextDecoder().decode(old), c.sessionId, c.at);
      }
    }
  }

  private persist(): Thenable<void> {
    return this.state.update(CHECKPOINTS_KEY, this.index.toJSON());
  }

  /** Turns with a checkpoint, per session. */
  turns(): Record<string, number[]> {
    return this.index.turnsBySession();
  }

  /** What restoring this checkpoint would change: files changed since it, and which of them the user edited between turns. */
  async plan(c: Checkpoint): Promise<{ items: RestoreItem[]; now: Record<string, string> }> {
    const now = await this.snapshotAll(`before restoring turn ${c.turnId}`);
    const turns = this.index.from(c);
    const items: RestoreItem[] = [];
    for (const [folder, before] of Object.entries(c.before)) {
      const head = now[folder];
      if (!head) continue;
      const repo = this.repo(folder);
      const userEdited = new Set<string>();
      for (const gap of userGaps(turns, folder, head)) for (const ch of await repo.diff(gap.from, gap.to)) userEdited.add(ch.path);
      for (const ch of await repo.diff(before, head)) items.push({ file: ch.path, folder, status: ch.status, userEdited: userEdited.has(ch.path) });
    }
    items.sort((a, b) => a.file.localeCompare(b.file));
    return { items, now };
  }

  /** Agent Thoughts: Restore Checkpoint. Returns how many files went back (undefined: nothing done). */
  async restore(sessionId?: string, turnId?: number): Promise<number | undefined> {
    if (!this.enabled) {
      void vscode.window.showInformationMessage("Checkpoints are off (agentThoughts.checkpoints.enabled), or there is no workspace folder.");
      return undefined;
    }
    const c = sessionId !== undefined && turnId !== undefined ? this.index.get(sessionId, turnId) : (await vscode.window.showQuickPick(
      [...this.index.all()].reverse().map((x) => ({ label: plainText(x.prompt || "(no prompt)"), description: `turn ${x.turnId}`, detail: new Date(x.at).toLocaleString(), c: x })),
      { title: "Restore checkpoint: which turn?", placeHolder: "Files go back to how they were just before that turn" },
    ))?.c;
    if (!c) return undefined;
    const { items, now } = await this.plan(c);
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`No file has changed since turn ${c.turnId} began.`);
      return 0;
    }
    const rel = (f: string): string => vscode.workspace.asRelativePath(f);
    const picked = await vscode.window.showQuickPick(
      items.map((it) => ({
        label: plainText(rel(it.file)),
        description: `${it.status === "added" ? "created since — will be deleted" : it.status === "deleted" ? "deleted since — will be restored" : "changed since — will be restored"}${it.userEdited ? " · $(warning) your edits between turns are lost too" : ""}`,
        picked: true,
        item: it,
      })),
      { title: plainText(`Restore checkpoint: ${items.length} file${items.length === 1 ? "" : "s"} go back to before turn ${c.turnId} (“${c.prompt.slice(0, 60)}”)`), placeHolder: "Untick files to keep as they are; Enter restores", canPickMany: true, ignoreFocusOut: true },
    );
    if (!picked?.length) return undefined;
    const chosen = picked.map((p) => p.item);
    for (const it of chosen) await this.writeBack(it.folder, c.before[it.folder]!, it.file);
    this.lastRestore = { snapshot: now, items: chosen };
    this.logger.info(`Restored ${count(chosen.length, "file")} to before turn ${c.turnId} of ${c.sessionId}`);
    void vscode.window.showInformationMessage(`Restored ${chosen.length} file${chosen.length === 1 ? "" : "s"} to before turn ${c.turnId}.`, "Undo Restore").then((choice) => {
      if (choice) void vscode.commands.executeCommand("agentThoughts.undoRestoreCheckpoint");
    });
    return chosen.length;
  }

  /** Agent Thoughts: Undo Restore Checkpoint: the restored files go back to how they were before it. */
  async undoRestore(): Promise<number> {
    const last = this.lastRestore;
    if (!last) {
      void vscode.window.showInformationMessage("There is no checkpoint restore to undo.");
      return 0;
    }
    this.lastRestore = undefined;
    for (const it of last.items) await this.writeBack(it.folder, last.snapshot[it.folder]!, it.file);
    return last.items.length;
  }

  /** Puts a file back as it is in `commit` (deleting it when it is not there), through VS Code's edits. */
  private writeBack(folder: string, commit: string, file: string): Promise<void> {
    return this.review.outsideWrite(file, () => this.putBack(folder, commit, file));
  }

  private async putBack(folder: string, commit: string, file: string): Promise<void> {
    // A folder on the way may have become a symlink out of the workspace since the snapshot.
    const real = realpathOrParentSync(file);
    if (!isInside(real, realpathOrParentSync(folder))) {
      this.logger.warn(`Not restored: ${file} now leads to ${real}, outside ${folder}`);
      void vscode.window.showWarningMessage(plainText(`Not restored: ${vscode.workspace.asRelativePath(file)} now leads outside the workspace (${real}).`));
      return;
    }
    const bytes = await this.repo(folder).read(commit, file);
    const uri = vscode.Uri.file(file);
    if (bytes === undefined) {
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(uri, { ignoreIfNotExists: true, recursive: false });
      await vscode.workspace.applyEdit(edit);
      return;
    }
    if (bytes.subarray(0, 8000).includes(0)) {
      await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(file)));
      await vscode.workspace.fs.writeFile(uri, bytes);
      return;
    }
    const text = new TextDecoder().decode(bytes);
    if ((await readCurrent(file)) === text) return;
    await writeWholeText(file, text);
  }

  dispose(): void {
    if (this.warmTimer) clearTimeout(this.warmTimer);
    this.changed.dispose();
  }
}

/** Restore Checkpoint (from the palette, or the panel's button with a session and turn) and Undo Restore. */
export function registerCheckpointCommands(checkpoints: Checkpoints): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand("agentThoughts.restoreCheckpoint", (sessionArg?: unknown, turnArg?: unknown) =>
      checkpoints.restore(typeof sessionArg === "string" ? sessionArg : undefined, typeof turnArg === "number" ? turnArg : undefined)),
    vscode.commands.registerCommand("agentThoughts.undoRestoreCheckpoint", () => checkpoints.undoRestore()),
  ];
}
