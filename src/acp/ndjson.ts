/**
 * Newline-delimited JSON-RPC framing over an agent's stdio, with a tap. We frame the stream
 * ourselves (instead of the SDK's `ndJsonStream`) because the tap must see every message in
 * wire order before the SDK validates it — the SDK silently drops updates its schema rejects —
 * and because non-JSON noise and oversized lines must be reported, not swallowed. Lines are
 * handled in time-budgeted slices shared by all agents (./ingest), with the agent's stdout paused
 * while its lines wait.
 */
import { StringDecoder } from "node:string_decoder";
import type { Readable, Writable } from "node:stream";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { wellFormedJson } from "../core/json";
import { agentIngest, type IngestScheduler, type IngestSource } from "./ingest";

export interface NdJsonHooks {
  /** Every parsed message from the agent, in wire order, before the SDK sees it, and its line. */
  incoming(message: AnyMessage, line: string): void;
  /** Every message we send. */
  outgoing(message: AnyMessage): void;
  /** A line that is not a JSON-RPC message (log noise, truncated JSON, too large). */
  noise(line: string, reason: string): void;
}

export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

function isMessage(v: unknown): v is AnyMessage {
  return typeof v === "object" && v !== null && !Array.isArray(v) && (v as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

/** A `session/update` notification (no id): the tap handles these alone. */
function isUpdateNotification(m: AnyMessage): boolean {
  return "method" in m && m.method === "session/update" && !("id" in m);
}

/** The agent's stdio as the SDK's stream; `hurry`: we sent it something to read at once (see IngestScheduler.hurry). */
export type AgentStream = Stream & { hurry(): void };

export function ndJsonStream(agentStdin: Writable, agentStdout: Readable, hooks: NdJsonHooks, maxMessageBytes = MAX_MESSAGE_BYTES, scheduler: IngestScheduler = agentIngest): AgentStream {
  // Set once the reader went away (connection closed) or the stream ended: an agent still writing
  // after that is ignored rather than enqueued into a closed stream (which throws).
  let closed = false;
  let hurry = (): void => undefined;
  const readable = new ReadableStream<AnyMessage>({
    cancel() {
      closed = true;
    },
    start(controller) {
      const decoder = new StringDecoder("utf8");
      let buffer = "";
      let skipping = false; // inside an oversized line: drop until its newline
      // Whole lines not handled yet (the scheduler hands them out in slices), from `head` on; an
      // oversized one stands as its report, so noise is reported in wire order too.
      let lines: Array<string | { dropped: string }> = [];
      let head = 0;
      let ended = false;
      let finished = false;
      const line = (text: string): void => {
        const trimmed = text.trim();
        if (!trimmed) return;
        let parsed: unknown;
        try {
          // Lone surrogate escapes ("\ud800") become U+FFFD here, once, for every reader after us.
          parsed = wellFormedJson(JSON.parse(trimmed), trimmed);
        } catch {
          hooks.noise(trimmed, "not JSON");
          return;
        }
        if (!isMessage(parsed)) {
          hooks.noise(trimmed, "not a JSON-RPC 2.0 message");
          return;
        }
        if (closed) return;
        hooks.incoming(parsed, trimmed);
        // session/update notifications are mapped by the tap (in wire order, unknown kinds kept);
        // the SDK would only validate them again, twice, with zod: a third of the host's CPU under load.
        if (isUpdateNotification(parsed)) return;
        controller.enqueue(parsed);
      };
      const finish = (): void => {
        finished = true;
        closed = true;
        try { controller.close(); } catch { /* already closed or errored */ }
      };
      const source: IngestSource = {
        get waiting() {
          return head < lines.length || (ended && !finished);
        },
        next() {
          if (head < lines.length) {
            const text = lines[head]!;
            lines[head++] = "";
            if (head === lines.length) {
              lines = [];
              head = 0;
            }
            if (typeof text !== "string") hooks.noise(text.dropped, `larger than ${maxMessageBytes} bytes (dropped)`);
            else if (!closed) line(text);
            return true;
          }
          if (ended && !finished) {
            finish();
            return true;
          }
          return false;
        },
        pause: () => agentStdout.pause(),
        resume: () => agentStdout.resume(),
      };
      hurry = () => scheduler.hurry(source);
      agentStdout.on("data", (chunk: Buffer) => {
        if (closed) return;
        // Scan only the new text for newlines so a huge line costs linear time.
        const text = decoder.write(chunk);
        let start = 0;
        let nl: number;
        while ((nl = text.indexOf("\n", start)) >= 0) {
          const whole = buffer + text.slice(start, nl);
          buffer = "";
          start = nl + 1;
          if (skipping) {
            skipping = false;
            continue;
          }
          lines.push(whole.length > maxMessageBytes ? { dropped: whole.slice(0, 200) } : whole);
        }
        if (!skipping) {
          buffer += text.slice(start);
          if (buffer.length > maxMessageBytes) {
            lines.push({ dropped: buffer.slice(0, 200) });
            buffer = "";
            skipping = true;
          }
        }
        scheduler.run(source);
      });
      agentStdout.on("end", () => {
        if (closed) return;
        if (!skipping) lines.push(buffer + decoder.end());
        buffer = "";
        ended = true;
        scheduler.run(source);
      });
      agentStdout.on("error", (err) => {
        if (closed) return;
        closed = true;
        try { controller.error(err); } catch { /* already closed */ }
      });
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      hooks.outgoing(message);
      return new Promise<void>((resolve, reject) => {
        if (agentStdin.destroyed || !agentStdin.writable) {
          reject(new Error("the agent's stdin is closed"));
          return;
        }
        agentStdin.write(JSON.stringify(message) + "\n", (err) => (err ? reject(err) : resolve()));
      });
    },
    close() {
      agentStdin.end();
    },
    abort() {
      agentStdin.destroy();
    },
  });
  return { readable, writable, hurry: () => hurry() };
}
