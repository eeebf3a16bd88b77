/** The connection asks its host for MCP servers with what the agent declared, and sends them with every session start. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { McpCapabilitiesLike, McpServerEntry } from "../../src/core/mcpServers";
import { harness, type Harness } from "./harness";
import { recorded } from "../support/recorded";

interface Received { method: string; params: Record<string, unknown> }

describe("ACP client: the user's MCP servers", function () {
  this.timeout(20_000);
  let h: Harness | undefined;
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-mcp-proto-")); });
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const SERVERS: McpServerEntry[] = [
    { name: "files", command: "files-server", args: ["--root", "/w"], env: [{ name: "A", value: "1" }] },
    { type: "http", name: "web", url: "https://mcp.example.test/mcp", headers: [] },
  ];

  function received(file: string): Received[] {
    return recorded<Received>(file);
  }

  it("session/new, session/resume and session/load carry the servers, asked for with the agent's mcpCapabilities; session_start names them", async () => {
    const record = path.join(dir, "record.jsonl");
    h = await harness({ recordFile: record, storeDir: path.join(dir, "store"), capabilities: { loadSession: true, sessionCapabilities: { resume: {} }, mcpCapabilities: { http: true } }, turns: [[{ message: "ok" }]] });
    const asked: { agent: string; caps: McpCapabilitiesLike | undefined }[] = [];
    h.ports.mcp = { serversFor: (agent, caps) => { asked.push({ agent, caps }); return Promise.resolve(SERVERS); } };
    const s = await (await h.start()).newSession(h.dir);
    await s.prompt("x").result;
    const start = s.log.all()[0]!;
    assert.ok(start.kind === "session_start");
    assert.deepEqual(start.mcpServers, ["files", "web"]);
    const saved = { sessionId: "", agentSessionId: s.agentSessionId, cwd: h.dir, lastSeq: 0, lastTurnId: 0, shownPrompts: [] };
    await (await h.start()).continueSession(saved, "resume");
    await (await h.start()).continueSession(saved, "load");
    const sent = received(record).filter((m) => ["session/new", "session/resume", "session/load"].includes(m.method));
    assert.deepEqual(sent.map((m) => m.method), ["session/new", "session/resume", "session/load"]);
    for (const m of sent) assert.deepEqual(m.params.mcpServers, SERVERS, `${m.method} carries the servers`);
    assert.deepEqual(asked, Array.from({ length: 3 }, () => ({ agent: "Scripted", caps: { http: true } })));
    assert.ok(h.logger.lines.some((l) => l.includes('MCP servers for "Scripted": files (stdio), web (http)')), "the log says which servers the agent got");
  });

  it("a host whose MCP servers cannot be read starts the session with none, and says so in the log", async () => {
    const record = path.join(dir, "record.jsonl");
    h = await harness({ recordFile: record, turns: [[{ message: "ok" }]] });
    h.ports.mcp = { serversFor: () => Promise.reject(new Error("settings unreadable")) };
    const s = await (await h.start()).newSession(h.dir);
    const start = s.log.all()[0]!;
    assert.ok(start.kind === "session_start" && start.mcpServers === undefined);
    assert.deepEqual(received(record).find((m) => m.method === "session/new")?.params.mcpServers, []);
    assert.ok(h.logger.lines.some((l) => l.includes("settings unreadable")));
  });
});
