#!/usr/bin/env node
// `npm run icon`: draws media/icon.png, the extension's icon in the Marketplace and the Extensions view
// (a PNG: the Marketplace takes no SVG), from the activity-bar glyph in media/icon.svg — the same
// thought bubble, white on a rounded violet square so it reads on light and dark pages — rendered by
// headless Chromium through playwright-core (as the test harness does). Commit the PNG it writes.
//   node scripts/icon.mjs [--preview out.png]   (--preview: also the icon on light and dark backgrounds)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const SIZE = 256;
const PADDING = 40;

const args = process.argv.slice(2);
const previewAt = args.indexOf("--preview");
const preview = previewAt >= 0 ? args[previewAt + 1] : undefined;

const glyph = readFileSync(join(root, "media", "icon.svg"), "utf8");
const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(glyph);
const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(glyph)?.[1];
if (!viewBox || !inner) throw new Error("media/icon.svg: expected <svg viewBox=\"0 0 W H\">…</svg>");
const scale = (SIZE - 2 * PADDING) / Number(viewBox[1]);

const icon = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#7c3aed"/>
      <stop offset="1" stop-color="#4338ca"/>
    </linearGradient>
  </defs>
  <rect width="${SIZE}" height="${SIZE}" rx="${SIZE * 0.22}" fill="url(#bg)"/>
  <g transform="translate(${PADDING} ${PADDING}) scale(${scale})" fill="none" stroke="#fff" stroke-width="1.6"
     stroke-linecap="round" stroke-linejoin="round">${inner}</g>
</svg>`;

const chromium = process.env.AGENT_THOUGHTS_CHROMIUM
  ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));
if (!chromium) {
  console.error("no Chromium found (apt-get install -y chromium, or set AGENT_THOUGHTS_CHROMIUM)");
  process.exit(2);
}
const { chromium: launcher } = await import("playwright-core");
const browser = await launcher.launch({ executablePath: chromium, args: ["--no-sandbox", "--force-color-profile=srgb"] });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${icon}`);
  const out = join(root, "media", "icon.png");
  await page.locator("svg").screenshot({ path: out, omitBackground: true });
  console.log(`wrote ${out} (${SIZE}×${SIZE})`);
  if (preview) {
    const data = `data:image/png;base64,${readFileSync(out).toString("base64")}`;
    const tile = (bg) => `<div style="background:${bg};padding:24px;display:flex;gap:24px;align-items:center">`
      + `<img src="${data}" width="128" height="128"><img src="${data}" width="42" height="42"><img src="${data}" width="24" height="24"></div>`;
    await page.setViewportSize({ width: 560, height: 176 });
    await page.setContent(`<!doctype html><body style="margin:0;display:flex">${tile("#ffffff")}${tile("#1f1f1f")}</body>`);
    await page.screenshot({ path: preview });
    console.log(`wrote ${preview}`);
  }
} finally {
  await browser.close();
}
