#!/usr/bin/env node
// Runs a compiled test suite inside a REAL VS Code extension host: code-server (VS Code 1.100.3)
// driven by headless Chromium through playwright-core. Usage:
//   node test/host/runTests.mjs integration|smoke|bench
// integration/bench: the extension is loaded from the repo (extensionDevelopmentPath).
// smoke: dist-vsix/agent-thoughts.vsix is installed into a fresh extensions dir and the repo is NOT
// the development extension (an empty placeholder is, since the workbench runs tests only in
// extension-development mode), so the installed extension is what runs.
// Exit code: the suite's (0 = all passed), 1 on failure, 2 on harness errors/timeouts.
// See test/host/README.md for the environment variables.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { format } from "node:util";
import { dirname, join, resolve } from "node:path";
import {
  codeServerCli, copyWorkspace, ensureCodeServer, repoRoot, startCodeServer, workbenchUrl,
} from "./codeServer.mjs";

const MODES = ["integration", "smoke", "bench", "reload"];
const TAG = "\u200b"; // see forwardConsole() in test/integration/index.ts
const mode = process.argv[2];
if (!MODES.includes(mode)) {
  console.error(`usage: node test/host/runTests.mjs <${MODES.join("|")}>`);
  process.exit(2);
}

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const log = (msg) => console.log(`[host] ${msg}`);
const timeoutMs = Number(process.env.AGENT_THOUGHTS_TEST_TIMEOUT_MS || 20 * 60_000);
const resultsDir = join(repoRoot, "test-results");
const chromiumPath = process.env.AGENT_THOUGHTS_CHROMIUM
  ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));

const testsPath = join(repoRoot, "out", mode);
// `reload`: phases run one after another in the same window storage, each in a fresh workbench and
// extension host — what a window reload does. `bench` with the `startup` scenario (in the default
// set) reloads twice after the main run: test/bench/reloaded/index.ts measures each start.
const benchStartup = mode === "bench" && (!process.env.AGENT_THOUGHTS_BENCH || process.env.AGENT_THOUGHTS_BENCH.split(",").includes("startup"));
const phases = mode === "reload" ? ["phase1", "phase2"].map((p) => join(testsPath, p))
  : benchStartup ? [testsPath, join(testsPath, "reloaded"), join(testsPath, "reloaded")]
  : [testsPath];
if (!existsSync(join(phases[0], "index.js"))) {
  if (mode === "bench") {
    log(`no bench suite (${testsPath}/index.js missing); nothing to run`);
    process.exit(0);
  }
  console.error(`[host] ${testsPath}/index.js is missing — run \`node scripts/build.mjs\` first`);
  process.exit(2);
}
if (!chromiumPath) {
  console.error("[host] no Chromium found (apt-get install -y chromium, or set AGENT_THOUGHTS_CHROMIUM)");
  process.exit(2);
}

// Where webviews live. VS Code serves each webview from an origin of its own (desktop: a
// vscode-webview://<id> origin; vscode.dev: a <hash>.vscode-cdn.net host), so Chromium's site
// isolation runs it in a renderer process of its own, beside the workbench's. code-server serves
// them from the workbench's own origin, which puts every webview on the workbench's main thread.
// "own" (default) gives each webview a <hash>.localhost host, as VS Code does; "shared" keeps
// code-server's layout, to measure what code-server's users see.
const webviewOrigin = process.env.AGENT_THOUGHTS_WEBVIEW_ORIGIN ?? "own";
if (!["own", "shared"].includes(webviewOrigin)) {
  console.error(`[host] AGENT_THOUGHTS_WEBVIEW_ORIGIN is own or shared, not ${webviewOrigin}`);
  process.exit(2);
}

/**
 * Has code-server's workbench page put webviews on `http://<hash>.localhost:<port>`: the page's
 * webview endpoint (which VS Code fills with the hash of the page's origin, as its webview checks)
 * and the page's CSP frame-src. Chromium resolves *.localhost to loopback itself.
 */
