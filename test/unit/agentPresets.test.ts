/**
 * Add Agent…'s pure part: the presets (their commands as the recorded real agents were started,
 * the settings snippets agreeing with them), which of a preset's commands is found, what its row
 * says, adding an entry to the user's list without clobbering one of the same name, and the checks
 * of a custom command. The guarantee that no workspace supplies an agent command is the settings'
 * scope in package.json, checked here too.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  AGENT_PRESETS, checkAgentName, checkCommand, commandLine, describeEntry, detect, installSteps, mergeAgent, parseArgs, presetEntry, presetRow, replaceAgent, sameAgent, unusedName,
  type AgentPreset, type AgentSetting,
} from "../../src/core/agentPresets";

const preset = (id: string): AgentPreset => {
  const p = AGENT_PRESETS.find((x) => x.id === id);
  assert.ok(p, id);
  return p;
};
/** A PATH lookup that knows exactly these commands. */
const onPath = (files: Record<string, string>) => (command: string): Promise<string | undefined> => Promise.resolve(files[command]);
const linux = { platform: "linux" as const, cwd: "/home/u/project", added: false };

interface Manifest {
  contributes: { configuration: { properties: Record<string, { scope?: string; defaultSnippets?: { label: string; body: unknown[] }[] }> } };
}
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, "..", "..", "package.json"), "utf8")) as Manifest;
const settings = manifest.contributes.configuration.properties;

