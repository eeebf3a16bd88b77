/**
 * The README that goes into the vsix (scripts/marketplaceReadme.mjs): screenshots embedded, links into
 * the repository reduced to text, code left alone, and nothing relative left for VS Code's extension
 * page (which loads only https: and data: images) or vsce (which needs a repository for relative links).
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { PNG } from "pngjs";
import { cropPng, marketplaceReadme, relativeTargets } from "../../scripts/marketplaceReadme.mjs";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ROOT = path.resolve(__dirname, "..", "..");

/** Reads nothing; records what was asked for. */
function reader(): { read: (p: string, crop?: { x: number; y: number; width: number; height: number }) => Buffer; asked: string[] } {
  const asked: string[] = [];
  return { asked, read: (p, crop) => { asked.push(crop ? `${p} ${crop.x},${crop.y},${crop.width},${crop.height}` : p); return SIGNATURE; } };
}

describe("the packaged README", () => {
  it("embeds a relative screenshot as a data: URI and keeps its alt text", () => {
    const r = reader();
    const out = marketplaceReadme("Look:\n\n![The panel, dark](docs/screenshots/panel-dark.png)\n", r.read);
    assert.deepEqual(r.asked, ["docs/screenshots/panel-dark.png"]);
    assert.equal(out, `Look:\n\n![The panel, dark](data:image/png;base64,${SIGNATURE.toString("base64")})\n`);
  });

  it("embeds only the part a #crop fragment names, and understands no other fragment", () => {
    const r = reader();
    marketplaceReadme("![Panel](docs/screenshots/panel-dark.png#crop=0,10,350,890)", r.read);
    assert.deepEqual(r.asked, ["docs/screenshots/panel-dark.png 0,10,350,890"]);
    assert.throws(() => marketplaceReadme("![x](a.png#top)", reader().read), /#crop=x,y,width,height on a PNG/);
    assert.throws(() => marketplaceReadme("![x](a.jpg#crop=0,0,1,1)", reader().read), /on a PNG/);
  });

  it("crops a PNG to the rectangle, pixel for pixel, and refuses one outside the image", () => {
    const source = new PNG({ width: 4, height: 3 });
    for (let i = 0; i < 12; i++) source.data.set([i * 10, 255 - i, i, 255], i * 4);
    const cropped = PNG.sync.read(cropPng(PNG.sync.write(source), { x: 1, y: 1, width: 2, height: 2 }));
    assert.equal(cropped.width, 2);
    assert.equal(cropped.height, 2);
    const pixel = (png: PNG, x: number, y: number) => [...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 4)];
    assert.deepEqual(pixel(cropped, 0, 0), pixel(source, 1, 1));
    assert.deepEqual(pixel(cropped, 1, 1), pixel(source, 2, 2));
    assert.throws(() => cropPng(PNG.sync.write(source), { x: 3, y: 0, width: 2, height: 1 }), /outside the 4×3 image/);
  });

  it("turns links into the repository into their text, and keeps web links, mail and anchors", () => {
    const out = marketplaceReadme(
      "See [CONTRIBUTING.md](CONTRIBUTING.md), [the spec](https://agentclientprotocol.com), [mail](mailto:a@b.c) and [Settings](#settings).",
      reader().read,
    );
    assert.equal(out, "See CONTRIBUTING.md, [the spec](https://agentclientprotocol.com), [mail](mailto:a@b.c) and [Settings](#settings).");
  });

  it("leaves code alone: fenced blocks and inline code keep what looks like links", () => {
    const md = [
      "Inline `[x](y.md)` and `![i](i.png)` stay.",
      "```md",
      "![not an image](nowhere.png) [not a link](nowhere.md)",
      "```",
      "After the fence [a](b.md).",
    ].join("\n");
    const r = reader();
    const out = marketplaceReadme(md, r.read);
    assert.deepEqual(r.asked, []);
    assert.equal(out, md.replace("[a](b.md)", "a"));
  });

  it("refuses what VS Code or vsce cannot show: an SVG, a relative <img>", () => {
    assert.throws(() => marketplaceReadme("![icon](media/icon.svg)", reader().read), /only PNG, JPEG, GIF and WebP/);
    assert.throws(() => marketplaceReadme('<img src="docs/screenshots/panel-dark.png">', reader().read), /relative <img>/);
    assert.equal(marketplaceReadme('<img src="https://example.com/a.png">', reader().read), '<img src="https://example.com/a.png">');
  });

  it("finds what is still relative, as markdown-it reads it (reference links too)", () => {
    assert.deepEqual(relativeTargets("[a][ref]\n\n[ref]: docs/a.md\n\n![b](https://x.y/b.png) [c](#c)"), ["docs/a.md"]);
    assert.throws(() => marketplaceReadme("[a][ref]\n\n[ref]: docs/a.md\n", reader().read), /still relative after embedding: docs\/a\.md/);
  });

  it("packages this repository's README.md with its screenshots in it and nothing relative left", () => {
    const source = path.join(ROOT, "README.md");
    const asked: string[] = [];
    const out = marketplaceReadme(readFileSync(source, "utf8"), (p, crop) => {
      asked.push(p);
      const bytes = readFileSync(path.resolve(ROOT, p));
      return crop ? cropPng(bytes, crop) : bytes;
    });
    assert.ok(asked.length > 0 && asked.every((p) => p.startsWith("docs/screenshots/")), asked.join(", "));
    assert.equal(out.split("data:image/png;base64,").length - 1, asked.length);
    assert.deepEqual(relativeTargets(out), []);
  });
});
