/**
 * Agent markdown → DOM, safely and incrementally. markdown-it (raw HTML off) renders, DOMPurify
 * sanitises the result against a small allow-list (no styles, handlers, forms, frames or images),
 * and `IncrementalMarkdown` renders a streamed message's stable prefix once, re-rendering only
 * the tail after the last block boundary, so a long message costs O(tail) per frame.
 */
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { cleanBlock } from "./dom";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

// markdown-it refuses file: links by default; the host opens them (and checks every scheme).
md.validateLink = (url: string): boolean => !/^\s*(?:javascript|vbscript|data):/i.test(url);

// Table alignment comes out as inline `style`, which the CSP blocks (and DOMPurify strips): use `align`.
md.core.ruler.push("align_without_style", (state) => {
  for (const token of state.tokens) {
    if ((token.type !== "th_open" && token.type !== "td_open") || !token.attrs) continue;
    const style = token.attrGet("style");
    const m = typeof style === "string" ? /text-align:\s*(left|center|right)/.exec(style) : null;
    token.attrs = token.attrs.filter(([name]) => name !== "style");
    if (m?.[1]) token.attrSet("align", m[1]);
  }
  return true;
});

// Images would fetch remote content: show them as a link the reader can choose to open.
md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const alt = token ? self.renderInlineAsText(token.children ?? [], options, env) : "";
  const src = String(token?.attrGet("src") ?? "");
  const label = md.utils.escapeHtml(`[image${alt ? `: ${alt}` : ""}]`);
  return src ? `<a href="${md.utils.escapeHtml(src)}">${label}</a>` : label;
};

const ALLOWED_TAGS = [
  "a", "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code",
  "em", "strong", "s", "del", "table", "thead", "tbody", "tr", "th", "td", "sup", "sub", "kbd",
];

const PURIFY_CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR: ["href", "title", "start", "align"],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|file):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  RETURN_DOM_FRAGMENT: true as const,
};

let hooked = false;
function purify(html: string): DocumentFragment {
  if (!hooked) {
    hooked = true;
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if ((node.nodeName === "TD" || node.nodeName === "TH") && !/^(?:left|center|right)$/.test(node.getAttribute("align") ?? "")) node.removeAttribute("align");
      if (node.nodeName !== "A") return;
      const href = node.getAttribute("href");
      // No real href: VS Code's webview host opens any <a href> clicked in a webview itself (a
      // vscode: URI reaches extension URI handlers), past our checks. The target lives in
      // data-href; a click or Enter hands it to the host, which decides (links.ts).
      node.removeAttribute("href");
      if (!href) return;
      node.setAttribute("data-href", href);
      node.setAttribute("role", "link");
      node.setAttribute("tabindex", "0");
      if (!node.hasAttribute("title")) node.setAttribute("title", href);
    });
  }
  return DOMPurify.sanitize(html, PURIFY_CONFIG);
}

/** Markdown source with bidi and control characters made visible marks (as everywhere else). */
function prepare(src: string): string {
  return cleanBlock(src);
}

/** Renders untrusted markdown to a sanitised fragment. */
export function renderMarkdown(src: string): DocumentFragment {
  if (!DOMPurify.isSupported) {
    const f = document.createDocumentFragment();
    f.append(src);
    return f;
  }
  return purify(md.render(prepare(src)));
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const BLANK = /^[ \t]*$/;
// A blank line before one of these does not end the block (list items, indented continuations).
const CONTINUES = /^(?:[ \t]|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))/;

/**
 * A message body that grows. Text up to the last block boundary (a blank line outside a code
 * fence, followed by a new top-level block) is rendered once into `stable`; the rest into `tail`,
 * which is replaced on every change.
 */
export class IncrementalMarkdown {
  readonly el: HTMLElement;
  private readonly stable: HTMLElement;
  private readonly tail: HTMLElement;
  private text = "";
  private stableLen = 0;
  /** Start of the first line not yet scanned (always a line start). */
  private scanPos = 0;
  private fence: { ch: string; len: number } | undefined;
  private sawBlank = false;
  private tailSrc = "";

