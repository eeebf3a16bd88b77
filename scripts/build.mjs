// Builds every bundle: the extension host (cjs, `vscode` external), the webview (iife, browser),
// the built-in demo agent (a standalone node script shipped in the vsix), and — unless
// --production — the scripted test agents and the integration test suites.
import * as esbuild from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const production = process.argv.includes("--production");
// --minify: the extension, webview and demo agent bundles as the .vsix ships them (minified), the
// test bundles as usual, and source maps kept: `npm run bench` measures what users run.
const minify = production || process.argv.includes("--minify");
const watch = process.argv.includes("--watch");
const root = new URL("..", import.meta.url).pathname;

/** Lists files below dir whose name passes the test (recursive). */
function files(dir, test) {
  if (!existsSync(join(root, dir))) return [];
  const out = [];
  for (const name of readdirSync(join(root, dir))) {
    const rel = join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) out.push(...files(rel, test));
    else if (test(name)) out.push(rel);
  }
  return out;
}

/** esbuild reports problems in the format VS Code's `$esbuild-watch` matcher expects. */
const reportPlugin = {
  name: "report",
  setup(build) {
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      if (watch) console.log(`[watch] build finished (${result.errors.length} errors)`);
    });
  },
};

/**
 * zod's `locales` namespace bundles every language's error messages (≈260 KB minified); nothing
 * here reads anything but English, which zod configures by default from `locales/en.js` directly.
 * Resolve the namespace to English only.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]/.test(args.importer)) return undefined;
      const en = join(args.resolveDir, args.path.replace(/index\.js$/, "en.js"));
      return { path: "zod-locales-en", namespace: "zod-locales", pluginData: { en } };
    });
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.pluginData.en)};`,
      resolveDir: root,
    }));
  },
};

/**
 * Each module's `import * as vscode from "vscode"` would have esbuild wrap the external module once
 * per importer (`__toESM(require("vscode"))`): a new object with a getter for every export of the
 * API, about 47 KB of extension-host heap apiece, 1.4 MB for the extension's 29 importers. Every
 * import of "vscode" goes through one module that re-exports it instead, so it is wrapped once.
 */
const vscodeOnce = {
  name: "vscode-once",
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === "vscode-once" ? { path: "vscode", external: true } : { path: "vscode", namespace: "vscode-once" }));
    build.onLoad({ filter: /.*/, namespace: "vscode-once" }, () => ({ contents: 'export * from "vscode";', loader: "js" }));
  },
};

const node = {
  bundle: true,
  platform: "node",
  // ESM builds first: jsonc-parser's UMD main loads its parts with a require() esbuild cannot follow.
  mainFields: ["module", "main"],
  target: "node20",
  format: "cjs",
  sourcemap: production ? false : "linked",
  minify,
  logLevel: "warning",
  plugins: [reportPlugin, zodEnglishOnly],
  absWorkingDir: root,
};

const contexts = [
  { ...node, plugins: [...node.plugins, vscodeOnce], entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", external: ["vscode"] },
  { ...node, entryPoints: ["src/demo/demoAgent.ts"], outfile: "dist/demoAgent.js" },
];
if (existsSync(join(root, "src/webview/main.ts"))) {
  contexts.push({
    bundle: true, platform: "browser", target: "es2022", format: "iife",
    sourcemap: production ? false : "linked", minify, logLevel: "warning",
    plugins: [reportPlugin], absWorkingDir: root,
    entryPoints: ["src/webview/main.ts"], outfile: "dist/webview.js",
  });
}
if (!production) {
  const agents = files("test/fixtures/agents", (n) => n.endsWith(".ts"));
  if (agents.length) contexts.push({ ...node, minify: false, entryPoints: agents, outdir: "out/fixtures/agents" });
  for (const suite of ["integration", "smoke", "bench", "reload"]) {
    const entries = files(`test/${suite}`, (n) => n.endsWith(".ts"));
    if (entries.length) {
      contexts.push({
        ...node, minify: false, plugins: [...node.plugins, vscodeOnce], entryPoints: entries, outdir: `out/${suite}`, outbase: `test/${suite}`,
        external: ["vscode", "mocha"],
      });
    }
  }
}

if (!watch) {
  rmSync(join(root, "dist"), { recursive: true, force: true });
  if (!production) rmSync(join(root, "out"), { recursive: true, force: true });
}
const started = Date.now();
// Codicons ship with the extension so the webview uses VS Code's own icon font (no CDN, strict CSP).
mkdirSync(join(root, "dist", "codicons"), { recursive: true });
copyFileSync(join(root, "node_modules/@vscode/codicons/dist/codicon.ttf"), join(root, "dist", "codicons", "codicon.ttf"));
// The panel's page asks for the font as it loads (a preload, thoughtPanel.ts), not once its first
// icon is laid out; the preload names `codicon.ttf`, so the stylesheet must name it the same (without
// its cache-busting query: the font's URL is in the extension's versioned folder anyway).
const codiconCss = readFileSync(join(root, "node_modules/@vscode/codicons/dist/codicon.css"), "utf8");
const fontUrl = /url\("\.\/codicon\.ttf(\?[^"]*)?"\)/g;
if ((codiconCss.match(fontUrl) ?? []).length !== 1) throw new Error("codicon.css: expected one url(\"./codicon.ttf…\")");
writeFileSync(join(root, "dist", "codicons", "codicon.css"), codiconCss.replace(fontUrl, 'url("./codicon.ttf")'));
const built = await Promise.all(contexts.map((c) => esbuild.context(c)));
if (watch) {
  await Promise.all(built.map((c) => c.watch()));
  console.log("[watch] watching for changes");
} else {
  try {
    await Promise.all(built.map((c) => c.rebuild()));
  } finally {
    await Promise.all(built.map((c) => c.dispose()));
  }
  const outs = contexts.map((c) => c.outfile ? relative(root, join(root, c.outfile)) : c.outdir);
  console.log(`built ${outs.join(", ")} in ${Date.now() - started} ms${production ? " (production)" : minify ? " (minified)" : ""}`);
}
