/**
 * Ids the panel sends back (session keys, permission request ids, tool call ids) come from the
 * agent and can be any length. `boundId` keeps a short id as it is and turns a long one into a
 * prefix plus a hash of the whole, in one place, so every id in the panel fits the webview message
 * schema (`protocol.ts`, 500 characters) and two different long ids stay different. Host only
 * (node:crypto); the wire id is kept wherever we talk to the agent.
 */
import { createHash } from "node:crypto";
import { pairSafeEnd } from "../shared/utf16";

/** Ids up to this long are kept as they are. */
export const MAX_ID_CHARS = 128;
const PREFIX_CHARS = 64;

export function boundId(id: string): string {
  const wellFormed = id.toWellFormed();
  if (wellFormed.length <= MAX_ID_CHARS && wellFormed === id) return id;
  const prefix = wellFormed.slice(0, pairSafeEnd(wellFormed, PREFIX_CHARS));
  // Hash the UTF-16 code units, so ids that differ only in a lone surrogate stay different.
  const hash = createHash("sha256").update(Buffer.from(id, "utf16le")).digest("hex").slice(0, 32);
  return `${prefix}…${hash}`;
}
