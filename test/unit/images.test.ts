/** Images in the prompt: which the panel and the host take, and how little of them is kept. */
import * as assert from "node:assert/strict";
import { attachmentOf } from "../../src/shared/attachments";
import { boundEvent } from "../../src/shared/bound";
import type { ThoughtEvent } from "../../src/shared/events";
import { base64Bytes, bytesMatchType, imageRefusal, imageTypeOf, isPromptImage, isThumbnail, MAX_IMAGE_BYTES, MAX_IMAGES, MAX_THUMBNAIL, withoutMediaData } from "../../src/shared/images";
import { parseWebviewMessage } from "../../src/shared/protocol";
import { eventFromLine, transcriptLine } from "../../src/core/transcriptLines";
import { SessionUpdateMapper } from "../../src/core/updateMapper";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString("base64");
const THUMB = `data:image/png;base64,${PNG}`;

describe("prompt images", () => {
  it("take PNG, JPEG, GIF and WebP by name; say why another type or a large one is refused", () => {
    assert.equal(imageTypeOf("shot.PNG"), "image/png");
    assert.equal(imageTypeOf("a.b.jpeg"), "image/jpeg");
    assert.equal(imageTypeOf("a.jpg"), "image/jpeg");
    assert.equal(imageTypeOf("x.webp"), "image/webp");
    assert.equal(imageTypeOf("x.svg"), undefined, "SVG can carry script: not an image a prompt takes");
    assert.equal(imageTypeOf("png"), undefined);
    assert.equal(imageRefusal("a.png", "image/png", MAX_IMAGE_BYTES), undefined);
    assert.equal(imageRefusal("big.png", "image/png", MAX_IMAGE_BYTES + 1), "big.png is 5 MB, more than the 5 MB an image may be");
    assert.equal(imageRefusal("huge.jpg", "image/jpeg", 12 * 1024 * 1024), "huge.jpg is 12 MB, more than the 5 MB an image may be");
    assert.equal(imageRefusal("v.svg", "image/svg+xml", 10), "v.svg is not a PNG, JPEG, GIF or WebP image");
  });

  it("count base64 bytes exactly and refuse what is not plain base64", () => {
    assert.equal(base64Bytes("AAAA"), 3);
    assert.equal(base64Bytes("AAA="), 2);
    assert.equal(base64Bytes("AA=="), 1);
    assert.equal(base64Bytes(""), undefined);
    assert.equal(base64Bytes("AAA"), undefined);
    assert.equal(base64Bytes("AA A"), undefined);
    assert.equal(base64Bytes("A=AA"), undefined);
  });

  it("know each type by its first bytes (a renamed file is not the image it says)", () => {
    const png = Buffer.from(PNG, "base64");
    assert.ok(bytesMatchType(png, "image/png"));
    assert.ok(!bytesMatchType(png, "image/jpeg"));
    assert.ok(bytesMatchType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"));
    assert.ok(bytesMatchType(Buffer.from("GIF89a"), "image/gif"));
    assert.ok(!bytesMatchType(Buffer.from("GIF90a"), "image/gif"));
    assert.ok(bytesMatchType(Buffer.from("RIFF\0\0\0\0WEBPVP8 "), "image/webp"));
    assert.ok(!bytesMatchType(Buffer.from("<svg onload=x>"), "image/png"));
  });

  it("draw only a bounded base64 PNG or JPEG data: URI as a thumbnail", () => {
    assert.ok(isThumbnail(THUMB));
    assert.ok(isThumbnail(`data:image/jpeg;base64,${PNG}`));
    assert.ok(!isThumbnail("https://example.com/x.png"), "never a URL");
    assert.ok(!isThumbnail(`data:image/svg+xml;base64,${PNG}`));
    assert.ok(!isThumbnail(`data:image/png,${PNG}`), "base64 only");
    assert.ok(!isThumbnail(`data:image/png;base64,${"A".repeat(MAX_THUMBNAIL)}`), "bounded");
  });

  it("sendPrompt carries at most 10 images of at most 5 MB, each well-formed", () => {
    const img = { mimeType: "image/png", data: PNG, name: "shot.png", thumbnail: THUMB };
    assert.ok(isPromptImage(img));
    const ok = parseWebviewMessage({ type: "sendPrompt", text: "look", images: [img] });
    assert.ok(ok.ok);
    assert.ok(!parseWebviewMessage({ type: "sendPrompt", text: "look", images: Array.from({ length: MAX_IMAGES + 1 }, () => img) }).ok, "too many");
    assert.ok(!isPromptImage({ ...img, mimeType: "image/svg+xml" }));
    assert.ok(!isPromptImage({ ...img, data: "not base64!" }));
    assert.ok(!isPromptImage({ ...img, thumbnail: "https://example.com/t.png" }));
    assert.ok(!isPromptImage({ ...img, data: "A".repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4) }), "over 5 MB");
    assert.ok(isPromptImage({ ...img, data: "A".repeat(Math.floor(MAX_IMAGE_BYTES / 3) * 4) }), "just under 5 MB");
    assert.ok(!parseWebviewMessage({ type: "dropUris", uris: [] }).ok, "a drop names at least one URI");
    assert.ok(parseWebviewMessage({ type: "pickImages" }).ok);
  });

  it("keep an image's type and thumbnail, not its data, in the panel and the transcript", () => {
    const block = { type: "image" as const, data: PNG, mimeType: "image/png", thumbnail: THUMB };
    assert.deepEqual(withoutMediaData(block), { type: "image", data: "", mimeType: "image/png", thumbnail: THUMB });
    const text = { type: "text" as const, text: "hi" };
    assert.equal(withoutMediaData(text), text, "other blocks are the same object");
    const e: ThoughtEvent = { kind: "user_message", text: "", content: block, seq: 1, at: 1, sessionId: "s", turnId: 1 };
    assert.deepEqual(boundEvent(e), { ...e, content: { ...block, data: "" } });
    const start: ThoughtEvent = { kind: "turn_start", turnId: 1, prompt: [text, block], seq: 2, at: 2, sessionId: "s" };
    assert.deepEqual((boundEvent(start) as Extract<ThoughtEvent, { kind: "turn_start" }>).prompt, [text, { ...block, data: "" }]);
    const line = transcriptLine(e);
    assert.ok(!line.includes(`"data":"${PNG}"`), "the data is not written");
    const back = eventFromLine(line);
    assert.ok("event" in back);
    assert.deepEqual(back.event, { ...e, content: { ...block, data: "" } }, "read back: type and thumbnail");
  });

  it("show our own prompt's thumbnail in the user's message; an agent's image (a URL, an SVG) only as a label", () => {
    assert.equal(attachmentOf({ type: "image", data: "", mimeType: "image/png", thumbnail: THUMB })?.thumbnail, THUMB);
    const remote = attachmentOf({ type: "image", data: "", mimeType: "image/png", uri: "https://evil.example/track.png" });
    assert.equal(remote?.thumbnail, undefined);
    assert.equal(remote?.label, "Image (image/png)");
    assert.equal(attachmentOf({ type: "image", data: "", mimeType: "image/png", thumbnail: "https://evil.example/t.png" })?.thumbnail, undefined);
    assert.equal(attachmentOf({ type: "image", data: "", mimeType: "image/png", thumbnail: "data:image/svg+xml;base64,AAAA" })?.thumbnail, undefined);
    // An agent's replay cannot bring a thumbnail of its own: the mapper does not read the field.
    const [replayed] = new SessionUpdateMapper().map({ sessionUpdate: "user_message_chunk", content: { type: "image", data: PNG, mimeType: "image/png", thumbnail: THUMB } });
    assert.ok(replayed?.kind === "user_message");
    assert.equal(attachmentOf(replayed.content)?.thumbnail, undefined);
  });
});
