/**
 * The "Agent Thoughts" LogOutputChannel as the core's `Logger`, plus a readable transcript of the
 * thought stream: text chunks are coalesced into lines so a streamed answer reads as prose.
 */
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import { describeEvent, type ThoughtEvent } from "../shared/events";

export class ChannelLogger implements Logger {
  constructor(readonly channel: vscode.LogOutputChannel) {}
  get traceEnabled(): boolean {
    return this.channel.logLevel === vscode.LogLevel.Trace;
  }
  trace(message: string): void { this.channel.trace(message); }
  debug(message: string): void { this.channel.debug(message); }
  info(message: string): void { this.channel.info(message); }
  warn(message: string): void { this.channel.warn(message); }
  error(message: string): void { this.channel.error(message); }
}

/** Writes events to the channel; consecutive thought/message chunks become one line (at log level Debug). */
export class EventTranscript implements vscode.Disposable {
  private pending: { kind: "thought" | "message"; first: ThoughtEvent; text: string } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly channel: vscode.LogOutputChannel) {}

  write(e: ThoughtEvent): void {
    if (e.kind === "thought" || e.kind === "message" || e.kind === "user_message") {
      if (!this.textLogged()) return;
      if (e.kind === "user_message") {
        this.flush();
        this.channel.debug(describeEvent(e));
        return;
      }
      if (this.pending && (this.pending.kind !== e.kind || this.pending.first.sessionId !== e.sessionId)) this.flush();
      if (!this.pending) this.pending = { kind: e.kind, first: e, text: "" };
      this.pending.text += e.text;
      this.timer ??= setTimeout(() => this.flush(), 250);
      return;
    }
    this.flush();
    const line = e.kind === "turn_start" && !this.textLogged() ? `#${e.seq} t${e.turnId} turn_start` : describeEvent(e);
    if (e.kind === "error") this.channel.error(line);
    else if (e.kind === "unknown") this.channel.warn(line);
    else this.channel.info(line);
  }

  /**
   * Whether the text of prompts, thoughts and messages is logged: at log level Debug or Trace only,
   * so a log attached to a bug report does not carry the user's prompts or the agent's answers by
   * default (the session's transcript has them), and ten agents streaming do not write all their
   * text twice.
   */
  private textLogged(): boolean {
    const level = this.channel.logLevel;
    return level === vscode.LogLevel.Trace || level === vscode.LogLevel.Debug;
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const p = this.pending;
    this.pending = undefined;
    if (p) this.channel.debug(`${describeEvent({ ...p.first, text: p.text } as ThoughtEvent)}`);
  }

  dispose(): void {
    this.flush();
  }
}
