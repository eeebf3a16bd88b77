/**
 * Images and dropped files for the prompt box, the host side: Attach Image shows VS Code's own file
 * picker and reads only the files the user picked; files dropped on the box (URIs the webview read
 * from the drag) become file chips when they are workspace files, image chips when they are images
 * there; and a prompt's images are checked again before they become ACP `image` blocks (type, size,
 * and that the bytes start as the type says) — the webview is not trusted with either.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import type { ContentBlock } from "../shared/events";
import { bytesMatchType, imageRefusal, imageTypeOf, MAX_IMAGE_BYTES, MAX_IMAGES, TOO_MANY_IMAGES, type PromptImage } from "../shared/images";
import type { MentionRef } from "../shared/mentions";
import { diskFile, hardLinks, readRegularFile } from "./documents";
import { isNetworkPath, realpathOrParentSync } from "./guard";

/** What Attach Image or a drop gives the prompt box. */
export interface Attached { mentions: MentionRef[]; images: PromptImage[]; refused: string[] }

/** What the thought panel needs for images and drops. */
export interface PromptFilesPort {
  pickImages(): Promise<Attached>;
  dropped(uris: readonly string[]): Promise<Attached>;
  imageBlocks(images: readonly PromptImage[]): { blocks: ContentBlock[]; refused: string[] };
}

export class VscodePromptFiles implements PromptFilesPort {
  constructor(private readonly inWorkspace: (real: string) => boolean, private readonly logger: Logger) {}

  private local(uri: vscode.Uri): boolean {
    if (uri.scheme !== "file" || isNetworkPath(uri.fsPath)) return false;
    return this.inWorkspace(realpathOrParentSync(uri.fsPath));
  }

  async pickImages(): Promise<Attached> {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: true,
      canSelectFiles: true,
      canSelectFolders: false,
      openLabel: "Attach",
      title: "Attach images to the prompt",
      filters: { Images: ["png", "jpg", "jpeg", "gif", "webp"] },
      ...(vscode.workspace.workspaceFolders?.[0] ? { defaultUri: vscode.workspace.workspaceFolders[0].uri } : {}),
    });
    const out: Attached = { mentions: [], images: [], refused: [] };
    // The user chose these files themselves, so they may be anywhere; only they are read.
    for (const uri of (picked ?? []).slice(0, MAX_IMAGES)) await this.readImage(uri, out);
    if ((picked?.length ?? 0) > MAX_IMAGES) out.refused.push(`${TOO_MANY_IMAGES}: ${picked!.length - MAX_IMAGES} not attached`);
    return out;
  }

  async dropped(uris: readonly string[]): Promise<Attached> {
    const out: Attached = { mentions: [], images: [], refused: [] };
    for (const text of uris) {
      let uri: vscode.Uri;
      try {
        uri = vscode.Uri.parse(text.trim(), true);
      } catch {
        out.refused.push(`${text.slice(0, 80)} is not a file`);
        continue;
      }
      const name = path.posix.basename(uri.path) || text.slice(0, 80);
      if (uri.scheme !== "file") {
        out.refused.push(`${name.slice(0, 80)} is not a local file (${uri.scheme.slice(0, 20)}:)`);
        continue;
      }
      if (!this.local(uri)) {
        out.refused.push(`${name.slice(0, 80)} is outside the workspace`);
        continue;
      }
      const file = await diskFile(uri.fsPath);
      if (file.kind !== "file") {
        out.refused.push(`${name.slice(0, 80)} ${file.kind === "missing" ? "was not found" : file.kind === "directory" ? "is a folder, not a file" : `is ${file.what}, not a file`}`);
        continue;
      }
      // A hard link is the same file as every other name it has, which may be outside the workspace.
      if (file.links > 1) {
        out.refused.push(`${name.slice(0, 80)} ${hardLinks(file.links)}`);
        continue;
      }
      if (imageTypeOf(name) && file.size <= MAX_IMAGE_BYTES) {
        const before = out.images.length;
        await this.readImage(uri, out);
        if (out.images.length > before) continue;
      }
      out.mentions.push({ kind: "file", uri: uri.toString(), label: name.slice(0, 200) });
    }
    return out;
  }

  private async readImage(uri: vscode.Uri, out: Attached): Promise<void> {
    const name = path.basename(uri.fsPath);
    const mimeType = imageTypeOf(name);
    try {
      const file = await diskFile(uri.fsPath);
      const why = imageRefusal(name, mimeType ?? "", file.kind === "file" ? file.size : 0);
      if (why || !mimeType) {
        out.refused.push(why ?? `${name} is not an image`);
        return;
      }
      // Opened without blocking and checked as opened: a path swapped for a pipe since cannot hang the host.
      const read = await readRegularFile(uri.fsPath, MAX_IMAGE_BYTES);
      if (!("bytes" in read)) {
        out.refused.push(`${name.slice(0, 80)} ${"missing" in read ? "was not found" : read.refused}`);
        return;
      }
      const bytes = read.bytes;
      if (!bytesMatchType(bytes.subarray(0, 16), mimeType)) {
        out.refused.push(`${name.slice(0, 80)} is not the ${mimeType} its name says`);
        return;
      }
      out.images.push({ mimeType, data: bytes.toString("base64"), name: name.slice(0, 200) });
    } catch (err) {
      this.logger.warn(`Could not read the image ${uri.fsPath}: ${err instanceof Error ? err.message : String(err)}`);
      out.refused.push(`${name.slice(0, 80)} could not be read`);
    }
  }

  imageBlocks(images: readonly PromptImage[]): { blocks: ContentBlock[]; refused: string[] } {
    const blocks: ContentBlock[] = [];
    const refused: string[] = [];
    for (const img of images.slice(0, MAX_IMAGES)) {
      const bytes = Buffer.from(img.data, "base64");
      const why = imageRefusal(img.name, img.mimeType, bytes.length) ?? (bytesMatchType(bytes.subarray(0, 16), img.mimeType) ? undefined : `${img.name.slice(0, 80)} is not the ${img.mimeType} it says`);
      if (why) {
        refused.push(why);
        continue;
      }
      blocks.push({ type: "image", data: img.data, mimeType: img.mimeType, ...(img.thumbnail ? { thumbnail: img.thumbnail } : {}) });
    }
    return { blocks, refused };
  }
}
