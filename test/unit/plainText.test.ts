/** Agent text in notifications stays text: no link or icon syntax survives. */
import * as assert from "node:assert/strict";
import { plainText } from "../../src/core/plainText";

describe("plainText", () => {
  it("breaks [label](target) links and $(icon) syntax, keeping the visible words", () => {
    const hostile = "Allow? [Click here](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D) $(check) [x](https://evil.example)";
    const safe = plainText(hostile);
    assert.doesNotMatch(safe, /\]\(/);
    assert.doesNotMatch(safe, /\$\(/);
    assert.equal(safe.replace(/\u2060/g, ""), hostile, "only invisible joiners were added");
    assert.equal(plainText("plain words"), "plain words");
  });
});
