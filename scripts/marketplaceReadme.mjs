#!/usr/bin/env node
// The README that goes into the vsix (`npm run package` writes dist/README.md and hands it to vsce):
// README.md with its screenshots embedded as data: URIs and its links into the repository reduced to
// their text. Why: the extension has no public repository, and relative paths work nowhere once
// packaged — vsce rewrites them to a GitHub/GitLab `repository` URL and refuses to package without
// one, and VS Code's extension page allows only `https:` and `data:` images (img-src in its CSP).
// When the repository is public, set `repository` in package.json and package README.md as is.
//   node scripts/marketplaceReadme.mjs [README.md] [dist/README.md]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import MarkdownIt from "markdown-it";

const IMAGE_TYPES = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };

/** A link target inside the repository (no scheme, not an anchor on the page). */
function isRelative(target) {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#");
}

/** Applies fn to the parts of one line that are not inline code. */
function outsideCode(line, fn) {
  return line.split(/(`+[^`]*`+)/).map((part, i) => (i % 2 === 1 ? part : fn(part))).join("");
}

/**
 * README.md as the packaged extension shows it: relative images (PNG, JPEG, GIF, WebP) become data:
 * URIs read with readImage(path), relative links become their text. Code (fenced or inline) is left alone.
 * Throws for what cannot be shown: an SVG or other relative image, a relative <img>, and anything
 * relative left over (checked on markdown-it's reading of the result, which is what VS Code renders).
 * @param {string} markdown
 * @param {(path: string) => Buffer} readImage
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
          const type = IMAGE_TYPES[extname(target).toLowerCase()];
          if (!type) throw new Error(`${target}: only PNG, JPEG, GIF and WebP images can be embedded (VS Code and vsce refuse SVG)`);
          return `![${alt}](data:${type};base64,${readImage(target).toString("base64")})`;
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
  const text = marketplaceReadme(readFileSync(source, "utf8"), (path) => readFileSync(resolve(dirname(source), path)));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${target} (${Math.round(text.length / 1024)} KB, images embedded)`);
}
