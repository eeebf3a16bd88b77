// Add Agent… in a real VS Code, driven through its quick picks and input boxes as a user would:
// a preset whose command the test puts on PATH (a tiny script that starts the scripted agent) is
// shown as found, lands in the user's settings — never the workspace's — next to the user's own
// entries, is selected, and answers the next prompt; a missing preset says how to install it and
// can be added anyway; a taken name is asked about; a custom command is typed in three steps.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import type { Scenario } from "../fixtures/agents/scenario";
import { EXTENSION_ID, api, quickInputTitle, quickPickRows, scriptedAgent, until } from "./helpers";
import { harnessRequest, screenshot } from "./index";
import { waitFor } from "./webview";

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration("agentThoughts");
const ws = (...p: string[]): string => path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, ...p);


/** Types `text` into the open quick pick or input box (replacing what is there), as a user would. */
async function type(text: string): Promise<void> {
  await harnessRequest({ op: "workbench", arg: text, fn: ((t: string) => {
    const input = document.querySelector<HTMLInputElement>(".quick-input-widget .quick-input-box input");
    if (!input) throw new Error("no quick input box");
    input.focus();
    input.value = t;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }).toString() });
}

/** The quick input's validation message under the box. */
async function inputMessage(): Promise<string> {
  return (await harnessRequest<{ value: string }>({ op: "workbench", fn: (() => (document.querySelector(".quick-input-widget .quick-input-message")?.textContent ?? "").trim()).toString() }))?.value ?? "";
}

/** In the quick pick titled like `title`: filters to the row with `text`, waits until it is the active row, and presses Enter. */
async function choose(title: string, text: string): Promise<void> {
  await until(async () => (await quickInputTitle()).includes(title), `the quick pick "${title}"`, 20_000);
  await type(text);
  await until(async () => (await harnessRequest<{ value: boolean }>({ op: "workbench", arg: text, fn: ((t: string) => {
    const row = document.querySelector(".quick-input-widget .monaco-list-row.focused");
    return !!row && (row.textContent ?? "").includes(t);
  }).toString() }))?.value, `"${text}" to be the active row of "${title}"`, 20_000);
  await harnessRequest({ op: "keyboard", key: "Enter" });
}

/** Types into the input box titled like `title` and presses Enter. */
async function answer(title: string, text: string): Promise<void> {
  await until(async () => (await quickInputTitle()).includes(title), `the input box "${title}"`, 20_000);
  await type(text);
  await harnessRequest({ op: "keyboard", key: "Enter" });
}

