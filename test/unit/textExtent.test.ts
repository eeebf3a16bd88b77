import * as assert from "node:assert/strict";
import { textExtent } from "../../src/webview/render/nearby";

describe("a waiting message's estimated extent (textExtent)", () => {
  it("counts line breaks apart from characters", () => {
    assert.deepEqual(textExtent("one line"), { breaks: 0, chars: 8 });
    assert.deepEqual(textExtent("a\n\nb\n"), { breaks: 3, chars: 2 });
    assert.deepEqual(textExtent(""), { breaks: 0, chars: 0 });
  });

  it("counts a CJK or fullwidth character as two, and an emoji (a surrogate pair) as two, not four", () => {
    assert.deepEqual(textExtent("漢字かな"), { breaks: 0, chars: 8 });
    assert.deepEqual(textExtent("ＡＢ"), { breaks: 0, chars: 4 });
    assert.deepEqual(textExtent("ok 🎉\n"), { breaks: 1, chars: 5 });
    assert.deepEqual(textExtent("a\n漢\n🎉b"), { breaks: 2, chars: 6 });
  });

  it("counts a run of line breaks as two at most, so that a flood of them does not make a box far taller than its text draws", () => {
    assert.deepEqual(textExtent("a\n\n\n\n\nb"), { breaks: 2, chars: 2 });
    assert.deepEqual(textExtent("\n".repeat(100_000)), { breaks: 2, chars: 0 });
    assert.deepEqual(textExtent("a\n\n\nb\nc\n\n"), { breaks: 5, chars: 3 });
  });

  it("takes lines of only spaces, tabs or a carriage return for blank ones in a run (\\r\\n line ends too), and a carriage return before a break for no character", () => {
    assert.deepEqual(textExtent("a\r\n\r\n\r\n\r\nb"), { breaks: 2, chars: 2 });
    assert.deepEqual(textExtent(`${"\r\n".repeat(4_000)}x`), { breaks: 2, chars: 1 });
    assert.deepEqual(textExtent("a\n \n\t\n  \nb"), { breaks: 2, chars: 3 });
    assert.deepEqual(textExtent("a\r\nb\r\nc"), { breaks: 2, chars: 3 });
    // A line of more than a few spaces is text, not a blank line.
    assert.deepEqual(textExtent(`a\n${" ".repeat(20)}\n\n\nb`), { breaks: 3, chars: 22 });
  });

  it("counts every line break from where the text is drawn plain (each ends a line there)", () => {
    assert.deepEqual(textExtent(`x${"\n".repeat(10)}`, 0), { breaks: 10, chars: 1 });
    assert.deepEqual(textExtent("a\n\n\n\nb\n\n\n\n", 6), { breaks: 6, chars: 2 });
  });

  it("counts a lone surrogate half as one character, never less than none (an agent's broken text)", () => {
    assert.deepEqual(textExtent("\udc00".repeat(1000)), { breaks: 0, chars: 1000 });
    assert.deepEqual(textExtent("a\udc00漢"), { breaks: 0, chars: 4 });
    assert.deepEqual(textExtent("\ud83c".repeat(3)), { breaks: 0, chars: 6 });
  });

  it("counts a long text whole (what a session of long answers holds)", () => {
    const para = `${"words **to** read. ".repeat(40)}\n\n`;
    const t = para.repeat(40);
    assert.deepEqual(textExtent(t), { breaks: 80, chars: t.length - 80 });
  });
});