async function webviewsOnTheirOwnOrigin(context, serverUrl) {
  const server = new URL(serverUrl);
  const pages = { rewritten: 0 };
  const own = `http://{{uuid}}.localhost:${server.port}`;
  await context.route((url) => url.origin === server.origin && url.pathname === server.pathname && url.searchParams.has("folder"), async (route) => {
    const response = await route.fetch();
    let endpoints = 0;
    // The configuration is HTML-escaped JSON in a meta tag's attribute; the endpoint is a path on the page's host.
    const body = (await response.text()).replace(/(&quot;webviewEndpoint&quot;:&quot;)([^&]*)(&quot;)/g, (_m, a, path, b) => {
      endpoints++;
      return `${a}${own}/${path}${b}`;
    });
    const headers = { ...response.headers() };
    const csp = headers["content-security-policy"] ?? "";
    if (endpoints !== 1 || !csp.includes("frame-src 'self'")) {
      console.error("[host] code-server's workbench page no longer has the webview endpoint or frame-src that webviewsOnTheirOwnOrigin rewrites");
      await route.abort();
      return;
    }
    headers["content-security-policy"] = csp.replace("frame-src 'self'", `frame-src 'self' http://*.localhost:${server.port}`);
    // The body is sent decoded.
    for (const h of ["content-encoding", "content-length", "transfer-encoding"]) delete headers[h];
    await route.fulfill({ response, body, headers });
    pages.rewritten++;
  });
  return pages;
}

/**
 * Playwright's own `--disable-features=…` switch, read off a probe browser's command line (Linux):
 * Chromium keeps only the last of a repeated switch, so a list of ours must carry Playwright's too.
 */
async function playwrightDisabledFeatures(chromium) {
  const probe = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"] });
  try {
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid) continue;
        const arg = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").find((a) => a.startsWith("--disable-features="));
        if (arg) return arg;
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    return undefined;
  } finally {
    await probe.close();
  }
}

