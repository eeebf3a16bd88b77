/** @-mentions in the prompt box: the query at the caret, ranking, the chips and their bounds. */
import * as assert from "node:assert/strict";
import { addMention, fuzzyScore, isMentionRef, MAX_MENTIONS, mentionAt, mentionUri, rankMentions, removeMention, withoutMention, type MentionRef } from "../../src/shared/mentions";
import { parseWebviewMessage } from "../../src/shared/protocol";

const ref = (uri: string, extra: Partial<MentionRef> = {}): MentionRef => ({ kind: "file", uri, label: uri.split("/").pop() ?? uri, ...extra });

describe("@-mentions", () => {
  it("find the @query the caret is in: at the start or after white space, up to the end of the word", () => {
    assert.deepEqual(mentionAt("@hel", 4), { start: 0, end: 4, query: "hel" });
    assert.deepEqual(mentionAt("look at @src/he please", 15), { start: 8, end: 15, query: "src/he" });
    assert.deepEqual(mentionAt("look at @src/hello please", 13), { start: 8, end: 18, query: "src/hello" }, "the caret inside the word");
    assert.deepEqual(mentionAt("@", 1), { start: 0, end: 1, query: "" });
    assert.deepEqual(mentionAt("line\n@x", 7), { start: 5, end: 7, query: "x" });
  });

  it("are not opened by an e-mail address, a finished word, or an endless query", () => {
    assert.equal(mentionAt("mail me@example.com", 19), undefined);
    assert.equal(mentionAt("@hel more", 9), undefined, "the caret has left the word");
    assert.equal(mentionAt("no at sign", 5), undefined);
    assert.equal(mentionAt(`@${"a".repeat(201)}`, 202), undefined);
  });

  it("take the @query out of the text when it becomes a chip, without leaving two spaces", () => {
    assert.deepEqual(withoutMention("explain @hel please", 8, 12), { value: "explain please", caret: 8 });
    assert.deepEqual(withoutMention("@hel", 0, 4), { value: "", caret: 0 });
    assert.deepEqual(withoutMention("@hel explain", 0, 4), { value: "explain", caret: 0 });
  });

  it("rank file name prefixes over substrings over scattered letters; non-matches are left out", () => {
    const items = ["docs/shell.md", "src/helpers/util.ts", "src/hello.ts", "test/x/h-e-l.txt", "README.md"].map((detail) => ({ detail }));
    assert.deepEqual(rankMentions("hel", items).map((i) => i.detail), ["src/hello.ts", "docs/shell.md", "src/helpers/util.ts", "test/x/h-e-l.txt"]);
    assert.equal(fuzzyScore("HEL", "src/Hello.ts") !== undefined, true, "case-insensitive");
    assert.equal(fuzzyScore("xyz", "src/hello.ts"), undefined);
    assert.equal(rankMentions("", items, 2).length, 2, "at most max");
  });

  it("keep chips unique and bounded, removable by index", () => {
    let list: MentionRef[] = [];
    list = addMention(list, ref("file:///w/a.ts"));
    list = addMention(list, ref("file:///w/a.ts"));
    assert.equal(list.length, 1, "the same file once");
    list = addMention(list, ref("file:///w/a.ts", { kind: "selection", startLine: 1, endLine: 2, label: "a.ts:1-2" }));
    assert.equal(list.length, 2, "a range of it is another chip");
    for (let i = 0; i < 40; i++) list = addMention(list, ref(`file:///w/f${i}.ts`));
    assert.equal(list.length, MAX_MENTIONS);
    assert.deepEqual(removeMention(list, 0)[0], list[1]);
    const long = addMention([], ref("file:///w/b.ts", { label: "x".repeat(5000) }));
    assert.equal(long[0]?.label.length, 200, "labels are cut");
  });

  it("send a range as an editor links it", () => {
    assert.equal(mentionUri({ uri: "file:///w/src/hello.ts", startLine: 1, endLine: 2 }), "file:///w/src/hello.ts#L1-L2");
    assert.equal(mentionUri({ uri: "file:///w/src/hello.ts#L9" }), "file:///w/src/hello.ts");
  });

  it("sendPrompt and mentionQuery accept only bounded, well-formed mentions", () => {
    const ok = parseWebviewMessage({ type: "sendPrompt", text: "hi", mentions: [ref("file:///w/a.ts"), ref("file:///w/a.ts", { kind: "selection", startLine: 2, endLine: 3 })] });
    assert.equal(ok.ok, true);
    for (const bad of [
      { kind: "shell", uri: "file:///w", label: "w" },
      { kind: "file", uri: "", label: "a" },
      { kind: "file", uri: `file:///${"a".repeat(5000)}`, label: "a" },
      { kind: "selection", uri: "file:///w/a.ts", label: "a", startLine: 3, endLine: 2 },
      { kind: "selection", uri: "file:///w/a.ts", label: "a", startLine: 3 },
      { kind: "file", uri: "file:///w/a.ts", label: "a", startLine: 0, endLine: 1 },
    ]) {
      assert.equal(isMentionRef(bad), false, JSON.stringify(bad).slice(0, 100));
      assert.equal(parseWebviewMessage({ type: "sendPrompt", text: "hi", mentions: [bad] }).ok, false);
    }
    assert.equal(parseWebviewMessage({ type: "sendPrompt", text: "hi", mentions: Array.from({ length: MAX_MENTIONS + 1 }, (_, i) => ref(`file:///w/${i}`)) }).ok, false, "too many");
    assert.equal(parseWebviewMessage({ type: "mentionQuery", requestId: 1, query: "hel" }).ok, true);
    assert.equal(parseWebviewMessage({ type: "mentionQuery", requestId: 1, query: "x".repeat(201) }).ok, false);
    assert.equal(parseWebviewMessage({ type: "mentionQuery", requestId: -1, query: "" }).ok, false);
  });
});
