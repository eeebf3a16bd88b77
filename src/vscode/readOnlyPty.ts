/**
 * A read-only pseudoterminal showing a command's output: it writes at most once per
 * `WRITE_INTERVAL_MS` and at most `MAX_WRITE_CHARS` per write. Output arriving faster than that is
 * skipped in the middle, with a marker (see `terminalWrite`), and while it keeps flooding the
 * terminal is updated once a second. Closing it is reported unless we close it ourselves.
 */
import * as vscode from "vscode";
import { TailBuffer } from "../core/tailBuffer";
import { terminalWrite } from "../core/terminalText";

/** Writes into a terminal are coalesced: at most one per this many ms. */
const WRITE_INTERVAL_MS = 32;
/** At most this much per write (≈ 2 MB/s into the terminal); beyond it the middle is skipped. */
const MAX_WRITE_CHARS = 64 * 1024;
/** After a skip the output is flooding: the next write waits this long (unless the command ends). */
const FLOOD_INTERVAL_MS = 1000;

export class ReadOnlyPty implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writer.event;
  private opened = false;
  private disposed = false;
  /** Set when we close the terminal ourselves: not a user's close, nothing to ask. */
  private closingQuietly = false;
  private readonly pending = new TailBuffer(MAX_WRITE_CHARS);
  /** Output skipped before what is pending (it went by before this terminal existed). */
  private skippedBefore = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastWrite = 0;
  private holdUntil = 0;
  private atLineStart = true;

  constructor(private readonly onUserClose: () => void) {}

  open(): void {
    this.opened = true;
    this.schedule();
  }

  close(): void {
    this.opened = false;
    if (!this.closingQuietly) this.onUserClose();
  }

  write(text: string): void {
    this.pending.append(text);
    this.schedule();
  }

  /** Output that went by and will not be written (shown in the next marker). */
  skipped(chars: number): void {
    this.skippedBefore += chars;
  }

  /** Clears the screen and forgets anything not written yet (the output was replaced). */
  reset(): void {
    this.pending.clear();
    this.skippedBefore = 0;
    this.write("\x1bc");
  }

  /** The command is over: write what is left soon, even while flooding. */
  finish(): void {
    this.holdUntil = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule();
  }

  /** We are about to close this terminal: its close is not the user's. */
  closeQuietly(): void {
    this.closingQuietly = true;
  }

  private schedule(): void {
    if (this.timer || this.disposed || !this.opened || (this.pending.isEmpty && !this.skippedBefore)) return;
    const now = Date.now();
    const delay = Math.max(0, this.lastWrite + WRITE_INTERVAL_MS - now, this.holdUntil - now);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, delay);
  }

  private flush(): void {
    if (this.disposed || !this.opened) return;
    const w = terminalWrite(this.pending.text(), this.pending.skipped + this.skippedBefore, this.atLineStart);
    this.pending.clear();
    this.skippedBefore = 0;
    this.atLineStart = w.atLineStart;
    if (w.flooded) this.holdUntil = Date.now() + FLOOD_INTERVAL_MS;
    if (!w.out) return;
    this.lastWrite = Date.now();
    this.writer.fire(w.out);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
    this.writer.dispose();
  }
}
