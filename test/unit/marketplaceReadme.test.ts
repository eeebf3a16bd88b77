/**
 * The README that goes into the vsix (scripts/marketplaceReadme.mjs): screenshots embedded, links into
 * the repository reduced to text, code left alone, and nothing relative left for VS Code's extension
 * page (which loads only https: and data: images) or vsce (which needs a repository for relative links).
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { marketplaceReadme, relativeTargets } from "../../scripts/marketplaceReadme.mjs";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ROOT = path.resolve(__dirname, "..", "..");

/** Reads nothing; records what was asked for. */
function reader(): { read: (p: string) => Buffer; asked: string[] } {
  const asked: string[] = [];
  return { asked, read: (p) => { asked.push(p); return PNG; } };
}

describe("the packaged README", () => {
  it("embeds a relative screenshot as a data: URI and keeps its alt text", () => {
    const r = reader();
    const out = marketplaceReadme("Look:\n\n![The panel, dark](docs/screenshots/panel-dark.png)\n", r.read);
    assert.deepEqual(r.asked, ["docs/screenshots/panel-dark.png"]);
    assert.equal(out, `Look:\n\n![The panel, dark](data:image/png;base64,${PNG.toString("base64")})\n`);
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

  it("packages this repository's README.md with nothing relative left", () => {
    const source = path.join(ROOT, "README.md");
    const out = marketplaceReadme(readFileSync(source, "utf8"), (p) => readFileSync(path.resolve(ROOT, p)));
    assert.deepEqual(relativeTargets(out), []);
  });
});
