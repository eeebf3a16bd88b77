/**
 * Agent markdown → DOM, safely and incrementally. markdown-it (raw HTML off) renders, DOMPurify
 * sanitises the result against a small allow-list (no styles, handlers, forms, frames or images),
 * and `IncrementalMarkdown` renders a streamed message's stable prefix once, re-rendering only
 * the tail after the last block boundary, so a long message costs O(tail) per frame.
 */
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { cleanBlock, keepSelection, selectionIn } from "./dom";
import { lastLineStart } from "./lineStart";
import { pairSafeEnd } from "../shared/utf16";

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

/** The HTML markdown-it makes of `src` (before it is sanitised). */
export function markdownHtml(src: string): string {
  return md.render(prepare(src));
}

/** ASCII characters that are text wherever they fall in a paragraph (no markdown, no link, no entity): 1; '.' and ':' only before a space, a line break or at the end: 2. */
const PROSE_ASCII = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ,;?!\"'()-") PROSE_ASCII[c.charCodeAt(0)] = 1;
PROSE_ASCII[46] = PROSE_ASCII[58] = 2;
/** Starts an ordered list item, or is taken for one (at `lastIndex`). */
const LIST_AT = /\d{1,9}[.)]/y;
/** Spaces other than U+0020, controls but the line feed, format characters (but ZWJ and VS16), unpaired, private-use and unassigned code points. */
const NOT_PROSE = /(?! |\n|\u200d|\ufe0f)[\p{Z}\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/u;

/**
 * Whether the line break at `i` in `src` (not its first or last character) is one markdown-it
 * draws as it is, inside the paragraph: after a character other than a space (one space before it
 * is dropped, two make a hard break), and before a line that cannot start a block or go on one
 * (no leading space, no '-', no ordered-list number; the other characters that could are not in
 * PROSE_ASCII at all).
 */
function softBreak(src: string, i: number): boolean {
  if (src.charCodeAt(i - 1) === 32) return false;
  const next = src.charCodeAt(i + 1);
  if (next < 128 && PROSE_ASCII[next] !== 1) return false;
  return !opensBlock(src, i + 1);
}

/** Whether text from `i` in `src` would not go on a paragraph as its text: a space, '-' or line break, or an ordered-list number, there. */
function opensBlock(src: string, i: number): boolean {
  const c = src.charCodeAt(i);
  if (c === 32 || c === 45 || c === 10) return true;
  LIST_AT.lastIndex = i;
  return LIST_AT.test(src);
}

/**
 * The text of `src` (prepared) when markdown-it draws it as one paragraph of plain text (what most
 * of an agent's reasoning is, a sentence at a time): `<p>` and the text without its trailing
 * spaces and line breaks. Undefined for anything else, or when unsure: no leading space or '-',
 * line breaks only where markdown-it keeps them in the paragraph as they are (softBreak), ASCII
 * only from a short list of word characters and punctuation with no markdown or link meaning
 * ('.' and ':' only before a space, a line break or at the end), other characters only if they
 * are neither spaces nor control or format characters (but the joiner and variation selector of
 * emoji). A unit test checks it against markdown-it on random text.
 */
export function proseParagraph(src: string): string | undefined {
  let end = src.length;
  while (end > 0 && (src.charCodeAt(end - 1) === 32 || src.charCodeAt(end - 1) === 10)) end--;
  if (end === 0) return undefined;
  if (opensBlock(src, 0)) return undefined;
  let other = false;
  for (let i = 0; i < end; i++) {
    const c = src.charCodeAt(i);
    if (c >= 128) other = true;
    else if (c === 10) {
      if (!softBreak(src, i)) return undefined;
    } else if (PROSE_ASCII[c] !== 1 && !(PROSE_ASCII[c] === 2 && (i + 1 === end || src.charCodeAt(i + 1) === 32 || src.charCodeAt(i + 1) === 10))) return undefined;
  }
  const text = src.slice(0, end);
  return other && NOT_PROSE.test(text) ? undefined : text;
}

/** Renders untrusted markdown to a sanitised fragment. */
export function renderMarkdown(src: string): DocumentFragment {
  const f = document.createDocumentFragment();
  if (!DOMPurify.isSupported) {
    f.append(src);
    return f;
  }
  const text = prepare(src);
  const prose = proseParagraph(text);
  if (prose === undefined) return purify(md.render(text));
  f.append(...proseNodes(document.createTextNode(prose)));
  return f;
}

/** What markdown-it makes of a paragraph of plain prose (proseParagraph), around its text node: `<p>`, then a line break. */
function proseNodes(text: Text): [HTMLElement, string] {
  const p = document.createElement("p");
  p.append(text);
  return [p, "\n"];
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const BLANK = /^[ \t]*$/;
// A blank line before one of these does not end the block (list items, indented continuations).
const CONTINUES = /^(?:[ \t]|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))/;

/**
 * Where the blocks of a growing markdown text start, as IncrementalMarkdown splits it: each call
 * scans the lines completed since the last (`text` only ever grows between calls).
 */
class BlockScanner {
  /** Start of the first line not yet scanned (always a line start). */
  private pos = 0;
  private sawBlank = false;
  /** The code fence open at `pos`, and where its opening line starts. */
  fence: { ch: string; len: number } | undefined;
  fenceStart = 0;
  /** The last fence that closed (its start, code, closing line, end), until the caller takes it. */
  closed: { start: number; code: number; closer: number; end: number } | undefined;

  /** The start of the last block after `split` that follows a blank line outside a code fence, else `split`. */
  scan(text: string, split: number): number {
    let pos = this.pos;
    for (;;) {
      const nl = text.indexOf("\n", pos);
      if (nl < 0) break;
      const line = text.slice(pos, nl);
      if (this.fence) {
        const m = FENCE_OPEN.exec(line);
        if (m?.[1] && m[1][0] === this.fence.ch && m[1].length >= this.fence.len && BLANK.test(line.slice(m[0].length))) {
          this.fence = undefined;
          this.closed = { start: this.fenceStart, code: text.indexOf("\n", this.fenceStart) + 1, closer: pos, end: nl + 1 };
        }
      } else if (BLANK.test(line)) {
        this.sawBlank = true;
      } else {
        if (this.sawBlank && !CONTINUES.test(line)) split = pos;
        this.sawBlank = false;
        const m = FENCE_OPEN.exec(line);
        if (m?.[1]) {
          this.fence = { ch: m[1][0] ?? "`", len: m[1].length };
          this.fenceStart = pos;
        }
      }
      pos = nl + 1;
    }
    this.pos = pos;
    return split;
  }
}

/**
 * How much of `text` its whole blocks are: up to the start of its last block that follows a blank
 * line outside a code fence (0 if there is none), where IncrementalMarkdown would split it.
 */
export function wholeBlocks(text: string): number {
  return new BlockScanner().scan(text, 0);
}

/** Where a streamed code block starts a new line block: at a line end past this much text… */
const CODE_SEG_SOFT = 1024;
/** …or here even mid-line (a long minified line shows as two). */
const CODE_SEG_HARD = 16 * 1024;

/**
 * An open fenced code block at the end of a streaming message, drawn as markdown-it would draw it
 * (`<pre><code>`, its text made safe as everywhere) but appended to instead of rendered again: its
 * lines go into blocks of about a kilobyte, so each frame lays out the last block, not the whole
 * listing (re-rendering a 2,000-line block every frame cost tens of milliseconds a frame).
 */
class StreamedFence {
  readonly el: HTMLElement;
  private readonly code: HTMLElement;
  /** The code so far (source, after the opening line), and where each line block starts in it. */
  private src = "";
  private segs: { text: Text; start: number }[] = [];

  constructor() {
    this.code = document.createElement("code");
    this.code.className = "code-lines";
    this.el = document.createElement("pre");
    this.el.append(this.code);
  }

  /** Whether `code` continues what is drawn. */
  extends(code: string): boolean {
    const n = this.src.length;
    const k = Math.min(n, 64);
    return code.length >= n && code.slice(n - k, n) === this.src.slice(n - k);
  }

  update(code: string): void {
    let from = this.src.length;
    this.src = code;
    while (from < code.length) {
      let seg = this.segs[this.segs.length - 1];
      const segLen = seg ? from - seg.start : 0;
      if (!seg || segLen >= CODE_SEG_HARD || (segLen >= CODE_SEG_SOFT && code.charCodeAt(from - 1) === 10)) {
        seg = { text: document.createTextNode(""), start: from };
        const block = document.createElement("div");
        block.append(seg.text);
        this.code.append(block);
        this.segs.push(seg);
      }
      const used = from - seg.start;
      let end = code.length;
      const nl = code.indexOf("\n", Math.max(from, seg.start + CODE_SEG_SOFT - 1));
      if (nl >= 0 && nl + 1 < end) end = nl + 1;
      end = Math.min(end, seg.start + Math.max(used + 1, CODE_SEG_HARD));
      if (end - 1 > from) end = pairSafeEnd(code, end);
      seg.text.appendData(cleanBlock(code.slice(from, end)));
      from = end;
    }
  }

  /** The fence closed: `content` is its whole code (what was drawn may end in part of the closing line). */
  finish(content: string): void {
    if (content.length >= this.src.length) {
      this.update(content);
      return;
    }
    this.src = content;
    for (let seg = this.segs[this.segs.length - 1]; seg && seg.start >= content.length && this.segs.length > 1; seg = this.segs[this.segs.length - 1]) {
      seg.text.parentElement?.remove();
      this.segs.pop();
    }
    const last = this.segs[this.segs.length - 1];
    if (last) last.text.data = cleanBlock(content.slice(last.start));
  }
}

/** The code of `tail` when it is one open fence (an unindented opening line, then code to the end). */
function openFenceCode(tail: string): string | undefined {
  const nl = tail.indexOf("\n");
  if (nl < 0) return undefined;
  const m = /^(`{3,}|~{3,})(.*)$/.exec(tail.slice(0, nl));
  if (!m?.[1] || (m[1][0] === "`" && m[2]?.includes("`"))) return undefined;
  return tail.slice(nl + 1);
}

/**
 * The longest text drawn again whole once done (IncrementalMarkdown.update): about 10-20 ms of
 * markdown and layout, once. A longer one keeps the cuts it streamed with.
 */
const WHOLE_MAX = 64 * 1024;

/** A table row or an indented continuation: a block goes on across this line. */
const GOES_ON = /^(?:[ \t]|.*\|)/;
/** A word starting so could be read as the start of a block (list, heading, quote, setext underline, code, an indent) or a cut in its emphasis. */
const BLOCK_START = /^[-+*#>`~=_\s\d]/;
/** A line that goes on the block above it, or starts one only after a blank line (an indent, a setext underline, a list item, heading or quote). */
const LINE_GOES_ON = /^(?:[ \t]|=+ *$|-+ *$|[-+*](?: |$)|\d{1,9}[.)](?: |$)|#{1,6}(?: |$)|>)/;
/** What ends a sentence (., !, ?, …, and the CJK full stops), and what may close it after that (quotes, brackets). */
const SENTENCE_ENDS = new Set([".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f"]);
const CLOSERS = new Set([")", "]", "\"", "'", "\u2019", "\u201d", "\u300d", "\u300f", "\uff09"]);
/** CJK sentence ends: the next sentence starts with no space between. */
const CJK_ENDS = new Set(["\u3002", "\uff01", "\uff1f"]);

/**
 * The mark that ends a sentence just before `at` (then up to four closing marks), if one does;
 * not the dot of a numbered list item or heading ("7. ", "## 2. ").
 */
function sentenceEnd(text: string, at: number): string | undefined {
  let i = at - 1;
  for (let n = 0; n < 4 && i >= 0 && CLOSERS.has(text.charAt(i)); n++) i--;
  const c = text.charAt(i);
  if (!SENTENCE_ENDS.has(c)) return undefined;
  if (c === "." && isDigit(text.charCodeAt(i - 1))) {
    let k = i - 1;
    for (let n = 0; n < 9 && isDigit(text.charCodeAt(k)); n++) k--;
    for (let n = 0; n < 12 && (text.charAt(k) === " " || text.charAt(k) === "#" || text.charAt(k) === "\t"); n++) k--;
    if (k < 0 || text.charAt(k) === "\n") return undefined;
  }
  return c;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A lowercase ASCII letter: what follows an abbreviation's dot ("e.g. the"), not a sentence's end. */
function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

/** What inlineCuts says of text with no span in it: a cut anywhere breaks none. */
const anywhere = (): boolean => true;

/** The places to try a cut at, in turn: outside inline spans first, then anywhere (once, when there is no span). */
function cutTries(clean: (at: number) => boolean): ((at: number) => boolean)[] {
  return clean === anywhere ? [anywhere] : [clean, anywhere];
}

/** A mark that can begin or end a span of inline markdown. */
const INLINE_MARK = /[`*_[]/;
/** Unicode white space or punctuation, as CommonMark's flanking rules read the character next to a `*` or `_` run. */
const SPACE_OR_PUNCT = /[\s\p{P}\p{S}]/u;

/**
 * The inline spans of `text` from `start` to `end` that a cut would break in two: code spans,
 * emphasis and strong (`*`, `_`), and a link's text with its destination (`[text](url)`). Each
 * piece of a cut text is drawn on its own until the text is done, so a cut inside one shows its
 * marks as they are (`**`, a backtick) and the rest of it plain. Returns whether a cut before
 * character `at` breaks none. Read as CommonMark reads them, simplified: a backtick run closes at
 * the next run as long; a `*` or `_` run opens when it can open (left-flanking) and closes the
 * latest open run of its character when it can close. A span not closed by `end` goes on to it: in
 * streaming text its closing mark may come in the next chunk (where it never comes, the caller
 * cuts inside it when there is no other place). `from` (at most `start`): where the text is
 * read from, a place outside every span (where a block starts, or an earlier cut), so that a
 * span which opened before `start` is known (read from `start` itself, a closing mark would be
 * read as an opening one). Linear in `end - from`, for any text an agent sends.
 */
export function inlineCuts(text: string, start: number, end: number, from = start): (at: number) => boolean {
  // Most streamed text has no such mark: one native search of the part, not a walk of it.
  if (!INLINE_MARK.test(text.slice(from, end))) return anywhere;
  /** [at, to) of each span, in pairs. */
  const spans: number[] = [];
  const span = (at: number, to: number): void => {
    // Broken by a cut strictly inside it (one that ends before `start` breaks nothing in the part).
    if (to - at >= 2 && to > start + 1) spans.push(Math.max(at, start - 1), to);
  };
  // Code spans first: nothing inside one is markdown. A run with no run as long after it is text.
  const runs: { at: number; len: number }[] = [];
  for (let i = from; i < end; i++) {
    if (text.charCodeAt(i) !== 96) continue;
    let j = i;
    while (j < end && text.charCodeAt(j) === 96) j++;
    if (text.charCodeAt(i - 1) !== 92 || i === from) runs.push({ at: i, len: j - i });
    i = j - 1;
  }
  // The next run of each length, walked once: a run with no later one as long stays text.
  const nextOfLen = new Map<number, number[]>();
  runs.forEach((r, k) => {
    let list = nextOfLen.get(r.len);
    if (!list) nextOfLen.set(r.len, (list = []));
    list.push(k);
  });
  const used = new Map<number, number>();
  const code: [number, number][] = [];
  for (let k = 0; k < runs.length; ) {
    const r = runs[k] as { at: number; len: number };
    const list = nextOfLen.get(r.len) ?? [];
    let u = used.get(r.len) ?? 0;
    while (u < list.length && (list[u] ?? 0) <= k) u++;
    used.set(r.len, u);
    const close = list[u];
    if (close === undefined) {
      // Text, unless the run that closes it is yet to come: no cut after it.
      span(r.at, end);
      k++;
      continue;
    }
    const c = runs[close] as { at: number; len: number };
    code.push([r.at, c.at + c.len]);
    span(r.at, c.at + c.len);
    k = close + 1;
  }
  // Emphasis and links, outside code spans; where the `*` and the `_` runs not yet closed start.
  const stars: number[] = [];
  const unders: number[] = [];
  const brackets: number[] = [];
  let paren = -2;
  let ci = 0;
  for (let i = from; i < end; i++) {
    const cs = code[ci];
    if (cs && i >= cs[0]) {
      i = cs[1] - 1;
      ci++;
      continue;
    }
    const ch = text.charCodeAt(i);
    if (ch === 92) {
      i++;
    } else if (ch === 42 || ch === 95) {
      let j = i;
      while (j < end && text.charCodeAt(j) === ch) j++;
      const before = i > 0 ? text.charAt(i - 1) : " ";
      const after = j < text.length ? text.charAt(j) : " ";
      const left = !/\s/.test(after) && (!SPACE_OR_PUNCT.test(after) || SPACE_OR_PUNCT.test(before));
      const right = !/\s/.test(before) && (!SPACE_OR_PUNCT.test(before) || SPACE_OR_PUNCT.test(after));
      // `_` inside a word neither opens nor closes.
      const word = ch === 95 && left && right && !SPACE_OR_PUNCT.test(before) && !SPACE_OR_PUNCT.test(after);
      const open = ch === 42 ? stars : unders;
      const opener = right && !word ? open.pop() : undefined;
      if (opener !== undefined) span(opener, j);
      else if (left && !word) open.push(i);
      i = j - 1;
    } else if (ch === 91) {
      brackets.push(i);
    } else if (ch === 93 && brackets.length > 0) {
      const open = brackets.pop() as number;
      let stop = i + 1;
      if (text.charCodeAt(i + 1) === 40) {
        // The first ")" after it, found once for all the links before it (linear, however many "](" an agent sends).
        if (paren !== -1 && paren < i + 2) paren = text.indexOf(")", i + 2);
        stop = paren >= 0 && paren < end ? paren + 1 : end;
      }
      span(open, stop);
    }
  }
  // Spans still open: their closing mark may be in the next chunk.
  for (const at of [...stars, ...unders, ...brackets]) span(at, end);
  if (spans.length === 0) return anywhere;
  // How many spans each place is strictly inside: +1 after each span's start, -1 at its end, summed.
  const inside = new Int32Array(end - start + 1);
  for (let k = 0; k < spans.length; k += 2) {
    const a = (spans[k] ?? 0) + 1 - start;
    const b = (spans[k + 1] ?? 0) - start;
    inside[a] = (inside[a] ?? 0) + 1;
    inside[b] = (inside[b] ?? 0) - 1;
  }
  for (let k = 1; k < inside.length; k++) inside[k] = (inside[k] ?? 0) + (inside[k - 1] ?? 0);
  return (at: number) => at <= start || at >= end || (inside[at - start] ?? 0) === 0;
}

/** Text that is not cut in pieces: a code fence, an indented code block or a table row in it. */
const NOT_IN_PIECES = /(?:^|\n)(?: {0,3}(?:`{3}|~{3})| {4}|\t)|\|/;

/**
 * A message body that grows. Text up to the last block boundary (a blank line outside a code
 * fence, followed by a new top-level block) is rendered once into `stable`; the rest into `tail`,
 * which is replaced on every change — except an open code fence, which is appended to
 * (StreamedFence) and kept as it is once it closes. A tail grown past `maxTail` is cut (see the
 * constructor) while the text streams; once it is done, the text is drawn again whole, as
 * markdown draws it, if anything was cut.
 */
export class IncrementalMarkdown {
  readonly el: HTMLElement;
  private readonly stable: HTMLElement;
  private readonly tail: HTMLElement;
  private text = "";
  private stableLen = 0;
  private blocks = new BlockScanner();
  /**
   * Where the stable part's whole blocks end (not a cut piece of a paragraph), with how many nodes
   * it has up to there, in order; and where its first cut piece starts (for `freeze`).
   */
  private wholes: { end: number; nodes: number }[] = [{ end: 0, nodes: 0 }];
  private firstCut = Infinity;
  private tailSrc = "";
  private streamed: StreamedFence | undefined;
  /** The text of the tail's paragraph, while the tail is one paragraph of plain text (drawTail). */
  private prose: Text | undefined;
  /** True when a block of the stable part ends at a cut made by `maxTail` (not where markdown ends one); false again once drawn whole. */
  private wasCut = false;
  /** Whether the text was last drawn as done (it will not grow), and a cut waits for the next frame (cutNextFrame). */
  private done = false;
  private cutLater = false;
  /**
   * How wide the tail was laid out when a paragraph was last cut where a drawn line started, and
   * when the width was last read; whether cuts made at another width are drawn (see `resized`).
   */
  private cutWidth: number | undefined;
  private readWidth: number | undefined;
  private staleCuts = false;

  /**
   * `maxTail`: past this many characters of tail, the stable part is cut, so a long paragraph costs
   * at most this much rendering per update: a paragraph of plain text drawn in the last frame where
   * its last line starts, which is not seen (lineCut); else at the last line break (or, in one long
   * line, a sentence's end or the last space) outside a code fence, where the second part starts on
   * a new line, with no gap above it (`.cut`, panel.css). `update(text, true)` draws the text whole again.
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

  /**
   * Draws `text`. `done`: it will not grow (a thought that ended, a message followed by something
   * else): nothing is cut, and a text cut while it streamed is drawn again whole (up to WHOLE_MAX),
   * what the reader selected in it selected again. `again`: the same text, for a cut put off (cutNextFrame).
   */
  update(text: string, done = false, again = false): void {
    const whole = done && this.cut && text.length <= WHOLE_MAX;
    this.done = done;
    if (text === this.text && !whole && !again) return;
    const continued = !whole && this.extends(text);
    // Text the reader selected in the tail, in case drawing the update moves it into the stable part
    // or draws it anew (a code fence being streamed is appended to, and moved whole when it closes);
    // drawn whole again, anywhere in it.
    const selected = whole ? selectionIn(this.el) : continued && !this.streamed ? selectionIn(this.tail) : undefined;
    if (!continued) this.reset();
    const stableEnd = this.stable.lastChild;
    this.text = text;
    const split = this.blocks.scan(text, this.stableLen);
    const closed = this.blocks.closed;
    this.blocks.closed = undefined;
    if (this.streamed && closed && closed.start === this.stableLen) {
      // The streamed fence closed: a whole block, drawn already (a closing fence ends its block).
      this.streamed.finish(text.slice(closed.code, closed.closer));
      this.stable.append(this.streamed.el);
      this.streamed = undefined;
      this.stableLen = closed.end;
      this.wholes.push({ end: closed.end, nodes: this.stable.childNodes.length });
      this.tailSrc = "";
    }
    let cut = split;
    // Where the tail's last drawn line starts, if it is one paragraph: a cut not seen (else one that shows as a line break).
    let seen: number | undefined;
    if (!done && text.length - Math.max(split, this.stableLen) > this.maxTail && !this.blocks.fence) {
      // Its paragraphs were cut where drawn lines started at another width (the panel was resized
      // since): those cuts may show now. Drawn whole again this once, as when done (what the reader
      // selected kept), and cut where lines start at this width from the next frame.
      if (this.wasCut && text.length <= WHOLE_MAX && this.lineCutReady(split) && this.resized()) {
        this.update(text, true);
        this.done = false;
        return;
      }
      seen = this.lineCut(split);
      // A paragraph drawn too short to cut where a line starts (a larger update came): drawn whole
      // this once, up to twice maxTail, and cut where its last line starts in the next frame.
      const later = seen === undefined && this.prose !== undefined && split <= this.stableLen && text.length - this.stableLen <= 2 * this.maxTail && (this.prose.length < this.maxTail >> 1);
      if (later) this.cutNextFrame();
      // More than that came after the drawn line: what follows it is cut as text never drawn is.
      const from = seen ?? Math.max(split, this.stableLen);
      const at = later ? split : seen !== undefined && text.length - seen <= 2 * this.maxTail ? seen : Math.max(from, this.forcedSplit(from));
      if (at > split) cut = at;
    }
    if (split > this.stableLen) this.appendStable(split, false);
    if (seen !== undefined && seen > this.stableLen && cut >= seen) this.appendStable(seen, true);
    // What is cut goes in pieces of at most about maxTail (text drawn fresh, as a picked session's
    // streaming thought is, is cut in one go): the browser need not lay out pieces far from the view (panel.css).
    if (cut > this.stableLen) {
      // Not with a code fence, an indented code block or a table in it: a cut inside one would draw it wrong until the text is done.
      // (The paragraph drawn already went whole, above: cut again, it would show.)
      const pieces = !NOT_IN_PIECES.test(text.slice(this.stableLen, cut));
      while (cut > this.stableLen) this.appendStable(pieces ? this.pieceEnd(this.stableLen, cut) : cut, true);
    }
    const tail = text.slice(this.stableLen);
    if (tail !== this.tailSrc) {
      this.tailSrc = tail;
      const code = this.blocks.fence && this.blocks.fenceStart === this.stableLen && DOMPurify.isSupported ? openFenceCode(tail) : undefined;
      if (code === undefined) {
        this.streamed = undefined;
        this.drawTail(tail);
      } else {
        this.prose = undefined;
        if (!this.streamed?.extends(code)) {
          this.streamed = new StreamedFence();
          this.tail.replaceChildren(this.streamed.el);
        }
        this.streamed.update(code);
      }
    }
    if (selected) {
      const redrawn: Node[] = [];
      for (let n = stableEnd ? stableEnd.nextSibling : this.stable.firstChild; n; n = n.nextSibling) redrawn.push(n);
      redrawn.push(this.tail);
      keepSelection(selected, redrawn);
    }
  }

  /**
   * A tail that is one paragraph of plain text keeps its paragraph while it stays one, its text
   * changed in place: the browser lays out the new text, not a new paragraph each frame, and what
   * the reader selected in it stays selected as it grows.
   */
  private drawTail(tail: string): void {
    if (!DOMPurify.isSupported) {
      this.tail.replaceChildren(renderMarkdown(tail));
      return;
    }
    const text = prepare(tail);
    const prose = proseParagraph(text);
    if (prose === undefined) {
      this.prose = undefined;
      this.tail.replaceChildren(purify(md.render(text)));
    } else if (this.prose) {
      // Text added at the end is appended: a selection the reader made in the paragraph stays put.
      const was = this.prose.data;
      if (prose.length > was.length && prose.startsWith(was)) this.prose.appendData(prose.slice(was.length));
      else if (prose !== was) this.prose.data = prose;
    } else {
      this.prose = document.createTextNode(prose);
      this.tail.replaceChildren(...proseNodes(this.prose));
    }
  }

  /** Draws the text up to `end` into the stable part; `cut`: it ends where a long paragraph was cut. */
  private appendStable(end: number, cut: boolean): void {
    const blocks = renderMarkdown(this.text.slice(this.stableLen, end));
    if (cut) {
      const last = blocks.lastElementChild;
      last?.classList.add("cut");
      // The spaces or line break the paragraph was cut after, which markdown drops: kept as text
      // (not drawn at the end of a line), so the words either side read, find and copy apart.
      let from = end;
      while (from > this.stableLen && from > end - 8 && /[ \t\n]/.test(this.text.charAt(from - 1))) from--;
      if (from < end && last?.tagName === "P") {
        last.append(this.text.slice(from, end));
        // (And not the line break markdown puts after a block: the text goes on in the next one.)
        const after = last.nextSibling;
        if (after instanceof Text && after.data.trim() === "") after.remove();
      }
      this.wasCut = true;
    }
    if (cut) this.firstCut = Math.min(this.firstCut, this.stableLen);
    this.stable.append(blocks);
    this.stableLen = end;
    if (!cut) this.wholes.push({ end, nodes: this.stable.childNodes.length });
  }

  /** The cut put off until the paragraph is laid out: made in the next frame, whether more text comes or not (a pause would leave the long tail). */
  private cutNextFrame(): void {
    if (this.cutLater || typeof requestAnimationFrame !== "function") return;
    this.cutLater = true;
    requestAnimationFrame(() => {
      this.cutLater = false;
      if (!this.done) this.update(this.text, false, true);
    });
  }

  /**
   * Where the tail as drawn in the last frame — one paragraph of plain text, no block ended since —
   * has its last line start (lastLineStart): cut there, the paragraph reads on as it did. Undefined
   * when the tail is not such a paragraph or not laid out (a folded thought), or the line starts
   * with what would start a list item on its own.
   */
  private lineCut(split: number): number | undefined {
    const prose = this.prose;
    if (!prose || !this.lineCutReady(split)) return undefined;
    const at = lastLineStart(prose, this.maxTail >> 2);
    if (at === undefined) return undefined;
    const cut = this.stableLen + at;
    if (opensBlock(this.text, cut)) return undefined;
    this.cutWidth = this.tail.getBoundingClientRect().width;
    return cut;
  }

  /** Whether the tail is one paragraph of plain text drawn in the last frame, no block ended since (lineCut reads its layout). */
  private lineCutReady(split: number): boolean {
    return this.prose !== undefined && split <= this.stableLen && this.text.startsWith(this.prose.data, this.stableLen);
  }

  /**
   * Whether cuts made where drawn lines started at another width are drawn, and the width has
   * held since the last look (a panel being dragged is drawn again once, when it is let go, not
   * every cut). Reads layout: as a cut is due (once in a while), before the frame writes.
   */
  private resized(): boolean {
    if (this.cutWidth === undefined) return false;
    const width = this.tail.getBoundingClientRect().width;
    if (width === 0) return false;
    if (Math.abs(width - this.cutWidth) >= 1) this.staleCuts = true;
    const held = width === this.readWidth;
    this.readWidth = width;
    return this.staleCuts && held;
  }

  /**
   * Where the first piece of the cut text `from`..`to` (no fence, indented code or table in it)
   * ends: `to` if it is no longer than `maxTail`, else after the last line break before
   * `from + maxTail` in its second half whose next line does not go on a block (LINE_GOES_ON),
   * else after the last sentence end there, else after the last space there not followed by what
   * markdown could read as the start of a block or an emphasis (each first outside a code span,
   * emphasis or link: inlineCuts); else, in text with no spaces, between two characters there;
   * else `to`.
   */
  private pieceEnd(from: number, to: number): number {
    if (to - from <= this.maxTail) return to;
    const text = this.text;
    const least = from + (this.maxTail >> 1);
    const limit = from + this.maxTail - 1;
    // A line break first (a cut between words would split a line in two), then a sentence's end
    // (while the text streams, a cut shows as a line break), then a space.
    // Not inside a span of inline markdown (a code span, emphasis, a link) if there is another place.
    // (A span that closes more than a few lines after the piece's end is not seen.)
    const clean = inlineCuts(text, from, Math.min(to, from + this.maxTail + 512));
    for (const ok of cutTries(clean)) {
      const nl = this.lineBreakBefore(limit, least, to, LINE_GOES_ON, Infinity, ok);
      if (nl >= 0) return nl;
      const end = this.sentenceEndBefore(limit, least, ok);
      if (end >= 0) return end;
      const sp = this.spaceBefore(limit, least, BLOCK_START, ok);
      if (sp >= 0) return sp;
    }
    // Text with no spaces (Chinese, Japanese): between two characters, never inside a surrogate pair.
    const at = pairSafeEnd(text, from + this.maxTail);
    return text.charCodeAt(at - 1) > 127 && text.charCodeAt(at) > 127 ? at : to;
  }

  /**
   * Where a too-long tail is cut: after a line break that does not go on a table or an indented
   * block, else after a sentence end in its newer half, else after its last space, else before its
   * last character (text without spaces, such as Chinese); never inside a surrogate pair; each
   * first outside a code span, emphasis or link (inlineCuts). No cut: `from`.
   */
  private forcedSplit(from: number): number {
    const text = this.text;
    // Not inside a span of inline markdown (a code span, emphasis, a link) if there is another place.
    // (Cut in the last 2 × maxTail: a tail that came in one long write is cut near its end. Its
    // spans read from the tail's start, which no span crosses: read from the middle of one, its
    // closing mark would open one, and the cut go inside it.)
    const clean = inlineCuts(text, Math.max(from, text.length - 2 * this.maxTail), text.length, from);
    for (const ok of cutTries(clean)) {
      const nl = this.lineBreakBefore(text.length - 2, from, text.length, GOES_ON, 200, ok);
      if (nl >= 0) return nl;
      // A sentence's end in the newer half: the tail left is at most half of maxTail.
      const end = this.sentenceEndBefore(text.length - 2, Math.max(from + 1, text.length - (this.maxTail >> 1)), ok);
      if (end >= 0) return end;
      // A space not followed by what could start a block (the tail would draw as a list or heading until done), else any.
      const sp = this.spaceBefore(text.length - 2, from, BLOCK_START, ok);
      if (sp >= 0) return sp;
      const any = this.spaceBefore(text.length - 2, from, undefined, ok);
      if (any >= 0) return any;
    }
    const cut = pairSafeEnd(text, text.length - 1);
    return cut > from ? cut : from;
  }

  /**
   * After the last line break in `least`..`limit` whose next line (up to `to`) `goesOn` does not
   * match, looking at no more than `tries` line breaks; -1 when none. Looks no further back than
   * `least` (a long paragraph with no line break costs its tail, not the whole text).
   */
  private lineBreakBefore(limit: number, least: number, to: number, goesOn: RegExp, tries = Infinity, ok?: (at: number) => boolean): number {
    const text = this.text;
    for (let i = limit; i >= least && tries > 0; i--) {
      if (text.charCodeAt(i) !== 10) continue;
      tries--;
      if (ok && !ok(i + 1)) continue;
      const eol = text.indexOf("\n", i + 1);
      if (!goesOn.test(text.slice(i + 1, eol < 0 || eol > to ? to : eol))) return i + 1;
    }
    return -1;
  }

  /**
   * After the last sentence end in `least`..`limit`: a space after one (not followed by what
   * could start a block, BLOCK_START), or the start of what follows a CJK full stop; -1 when none.
   * Looks no further back than `least`.
   */
  private sentenceEndBefore(limit: number, least: number, ok?: (at: number) => boolean): number {
    const text = this.text;
    for (let i = limit; i >= least; i--) {
      const c = text.charAt(i);
      if (c === " ") {
        if (sentenceEnd(text, i) !== undefined && !BLOCK_START.test(text.charAt(i + 1)) && !isLower(text.charCodeAt(i + 1)) && (!ok || ok(i + 1))) return i + 1;
      } else if (!CLOSERS.has(c) && !BLOCK_START.test(c) && CJK_ENDS.has(sentenceEnd(text, i) ?? "") && (!ok || ok(i))) {
        return i;
      }
    }
    return -1;
  }

  /** After the last space in `least`..`limit` not followed by what `notBefore` matches; -1 when none. Looks no further back than `least`. */
  private spaceBefore(limit: number, least: number, notBefore?: RegExp, ok?: (at: number) => boolean): number {
    const text = this.text;
    for (let i = limit; i >= least; i--) if (text.charCodeAt(i) === 32 && !notBefore?.test(text.slice(i + 1, i + 2)) && (!ok || ok(i + 1))) return i + 1;
    return -1;
  }

  /**
   * Stops drawing, with `text` (the text drawn, or more of it) up to `end`, where a block starts
   * (wholeBlocks), as markdown: the blocks drawn already before `end` stay as they are, those from
   * there to `end` are drawn, and what comes after (the pieces of a paragraph being cut, the tail)
   * goes, for a text drawn on another way after `end`. Nothing is cut in a later frame. If a
   * paragraph before `end` was cut while it streamed, it is all drawn again whole (the reader's
   * selection in it kept), so no cut stays.
   */
  freeze(text: string, end: number): void {
    this.done = true;
    this.streamed = undefined;
    this.prose = undefined;
    const selected = selectionIn(this.el);
    this.tail.replaceChildren();
    if (this.firstCut < end) {
      this.stable.replaceChildren(renderMarkdown(text.slice(0, end)));
    } else {
      let k = this.wholes.length - 1;
      while (k > 0 && this.wholes[k]!.end > end) k--;
      const kept = this.wholes[k]!;
      while (this.stable.childNodes.length > kept.nodes) this.stable.lastChild?.remove();
      if (kept.end < end) this.stable.append(renderMarkdown(text.slice(kept.end, end)));
    }
    // What the reader selected, if it is still drawn here (text in the tail goes on plain after it).
    if (selected) keepSelection(selected, [this.stable]);
    this.text = text.slice(0, end);
    this.tailSrc = "";
    this.stableLen = end;
    this.wholes = [{ end, nodes: this.stable.childNodes.length }];
    this.firstCut = Infinity;
    this.wasCut = false;
  }

  /** True when a block was cut by `maxTail` (and the text not yet drawn whole again). */
  get cut(): boolean {
    return this.wasCut;
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
    this.blocks = new BlockScanner();
    this.wholes = [{ end: 0, nodes: 0 }];
    this.firstCut = Infinity;
    this.tailSrc = "";
    this.streamed = undefined;
    this.prose = undefined;
    this.wasCut = false;
    this.cutWidth = undefined;
    this.readWidth = undefined;
    this.staleCuts = false;
    this.stable.replaceChildren();
    this.tail.replaceChildren();
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
 * are not drawn): inline text, code and image labels, blocks apart by line breaks. A paragraph of
 * plain prose (proseParagraph) is its text, as renderMarkdown draws it without markdown-it: parsing
 * a thought of 20 KB took 31-46 ms of one slice of find's counting.
 */
export function markdownText(src: string): string {
  const text = prepare(src);
  const prose = proseParagraph(text);
  return prose === undefined ? parsedText(text) : `${prose}\n`;
}

/** markdownText the long way, through markdown-it, for `text` prepared (exported for the unit test that checks the short way against it). */
export function parsedText(text: string): string {
  const out: string[] = [];
  for (const t of md.parse(text, {})) {
    if (t.type === "inline") {
      inlineText(t.children ?? [], out);
      out.push("\n");
    } else if (t.type === "fence" || t.type === "code_block") {
      out.push(t.content, "\n");
    }
  }
  return out.join("");
}
