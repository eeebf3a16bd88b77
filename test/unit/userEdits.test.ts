/** Telling the agent's text from the user's: user edits move into the baseline, or are remembered inside agent hunks. */
import * as assert from "node:assert/strict";
import { applyChanges, changesBetween, computeHunks, mapSpans, rebaseUserChanges, refineChange, undoHunk, undoKeepingUserText, userTextIn } from "../../src/core/editReview";

const base = ["one", "two", "three", "four", "five", ""].join("\n");
// The agent changed "two" and added a line after "four".
const agent = ["one", "TWO (agent)", "three", "four", "added by agent", "five", ""].join("\n");

/** Inserts `text` at the start of 0-based `line` of `text0`, as a change. */
function insertAtLine(text0: string, line: number, text: string): { start: number; end: number; text: string } {
  const at = text0.split("\n").slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  return { start: at, end: at, text };
}

describe("user edits in a file under review", () => {
  it("a line typed between agent hunks moves into the baseline: never an agent change, and undoing every hunk keeps it", () => {
    const r = rebaseUserChanges(base, agent, [insertAtLine(agent, 3, "typed by me\n")]);
    assert.equal(r.current, ["one", "TWO (agent)", "three", "typed by me", "four", "added by agent", "five", ""].join("\n"));
    assert.equal(r.base, ["one", "two", "three", "typed by me", "four", "five", ""].join("\n"));
    assert.deepEqual(r.userEdits, []);
    const hunks = computeHunks(r.base, r.current);
    assert.deepEqual(hunks.map((h) => h.curText), ["TWO (agent)\n", "added by agent\n"]);
    let text = r.current;
    for (let hs = computeHunks(r.base, text); hs.length; hs = computeHunks(r.base, text)) text = undoHunk(text, hs[0]!);
    assert.equal(text, ["one", "two", "three", "typed by me", "four", "five", ""].join("\n"));
  });

  it("typing right before a hunk's first line or after its last line is outside the hunk; Enter at the end of an agent line too", () => {
    const before = rebaseUserChanges(base, agent, [insertAtLine(agent, 4, "mine\n")]);
    assert.deepEqual(computeHunks(before.base, before.current).map((h) => h.curText), ["TWO (agent)\n", "added by agent\n"]);
    assert.deepEqual(before.userEdits, []);
    // Enter at the end of "added by agent" then typing: "\nmine" inserted before that line's newline.
    const eol = agent.indexOf("added by agent") + "added by agent".length;
    const enter = rebaseUserChanges(base, agent, [{ start: eol, end: eol, text: "\nmine" }]);
    assert.equal(enter.current, ["one", "TWO (agent)", "three", "four", "added by agent", "mine", "five", ""].join("\n"));
    assert.deepEqual(enter.userEdits, [], "a new line after the agent's line is the user's own line");
    assert.ok(enter.base.includes("four\nmine\nfive"));
  });

  it("text typed inside an agent hunk stays pending and is remembered as the user's, through later edits", () => {
    const at = agent.indexOf("(agent)");
    const r = rebaseUserChanges(base, agent, [{ start: at, end: at, text: "fixed " }]);
    assert.equal(r.base, base, "the baseline does not take a half-reviewed hunk");
    const [h0] = computeHunks(r.base, r.current);
    assert.deepEqual(userTextIn(h0!, r.current, r.userEdits), ["fixed "]);
    // A later edit above moves the span with the text.
    const r2 = rebaseUserChanges(r.base, r.current, [{ start: 0, end: 0, text: "zero\n" }], r.userEdits);
    const [h] = computeHunks(r2.base, r2.current);
    assert.deepEqual(userTextIn(h!, r2.current, r2.userEdits), ["fixed "]);
    // Undo keeping the user's text: the original line, then what they typed on its own line.
    assert.equal(undoKeepingUserText(h!, r2.current, r2.userEdits), "two\nfixed \n");
  });

  it("deleting unchanged text that spans into a hunk deletes it from the baseline too, so Undo does not bring it back", () => {
    // Select from "three" through the agent's "added by agent" line and delete.
    const start = agent.indexOf("three");
    const end = agent.indexOf("five");
    const r = rebaseUserChanges(base, agent, [{ start, end, text: "" }]);
    assert.equal(r.current, ["one", "TWO (agent)", "five", ""].join("\n"));
    assert.equal(r.base, ["one", "two", "five", ""].join("\n"));
  });

  it("lines the agent deleted stay in the baseline when the user edits around them", () => {
    const cur = ["one", "two", "four", "five", ""].join("\n"); // the agent deleted "three"
    const r = rebaseUserChanges(base, cur, [{ start: 0, end: "one\ntwo\n".length, text: "" }]);
    assert.equal(r.current, "four\nfive\n");
    assert.equal(r.base, "three\nfour\nfive\n", "the user deleted one and two; three is still the agent's deletion to review");
  });

  it("a whole-document replacement (another extension, a reload) counts only the lines that differ", () => {
    const reformatted = agent.replace("one", "ONE");
    const r = rebaseUserChanges(base, agent, [{ start: 0, end: agent.length, text: reformatted }]);
    assert.equal(r.base, base.replace("one", "ONE"));
    assert.deepEqual(computeHunks(r.base, r.current).length, 2);
    assert.deepEqual(r.userEdits, []);
  });

  it("a file the agent created: everything the user types is theirs", () => {
    const created = "agent line 1\nagent line 2\n";
    const r = rebaseUserChanges(null, created, [{ start: created.length, end: created.length, text: "my line\n" }]);
    assert.equal(r.base, null, "the file stays one the agent created");
    const [h] = computeHunks("", r.current);
    assert.deepEqual(userTextIn(h!, r.current, r.userEdits), ["my line\n"]);
    assert.equal(undoKeepingUserText(h!, r.current, r.userEdits), "my line\n");
  });

  it("spans follow edits by others and drop out where their text is replaced", () => {
    assert.deepEqual(mapSpans([{ start: 5, end: 10 }], [{ start: 0, end: 0, text: "abc" }]), [{ start: 8, end: 13 }]);
    assert.deepEqual(mapSpans([{ start: 5, end: 10 }], [{ start: 6, end: 8, text: "" }]), [{ start: 5, end: 8 }]);
    assert.deepEqual(mapSpans([{ start: 5, end: 10 }], [{ start: 0, end: 20, text: "x" }]), []);
    assert.deepEqual(mapSpans([{ start: 5, end: 10 }], [{ start: 10, end: 10, text: "after" }]), [{ start: 5, end: 10 }]);
  });

  it("changesBetween and refineChange give line-sized changes that rebuild the text", () => {
    const after = agent.replace("three", "3").replace("five", "5");
    const cs = changesBetween(agent, after);
    assert.equal(cs.length, 2);
    assert.equal(applyChanges(agent, cs), after);
    assert.deepEqual(refineChange("ab\ncd\n", { start: 2, end: 2, text: "\nX" }), [{ start: 3, end: 3, text: "X\n" }]);
    assert.deepEqual(refineChange("ab\r\ncd\r\n", { start: 2, end: 2, text: "\r\n  X" }), [{ start: 4, end: 4, text: "  X\r\n" }], "CRLF and auto-indent too");
  });
});
