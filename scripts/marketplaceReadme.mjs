#!/usr/bin/env node
// The README that goes into the vsix (`npm run package` writes dist/README.md and hands it to vsce):
// README.md with its screenshots embedded as data: URIs and its links into the repository reduced to
// their text. Why: the extension has no public repository, and relative paths work nowhere once
// packaged — vsce rewrites them to a GitHub/GitLab `repository` URL and refuses to package without
// one, and VS Code's extension page allows only `https:` and `data:` images (img-src in its CSP).
// When the repository is public, set `repository` in package.json and package README.md as is.
// A screenshot's path may end in `#crop=x,y,width,height` (PNG pixels): the package then embeds that
// part only, so a 1400-px window shot shows its 350-px panel at full size (elsewhere the whole image
// shows; the fragment does not change which file loads).
//   node scripts/marketplaceReadme.mjs [README.md] [dist/README.md]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import MarkdownIt from "markdown-it";
import { PNG } from "pngjs";

const IMAGE_TYPES = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };

/** A link target inside the repository (no scheme, not an anchor on the page). */
function isRelative(target) {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#");
}

/** Applies fn to the parts of one line that are not inline code. */
function outsideCode(line, fn) {
  return line.split(/(`+[^`]*`+)/).map((part, i) => (i % 2 === 1 ? part : fn(part))).join("");
}

/** @typedef {{ x: number, y: number, width: number, height: number }} Crop */

/** The part of a PNG inside the rectangle (which must lie inside the image). */
export function cropPng(png, { x, y, width, height }) {
  const source = PNG.sync.read(png);
  if (x < 0 || y < 0 || width <= 0 || height <= 0 || x + width > source.width || y + height > source.height) {
    throw new Error(`crop ${x},${y},${width},${height} is outside the ${source.width}×${source.height} image`);
  }
  const out = new PNG({ width, height });
  PNG.bitblt(source, out, x, y, width, height, 0, 0);
  return PNG.sync.write(out, { colorType: source.alpha ? 6 : 2 });
}

/**
 * README.md as the packaged extension shows it: relative images (PNG, JPEG, GIF, WebP) become data:
 * URIs read with readImage(path, crop) — crop from a `#crop=x,y,width,height` fragment — and relative
 * links become their text. Code (fenced or inline) is left alone.
 * Throws for what cannot be shown: an SVG or other relative image, a relative <img>, and anything
 * relative left over (checked on markdown-it's reading of the result, which is what VS Code renders).
 * @param {string} markdown
 * @param {(path: string, crop?: Crop) => Buffer} readImage
 * @returns {string}
 */
export function marketplaceReadme(markdown, readImage) {
  let fence;
  const lines = markdown.split("\n").map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      return line;
    }
    if (fence) return line;
    return outsideCode(line, (text) => {
      if (/<img\b[^>]*\bsrc=["'](?![a-z][a-z0-9+.-]*:)/i.test(text)) {
        throw new Error(`a relative <img> cannot be embedded; use a Markdown image: ${text.trim()}`);
      }
      return text
        .replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (all, alt, target) => {
          if (!isRelative(target)) return all;
          const [file = "", fragment] = target.split("#", 2);
          const type = IMAGE_TYPES[extname(file).toLowerCase()];
          if (!type) throw new Error(`${target}: only PNG, JPEG, GIF and WebP images can be embedded (VS Code and vsce refuse SVG)`);
          let crop;
          if (fragment !== undefined) {
            const m = /^crop=(\d+),(\d+),(\d+),(\d+)$/.exec(fragment);
            if (!m || type !== "image/png") throw new Error(`${target}: the only fragment understood is #crop=x,y,width,height on a PNG`);
            crop = { x: Number(m[1]), y: Number(m[2]), width: Number(m[3]), height: Number(m[4]) };
          }
          const bytes = crop ? readImage(file, crop) : readImage(file);
          return `![${alt}](data:${type};base64,${bytes.toString("base64")})`;
        })
        .replace(/(?<!!)\[([^\]]+)\]\(([^)\s]+)\)/g, (all, text, target) => (isRelative(target) ? text : all));
    });
  });
  const result = lines.join("\n");
  const problems = relativeTargets(result);
  if (problems.length > 0) throw new Error(`still relative after embedding: ${problems.join(", ")}`);
  return result;
}

/** Every image source and link target in rendered markdown that is neither https/data/mailto nor an anchor. */
export function relativeTargets(markdown) {
  const out = [];
  const visit = (tokens) => {
    for (const t of tokens) {
      const target = t.type === "image" ? t.attrGet("src") : t.type === "link_open" ? t.attrGet("href") : null;
      if (target !== null && !/^(https?:|mailto:|#|data:image\/(png|jpeg|gif|webp);)/i.test(target)) out.push(target);
      if (t.children) visit(t.children);
    }
  };
  visit(new MarkdownIt({ html: true }).parse(markdown, {}));
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
  const source = resolve(root, process.argv[2] ?? "README.md");
  const target = resolve(root, process.argv[3] ?? join("dist", "README.md"));
  const text = marketplaceReadme(readFileSync(source, "utf8"), (path, crop) => {
    const bytes = readFileSync(resolve(dirname(source), path));
    return crop ? cropPng(bytes, crop) : bytes;
  });
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${target} (${Math.round(text.length / 1024)} KB, images embedded)`);
}