let server;
let browser;
let exitCode;
const temp = mkdtempSync(join(tmpdir(), "agent-thoughts-run-"));
// Also on Ctrl+C (codeServer.mjs stops code-server and exits; Playwright closes Chromium).
process.on("exit", () => {
  if (!process.env.AGENT_THOUGHTS_KEEP_TEMP) rmSync(temp, { recursive: true, force: true });
});
try {
  ensureCodeServer();
  // The overall timeout starts once code-server is installed (the first install takes ~1 min).
  const deadline = Date.now() + timeoutMs;

  // smoke: install the packaged extension into a fresh extensions dir.
  let extensionsDir;
  if (mode === "smoke") {
    const vsix = resolve(repoRoot, process.env.AGENT_THOUGHTS_VSIX || "dist-vsix/agent-thoughts.vsix");
    if (!existsSync(vsix)) throw new Error(`${vsix} is missing — run \`npm run package\` first`);
    extensionsDir = join(temp, "extensions");
    mkdirSync(extensionsDir, { recursive: true });
    const started = Date.now();
    const out = codeServerCli(["--install-extension", vsix, "--extensions-dir", extensionsDir, "--force"]);
    log(`installed ${vsix} in ${Date.now() - started} ms: ${out.trim().split("\n").pop()}`);
  }

  // Tests ask for screenshots by dropping <id>.json ({"path": …}) here; we answer with <id>.done.
  const screenshotRequests = join(temp, "screenshot-requests");
  mkdirSync(screenshotRequests);
  const folder = copyWorkspace(temp);
  server = await startCodeServer({
    folder,
    extensionsDir,
    quiet: !process.env.AGENT_THOUGHTS_HOST_VERBOSE,
    env: {
      // The extension host inherits code-server's environment.
      AGENT_THOUGHTS_REPO: repoRoot,
      AGENT_THOUGHTS_WORKSPACE: folder,
      AGENT_THOUGHTS_TEST_MODE: mode,
      AGENT_THOUGHTS_WEBVIEW_ORIGIN: webviewOrigin,
      AGENT_THOUGHTS_SCREENSHOT_REQUESTS: screenshotRequests,
    },
  });
  log(`code-server ${server.url} ready after ${elapsed()} (workspace ${folder})`);

  const { chromium } = await import("playwright-core");
  // Webviews on their own origin (webviewsOnTheirOwnOrigin) need two of Chromium's features as
  // they are not in Playwright's list: third-party storage partitioning on (Chromium's default,
  // which Playwright turns off), since a webview is a cross-site frame that registers a service
  // worker; and the local network access checks off, since a page answered through Playwright
  // counts as public to them and its loopback connections (the WebSocket to code-server) and frames
  // would be refused.
  const defaults = webviewOrigin === "own" ? await playwrightDisabledFeatures(chromium) : undefined;
  if (webviewOrigin === "own" && !defaults) log("Playwright's --disable-features list was not found (no /proc?): only LocalNetworkAccessChecks is disabled");
  const disabled = defaults ? defaults.slice("--disable-features=".length).split(",").filter((f) => f && f !== "ThirdPartyStoragePartitioning") : [];
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    ...(defaults ? { ignoreDefaultArgs: [defaults] } : {}),
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-precise-memory-info",
      ...(webviewOrigin === "own" ? [`--disable-features=${[...disabled, "LocalNetworkAccessChecks"].join(",")}`] : [])],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // code-server registers a PWA service worker for its whole origin. With webviews on that origin
  // (AGENT_THOUGHTS_WEBVIEW_ORIGIN=shared), once it controls the page, a webview re-created after
  // being hidden waits forever for its own worker. Refuse code-server's worker.
  await context.route("**/_static/out/browser/serviceWorker.js", (route) => route.fulfill({ status: 404, body: "" }));
  const ownOrigins = webviewOrigin === "own" ? await webviewsOnTheirOwnOrigin(context, server.url) : undefined;
  const page = await context.newPage();

  const screenshot = async (path) => {
    const abs = resolve(repoRoot, path);
    mkdirSync(dirname(abs), { recursive: true });
    await page.screenshot({ path: abs });
    return abs;
  };

  let settle;
  let finished;
  const armExit = () => { finished = new Promise((r) => { settle = r; }); };
  armExit();
  let testsStarted = false;
  const printedErrors = new Set();
  await page.exposeFunction("codeAutomationLog", (type, args) => {
    // args: the arguments of the console call (extension host) or log call (workbench). Lines from
    // the test reporter are tagged with U+200B by test/integration/index.ts (log()).
    const text = Array.isArray(args) ? format(...args) : String(args);
    const fromTests = text.startsWith(TAG);
    const body = fromTests ? text.slice(TAG.length) : text;
    if (!testsStarted && body.startsWith("[agent-thoughts-tests] start")) {
      testsStarted = true;
      log(`tests running after ${elapsed()}`);
    }
    if (fromTests) {
      console.log(body);
    } else if (process.env.AGENT_THOUGHTS_HOST_VERBOSE) {
      console.log(`[workbench:${type}] ${body}`);
    } else if (/open-vsx\.org|ENOTFOUND|EAI_AGAIN/.test(body)) {
      // offline: the marketplace (open-vsx.org) is unreachable; harmless
    } else if (testsStarted) {
      // Other console output while tests run (tests, the extension; rarely the workbench).
      console.log(`[log${type === "info" ? "" : ":" + type}] ${body}`);
    } else if (type === "error") {
      // Workbench errors before the tests start (e.g. the test runner failing to load): first line, once.
      const line = body.split("\n")[0];
      if (!printedErrors.has(line)) {
        printedErrors.add(line);
        console.log(`[workbench:error] ${line}`);
      }
    }
  });
  await page.exposeFunction("codeAutomationExit", (code) => settle({ code: Number(code) }));
  // For tests driven from the page (Playwright) side; extension-host code uses the file handshake.
  await page.exposeFunction("agentThoughtsScreenshot", (path) => screenshot(path));

  page.on("pageerror", (e) => {
    if (process.env.AGENT_THOUGHTS_HOST_VERBOSE) console.log(`[page error] ${e.message}`);
  });
  // AGENT_THOUGHTS_RPC_LOG=<file>: the workbench logs every message between it and the extension
  // host (VS Code's logExtensionHostCommunication); tallied here by direction and method, with their
  // bytes, and written to <file> every 2 s (the logging costs the workbench: not for figures).
  const rpcLog = process.env.AGENT_THOUGHTS_RPC_LOG;
  const rpc = new Map();
  if (rpcLog) {
    setInterval(() => {
      const rows = [...rpc].sort((a, b) => b[1].bytes - a[1].bytes).map(([k, v]) => `${String(v.n).padStart(8)} ${String(v.bytes).padStart(12)}  ${k}`);
      writeFileSync(rpcLog, `messages    bytes  direction and method, as of ${new Date().toISOString()}\n${rows.join("\n")}\n`);
    }, 2000).unref();
  }
  page.on("console", (msg) => {
    const m = rpcLog && /\[(Ext \u2192 Win|Win \u2192 Ext)\]%c\[\s*\d+\]%c\[len:\s*(\d+)\]%c\s*\d+ - (\S+(?: [A-Z][^\s(]*)?)/.exec(msg.text());
    if (m) {
      const key = `${m[1]} ${m[3]}`;
      const tally = rpc.get(key) ?? { n: 0, bytes: 0 };
      tally.n++;
      tally.bytes += Number(m[2]);
      rpc.set(key, tally);
      return;
    }
    if (process.env.AGENT_THOUGHTS_HOST_VERBOSE) console.log(`[browser:${msg.type()}] ${msg.text()}`);
  });

  /**
   * The webview frame of the thought panel (`view`: "sidebar" | "editor" | undefined = any), found
   * by the marker the host puts on its <body>; retried while the view loads.
   */
  const webviewFrame = async (view, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      // The newest matching frame: a view that was hidden and shown again may leave its old frame behind for a while.
      for (const f of [...page.frames()].reverse()) {
        if (f.isDetached()) continue;
        const kind = await f.evaluate("document.body && document.body.dataset.agentThoughtsView || ''").catch(() => "");
        if (kind && (!view || kind === view)) return f;
      }
      if (Date.now() > until) throw new Error(`no ${view ?? "Agent Thoughts"} webview frame within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  let cdp;
  let pageCdp;
  /** The CDP sessions a `profileStart` started profiling. */
  let profiled = [];
  const panelSessions = new WeakMap();
  /**
   * The CDP session of the renderer that runs the panel (`view`, default the sidebar's): with
   * webviews on their own origin, the process of the webview's outer frame (its inner frame shares
   * it and has no session of its own); else the page's, which runs the workbench and the webviews.
   */
  const panelCdp = async (view) => {
    if (webviewOrigin !== "own") return pageCdp ??= await page.context().newCDPSession(page);
    for (let f = await webviewFrame(view ?? "sidebar"); f && f !== page.mainFrame(); f = f.parentFrame()) {
      let session = panelSessions.get(f);
      if (!session) {
        session = await page.context().newCDPSession(f).catch(() => undefined);
        if (session) panelSessions.set(f, session);
      }
      if (session) return session;
    }
    throw new Error("the panel's webview has no renderer process of its own");
  };
  /** Carries out one request from extension-host tests (see test/integration/webview.ts). */
  const handle = async (req) => {
    switch (req.op ?? "screenshot") {
      case "screenshot": return { path: await screenshot(req.path) };
      case "evaluate": {
        // An expression string: CDP evaluation is not subject to the webview's CSP (no eval inside).
        const f = await webviewFrame(req.view);
        return { value: await f.evaluate(`(${req.fn})(${JSON.stringify(req.arg ?? null)})`) };
      }
      case "click": await (await webviewFrame(req.view)).click(req.selector, { timeout: 10_000 }); return {};
      case "fill": await (await webviewFrame(req.view)).fill(req.selector, req.text, { timeout: 10_000 }); return {};
      case "press": await (await webviewFrame(req.view)).press(req.selector, req.key, { timeout: 10_000 }); return {};
      case "keyboard": await page.keyboard.press(req.key); return {};
      // The pointer over an element (it stays there until moved again).
      case "hover": await (await webviewFrame(req.view)).hover(req.selector, { timeout: 10_000 }); return {};
      // The page's media features, such as { reducedMotion: "reduce" } (null puts one back).
      case "media": await page.emulateMedia(req.media); return {};
      // Real key presses into an element, one character at a time (keydown, keypress, input, keyup), `delay` ms apart.
      case "type": await (await webviewFrame(req.view)).locator(req.selector).pressSequentially(req.text, { delay: req.delay ?? 0, timeout: 60_000 }); return {};
      // The browser window's size (the workbench lays itself out again).
      case "viewport": await page.setViewportSize({ width: req.width, height: req.height }); return {};
      // The workbench page itself (terminal panel, notifications), as an expression string.
      case "workbench": return { value: await page.evaluate(`(${req.fn})(${JSON.stringify(req.arg ?? null)})`) };
      case "frames": return { value: await Promise.all(page.frames().map(async (f) => `${f.isDetached() ? "detached " : ""}${f.url().slice(0, 160)} view=${await f.evaluate("document.body && document.body.dataset.agentThoughtsView || ''").catch(() => "?")} root=${await f.evaluate("String(!!document.getElementById('root') && document.getElementById('root').childElementCount)").catch(() => "?")}`)) };
      // A CPU profile of the panel's renderer main thread, for the bench.
      // When the panel has a renderer of its own, the workbench page's renderer is profiled too
      // (it relays every message to the panel), written beside it as <name>-workbench.cpuprofile.
      case "profileStart": {
        const panel = await panelCdp(req.view);
        pageCdp ??= await page.context().newCDPSession(page);
        profiled = panel === pageCdp ? [panel] : [panel, pageCdp];
        for (const session of profiled) {
          await session.send("Profiler.enable");
          await session.send("Profiler.setSamplingInterval", { interval: 200 });
        }
        await Promise.all(profiled.map((session) => session.send("Profiler.start")));
        return {};
      }
      case "profileStop": {
        if (!profiled.length) throw new Error("profileStart first");
        const profiles = await Promise.all(profiled.map((session) => session.send("Profiler.stop")));
        mkdirSync(dirname(req.path), { recursive: true });
        writeFileSync(req.path, JSON.stringify(profiles[0].profile));
        if (profiles[1]) writeFileSync(req.path.replace(/(\.cpuprofile)?$/, "-workbench.cpuprofile"), JSON.stringify(profiles[1].profile));
        profiled = [];
        return { path: req.path };
      }
      // The JS heap of the panel's renderer (with AGENT_THOUGHTS_WEBVIEW_ORIGIN=shared, the workbench's too), after a full GC when `gc`, for the bench.
      case "heap": {
        const session = await panelCdp(req.view);
        if (req.gc) await session.send("HeapProfiler.collectGarbage");
        const { usedSize, totalSize } = await session.send("Runtime.getHeapUsage");
        return { value: { used: usedSize, total: totalSize } };
      }
      // A performance trace of the renderer (style, layout, paint, scripts), for the bench's breakdown of where frames go.
      // Tracing records every process (the workbench's and the panel's).
      case "traceStart": {
        cdp = pageCdp ??= await page.context().newCDPSession(page);
        await cdp.send("Tracing.start", { transferMode: "ReturnAsStream", traceConfig: { includedCategories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute"] } });
        return {};
      }
      case "traceStop": {
        if (!cdp) throw new Error("traceStart first");
        const done = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
        await cdp.send("Tracing.end");
        const { stream } = await done;
        const parts = [];
        for (;;) {
          const chunk = await cdp.send("IO.read", { handle: stream, size: 1 << 20 });
          parts.push(chunk.base64Encoded ? Buffer.from(chunk.data, "base64").toString("utf8") : chunk.data);
          if (chunk.eof) break;
        }
        await cdp.send("IO.close", { handle: stream });
        mkdirSync(dirname(req.path), { recursive: true });
        writeFileSync(req.path, parts.join(""));
        return { path: req.path };
      }
      default: throw new Error(`unknown request ${req.op}`);
    }
  };

  // Requests from extension-host tests: <id>.json in, <id>.done out.
  let busy = false;
  const poll = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      for (const name of readdirSync(screenshotRequests)) {
        if (!name.endsWith(".json")) continue;
        const req = join(screenshotRequests, name);
        const base = req.slice(0, -".json".length);
        let reply;
        try {
          const request = JSON.parse(readFileSync(req, "utf8"));
          rmSync(req);
          reply = await handle(request);
        } catch (e) {
          rmSync(req, { force: true });
          reply = { error: String(e?.message ?? e) };
        }
        writeFileSync(`${base}.tmp`, JSON.stringify(reply));
        renameSync(`${base}.tmp`, `${base}.done`);
      }
    } finally {
      busy = false;
    }
  }, 10);

  // The workbench only runs extensionTestsPath in extension-development mode, so smoke loads an
  // empty placeholder extension as the "development" one; the installed vsix runs as installed.
  let extensionDevelopmentPath = repoRoot;
  if (mode === "smoke") {
    extensionDevelopmentPath = join(temp, "smoke-placeholder-extension");
    mkdirSync(extensionDevelopmentPath);
    writeFileSync(join(extensionDevelopmentPath, "package.json"), JSON.stringify({
      name: "smoke-placeholder", publisher: "agent-thoughts-tests", version: "0.0.0",
      engines: { vscode: "*" },
    }));
  }
  let outcome = { code: 0 };
  for (const phase of phases) {
    armExit();
    const url = workbenchUrl(server, { folder, extensionDevelopmentPath, extensionTestsPath: phase });
    if (process.env.AGENT_THOUGHTS_HOST_VERBOSE) log(`opening ${url}`);
    const rewritten = ownOrigins?.rewritten;
    await page.goto(url);
    // Loud, not a silent run in code-server's own layout: the page must have come through the rewrite.
    if (ownOrigins && ownOrigins.rewritten === rewritten) throw new Error("the workbench page did not come through webviewsOnTheirOwnOrigin (its URL no longer matches?)");
    log(`workbench loaded after ${elapsed()}; running ${mode}${phases.length > 1 ? ` (${phase.split("/").pop()})` : ""} tests (timeout ${timeoutMs / 1000} s)…`);
    outcome = await Promise.race([
      finished,
      new Promise((r) => setTimeout(() => r({ timeout: true }), Math.max(0, deadline - Date.now()))),
    ]);
    if (outcome.timeout || outcome.code !== 0) break;
  }
  clearInterval(poll);
  if (outcome.timeout) {
    console.error(`[host] TIMEOUT: ${mode} tests did not finish within ${timeoutMs / 1000} s`);
    exitCode = 2;
  } else {
    exitCode = outcome.code;
  }
  if (exitCode !== 0) {
    const shot = await screenshot(join(resultsDir, `${mode}-failure.png`)).catch(() => undefined);
    if (shot) log(`failure screenshot: ${shot}`);
  }
  if (process.env.AGENT_THOUGHTS_SCREENSHOT) {
    const shot = await screenshot(process.env.AGENT_THOUGHTS_SCREENSHOT).catch((e) => log(`screenshot failed: ${e}`));
    if (shot) log(`screenshot: ${shot}`);
  }
  log(`${mode}: exit code ${exitCode} after ${elapsed()}`);
} catch (e) {
  console.error(`[host] ${e?.stack ?? e}`);
  if (server) console.error(`[host] code-server output:\n${server.output()}`);
  exitCode = 2;
} finally {
  await browser?.close().catch(() => {});
  await server?.stop();
}
process.exit(exitCode);
