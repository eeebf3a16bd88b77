/** Prompt chips: what a prompt carries besides its text, as the panel shows it. */
import * as assert from "node:assert/strict";
import { attachmentOf } from "../../src/shared/attachments";
import type { ThoughtEvent, ThoughtEventBody } from "../../src/shared/events";
import { EMPTY_STATE, reduce } from "../../src/shared/viewModel";

let seq = 0;
function ev(body: ThoughtEventBody, turnId?: number): ThoughtEvent {
  seq++;
  return { ...body, seq, at: 1000 + seq, sessionId: "s1", ...(turnId !== undefined ? { turnId } : {}) };
}

describe("prompt chips", () => {
  it("label a selection by file name and lines, open the local file at its first line", () => {
    assert.deepEqual(attachmentOf({ type: "resource", resource: { uri: "file:///w/src/app%20one.ts#L1-L3", text: "x" } }),
      { kind: "file", label: "app one.ts:1-3", detail: "file:///w/src/app%20one.ts#L1-L3", path: "/w/src/app one.ts", line: 1 });
    assert.deepEqual(attachmentOf({ type: "resource", resource: { uri: "file:///c%3A/src/a.ts#L7", text: "x" } })?.path, "c:\\src\\a.ts");
    assert.equal(attachmentOf({ type: "resource", resource: { uri: "file:///w/whole.ts", text: "x" } })?.label, "whole.ts");
    assert.equal(attachmentOf({ type: "resource", resource: { uri: "file:///w/a.ts#L9-L3", text: "x" } })?.line, undefined, "a backwards range is no range");
    assert.equal(attachmentOf({ type: "text", text: "hi" }), undefined);
  });

  it("links and images are chips too; an https link opens nothing by itself; a hostile URI is bounded", () => {
    const link = attachmentOf({ type: "resource_link", uri: "https://example.com/docs/page", name: "page", title: "The docs" });
    assert.equal(link?.label, "The docs");
    assert.equal(link?.path, undefined);
    assert.equal(attachmentOf({ type: "image", data: "AAAA", mimeType: "image/png" })?.label, "Image (image/png)");
    const huge = attachmentOf({ type: "resource", resource: { uri: `file:///${"a".repeat(100_000)}` } });
    assert.ok(huge && huge.detail.length <= 4096 && huge.label.length <= 200);
    assert.equal(attachmentOf({ type: "resource", resource: { uri: "not a uri" } })?.label, "not a uri");
  });

  it("the reducer puts a prompt's resource on its turn as a chip: no empty user bubble; a replayed one becomes a user entry with its chip", () => {
    seq = 0;
    const state = reduce(EMPTY_STATE, [
      ev({ kind: "session_start", agentName: "Demo", cwd: "/w" }),
      ev({ kind: "turn_start", turnId: 1, prompt: [] }, 1),
      ev({ kind: "user_message", text: "what is this?", content: { type: "text", text: "what is this?" } }, 1),
      ev({ kind: "user_message", text: "", content: { type: "resource", resource: { uri: "file:///w/a.ts#L1-L3", text: "code" } } }, 1),
      ev({ kind: "message", text: "It is code.", content: { type: "text", text: "It is code." } }, 1),
      ev({ kind: "user_message", text: "", content: { type: "resource_link", uri: "file:///w/b.ts", name: "b.ts" } }, 1),
    ]);
    const turn = state.sessions.s1!.turns[0]!;
    assert.equal(turn.prompt, "what is this?");
    assert.deepEqual(turn.attachments?.map((a) => a.label), ["a.ts:1-3"]);
    const users = turn.entries.filter((e) => e.type === "user");
    assert.equal(users.length, 1);
    assert.deepEqual(users[0]?.type === "user" ? [users[0].text, users[0].attachments?.map((a) => a.label)] : [], ["", ["b.ts"]]);
  });
});
