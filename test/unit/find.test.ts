// Find in the transcript, the pure parts: case folding that keeps offsets, matches in text that
// arrives in pieces and grows (rescanned only where it changed), stepping with wrap-around, and the
// text find sees for an entry that is not drawn (markdown as the text it renders to).
import * as assert from "node:assert/strict";
import { countIn, foldCase, foldQuery, PieceScan, siteOf, stepIndex, type PieceReader } from "../../src/webview/find";
import { markdownText, wholeBlocks } from "../../src/webview/markdown";
import { entryFields } from "../../src/webview/render/searchText";
import type { ToolEntry } from "../../src/shared/viewModel";

/** A piece of text that can grow or be rewritten in place, like a DOM text node. */
class Piece {
  constructor(public text: string) {}
}
const READ: PieceReader<Piece> = { length: (p) => p.text.length, slice: (p, a, b) => p.text.slice(a, b) };

/** Every match as [start, end) offsets. */
function spans(s: PieceScan<Piece>): [number, number][] {
  return s.starts.map((st, i) => [st, s.ends[i] ?? -1]);
}

/** What a fresh scan of the same pieces finds (the reference an incremental scan must equal). */
function fresh(pieces: Piece[], q: string): [number, number][] {
  const s = new PieceScan<Piece>();
  s.update(pieces, READ, q);
  return spans(s);
}

