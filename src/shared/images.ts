/**
 * Images in the prompt box, the parts both sides share: which images a prompt may carry (PNG, JPEG,
 * GIF or WebP, at most MAX_IMAGE_BYTES each and MAX_IMAGES in all), what `sendPrompt` carries for
 * each (base64 data, its mime type, and a small thumbnail the panel made), and why one is refused.
 * The webview checks before it adds a chip; the host checks again (the webview is less trusted),
 * including that the bytes start as the mime type says.
 */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
/** Bytes of one image (decoded). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images in one prompt. */
export const MAX_IMAGES = 10;
/** Files taken from one drop on the prompt box. */
export const MAX_DROPPED = 50;
/** Characters of a thumbnail's `data:` URI (the panel makes them 160 px at most, a few KB). */
export const MAX_THUMBNAIL = 64 * 1024;
const MAX_NAME = 200;

/** An image chip in the prompt box, and what `sendPrompt` carries for it. */
export interface PromptImage {
  mimeType: ImageType;
  /** Base64, no `data:` prefix. */
  data: string;
  /** What the chip says (the file's name, or "Pasted image"). */
  name: string;
  /** A small `data:image/png|jpeg;base64,…` picture for the chip and the user's message. */
  thumbnail?: string;
}

/** The mime type a file name stands for, when it is an image a prompt may carry. */
export function imageTypeOf(name: string): ImageType | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  switch (ext) {
    case "png": return "image/png";
    case "jpg":
    case "jpeg": return "image/jpeg";
    case "gif": return "image/gif";
    case "webp": return "image/webp";
    default: return undefined;
  }
}

export function isImageType(x: unknown): x is ImageType {
  return typeof x === "string" && (IMAGE_TYPES as readonly string[]).includes(x);
}

/** Decoded bytes of well-formed base64 (no white space), or undefined when it is not that. */
export function base64Bytes(data: string): number | undefined {
  if (data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return undefined;
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return (data.length / 4) * 3 - pad;
}

/** A thumbnail the panel may draw: a bounded base64 `data:` URI of a PNG or JPEG, nothing else. */
export function isThumbnail(x: unknown): x is string {
  if (typeof x !== "string" || x.length > MAX_THUMBNAIL) return false;
  const m = /^data:image\/(?:png|jpeg);base64,(.+)$/.exec(x);
  return !!m && base64Bytes(m[1]!) !== undefined;
}

/** A human size: "5 MB", "740 KB". */
export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/**
 * Why an image cannot go with the prompt (a sentence naming it), or undefined when it can:
 * a type other than PNG/JPEG/GIF/WebP, or more than MAX_IMAGE_BYTES.
 */
export function imageRefusal(name: string, mimeType: string, bytes: number): string | undefined {
  const shown = name.slice(0, 80) || "The image";
  if (!isImageType(mimeType)) return `${shown} is not a PNG, JPEG, GIF or WebP image`;
  if (bytes > MAX_IMAGE_BYTES) return `${shown} is ${sizeText(bytes)}, more than the ${sizeText(MAX_IMAGE_BYTES)} an image may be`;
  return undefined;
}

/** What the full box says when one more image is added. */
export const TOO_MANY_IMAGES = `A prompt carries at most ${MAX_IMAGES} images`;

/** Whether a value is a well-formed, bounded image (from the wire). */
export function isPromptImage(x: unknown): x is PromptImage {
  if (!x || typeof x !== "object") return false;
  const r = x as Record<string, unknown>;
  if (!isImageType(r.mimeType) || typeof r.data !== "string" || typeof r.name !== "string" || r.name.length > MAX_NAME) return false;
  if (r.thumbnail !== undefined && !isThumbnail(r.thumbnail)) return false;
  // Checked before decoding: a string far too long is refused without a regex pass over it.
  if (r.data.length > Math.ceil(MAX_IMAGE_BYTES / 3) * 4) return false;
  const bytes = base64Bytes(r.data);
  return bytes !== undefined && bytes <= MAX_IMAGE_BYTES;
}

/** The first bytes each type starts with (GIF: GIF87a/GIF89a; WebP: RIFF….WEBP). */
export function bytesMatchType(head: Uint8Array, mimeType: ImageType): boolean {
  const at = (offset: number, ...bytes: number[]): boolean => bytes.every((b, i) => head[offset + i] === b);
  switch (mimeType) {
    case "image/png": return at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
    case "image/jpeg": return at(0, 0xff, 0xd8, 0xff);
    case "image/gif": return at(0, 0x47, 0x49, 0x46, 0x38) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61;
    case "image/webp": return at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50);
  }
}

/**
 * A prompt block as the session log, the panel and the transcript keep it: an image or audio
 * block's data left out (its type and thumbnail stay), so megabytes sent once are not held,
 * redrawn or written again.
 */
export function withoutMediaData<B extends { type: string }>(block: B): B {
  const b = block as B & { data?: unknown };
  return (b.type === "image" || b.type === "audio") && typeof b.data === "string" && b.data.length > 0 ? { ...b, data: "" } : block;
}

/** The image with a name bounded and anything else dropped (what the box keeps). */
export function cleanImage(img: PromptImage): PromptImage {
  return { mimeType: img.mimeType, data: img.data, name: img.name.slice(0, MAX_NAME), ...(img.thumbnail && isThumbnail(img.thumbnail) ? { thumbnail: img.thumbnail } : {}) };
}