describe("Agent presets", () => {
  it("Claude Code, Codex, Gemini CLI, Goose and OpenCode, each with a command, what it needs and its docs; no name is the demo agent's", () => {
    assert.deepEqual(AGENT_PRESETS.map((p) => p.title), ["Claude Code", "Codex", "Gemini CLI", "Goose", "OpenCode"]);
    assert.equal(new Set(AGENT_PRESETS.map((p) => p.name)).size, AGENT_PRESETS.length);
    for (const p of AGENT_PRESETS) {
      assert.ok(p.launches.length > 0 && p.needs && /^https:\/\//.test(p.docs), p.id);
      assert.notEqual(p.name, "Demo");
      for (const platform of ["linux", "darwin"] as const) assert.ok(installSteps(p, platform).length > 0, `${p.id} says how to install it on ${platform}`);
    }
    assert.deepEqual(AGENT_PRESETS.map((p) => commandLine(p.launches[0]!.command, p.launches[0]!.args)), ["claude-agent-acp", "codex-acp", "gemini --acp", "goose acp", "opencode acp"]);
  });

  it("start the agents as the recorded real sessions started them (gemini --acp; the @agentclientprotocol adapters)", function () {
    const traces = path.resolve(__dirname, "..", "..", "..", "shared", "fixtures", "acp-traces");
    if (!fs.existsSync(traces)) this.skip();
    const launch = (file: string): { args: string[] } => JSON.parse(fs.readFileSync(path.join(traces, file), "utf8").split("\n")[0]!) as { args: string[] };
    assert.deepEqual(launch("gemini-cli.jsonl").args.slice(1, 2), preset("gemini").launches[0]!.args, "gemini --acp");
    const script = (file: string): string => launch(file).args[0]!.replace(/\\/g, "/");
    assert.match(script("claude-agent-acp.jsonl"), /node_modules\/@agentclientprotocol\/claude-agent-acp\//);
    assert.ok(preset("claude").launches.some((l) => l.args.includes("@agentclientprotocol/claude-agent-acp")));
    assert.match(script("acp-codex-acp.jsonl"), /node_modules\/@agentclientprotocol\/codex-acp\//);
    assert.ok(preset("codex").launches.some((l) => l.args.includes("@agentclientprotocol/codex-acp")));
  });

  it("the settings' completions are the presets, and the agent settings stay out of a workspace's reach (machine scope)", () => {
    const snippets = settings["agentThoughts.agents"]?.defaultSnippets ?? [];
    for (const p of AGENT_PRESETS) {
      const snippet = snippets.find((s) => (s.body[0] as AgentSetting).name === p.name);
      assert.ok(snippet, `a completion for ${p.name}`);
      assert.ok(p.launches.some((l) => sameAgent(snippet.body[0], presetEntry(p, l))), `${snippet.label} starts ${p.name} as a preset does`);
    }
    assert.equal(snippets.length, AGENT_PRESETS.length);
    for (const key of ["agentThoughts.agents", "agentThoughts.defaultAgent"]) {
      assert.ok(["machine", "application"].includes(settings[key]?.scope ?? ""), `${key} is machine- or application-scoped, so .vscode/settings.json cannot set it`);
    }
  });

  it("the first of a preset's commands found is the one used: a global install before npx", async () => {
    const claude = preset("claude");
    assert.deepEqual(await detect(claude, onPath({ npx: "/usr/bin/npx", "claude-agent-acp": "/usr/local/bin/claude-agent-acp" })), { state: "found", launch: claude.launches[0], file: "/usr/local/bin/claude-agent-acp" });
    const viaNpx = await detect(claude, onPath({ npx: "/usr/bin/npx" }));
    assert.ok(viaNpx.state === "found");
    assert.deepEqual(presetEntry(claude, viaNpx.launch), { name: "Claude", command: "npx", args: ["-y", "@agentclientprotocol/claude-agent-acp"] });
    assert.deepEqual(await detect(preset("goose"), onPath({ npx: "/usr/bin/npx" })), { state: "missing" });
  });

  it("a row says where the command was found, or how to install it, and what the agent needs", () => {
    const opencode = preset("opencode");
    assert.deepEqual(presetRow(opencode, { state: "found", launch: opencode.launches[0]!, file: "/home/u/.opencode/bin/opencode" }, linux), {
      label: "OpenCode",
      description: "found at /home/u/.opencode/bin/opencode",
      detail: "Needs a provider login: opencode auth login · runs opencode acp",
    });
    assert.deepEqual(presetRow(opencode, { state: "missing" }, { ...linux, added: true }), {
      label: "OpenCode",
      description: "not installed · already in your settings",
      detail: "Install: npm install -g opencode-ai · needs a provider login: opencode auth login",
    });
    assert.match(presetRow(opencode, { state: "checking" }, linux).description, /looking on PATH/);
    const claude = preset("claude");
    assert.match(presetRow(claude, { state: "found", launch: claude.launches[2]!, file: "/usr/bin/npx" }, linux).detail, /^Needs ANTHROPIC_API_KEY or a Claude login · runs npx -y @agentclientprotocol\/claude-agent-acp \(npx fetches it on first use\)$/);
  });

  it("on Windows: no Homebrew line (the docs instead), and a command found in the workspace folder rather than on PATH is said to be", () => {
    const goose = preset("goose");
    assert.deepEqual(installSteps(goose, "win32"), []);
    assert.match(presetRow(goose, { state: "missing" }, { platform: "win32", cwd: "C:\\repo", added: false }).detail, /^Install: see https:\/\/block\.github\.io\//);
    assert.deepEqual(installSteps(preset("gemini"), "win32").map((s) => s.command), ["npm install -g @google/gemini-cli"]);
    const planted = presetRow(goose, { state: "found", launch: goose.launches[0]!, file: "C:\\Repo\\goose.CMD" }, { platform: "win32", cwd: "c:\\repo", added: false });
    assert.equal(planted.description, "found in the workspace folder, not on PATH: C:\\Repo\\goose.CMD");
    const onPathRow = presetRow(goose, { state: "found", launch: goose.launches[0]!, file: "C:\\Tools\\goose.exe" }, { platform: "win32", cwd: "C:\\repo", added: false });
    assert.equal(onPathRow.description, "found at C:\\Tools\\goose.exe");
  });
});

describe("Adding an entry to the user's agents", () => {
  const opencode: AgentSetting = { name: "OpenCode", command: "opencode", args: ["acp"] };
  const mine = { name: "Mine", command: "/opt/mine", env: { KEY: "x" } };
  const broken = { name: 3, command: [] };

  it("appends it and keeps every other entry as it was, even one that is not valid", () => {
    assert.deepEqual(mergeAgent([mine, broken], opencode), { kind: "add", agents: [mine, broken, opencode] });
    assert.deepEqual(mergeAgent(undefined, opencode), { kind: "add", agents: [opencode] });
    assert.deepEqual(mergeAgent({ not: "a list" }, opencode), { kind: "add", agents: [opencode] }, "a value that is not a list holds no entries to keep");
  });

  it("writes nothing when the same entry is there (an empty env or args counts as none)", () => {
    assert.deepEqual(mergeAgent([{ name: "OpenCode", command: "opencode", args: ["acp"], env: {} }], opencode), { kind: "same" });
  });

  it("a same-named entry that starts something else is a clash to ask about, never replaced by itself", () => {
    const theirs = { name: "OpenCode", command: "/home/u/bin/opencode", args: ["acp", "--debug"] };
    assert.deepEqual(mergeAgent([mine, theirs], opencode), { kind: "clash", existing: theirs });
    assert.deepEqual(mergeAgent([{ name: "OpenCode", command: "opencode" }], opencode), { kind: "clash", existing: { name: "OpenCode", command: "opencode" } });
    assert.deepEqual(replaceAgent([mine, theirs, broken], opencode), [mine, opencode, broken], "replaced in its place");
    assert.equal(unusedName([mine, theirs], "OpenCode"), "OpenCode 2");
    assert.equal(unusedName([theirs, { name: "OpenCode 2", command: "x" }], "OpenCode"), "OpenCode 3");
    assert.equal(unusedName([], "Demo"), "Demo 2", "never the demo agent's name");
    assert.equal(describeEntry(theirs), "/home/u/bin/opencode acp --debug");
    assert.equal(describeEntry(mine), "/opt/mine with KEY set");
    assert.equal(describeEntry(broken), "an entry that is not valid");
  });
});

describe("A custom agent typed by hand", () => {
  it("a name: not empty, one line, not the demo agent's", () => {
    assert.equal(checkAgentName("My Agent"), undefined);
    assert.match(checkAgentName("   ") ?? "", /name/);
    assert.match(checkAgentName("Demo") ?? "", /demo agent/);
    assert.match(checkAgentName("a\nb") ?? "", /line breaks/);
    assert.match(checkAgentName("x".repeat(61)) ?? "", /60/);
  });

  it("a command: one program (a full path may have spaces); its arguments belong in the next step", () => {
    for (const ok of ["gemini", "npx", "/opt/My Agent/agent", "C:\\Program Files\\Agent\\agent.exe", "~/bin/agent"]) assert.equal(checkCommand(ok), undefined, ok);
    assert.match(checkCommand("") ?? "", /program/);
    assert.equal(checkCommand("gemini --acp"), "Only the program goes here; its arguments come next (e.g. gemini here, then --acp).");
    assert.match(checkCommand("agent\u0000") ?? "", /control/);
  });

  it("arguments: split at spaces, quotes keep spaces and Windows paths keep their backslashes; unclosed quotes and shell operators are refused", () => {
    assert.deepEqual(parseArgs(""), { args: [] });
    assert.deepEqual(parseArgs("-y @agentclientprotocol/claude-agent-acp"), { args: ["-y", "@agentclientprotocol/claude-agent-acp"] });
    assert.deepEqual(parseArgs(`--model "gemini 2.5 pro" --name='a b'`), { args: ["--model", "gemini 2.5 pro", "--name=a b"] });
    assert.deepEqual(parseArgs("--config C:\\Users\\me\\agent.toml"), { args: ["--config", "C:\\Users\\me\\agent.toml"] });
    assert.deepEqual(parseArgs(`""`), { args: [""] }, "an empty argument when quoted");
    assert.deepEqual(parseArgs(`--model "gemini`), { error: "A double quote is not closed." });
    assert.deepEqual(parseArgs(`it's`), { error: "A single quote is not closed." });
    for (const line of ["acp | tee log", "acp > out.txt", "acp && rm -rf x", "acp; ls", "acp|tee"]) {
      const r = parseArgs(line);
      assert.ok("error" in r && /without a shell/.test(r.error), line);
    }
    assert.deepEqual(parseArgs(`--sep "|" --and '&&'`), { args: ["--sep", "|", "--and", "&&"] }, "quoted, they are the agent's");
  });

  it("command lines read back with quotes where an argument has spaces", () => {
    assert.equal(commandLine("npx", ["-y", "@x/y"]), "npx -y @x/y");
    assert.equal(commandLine("/opt/My Agent/agent", ["--name", "a b", ""]), `"/opt/My Agent/agent" --name "a b" ""`);
  });
});
