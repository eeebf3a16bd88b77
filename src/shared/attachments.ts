/**
 * What a prompt carries besides its text — a file range from Ask About Selection, a whole file, a
 * link, an image — as a chip in the user's message: a short label (file name and lines), the full
 * location for its tooltip, and where clicking it goes (a workspace path and line; the host checks
 * the path); an image of the user's own prompt also has its thumbnail (an agent's never has one: the
 * update mapper does not read the field). Prompts replayed by an agent go through here too, so
 * every field is bounded.
 */
import type { ContentBlock } from "./events";
import { isThumbnail } from "./images";

export interface Attachment {
  kind: "file" | "link" | "image" | "audio";
  /** File name with its lines ("app.ts:1-3"), or what the block names. */
  label: string;
  /** The full URI or path (tooltip). */
  detail: string;
  /** A local file the chip opens, with the first line of its range. */
  path?: string;
  line?: number;
  /** An image of the user's own prompt: its small `data:` picture (PNG or JPEG, bounded); never a URL. */
  thumbnail?: string;
}

const MAX_URI = 4096;
const MAX_LABEL = 200;

/** Lines from an editor-style fragment: `L3`, `L1-L3`, `L1-3`, `L1,5` (1-based). */
function linesOf(fragment: string): { first: number; last: number } | undefined {
  const m = /^L(\d{1,9})(?:[-,]L?(\d{1,9}))?$/i.exec(fragment);
  if (!m) return undefined;
  const first = Number(m[1]);
  const last = m[2] !== undefined ? Number(m[2]) : first;
  return first >= 1 && last >= first ? { first, last } : undefined;
}

/** The local path of a `file:` URI (POSIX, or Windows drive and UNC forms), else undefined. */
function filePath(url: URL): string | undefined {
  if (url.protocol !== "file:") return undefined;
  let p: string;
  try {
    p = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (/^\/[a-zA-Z]:[/\\]/.test(p)) return p.slice(1).replace(/\//g, "\\");
  if (url.host) return `\\\\${url.host}${p.replace(/\//g, "\\")}`;
  return p;
}

function baseName(p: string): string {
  const parts = p.split(/[/\\]/).filter(Boolean);
  return parts[parts.length - 1] ?? p;
}

function fromUri(uri: string, fallback: string): Pick<Attachment, "label" | "detail" | "path" | "line"> {
  const detail = uri.slice(0, MAX_URI);
  let url: URL;
  try {
    url = new URL(detail);
  } catch {
    return { label: fallback.slice(0, MAX_LABEL) || detail.slice(0, MAX_LABEL), detail };
  }
  const lines = url.hash ? linesOf(url.hash.slice(1)) : undefined;
  const local = filePath(url);
  const name = local ? baseName(local) : fallback || baseName(url.pathname) || url.host;
  const label = `${name}${lines ? (lines.first === lines.last ? `:${lines.first}` : `:${lines.first}-${lines.last}`) : ""}`.slice(0, MAX_LABEL);
  return { label, detail, ...(local ? { path: local } : {}), ...(lines ? { line: lines.first } : {}) };
}

/** The chip for a prompt block; undefined for text (it is the message itself). */
export function attachmentOf(block: ContentBlock): Attachment | undefined {
  switch (block.type) {
    case "text": return undefined;
    case "resource": return { kind: "file", ...fromUri(String(block.resource.uri ?? ""), "") };
    case "resource_link": return { kind: "link", ...fromUri(String(block.uri ?? ""), String(block.title ?? block.name ?? "")) };
    case "image": return { kind: "image", label: `Image (${String(block.mimeType).slice(0, 40)})`, detail: block.uri ? String(block.uri).slice(0, MAX_URI) : String(block.mimeType).slice(0, 100), ...(isThumbnail(block.thumbnail) ? { thumbnail: block.thumbnail } : {}) };
    case "audio": return { kind: "audio", label: `Audio (${String(block.mimeType).slice(0, 40)})`, detail: String(block.mimeType).slice(0, 100) };
  }
}