  /**
   * `maxTail`: past this many characters of tail, the stable part is cut at the last line break
   * (or, in one long line, the last space) outside a code fence, so a long paragraph costs at most
   * this much rendering per update; the price is a paragraph break where the cut falls.
   */
  constructor(className = "message-body", private readonly maxTail = Infinity) {
    this.stable = document.createElement("div");
    this.stable.className = "md md-stable";
    this.tail = document.createElement("div");
    this.tail.className = "md md-tail";
    this.el = document.createElement("div");
    this.el.className = className;
    this.el.append(this.stable, this.tail);
  }

  update(text: string): void {
    if (text === this.text) return;
    if (!this.extends(text)) this.reset();
    this.text = text;
    let split = this.scan();
    if (text.length - Math.max(split, this.stableLen) > this.maxTail && !this.fence) split = Math.max(split, this.forcedSplit(Math.max(split, this.stableLen)));
    if (split > this.stableLen) {
      this.stable.append(renderMarkdown(text.slice(this.stableLen, split)));
      this.stableLen = split;
    }
    const tail = text.slice(this.stableLen);
    if (tail !== this.tailSrc) {
      this.tailSrc = tail;
      this.tail.replaceChildren(renderMarkdown(tail));
    }
  }

  /** Where a too-long tail is cut: after its last line break, else after its last space (no cut: `from`). */
  private forcedSplit(from: number): number {
    const text = this.text;
    const nl = text.lastIndexOf("\n", text.length - 2);
    if (nl >= from) return nl + 1;
    const sp = text.lastIndexOf(" ", text.length - 2);
    return sp >= from ? sp + 1 : from;
  }

  /** True when `text` continues what was rendered (messages only ever grow; a cheap check of the seam). */
  private extends(text: string): boolean {
    const n = this.text.length;
    if (text.length < n) return false;
    const k = Math.min(n, 64);
    return text.slice(n - k, n) === this.text.slice(n - k);
  }

  private reset(): void {
    this.text = "";
    this.stableLen = 0;
    this.scanPos = 0;
    this.fence = undefined;
    this.sawBlank = false;
    this.tailSrc = "";
    this.stable.replaceChildren();
    this.tail.replaceChildren();
  }

  /** Scans complete lines since the last call; returns the latest safe split position. */
  private scan(): number {
    const text = this.text;
    let split = this.stableLen;
    let pos = this.scanPos;
    for (;;) {
      const nl = text.indexOf("\n", pos);
      if (nl < 0) break;
      const line = text.slice(pos, nl);
      if (this.fence) {
        const m = FENCE_OPEN.exec(line);
        if (m?.[1] && m[1][0] === this.fence.ch && m[1].length >= this.fence.len && BLANK.test(line.slice(m[0].length))) this.fence = undefined;
      } else if (BLANK.test(line)) {
        this.sawBlank = true;
      } else {
        if (this.sawBlank && !CONTINUES.test(line)) split = pos;
        this.sawBlank = false;
        const m = FENCE_OPEN.exec(line);
        if (m?.[1]) this.fence = { ch: m[1][0] ?? "`", len: m[1].length };
      }
      pos = nl + 1;
    }
    this.scanPos = pos;
    return split;
  }
}

type Tokens = ReturnType<typeof md.parse>;

function inlineText(tokens: Tokens, out: string[]): void {
  for (const t of tokens) {
    switch (t.type) {
      case "text":
      case "code_inline": out.push(t.content); break;
      case "softbreak":
      case "hardbreak": out.push("\n"); break;
      case "image": {
        const alt: string[] = [];
        inlineText(t.children ?? [], alt);
        out.push(`[image${alt.length ? `: ${alt.join("")}` : ""}]`);
        break;
      }
      default: break;
    }
  }
}

/**
 * The text `renderMarkdown(src)` shows, without building DOM (find counts matches in messages that
 * are not drawn): inline text, code and image labels, blocks apart by line breaks.
 */
export function markdownText(src: string): string {
  const out: string[] = [];
  for (const t of md.parse(prepare(src), {})) {
    if (t.type === "inline") {
      inlineText(t.children ?? [], out);
      out.push("\n");
    } else if (t.type === "fence" || t.type === "code_block") {
      out.push(t.content, "\n");
    }
  }
  return out.join("");
}
