/**
 * The chips of a prompt or user message: what it carried besides its text (a file range from Ask
 * About Selection, a file, a link, an image). A chip for a local file opens it at its first line
 * (the host opens only workspace files); labels and tooltips are agent-bounded text. An image of
 * the user's own prompt shows its thumbnail; an agent's image block only its label.
 */
import type { Attachment } from "../../shared/attachments";
import type { WebviewMessage } from "../../shared/protocol";
import { isThumbnail } from "../../shared/images";
import { cleanBlock, cleanInline, h, icon } from "../dom";

const ICON: Record<Attachment["kind"], string> = { file: "file-code", link: "link", image: "file-media", audio: "unmute" };

export function chipRow(list: readonly Attachment[] | undefined, post: (m: WebviewMessage) => void): HTMLElement | null {
  if (!list?.length) return null;
  return h("div", { class: "chips", attrs: { role: "list", "aria-label": "Attached" } }, ...list.map((a) => {
    const label = cleanInline(a.label, 80);
    const detail = cleanInline(a.detail, 500);
    const path = a.path;
    // Only a thumbnail our own prompt made (a bounded PNG/JPEG data: URI) is drawn; the webview's CSP allows no other image source but its own.
    const picture = a.kind === "image" && a.thumbnail && isThumbnail(a.thumbnail) ? h("img", { class: "chip-thumb", attrs: { src: a.thumbnail, alt: "" } }) : icon(ICON[a.kind]);
    if (path === undefined) return h("span", { class: `chip chip-${a.kind}`, attrs: { role: "listitem", title: detail, ...(a.kind === "image" ? { "aria-label": label } : {}) } }, picture, h("span", { class: "chip-label ut" }, label));
    const b = h("button", { class: `chip chip-${a.kind}`, attrs: { type: "button", role: "listitem", title: `Open ${detail}`, "aria-label": `Open ${label}` } }, icon(ICON[a.kind]), h("span", { class: "chip-label ut" }, label));
    b.addEventListener("click", () => post({ type: "openLocation", path, ...(a.line ? { line: a.line } : {}) }));
    return b;
  }));
}

/**
 * A user message's body: its text (or `empty` when it has neither text nor chips) above its
 * chips, so a message that carried only an attachment is never an empty bubble.
 */
export function messageBody(text: string, list: readonly Attachment[] | undefined, post: (m: WebviewMessage) => void, textEl: (shown: string) => HTMLElement, empty: string): HTMLElement {
  const shown = cleanBlock(text);
  const chips = chipRow(list, post);
  return h("div", { class: "prompt-main" }, shown || !chips ? textEl(shown || empty) : null, chips);
}
