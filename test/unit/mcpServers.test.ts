/** VS Code MCP configuration to ACP `mcpServers`: substitution, types, skipping, capabilities, trust, hostile input. */
import * as assert from "node:assert/strict";
import { confirmationKey, forAgent, gate, MCP_LIMITS, readMcpConfig, type McpCandidate, type SubstitutionContext } from "../../src/core/mcpServers";

const ctx: SubstitutionContext = { workspaceFolder: "/w/proj", userHome: "/home/u", env: { TOKEN: "t0k", PATHY: "/opt/bin" }, pathSeparator: "/" };

function read(servers: unknown, c: SubstitutionContext = ctx) {
  return readMcpConfig({ servers }, "workspace", "/w/proj/.vscode/mcp.json", c);
}

describe("MCP servers from VS Code configuration", () => {
  it("turns stdio, http and sse servers into ACP entries, inferring the type from command or url", () => {
    const { servers, skipped } = read({
      files: { type: "stdio", command: "npx", args: ["-y", "@mcp/files", 3], env: { DEBUG: "1", N: 2, GONE: null } },
      implied: { command: "node", args: ["s.js"] },
      web: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
      impliedWeb: { url: "http://localhost:3000/mcp" },
      old: { type: "sse", url: "https://sse.example.com/events" },
    });
    assert.deepEqual(skipped, []);
    assert.deepEqual(servers.map((c) => c.server), [
      { name: "files", command: "npx", args: ["-y", "@mcp/files", "3"], env: [{ name: "DEBUG", value: "1" }, { name: "N", value: "2" }] },
      { name: "implied", command: "node", args: ["s.js"], env: [] },
      { type: "http", name: "web", url: "https://mcp.example.com/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] },
      { type: "http", name: "impliedWeb", url: "http://localhost:3000/mcp", headers: [] },
      { type: "sse", name: "old", url: "https://sse.example.com/events", headers: [] },
    ]);
    assert.ok(servers.every((c) => c.source === "workspace" && c.origin === "/w/proj/.vscode/mcp.json"));
  });

  it("substitutes ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome}, ${env:…} and ${/} everywhere", () => {
    const { servers } = read({
      s: { command: "${workspaceFolder}/bin/srv", args: ["--root=${workspaceFolder}", "${userHome}${/}cfg", "${workspaceFolderBasename}"], env: { TOKEN: "${env:TOKEN}", MISSING: "[${env:NOPE}]", P: "${env:PATHY}:${pathSeparator}" } },
      h: { type: "http", url: "https://h.example/${env:TOKEN}", headers: { "X-Key": "k-${env:TOKEN}" } },
    });
    assert.deepEqual(servers[0]!.server, { name: "s", command: "/w/proj/bin/srv", args: ["--root=/w/proj", "/home/u/cfg", "proj"], env: [{ name: "TOKEN", value: "t0k" }, { name: "MISSING", value: "[]" }, { name: "P", value: "/opt/bin:/" }] });
    assert.deepEqual(servers[1]!.server, { type: "http", name: "h", url: "https://h.example/t0k", headers: [{ name: "X-Key", value: "k-t0k" }] });
  });

  it("skips, with a reason, servers needing ${input:…}, ${command:…}, other variables, envFile, or a folder when none is open", () => {
    const { servers, skipped } = read({
      asks: { command: "srv", env: { KEY: "${input:api-key}" } },
      runs: { command: "srv", args: ["${command:workbench.action.terminal.new}"] },
      config: { url: "https://x.example/${config:editor.fontSize}" },
      envFile: { command: "srv", envFile: "${workspaceFolder}/.env" },
      ok: { command: "srv" },
    });
    assert.deepEqual(servers.map((c) => c.server.name), ["ok"]);
    const why = Object.fromEntries(skipped.map((s) => [s.name, s.reason]));
    assert.match(why.asks!, /needs a value you type in \(\$\{input:api-key\}\)/);
    assert.match(why.runs!, /\$\{command:workbench\.action\.terminal\.new\}.*does not resolve/);
    assert.match(why.config!, /\$\{config:editor\.fontSize\}/);
    assert.match(why.envFile!, /envFile/);
    const noFolder = read({ s: { command: "${workspaceFolder}/x" } }, { ...ctx, workspaceFolder: undefined });
    assert.equal(noFolder.servers.length, 0);
    assert.match(noFolder.skipped[0]!.reason, /no folder is open/);
  });

  it("says which ${input:…} a server needs and what to ask (from the configuration's inputs), and uses a typed value", () => {
    const config = {
      servers: { gh: { command: "gh-mcp", env: { TOKEN: "${input:token}", OTHER: "${input:other}" } } },
      inputs: [{ type: "promptString", id: "token", description: "GitHub token", password: true }],
    };
    const first = readMcpConfig(config, "user", "user settings (mcp)", ctx);
    assert.deepEqual(first.needs, [{ id: "token", description: "GitHub token", password: true, server: "gh", origin: "user settings (mcp)", source: "user" }]);
    const second = readMcpConfig(config, "user", "user settings (mcp)", { ...ctx, inputs: { token: "t0k" } });
    assert.deepEqual(second.needs.map((n) => [n.id, n.description, n.password]), [["other", "other", true]], "an undeclared input is asked by its id, hidden");
    const done = readMcpConfig(config, "user", "user settings (mcp)", { ...ctx, inputs: { token: "t0k", other: "o" } });
    assert.deepEqual(done.servers[0]!.server, { name: "gh", command: "gh-mcp", args: [], env: [{ name: "TOKEN", value: "t0k" }, { name: "OTHER", value: "o" }] });
    assert.equal(readMcpConfig(config, "user", "x", { ...ctx, inputs: Object.create({ token: "inherited" }) as Record<string, string> }).needs.length, 1, "only own values count");
  });

  it("skips malformed servers one by one and never throws on hostile input", () => {
    const { servers, skipped } = read({
      noType: { args: [] },
      badType: { type: "websocket", url: "ws://x" },
      noCommand: { type: "stdio" },
      blank: { command: "   " },
      argsNotList: { command: "x", args: "a b" },
      objArg: { command: "x", args: [{}] },
      badUrl: { type: "http", url: "not a url" },
      fileUrl: { type: "http", url: "file:///etc/passwd" },
      headersList: { url: "https://x.example", headers: ["a"] },
      notObject: 42,
      nul: null,
      good: { command: "x" },
    });
    assert.deepEqual(servers.map((c) => c.server.name), ["good"]);
    assert.equal(skipped.length, 11);
    for (const s of skipped) assert.ok(s.reason.length > 0 && s.reason.length < 200, s.reason);
    for (const raw of [undefined, null, 1, "x", [], { servers: [] }, { servers: "x" }, { servers: null }, Object.create(null) as object, { servers: { ["__proto__"]: { command: "x" } } }]) {
      assert.doesNotThrow(() => readMcpConfig(raw, "user", "settings", ctx));
    }
    const env = read({ s: { command: "x", env: { A: "${env:constructor}${env:__proto__}" } } });
    assert.deepEqual(env.servers[0]!.server, { name: "s", command: "x", args: [], env: [{ name: "A", value: "" }] }, "no prototype property leaks in");
  });

  it("bounds names, counts and sizes", () => {
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`s${i}`, { command: "x" }]));
    const r = read(many);
    assert.equal(r.servers.length, MCP_LIMITS.serversPerSource);
    assert.match(r.skipped[0]!.reason, /only the first 32/);
    const big = read({
      ["n".repeat(500)]: { command: "x" },
      longCmd: { command: "c".repeat(MCP_LIMITS.command + 1) },
      manyArgs: { command: "x", args: Array.from({ length: MCP_LIMITS.args + 1 }, () => "a") },
      longArg: { command: "x", args: ["a".repeat(MCP_LIMITS.arg + 1)] },
      manyEnv: { command: "x", env: Object.fromEntries(Array.from({ length: MCP_LIMITS.envEntries + 1 }, (_, i) => [`E${i}`, "v"])) },
      longUrl: { url: `https://x.example/${"u".repeat(MCP_LIMITS.url)}` },
      blowUp: { command: "x", args: ["${env:HUGE}".repeat(200)] },
    }, { ...ctx, env: { HUGE: "h".repeat(10_000) } });
    assert.equal(big.servers.length, 0);
    assert.equal(big.skipped.length, 7);
    assert.ok(big.skipped.every((s) => s.name.length <= MCP_LIMITS.name + 1));
  });

  it("reads a bare servers object (agentThoughts.mcpServers) and the user's `mcp` setting", () => {
    const bare = readMcpConfig({ a: { command: "x" } }, "setting", "agentThoughts.mcpServers", ctx, true);
    assert.deepEqual(bare.servers.map((c) => [c.source, c.server.name]), [["setting", "a"]]);
    const user = readMcpConfig({ servers: { b: { url: "https://b.example" } }, inputs: [] }, "user", "user settings (mcp)", ctx);
    assert.deepEqual(user.servers.map((c) => [c.source, c.server.name]), [["user", "b"]]);
  });

  it("gives an agent stdio always, http and sse only when it declares them, first of each name, bounded", () => {
    const cands = [
      ...readMcpConfig({ dup: { command: "first" } }, "setting", "s", ctx, true).servers,
      ...read({ dup: { command: "second" }, io: { command: "x" }, web: { type: "http", url: "https://w.example" }, old: { type: "sse", url: "https://o.example" } }).servers,
    ];
    const none = forAgent(cands, undefined);
    assert.deepEqual(none.servers.map((s) => s.name), ["dup", "io"]);
    assert.equal((none.servers[0] as { command: string }).command, "first");
    assert.deepEqual(none.chosen.map((c) => c.source), ["setting", "workspace"], "the chosen candidates, whose source decides whether the user is asked");
    assert.deepEqual(Object.fromEntries(none.skipped.map((s) => [s.name, s.reason])), { dup: "a server of the same name comes first", web: "the agent does not declare MCP over HTTP", old: "the agent does not declare MCP over SSE" });
    assert.deepEqual(forAgent(cands, { http: true }).servers.map((s) => s.name), ["dup", "io", "web"]);
    assert.deepEqual(forAgent(cands, { http: true, sse: true }).servers.map((s) => s.name), ["dup", "io", "web", "old"]);
    assert.deepEqual(forAgent(cands, { http: false, sse: true }).servers.map((s) => s.name), ["dup", "io", "old"]);
    const lots: McpCandidate[] = Array.from({ length: 100 }, (_, i) => ({ source: "user", origin: "u", server: { name: `s${i}`, command: "x", args: [], env: [] } }));
    const bounded = forAgent(lots, {});
    assert.equal(bounded.servers.length, MCP_LIMITS.total);
    assert.equal(bounded.skipped.length, 100 - MCP_LIMITS.total);
  });

  it("forwards workspace servers only in a trusted workspace, after the user's yes; user and setting servers as they are", () => {
    const [ws] = read({ s: { command: "x" } }).servers;
    const [user] = readMcpConfig({ s: { command: "x" } }, "user", "u", ctx, true).servers;
    const [setting] = readMcpConfig({ s: { command: "x" } }, "setting", "a", ctx, true).servers;
    assert.equal(gate(ws!, false), "untrusted");
    assert.equal(gate(ws!, true), "confirm");
    assert.equal(gate(user!, false), "forward");
    assert.equal(gate(setting!, false), "forward");
  });

  it("asks again when what a workspace server runs changes, and keeps no secret in the key", () => {
    const key = (def: unknown) => confirmationKey(read({ s: def }).servers[0]!);
    const base = key({ command: "x", args: ["a"], env: { T: "${env:TOKEN}" } });
    assert.equal(base, key({ command: "x", args: ["a"], env: { T: "${env:TOKEN}" } }));
    assert.notEqual(base, key({ command: "x", args: ["b"], env: { T: "${env:TOKEN}" } }));
    assert.notEqual(base, key({ command: "y", args: ["a"], env: { T: "${env:TOKEN}" } }));
    assert.notEqual(base, key({ command: "x", args: ["a"], env: { T: "other" } }));
    assert.notEqual(key({ url: "https://a.example" }), key({ url: "https://b.example" }));
    assert.ok(!base.includes("t0k") && /^[0-9a-f]{64}$/.test(base));
  });
});
