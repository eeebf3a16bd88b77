// The user's MCP servers reach the agent, in a real VS Code: a workspace `.vscode/mcp.json` stdio
// server (once the user agrees) and an http one arrive in session/new with ${workspaceFolder}
// resolved, next to agentThoughts.mcpServers; http is left out for an agent that does not declare
// it; a server needing ${input:…} is skipped; agentThoughts.mcp.forward off sends none.
// (The untrusted-workspace decision is unit-tested: this host runs a trusted workspace.)
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Scenario } from "../fixtures/agents/scenario";
import { api, quickInputTitle, scriptedAgent, until } from "./helpers";
import { harnessRequest } from "./index";
import { waitFor } from "./webview";
import { recorded } from "../support/recorded";


interface Received { method: string; params: Record<string, unknown> }
function received(file: string): Received[] {
  return recorded<Received>(file);
}

interface Server { name: string; type?: string; command?: string; args?: string[]; env?: { name: string; value: string }[]; url?: string; headers?: { name: string; value: string }[] }

describe("your MCP servers, for any agent", function () {
  this.timeout(90_000);
  let dir: string;
  let folder: string;
  let vscodeDir: string;
  let createdVscodeDir = false;
  // A fresh server each run, so the confirmation remembered from an earlier run does not answer for it.
  const stamp = `${Date.now()}`;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-mcp-"));
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    vscodeDir = path.join(folder, ".vscode");
    createdVscodeDir = !fs.existsSync(vscodeDir);
    fs.mkdirSync(vscodeDir, { recursive: true });
    fs.writeFileSync(path.join(vscodeDir, "mcp.json"), `{
  // A comment, as VS Code allows.
  "servers": {
    "tools": { "type": "stdio", "command": "node", "args": ["\${workspaceFolder}/tools/server.js", "--run=${stamp}"], "env": { "ROOT": "\${workspaceFolder}" } },
    "web": { "type": "http", "url": "https://mcp.example.test/mcp?run=${stamp}", "headers": { "X-Run": "${stamp}" } },
    "asks": { "command": "needs-key", "env": { "KEY": "\${input:api-key}" } },
  },
  "inputs": [{ "type": "promptString", "id": "api-key", "description": "Key", "password": true }]
}
`);
  });
  after(async () => {
    const config = vscode.workspace.getConfiguration("agentThoughts");
    await config.update("agents", [], vscode.ConfigurationTarget.Global);
    await config.update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    await config.update("mcpServers", undefined, vscode.ConfigurationTarget.Global);
    await config.update("mcp.forward", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration().update("mcp", undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(path.join(vscodeDir, "mcp.json"), { force: true });
    if (createdVscodeDir) fs.rmSync(vscodeDir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function agent(name: string, scenario: Omit<Scenario, "turns">): Promise<string> {
    const record = path.join(dir, `${name}.jsonl`);
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const others = (config.get<{ name: string }[]>("agents") ?? []).filter((x) => x.name !== name);
    await config.update("agents", [...others, scriptedAgent(name, { recordFile: record, turns: [[{ message: "OK" }]], ...scenario })], vscode.ConfigurationTarget.Global);
    return record;
  }

  /** Starts a session with the agent and returns the servers its session/new carried. */
  async function serversSentTo(name: string, record: string): Promise<Server[]> {
    return (await startWith(name, record)).servers;
  }
  async function startWith(name: string, record: string): Promise<{ servers: Server[]; sessionId: string }> {
    const a = await api();
    const { sessionId } = await a.stream("hello", { agent: name, newSession: true }).result;
    await until(() => received(record).some((m) => m.method === "session/new"), `session/new to reach ${name}`);
    return { servers: received(record).filter((m) => m.method === "session/new").pop()!.params.mcpServers as Server[], sessionId };
  }

  it("a workspace stdio server (after the user agrees) and an http server reach session/new, ${workspaceFolder} resolved, with the user's own; ${input:} ones are skipped", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("mcpServers", { own: { command: "own-server", args: ["--home=${userHome}"] } }, vscode.ConfigurationTarget.Global);
    const record = await agent("McpHttp", { capabilities: { mcpCapabilities: { http: true } } });
    const a = await api();
    const askedBefore = a._test.modal.asked.length;
    a._test.modal.testAnswers.push("Forward", "Forward");
    const { servers, sessionId } = await startWith("McpHttp", record);
    assert.deepEqual(servers, [
      { name: "own", command: "own-server", args: [`--home=${os.homedir()}`], env: [] },
      { name: "tools", command: "node", args: [`${folder}/tools/server.js`, `--run=${stamp}`], env: [{ name: "ROOT", value: folder }] },
      { type: "http", name: "web", url: `https://mcp.example.test/mcp?run=${stamp}`, headers: [{ name: "X-Run", value: stamp }] },
    ]);
    const asked = a._test.modal.asked.slice(askedBefore);
    assert.deepEqual(asked.map((q) => q.message), ['Give your agents the MCP server "tools" from this workspace?', 'Give your agents the MCP server "web" from this workspace?'], "the user was asked for each workspace server, not for their own");
    assert.match(asked[0]!.detail, /runs: node .*server\.js --run=/);
    const start = a._test.manager.sessionById(sessionId)!.log.all().find((e) => e.kind === "session_start");
    assert.deepEqual(start && "mcpServers" in start ? start.mcpServers : undefined, ["own", "tools", "web"], "the session records which servers the agent got");
    // The panel's header says so: a count, the names in its tooltip.
    await vscode.commands.executeCommand("agentThoughts.showSessions", sessionId);
    const badge = await waitFor(() => {
      const el = document.querySelector<HTMLElement>(".mcp-servers");
      return el && !el.hidden ? `${el.textContent ?? ""}|${el.title}` : undefined;
    }, undefined, { view: "sidebar", what: "the MCP servers in the header" });
    assert.match(badge ?? "", /^3\|MCP servers .* got: own, tools, web$/);
  });

  it("an agent that does not declare MCP over HTTP gets the stdio servers only, and the user is not asked again", async () => {
    const record = await agent("McpStdioOnly", {});
    const a = await api();
    const askedBefore = a._test.modal.asked.length;
    const servers = await serversSentTo("McpStdioOnly", record);
    assert.deepEqual(servers.map((s) => s.name), ["own", "tools"]);
    assert.ok(servers.every((s) => s.type === undefined && typeof s.command === "string"), "stdio entries only");
    assert.equal(a._test.modal.asked.length, askedBefore, "the answers were remembered");
  });

  it("servers of your own mcp user setting go without a question; a workspace server you decline stays out, and you are not asked again", async () => {
    await vscode.workspace.getConfiguration().update("mcp", { servers: { mine: { command: "my-server", args: ["${workspaceFolderBasename}"] } } }, vscode.ConfigurationTarget.Global);
    const file = path.join(vscodeDir, "mcp.json");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"servers": {', `"servers": {\n    "declined": { "command": "declined-server", "args": ["--run=${stamp}"] },`));
    const record = await agent("McpDecline", {});
    const a = await api();
    const askedBefore = a._test.modal.asked.length;
    a._test.modal.testAnswers.push("Don't Forward");
    const first = await serversSentTo("McpDecline", record);
    assert.deepEqual(first.map((s) => s.name), ["own", "tools", "mine"], "the declined server is left out; the user's own is there");
    assert.deepEqual(first[2], { name: "mine", command: "my-server", args: [path.basename(folder)], env: [] });
    assert.deepEqual(a._test.modal.asked.slice(askedBefore).map((q) => q.message), ['Give your agents the MCP server "declined" from this workspace?'], "asked about the new workspace server only");
    const second = await serversSentTo("McpDecline", record);
    assert.deepEqual(second.map((s) => s.name), ["own", "tools", "mine"]);
    assert.equal(a._test.modal.asked.length, askedBefore + 1, "the refusal was remembered");
    assert.equal(received(record).filter((m) => m.method === "session/new").length, 2);
  });

  it("a server of your own that needs ${input:…} asks for it once (hidden), and the agent gets the value", async () => {
    const id = `token${stamp}`;
    await vscode.workspace.getConfiguration().update("mcp", {
      servers: { gh: { command: "gh-mcp", env: { TOKEN: `\${input:${id}}` } } },
      inputs: [{ type: "promptString", id, description: "GitHub token", password: true }],
    }, vscode.ConfigurationTarget.Global);
    const record = await agent("McpInput", {});
    const a = await api();
    const turn = a.stream("hello", { agent: "McpInput", newSession: true });
    await until(async () => (await quickInputTitle()).includes('MCP server "gh": GitHub token'), "the input box for the token", 20_000);
    assert.equal(await harnessRequest<{ value: string }>({ op: "workbench", fn: (() => document.querySelector<HTMLInputElement>(".quick-input-widget .quick-input-box input")?.type ?? "").toString() }).then((r) => r?.value), "password", "typed hidden");
    await harnessRequest({ op: "workbench", arg: "t0k-secret", fn: ((t: string) => {
      const input = document.querySelector<HTMLInputElement>(".quick-input-widget .quick-input-box input")!;
      input.focus();
      input.value = t;
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }).toString() });
    await harnessRequest({ op: "keyboard", key: "Enter" });
    await turn.result;
    const gh = (received(record).find((m) => m.method === "session/new")!.params.mcpServers as Server[]).find((x) => x.name === "gh");
    assert.deepEqual(gh?.env, [{ name: "TOKEN", value: "t0k-secret" }]);
    // Asked once: the next session gets it without a question.
    await a.stream("again", { agent: "McpInput", newSession: true }).result;
    assert.equal(await quickInputTitle(), "", "no second question");
    const again = (received(record).filter((m) => m.method === "session/new").pop()!.params.mcpServers as Server[]).find((x) => x.name === "gh");
    assert.deepEqual(again?.env, [{ name: "TOKEN", value: "t0k-secret" }]);
  });

  it("with agentThoughts.mcp.forward off, session/new carries no server", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("mcp.forward", false, vscode.ConfigurationTarget.Global);
    const record = await agent("McpOff", { capabilities: { mcpCapabilities: { http: true, sse: true } } });
    assert.deepEqual(await serversSentTo("McpOff", record), []);
  });
});
