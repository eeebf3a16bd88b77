/**
 * Images and dropped files in the prompt box, the webview's part: an image chip (its thumbnail,
 * name and × to remove it), the thumbnail itself (drawn into a canvas at most THUMB_PX on a side,
 * so the user's message never holds the full picture), reading a pasted or dropped image, and the
 * file URIs a drag from VS Code's Explorer or an editor tab carries. The host checks all of it again.
 */
import { base64Bytes, imageRefusal, isImageType, type PromptImage } from "../../shared/images";
import { button, cleanInline, h, icon } from "../dom";

/** Longest side of a thumbnail, in CSS pixels ×2 for sharp chips on high-DPI screens. */
const THUMB_PX = 160;

/** The image chips after the mention chips in the same row, each removable. */
export function imageChips(list: readonly PromptImage[], remove: (index: number) => void): HTMLElement[] {
  return list.map((img, i) => {
    const name = cleanInline(img.name, 80);
    const x = button({ class: "icon-button chip-remove", icon: "close", label: `Remove image ${name}`, labelHidden: true, title: `Remove image ${name}` });
    x.type = "button";
    x.addEventListener("mousedown", (ev) => ev.preventDefault());
    x.addEventListener("click", () => remove(i));
    const picture = img.thumbnail ? h("img", { class: "chip-thumb", attrs: { src: img.thumbnail, alt: "" } }) : icon("file-media");
    return h("span", { class: "chip chip-mention chip-image", attrs: { role: "listitem", title: `Image: ${name} (${img.mimeType})`, "aria-label": `Image ${name}`, "data-image": String(i) } },
      picture, h("span", { class: "chip-label ut" }, name), x);
  });
}

/** A small PNG `data:` URI of the image, or undefined when it cannot be drawn (the chip shows an icon then). */
export async function thumbnailOf(mimeType: string, data: string): Promise<string | undefined> {
  try {
    const img = new Image();
    img.src = `data:${mimeType};base64,${data}`;
    await img.decode();
    const scale = Math.min(1, THUMB_PX / Math.max(img.naturalWidth, img.naturalHeight, 1));
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(img.naturalWidth * scale));
    canvas.height = Math.max(1, Math.round(img.naturalHeight * scale));
    const ctx = canvas.getContext("2d");
    if (!ctx) return undefined;
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const png = canvas.toDataURL("image/png");
    // A photo-like thumbnail is smaller as JPEG; the shared bound (MAX_THUMBNAIL) applies to either.
    const url = png.length > 48 * 1024 ? canvas.toDataURL("image/jpeg", 0.8) : png;
    return url.startsWith("data:image/") ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Base64 of bytes (chunked: String.fromCharCode takes a bounded argument list). */
function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** A pasted or dropped image file as a chip, or why it cannot be one. */
export async function imageFromFile(file: File, fallbackName: string): Promise<PromptImage | { refused: string }> {
  const name = (file.name || fallbackName).slice(0, 200);
  const why = imageRefusal(name, file.type, file.size);
  if (why || !isImageType(file.type)) return { refused: why ?? `${name} is not an image` };
  const data = toBase64(new Uint8Array(await file.arrayBuffer()));
  if (base64Bytes(data) === undefined) return { refused: `${name} could not be read` };
  const thumbnail = await thumbnailOf(file.type, data);
  return { mimeType: file.type, data, name, ...(thumbnail ? { thumbnail } : {}) };
}

/**
 * The URIs a drag carries: VS Code's own list first (every dragged resource, `\r\n`-separated),
 * then `resourceurls` (a JSON list), then `text/uri-list` (Chromium keeps only one entry there).
 */
export function droppedUris(data: DataTransfer): string[] {
  const lines = (s: string): string[] => s.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const code = data.getData("application/vnd.code.uri-list");
  if (code) return lines(code);
  const resources = data.getData("resourceurls");
  if (resources) {
    try {
      const list: unknown = JSON.parse(resources);
      if (Array.isArray(list)) return list.filter((u): u is string => typeof u === "string");
    } catch {
      // not VS Code's format: fall through to the standard type
    }
  }
  return lines(data.getData("text/uri-list"));
}

/** Whether a drag may carry something the box takes (so it may show where to drop). */
export function dragCarriesFiles(data: DataTransfer | null): boolean {
  if (!data) return false;
  const types = [...data.types].map((t) => t.toLowerCase());
  return types.some((t) => t === "files" || t === "text/uri-list" || t === "application/vnd.code.uri-list" || t === "resourceurls");
}