describe("find", () => {
  describe("foldCase", () => {
    it("lower-cases without moving offsets, also where lower case is longer", () => {
      assert.equal(foldCase("Hello WORLD"), "hello world");
      // "İ" lower-cases to two characters: it stays, the rest folds.
      assert.equal(foldCase("İstanbul İS"), "İstanbul İs");
    });

    it("folds a capital outside the basic plane also in a text holding a character it keeps", () => {
      assert.equal(foldCase("İ𐐀A"), "İ𐐨a");
      assert.equal(countIn(foldCase("İ 𐐀"), foldQuery("𐐀")), 1);
    });

    it("folds final sigma like sigma, so a slice folds as the whole text does", () => {
      const word = "ΟΔΟΣ";
      assert.equal(foldCase(word), foldCase(`${word} x`).slice(0, 4));
      assert.equal(countIn(foldCase("οδος οδοσ"), foldQuery("ΟΔΟΣ")), 2);
    });

    it("a query of only white space finds nothing; other white space is kept", () => {
      assert.equal(foldQuery("   "), "");
      assert.equal(foldQuery("Foo "), "foo ");
    });
  });

  it("counts non-overlapping matches", () => {
    assert.equal(countIn("aaaa", "aa"), 2);
    assert.equal(countIn("abcabc", "bc"), 2);
    assert.equal(countIn("abc", ""), 0);
  });

  describe("PieceScan", () => {
    it("finds matches across pieces and locates their ends in the pieces", () => {
      const a = new Piece("say fo");
      const b = new Piece("o and FOO");
      const s = new PieceScan<Piece>();
      s.update([a, b], READ, "foo");
      assert.deepEqual(spans(s), [[4, 7], [12, 15]]);
      assert.deepEqual(s.locate(4, false), [a, 4]);
      assert.deepEqual(s.locate(7, true), [b, 1]);
      // At a boundary a start is in the next piece and an end in the one before.
      assert.deepEqual(s.locate(6, false), [b, 0]);
      assert.deepEqual(s.locate(6, true), [a, 6]);
    });

    it("a growing last piece is scanned from its old end only, and finds what the seam splits", () => {
      const a = new Piece("x foo y f");
      const s = new PieceScan<Piece>();
      s.update([a], READ, "foo");
      assert.equal(s.count, 1);
      a.text += "oo foo";
      const kept = s.update([a], READ, "foo");
      assert.equal(kept, 1, "the first match stands");
      assert.deepEqual(spans(s), fresh([a], "foo"));
      assert.equal(s.count, 3);
    });

    it("new pieces after unchanged ones keep the earlier matches", () => {
      const a = new Piece("foo ");
      const s = new PieceScan<Piece>();
      s.update([a], READ, "foo");
      const b = new Piece("bar foo");
      assert.equal(s.update([a, b], READ, "foo"), 1);
      assert.deepEqual(spans(s), [[0, 3], [8, 11]]);
      // Nothing changed: everything stands.
      assert.equal(s.update([a, b], READ, "foo"), 2);
    });

    it("a piece rewritten in place (same length or longer) is rescanned", () => {
      const a = new Piece("foo bar baz foo");
      const s = new PieceScan<Piece>();
      s.update([a], READ, "foo");
      assert.equal(s.count, 2);
      a.text = "xxx bar baz xxx";
      assert.equal(s.update([a], READ, "foo"), 0);
      assert.equal(s.count, 0);
      a.text = "foo bar baz xxx and foo";
      s.update([a], READ, "foo");
      assert.deepEqual(spans(s), fresh([a], "foo"));
    });

    it("a replaced piece drops the matches from it on, and a new query rescans everything", () => {
      const a = new Piece("foo ");
      const b = new Piece("foo foo");
      const s = new PieceScan<Piece>();
      s.update([a, b], READ, "foo");
      assert.equal(s.count, 3);
      const c = new Piece("bar");
      assert.equal(s.update([a, c], READ, "foo"), 1);
      assert.deepEqual(spans(s), [[0, 3]]);
      s.update([a, c], READ, "bar");
      assert.deepEqual(spans(s), [[4, 7]]);
      // Pieces removed at the end.
      s.update([a], READ, "bar");
      assert.equal(s.count, 0);
    });

    it("finds in pieces cut anywhere (empty ones too) just what a search of the whole text finds", () => {
      let seed = 7;
      const rand = (n: number): number => (seed = (seed * 16807) % 2147483647) % n;
      for (const q of ["aa", "aba", "abab", "a", "ΣΑ"]) {
        for (let round = 0; round < 60; round++) {
          let whole = "";
          for (let i = 0; i < 40 + rand(80); i++) whole += "abAB σΣς"[rand(8)];
          const pieces: Piece[] = [];
          for (let at = 0; at < whole.length;) {
            const len = rand(5) === 0 ? 0 : 1 + rand(6);
            pieces.push(new Piece(whole.slice(at, at + len)));
            at += len;
          }
          const folded = foldCase(whole);
          const want: [number, number][] = [];
          const fq = foldQuery(q);
          for (let i = folded.indexOf(fq); i >= 0; i = folded.indexOf(fq, i + fq.length)) want.push([i, i + fq.length]);
          assert.deepEqual(fresh(pieces, fq), want, `"${q}" in "${whole}" cut as ${JSON.stringify(pieces.map((p) => p.text))}`);
        }
      }
    });

    it("a scan cut short goes on where it stopped, also when the text grows or changes meanwhile", () => {
      const pieces = ["foo bar f", "oo ", "", "fo", "o foo", "xfoo", "f", "o", "o"].map((t) => new Piece(t));
      const s = new PieceScan<Piece>();
      const always = (): boolean => true;
      s.update(pieces, READ, "foo", always);
      assert.equal(s.done, false, "one piece a call");
      assert.deepEqual(spans(s), [[0, 3]]);
      let calls = 1;
      while (!s.done && calls < 50) {
        if (calls === 3) pieces[pieces.length - 1]!.text += " foo"; // the last piece grows meanwhile
        if (calls === 5) pieces[1]!.text = "oo!"; // one already scanned is rewritten in place
        s.update(pieces, READ, "foo", always);
        calls++;
      }
      assert.ok(s.done && calls > 8, `done after ${calls} calls`);
      assert.deepEqual(spans(s), fresh(pieces, "foo"));
      assert.equal(s.update(pieces, READ, "foo"), s.count, "nothing changed: every match stands");
      // A new query starts over, and a scan not cut short is done at once.
      s.update(pieces, READ, "o", always);
      assert.equal(s.done, false);
      s.update(pieces, READ, "o");
      assert.ok(s.done);
      assert.deepEqual(spans(s), fresh(pieces, "o"));
    });

    it("a scan cut short goes on over unchanged pieces without measuring them again (resume), finding what one scan finds", () => {
      const pieces = ["foo bar f", "oo ", "", "fo", "o foo", "xfoo", "f", "o", "o", "oo fo", "o"].map((t) => new Piece(t));
      const reads: number[] = [];
      const counting: PieceReader<Piece> = { length: (p) => { reads.push(0); return READ.length(p); }, slice: (p, a, b) => READ.slice(p, a, b) };
      const s = new PieceScan<Piece>();
      s.update(pieces, counting, "foo", () => true);
      assert.equal(s.done, false);
      const measured = reads.length;
      let calls = 0;
      while (!s.done && calls < 50) {
        assert.equal(s.resume(counting, "foo", () => true), s.count);
        calls++;
      }
      assert.ok(s.done && calls > 5, `done after ${calls} resumes`);
      assert.equal(reads.length, measured, "no piece measured again");
      assert.deepEqual(spans(s), fresh(pieces, "foo"));
      assert.equal(s.resume(counting, "foo"), s.count, "done: nothing more");
      assert.equal(s.resume(counting, "bar"), s.count, "another query is an update's, not a resume's");
      assert.deepEqual(spans(s), fresh(pieces, "foo"));
    });

    it("streams: many small appends find what one scan of the whole text finds", () => {
      const words = ["Foo", "bar ", "fo", "o", " ", "f", "oo", "FOO", "\n", "afoofoo", "o"];
      const a = new Piece("");
      const pieces = [a];
      const s = new PieceScan<Piece>();
      for (let i = 0; i < 200; i++) {
        const last = pieces[pieces.length - 1]!;
        if (i % 37 === 36) pieces.push(new Piece(""));
        else last.text += words[i % words.length];
        s.update(pieces, READ, "foo");
        assert.deepEqual(spans(s), fresh(pieces, "foo"), `after step ${i}`);
      }
    });
  });

  it("steps wrap both ways; without a current match the first step goes to the first or the last", () => {
    assert.equal(stepIndex(0, 3, 1), 1);
    assert.equal(stepIndex(2, 3, 1), 0);
    assert.equal(stepIndex(0, 3, -1), 2);
    assert.equal(stepIndex(-1, 3, 1), 0);
    assert.equal(stepIndex(-1, 3, -1), 2);
    assert.equal(stepIndex(5, 3, 1), 0);
    assert.equal(stepIndex(0, 0, 1), -1);
  });

  it("finds which site holds the n-th match", () => {
    assert.deepEqual(siteOf([0, 2, 0, 3], 0), { site: 1, k: 0 });
    assert.deepEqual(siteOf([0, 2, 0, 3], 2), { site: 3, k: 0 });
    assert.deepEqual(siteOf([0, 2, 0, 3], 4), { site: 3, k: 2 });
    assert.equal(siteOf([0, 2, 0, 3], 5), undefined);
    assert.equal(siteOf([1], -1), undefined);
  });

  describe("what find reads of an entry that is not drawn", () => {
    it("a message is the text its markdown shows: no markup, link text without its address", () => {
      const text = markdownText("Use the **main** function and `run()`, see [the docs](https://example.com/x).\n\n- one\n- two\n\n```\ncode here\n```\n");
      assert.ok(text.includes("Use the main function and run(), see the docs."), text);
      assert.ok(!text.includes("example.com"), text);
      assert.ok(!text.includes("**"), text);
      assert.match(text, /one\ntwo\n/);
      assert.match(text, /code here/);
    });

    it("a tool card shows its title, then locations relative to the session folder, content and terminal tail", () => {
      const e: ToolEntry = {
        type: "tool", id: "e1", toolCallId: "t1", title: "Read\nfile", toolKind: "read", status: "completed", announced: true,
        content: [{ type: "content", content: { type: "text", text: "hello" } }, { type: "diff", path: "/w/src/a.ts", oldText: null, newText: "x" }],
        locations: [{ path: "/w/src/b.ts", line: 3 }], terminalOutput: "\u001b[31mred\u001b[0m\nlast line\n", startedAt: 0,
      };
      assert.deepEqual(entryFields(e, "/w"), ["Read ⏎ file", "src/b.ts:3", "hello", "src/a.ts", "red\nlast line"]);
    });

    it("a thought is markdown up to 32 KB, plain text past it, without the blank lines it starts with", () => {
      assert.deepEqual(entryFields({ type: "thought", id: "e2", text: "\n \n  Planning the **next** step", startedAt: 0 }, ""), ["Planning the next step\n"]);
      const long = `\n\n**${"x".repeat(40_000)}**`;
      assert.deepEqual(entryFields({ type: "thought", id: "e3", text: long, startedAt: 0 }, ""), [long.slice(2)]);
    });

    it("past 32 KB a thought is its whole blocks within 32 KB as markdown, then plain text; never cut inside a code fence", () => {
      const para = (i: number): string => `Step ${i} checks **item ${i}** with \`run ${i}\` and goes on.\n\n`;
      const paras = Array.from({ length: 900 }, (_, i) => para(i)).join("");
      // The whole blocks: up to the last paragraph whose first line ends within 32 KB.
      let start = 0;
      for (let i = 0, at = 0; i < 900; at += para(i).length, i++) if (at + para(i).indexOf("\n") < 32 * 1024) start = at;
      assert.ok(start > 30_000 && start < 32 * 1024);
      assert.equal(wholeBlocks(paras.slice(0, 32 * 1024)), start);
      const [field] = entryFields({ type: "thought", id: "e4", text: paras, startedAt: 0 }, "");
      assert.equal(field, markdownText(paras.slice(0, start)) + paras.slice(start));
      assert.ok(field.startsWith("Step 0 checks item 0 with run 0 and goes on.\n"));
      assert.ok(field.endsWith("Step 899 checks **item 899** with `run 899` and goes on.\n\n"));
      // A fence open at 32 KB with blank lines in it: its blocks end before it.
      const code = Array.from({ length: 1000 }, (_, i) => `let v${i} = ${i};\n\n`).join("");
      const fenced = `${paras.slice(0, 25_000)}Before the code.\n\n\`\`\`\n${code}\`\`\`\n\nAfter it.\n`;
      assert.equal(wholeBlocks(fenced.slice(0, 32 * 1024)), fenced.indexOf("```"));
      assert.equal(wholeBlocks("one paragraph\nof two lines\n"), 0);
    });
  });
});