describe("Add Agent…", function () {
  this.timeout(120_000);
  let a: AgentThoughtsInternalApi;
  let dir: string;
  let script: string;
  const savedPath = process.env.PATH;
  /** The user's own entry, there before: it must stay as it is. */
  let mine: ReturnType<typeof scriptedAgent>;

  before(async () => {
    a = await api();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-add-agent-"));
    const scenario: Scenario = { turns: [[{ message: "opencode here" }]] };
    const scenarioFile = path.join(dir, "scenario.json");
    fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
    const agentJs = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, "out", "fixtures", "agents", "scriptedAgent.js");
    // A stand-in for `opencode`: `opencode acp` starts an ACP agent on stdio.
    if (process.platform === "win32") {
      script = path.join(dir, "opencode.cmd");
      fs.writeFileSync(script, `@echo off\r\nset SCRIPTED_AGENT_SCENARIO=${scenarioFile}\r\nset ELECTRON_RUN_AS_NODE=1\r\n"${process.execPath}" "${agentJs}" %*\r\n`);
    } else {
      script = path.join(dir, "opencode");
      fs.writeFileSync(script, `#!/bin/sh\nexport SCRIPTED_AGENT_SCENARIO='${scenarioFile}'\nexport ELECTRON_RUN_AS_NODE=1\nexec '${process.execPath}' '${agentJs}' "$@"\n`, { mode: 0o755 });
    }
    mine = scriptedAgent("Mine", { turns: [[{ message: "mine" }]] });
  });
  beforeEach(async () => {
    await config().update("agents", [mine], vscode.ConfigurationTarget.Global);
    await config().update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
  });
  afterEach(async () => {
    process.env.PATH = savedPath;
    await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
  });
  after(async () => {
    process.env.PATH = savedPath;
    await config().update("agents", [], vscode.ConfigurationTarget.Global);
    await config().update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("Select Agent → Add Agent…: a preset on PATH shows as found, goes to the user's settings (not the workspace's) beside their own entry, is selected and answers", async () => {
    process.env.PATH = `${dir}${path.delimiter}${savedPath ?? ""}`;
    const selecting = vscode.commands.executeCommand<string | undefined>("agentThoughts.selectAgent");
    const agents = await until(async () => { const r = await quickPickRows("Select the agent"); return r.length ? r : undefined; }, "Select Agent's list", 20_000);
    assert.ok(agents.some((r) => r.includes("Mine")) && agents.some((r) => r.includes("Add Agent…")), agents.join(" | "));
    await choose("Select the agent", "Add Agent");

    const rows = await until(async () => {
      const r = await quickPickRows("Add an ACP agent");
      return r.some((x) => x.includes(`found at ${script}`)) ? r : undefined;
    }, `OpenCode shown as found at ${script}`, 20_000);
    for (const title of ["Claude Code", "Codex", "Gemini CLI", "Goose", "OpenCode", "Custom command…"]) assert.ok(rows.some((r) => r.includes(title)), `${title} is offered: ${rows.join(" | ")}`);
    const openCodeRow = rows.find((r) => r.includes("OpenCode"))!;
    assert.match(openCodeRow, /Needs a provider login: opencode auth login · runs opencode acp/, "the row says what it needs and what it runs");
    await screenshot("test-results/add-agent-presets.png");
    await choose("Add an ACP agent", "OpenCode");

    assert.equal(await selecting, "OpenCode");
    const agentsSetting = config().inspect<unknown[]>("agents");
    assert.deepEqual(agentsSetting?.globalValue, [mine, { name: "OpenCode", command: "opencode", args: ["acp"] }], "added to the user's list, their own entry kept");
    assert.equal(agentsSetting?.workspaceValue, undefined, "nothing in the workspace's settings");
    assert.equal(agentsSetting?.workspaceFolderValue, undefined);
    const wsSettings = ws(".vscode", "settings.json");
    assert.ok(!fs.existsSync(wsSettings) || !fs.readFileSync(wsSettings, "utf8").includes("OpenCode"), "no workspace file holds the entry");
    assert.equal(config().inspect<string>("defaultAgent")?.globalValue, "OpenCode", "selected, in the user's settings");

    // The panel's header names it at once, and the next prompt goes to it (it runs from PATH).
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.querySelector(".agent-name")?.textContent === "OpenCode", undefined, { view: "sidebar", what: "OpenCode in the panel's header", timeoutMs: 20_000 });
    const r = await a.stream("hello", { newSession: true }).result;
    assert.equal(r.text, "opencode here");
  });

  it("a missing preset says how to install it (copied, never run) and can be added anyway", async () => {
    // No goose anywhere on this PATH, whatever this machine has installed.
    process.env.PATH = (savedPath ?? "").split(path.delimiter).filter((d) => !["goose", "goose.exe", "goose.cmd"].some((f) => fs.existsSync(path.join(d, f)))).join(path.delimiter);
    const adding = vscode.commands.executeCommand<string | undefined>("agentThoughts.addAgent");
    const rows = await until(async () => {
      const r = await quickPickRows("Add an ACP agent");
      return r.some((x) => x.includes("Goose") && x.includes("not installed")) ? r : undefined;
    }, "Goose shown as not installed", 20_000);
    const install = process.platform === "win32" ? "Install: see https://block.github.io/goose/" : "Install: brew install block-goose-cli";
    assert.ok(rows.find((r) => r.includes("Goose"))!.includes(install), rows.join(" | "));
    await choose("Add an ACP agent", "Goose");

    const hint = await until(async () => { const r = await quickPickRows("Goose is not installed"); return r.length ? r : undefined; }, "the install hint", 20_000);
    assert.ok(hint.some((r) => r.includes("Open docs") && r.includes("https://block.github.io/goose/docs/guides/acp-clients")), hint.join(" | "));
    assert.ok(hint.some((r) => r.includes("Add Goose anyway")), hint.join(" | "));
    await screenshot("test-results/add-agent-missing.png");
    if (process.platform !== "win32") {
      await choose("Goose is not installed", "Copy install command");
      await until(async () => (await quickInputTitle()).includes("copied “brew install block-goose-cli”"), "the list to say the command was copied", 20_000);
      assert.equal(await vscode.env.clipboard.readText(), "brew install block-goose-cli", "the command is on the clipboard");
    }
    assert.deepEqual(config().inspect<unknown[]>("agents")?.globalValue, [mine], "nothing written before the user says so");
    await choose("Goose is not installed", "anyway");
    assert.equal(await adding, "Goose");
    assert.deepEqual(config().inspect<unknown[]>("agents")?.globalValue, [mine, { name: "Goose", command: "goose", args: ["acp"] }]);
    assert.equal(config().inspect<string>("defaultAgent")?.globalValue, "Goose");
  });

  it("a name the user already has is asked about, never replaced by itself; their entry stays unless they say Replace", async () => {
    process.env.PATH = `${dir}${path.delimiter}${savedPath ?? ""}`;
    const theirs = { name: "OpenCode", command: "/opt/opencode-dev/opencode", args: ["acp", "--print-logs"] };
    await config().update("agents", [mine, theirs], vscode.ConfigurationTarget.Global);
    const adding = vscode.commands.executeCommand<string | undefined>("agentThoughts.addAgent");
    await until(async () => (await quickPickRows("Add an ACP agent")).some((r) => r.includes("OpenCode") && r.includes("already in your settings") && r.includes(`found at ${script}`)), "OpenCode marked as already there", 20_000);
    await choose("Add an ACP agent", "OpenCode");
    const options = await until(async () => { const r = await quickPickRows("You already have an agent named OpenCode"); return r.length ? r : undefined; }, "the question about the same-named entry", 20_000);
    assert.ok(options.some((r) => r.includes("Replace it") && r.includes("/opt/opencode-dev/opencode acp --print-logs")), options.join(" | "));
    await choose("You already have an agent named OpenCode", "OpenCode 2");
    assert.equal(await adding, "OpenCode 2");
    assert.deepEqual(config().inspect<unknown[]>("agents")?.globalValue, [mine, theirs, { name: "OpenCode 2", command: "opencode", args: ["acp"] }]);
    assert.equal(config().inspect<string>("defaultAgent")?.globalValue, "OpenCode 2");
  });

  it("Custom command…: name, program and arguments typed and checked, nothing else to edit", async () => {
    const adding = vscode.commands.executeCommand<string | undefined>("agentThoughts.addAgent");
    await until(async () => (await quickPickRows("Add an ACP agent")).length > 0, "the list of presets", 20_000);
    await choose("Add an ACP agent", "Custom command");
    await until(async () => (await quickInputTitle()).includes("its name"), "the name box", 20_000);
    await type("Demo");
    await until(async () => (await inputMessage()).includes("built-in demo agent"), "Demo refused as a name", 20_000);
    await answer("its name", "My Agent");
    await until(async () => (await quickInputTitle()).includes("the program"), "the program box", 20_000);
    await type("opencode acp");
    await until(async () => (await inputMessage()).includes("its arguments come next"), "a command line refused in the program box", 20_000);
    await type(script);
    await until(async () => (await inputMessage()).includes(`Found at ${script}`), "the program found", 20_000);
    await harnessRequest({ op: "keyboard", key: "Enter" });
    await until(async () => (await quickInputTitle()).includes("the arguments"), "the arguments box", 20_000);
    await type(`acp --title "two words`);
    await until(async () => (await inputMessage()).includes("double quote is not closed"), "an unclosed quote refused", 20_000);
    await answer("the arguments", `acp --title "two words"`);
    assert.equal(await adding, "My Agent");
    assert.deepEqual(config().inspect<unknown[]>("agents")?.globalValue, [mine, { name: "My Agent", command: script, args: ["acp", "--title", "two words"] }]);
    assert.equal(config().inspect<string>("defaultAgent")?.globalValue, "My Agent");
    assert.equal((await a.stream("hi", { newSession: true }).result).text, "opencode here", "the custom agent runs");
  });
});
