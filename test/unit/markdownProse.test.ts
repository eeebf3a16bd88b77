// The panel draws a stretch of markdown that is one paragraph of plain text without markdown-it
// (proseParagraph): what it draws must be what markdown-it would have drawn, for any text an agent
// sends, and the text find counts in it (markdownText) what markdown-it's tokens hold. Checked against
// markdown-it, configured as the panel's, on random text made of the characters that mean something
// to markdown, links and HTML.
import * as assert from "node:assert/strict";
import MarkdownIt from "markdown-it";
import { cleanBlock } from "../../src/webview/dom";
import { inlineCuts, markdownHtml, markdownText, parsedText, proseParagraph } from "../../src/webview/markdown";

const escapeHtml = new MarkdownIt().utils.escapeHtml;

/** What the panel draws for `src` when it takes the short way, as HTML; undefined when it does not. */
function shortWay(src: string): string | undefined {
  const text = proseParagraph(cleanBlock(src));
  return text === undefined ? undefined : `<p>${escapeHtml(text)}</p>\n`;
}

/** A small seeded generator (mulberry32), so a failure can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  ..."abcxyzABC0123456789",
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
  " ", " ", " ", "  ", "    ", "\n", "\n\n", "\t", "\r",
  "com", "org", "www", "http", "https", "mailto", "ftp", "ru", "io", "ts", "md", "рф", "example", "user",
  "1", "42", "1.", "2)", "...", "--", "***", "___", "~~", "``", "&amp;", "&#65;", "<b>", "</p>",
  "é", "ß", "ы", "中文", "日本", "。", "、", "！", "→", "©", "½", "😀", "👍🏽", "👩\u200d💻", "❤\ufe0f",
  "\u00a0", "\u2028", "\u2029", "\u3000", "\u200b", "\u200d", "\u202e", "\u0000", "\u0007", "\ud800", "\udc00", "\ue000", "\ufffd",
];

describe("markdown: the short way for a paragraph of plain text", () => {
  it("draws what markdown-it draws, on 30,000 random texts (and takes the short way for a good share)", () => {
    const next = random(20261128);
    let taken = 0;
    for (let n = 0; n < 30_000; n++) {
      const parts = 1 + Math.floor(next() * 12);
      let s = "";
      for (let k = 0; k < parts; k++) s += PIECES[Math.floor(next() * PIECES.length)] ?? "";
      // Half the texts are mostly words, as reasoning is, so the short way is tried near its edges.
      if (n % 2 === 0) s = `the value ${s} we check`;
      const short = shortWay(s);
      if (short === undefined) continue;
      taken++;
      assert.equal(short, markdownHtml(s), `text #${n}: ${JSON.stringify(s)}`);
      // Find counts in the same text as drawn, the short way too.
      assert.equal(markdownText(s), parsedText(cleanBlock(s)), `text #${n} for find: ${JSON.stringify(s)}`);
    }
    assert.ok(taken > 1_000, `the short way was taken for ${taken} of 30,000`);
  });

  it("draws what markdown-it draws for 20,000 random texts of several lines (a line break inside the paragraph)", () => {
    const next = random(20261130);
    const pick = (xs: readonly string[]): string => xs[Math.floor(next() * xs.length)] ?? "";
    // What a line may start and end with, most of them something markdown reads as a block or a break.
    const starts = ["1. ", "1.", "2) ", "10.", "123456 ", "- ", "-", "+ ", "* ", "# ", "> ", " ", "  ", "    ", "=", "===", "---", "***", "| ", "```", "~~~", "(", "\"", "日本 ", "\u00a0", "\u3000", "😀 ", ":", ".", "\t"];
    const ends = [" ", "  ", ".", ":", "\\", ",", "!", "。", "|"];
    const words = ["the", "value", "000042", "flood", "chunk", "text", "we", "check", "it's", "(see", "this)", "a,b", "x;y"];
    let taken = 0;
    let broken = 0;
    for (let n = 0; n < 20_000; n++) {
      const lines: string[] = [];
      for (let k = 0, m = 2 + Math.floor(next() * 4); k < m; k++) {
        const body: string[] = [];
        for (let w = 0, c = 1 + Math.floor(next() * 4); w < c; w++) body.push(pick(words));
        // Most lines plain, as in reasoning; the rest start or end with one of the above.
        lines.push(`${k === 0 || next() < 0.7 ? "" : pick(starts)}${body.join(" ")}${next() < 0.7 ? "" : pick(ends)}`);
      }
      const s = lines.join(next() < 0.1 ? "\n\n" : "\n") + (next() < 0.5 ? "\n" : "");
      const short = shortWay(s);
      if (short === undefined) continue;
      taken++;
      if (short.slice(0, -1).includes("\n")) broken++;
      assert.equal(short, markdownHtml(s), `text #${n}: ${JSON.stringify(s)}`);
      assert.equal(markdownText(s), parsedText(cleanBlock(s)), `text #${n} for find: ${JSON.stringify(s)}`);
    }
    assert.ok(broken > 1_000, `the short way was taken for ${taken} of 20,000, ${broken} of them with a line break inside`);
  });

  it("takes it for sentences of reasoning, and not for markdown, links or list items", () => {
    for (const s of [
      "I will read the file first, then compare both results. Next: check it again (carefully)!",
      "Why does it fail? Let me look at the test's output",
      "日本語のテキストです。次に確認します",
      "Done 👍🏽 and the tests pass ",
      "two\nlines",
      "000041 flood chunk text\n000042 flood chunk text\n",
      "Checked the parser.\nNext: its tests (2 of them)\n日本語です\n",
    ]) {
      assert.notEqual(shortWay(s), undefined, s);
      assert.equal(shortWay(s), markdownHtml(s), s);
    }
    for (const s of ["1. first", "2) second", "- item", "see example.com now", "a `code` span", "**bold**", "www.example", "mail a@b.c", "http://x", "    indented", "# Title",
      "one \ntwo", "one  \ntwo", "one\n two", "one\n\ntwo", "one\n- two", "one\n1. two", "one\n2) two", "one\n---", "\none", "one\n\u00a0two", "a | b", "x &amp; y", "<b>", "a\u00a0b", "x\u202ey", ""]) {
      assert.equal(shortWay(s), undefined, JSON.stringify(s));
    }
  });
});

describe("markdown: where a streaming paragraph may be cut (inlineCuts)", () => {
  /** Positions after each space in `s`, where a paragraph of words would be cut. */
  const afterSpaces = (s: string): number[] => [...s.matchAll(/ /g)].map((m) => (m.index ?? 0) + 1);
  /** The paragraph's inner HTML. */
  const inner = (s: string): string => markdownHtml(s).replace(/^<p>/, "").replace(/<\/p>\n$/, "");
  /** Whether drawing the two sides of a cut after a space apart draws what the whole draws. */
  const drawsTheSame = (s: string, at: number): boolean => `${inner(s.slice(0, at)).trimEnd()} ${inner(s.slice(at))}` === inner(s);

  it("keeps a cut out of a code span, emphasis, strong and a link, and allows it between them", () => {
    const s = "We run `npm test. Then` it, **this matters. A lot** and *so. Does this* then [the docs. Here](https://example.com/a) end. Next";
    const clean = inlineCuts(s, 0, s.length);
    for (const at of afterSpaces(s)) assert.equal(clean(at), drawsTheSame(s, at), `a cut before ${JSON.stringify(s.slice(at, at + 12))}`);
    assert.ok(afterSpaces(s).some((at) => !clean(at)), "some cuts are inside spans");
  });

  it("does not hold back a cut for marks that open nothing: a lone star, snake_case, an escaped mark", () => {
    for (const s of ["2 * 3 is six. And 4 * 5", "snake_case_names here. And more_of them", "a \\*b. c\\* d"]) {
      const clean = inlineCuts(s, 0, s.length);
      for (const at of afterSpaces(s)) assert.ok(clean(at), `${JSON.stringify(s)} at ${at}`);
    }
  });

  it("holds back a cut after a span whose closing mark has not come yet (it may be in the next chunk)", () => {
    for (const [s, open] of [["Done. **never closed. It goes on", 6], ["Done. `` one ` two. Three", 6], ["Done. [the guide. Its", 6], ["Done. [the guide](https://x.io/a b. More", 6]] as const) {
      const clean = inlineCuts(s, 0, s.length);
      for (const at of afterSpaces(s)) assert.equal(clean(at), at <= open, `${JSON.stringify(s)} at ${at}`);
    }
  });

  it("a part read on from an earlier place sees the spans open at its start: a closing mark there does not open one", () => {
    // A long write is cut near its end: the part looked at starts in the middle of the text, here inside a code span.
    const s = "Step 1 runs `npm test. Again. Once` and **the parser. Then** more. Step 2 ends.";
    const start = s.indexOf("Again");
    const clean = inlineCuts(s, start, s.length, 0);
    for (const at of afterSpaces(s).filter((x) => x > start)) assert.equal(clean(at), drawsTheSame(s, at), `a cut before ${JSON.stringify(s.slice(at, at + 12))}`);
    // Read from the part's start alone, the backtick after "Once" opens a code span and the inside of the real one looks clear.
    assert.equal(inlineCuts(s, start, s.length)(s.indexOf("Once")), true);
    assert.equal(clean(s.indexOf("Once")), false);
  });

  it("agrees with markdown-it on 3,000 random paragraphs of words and closed spans", () => {
    const next = random(20261130);
    const words = ["the", "parser", "test.", "Then", "a.", "B", "value", "it", "(see", "this)"];
    const wrap = ["`", "``", "*", "**", "_", "__"];
    let inside = 0;
    for (let n = 0; n < 3_000; n++) {
      const parts: string[] = [];
      for (let k = 0, m = 4 + Math.floor(next() * 12); k < m; k++) {
        const w = words[Math.floor(next() * words.length)] ?? "x";
        const r = next();
        if (r < 0.15) {
          const mark = wrap[Math.floor(next() * wrap.length)] ?? "*";
          parts.push(`${mark}${w} ${words[Math.floor(next() * words.length)] ?? "x"}${mark}`);
        } else if (r < 0.2) {
          parts.push(`[${w} more](https://x.io/${k})`);
        } else {
          parts.push(w);
        }
      }
      const s = parts.join(" ");
      const clean = inlineCuts(s, 0, s.length);
      // The same read from the start, looked at from a random place on.
      const start = Math.floor(next() * s.length);
      const part = inlineCuts(s, start, s.length, 0);
      for (const at of afterSpaces(s)) {
        if (!clean(at)) inside++;
        assert.equal(clean(at), drawsTheSame(s, at), `${JSON.stringify(s)}, cut before ${JSON.stringify(s.slice(at, at + 10))}`);
        if (at > start) assert.equal(part(at), clean(at), `${JSON.stringify(s)} from ${start}, cut before ${JSON.stringify(s.slice(at, at + 10))}`);
      }
    }
    assert.ok(inside > 1_000, `cuts inside spans: ${inside}`);
  });
});
