/** A terminal's tail: the buffer keeps the last characters and counts the rest; writes into a terminal mark what they skip. */
import * as assert from "node:assert/strict";
import { TailBuffer, tailOf } from "../../src/core/tailBuffer";
import { exitLine, formatSize, rawOutputText, terminalWrite } from "../../src/core/terminalText";

describe("tail buffer", () => {
  it("keeps everything below its limit, in order, across small and big appends", () => {
    const b = new TailBuffer(100_000);
    assert.equal(b.isEmpty, true);
    let all = "";
    for (let i = 0; i < 500; i++) {
      const piece = i % 50 === 0 ? "x".repeat(9000) : `line ${i}\n`;
      b.append(piece);
      all += piece;
    }
    assert.equal(b.isEmpty, false);
    assert.equal(b.text(), all.slice(-100_000));
    assert.equal(b.skipped, Math.max(0, all.length - 100_000));
  });

  it("keeps exactly the last `limit` characters and counts what it dropped", () => {
    const b = new TailBuffer(10);
    b.append("0123456789");
    b.append("abc");
    assert.equal(b.text(), "3456789abc");
    assert.equal(b.skipped, 3);
    b.append("z".repeat(25));
    assert.equal(b.text(), "z".repeat(10));
    assert.equal(b.skipped, 28);
  });

  it("stays bounded over many chunks (drops whole chunks from the front)", () => {
    const b = new TailBuffer(20_000);
    for (let i = 0; i < 2000; i++) b.append(`${String(i).padStart(5, "0")}${"-".repeat(9995)}`);
    const text = b.text();
    assert.equal(text.length, 20_000);
    assert.ok(text.startsWith("01998"));
    assert.equal(b.skipped, 2000 * 10_000 - 20_000);
  });

  it("never starts with half a surrogate pair", () => {
    const b = new TailBuffer(3);
    b.append("a😀b😀");
    assert.equal(b.text().charCodeAt(0) >= 0xdc00 && b.text().charCodeAt(0) <= 0xdfff, false);
    const c = new TailBuffer(4);
    c.append("😀😀😀");
    assert.equal(c.text(), "😀😀");
    c.append("x");
    assert.ok(!/^[\udc00-\udfff]/.test(c.text()));
  });

  it("clear() forgets the text and the count", () => {
    const b = new TailBuffer(5);
    b.append("0123456789");
    b.clear();
    assert.equal(b.text(), "");
    assert.equal(b.skipped, 0);
    assert.equal(b.isEmpty, true);
  });

  it("ignores empty appends", () => {
    const b = new TailBuffer(5);
    b.append("");
    assert.equal(b.isEmpty, true);
  });
});

describe("tailOf", () => {
  it("takes at most the last lines, from a line start", () => {
    const text = Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n") + "\n";
    assert.equal(tailOf(text, 1000, 3), "l7\nl8\nl9\n");
  });

  it("starts at the next line when the character limit cuts a line", () => {
    assert.equal(tailOf("aaaa\nbbbb\ncccc\n", 12, 100), "bbbb\ncccc\n");
  });

  it("keeps a cut line when no line starts near", () => {
    assert.equal(tailOf("x".repeat(10_000), 100, 10), "x".repeat(100));
  });

  it("returns short text whole", () => {
    assert.equal(tailOf("one\ntwo", 100, 10), "one\ntwo");
  });
});

describe("terminal writes", () => {
  it("write text with \\r\\n line ends and remember whether a line is open", () => {
    assert.deepEqual(terminalWrite("a\nb\r\nc", 0, true), { out: "a\r\nb\r\nc", atLineStart: false, flooded: false });
    assert.deepEqual(terminalWrite("done\n", 0, false), { out: "done\r\n", atLineStart: true, flooded: false });
    assert.deepEqual(terminalWrite("", 0, false), { out: "", atLineStart: false, flooded: false });
  });

  it("after a skip, write a marker on its own line with the sizes, then only the tail", () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const w = terminalWrite(lines, 2048, false);
    assert.equal(w.flooded, true);
    assert.equal(w.atLineStart, true);
    assert.ok(w.out.startsWith("\r\n"), "an open line is ended before the marker");
    const [marker, ...rest] = w.out.slice(2).split("\r\n");
    const dim = "\x1b[2m";
    const plain = "\x1b[0m";
    assert.ok(marker!.startsWith(dim) && marker!.endsWith(plain), "the marker is dimmed");
    assert.match(marker!.slice(dim.length, -plain.length), /^\[… [\d.]+ KB of output skipped; the last [\d.]+ KB follow …\]$/);
    assert.equal(rest.filter(Boolean).length, 400, "at most 400 lines follow");
    assert.ok(w.out.endsWith("line 999\r\n"));
  });

  it("a skip with nothing new still says so", () => {
    const w = terminalWrite("", 10, true);
    assert.equal(w.out, "\x1b[2m[… 10 B of output skipped; the last 0 B follow …]\x1b[0m\r\n");
  });

  it("formats sizes", () => {
    assert.equal(formatSize(1023), "1023 B");
    assert.equal(formatSize(1536), "1.5 KB");
    assert.equal(formatSize(3 * 1024 * 1024), "3.0 MB");
    assert.equal(formatSize(2 * 1024 ** 3), "2.0 GB");
  });

  it("says how a command exited", () => {
    assert.equal(exitLine({ exitCode: 2 }), "\n[process exited with code 2]\n");
    assert.equal(exitLine({ exitCode: null, signal: "SIGTERM" }), "\n[process exited by signal SIGTERM]\n");
    assert.equal(exitLine({}), "\n[process exited with code ?]\n");
  });

  it("finds a command's output in rawOutput, else shows it as JSON", () => {
    assert.equal(rawOutputText(undefined), "");
    assert.equal(rawOutputText("plain"), "plain");
    assert.equal(rawOutputText({ stdout: "out", output: "preferred" }), "preferred");
    assert.equal(rawOutputText({ formatted_output: "f", aggregated_output: "a" }), "f");
    assert.equal(rawOutputText({ exit: 1 }), '{\n  "exit": 1\n}');
    assert.equal(rawOutputText(null), "null");
    assert.equal(rawOutputText(7), "7");
  });
});
