// More @-mentions in a real VS Code, each picked with the keyboard from the list and checked in
// what a scripted agent records: a symbol (from a workspace symbol provider) as its lines, a folder
// as a resource_link, the workspace's problems, an agent command's output (ANSI stripped) and the
// working tree's changes as text resources — and all of them as plain text for an agent that does
// not take embedded context. Files and folders .gitignore names are not offered; a repository whose
// .git/config names programs for diff, textconv, filters and fsmonitor gets none of them run. Chips
// survive a reload of the panel, and chips alone can be sent.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { api, scriptedAgent, transcriptHas, until } from "./helpers";
import { screenshot } from "./index";
import { evaluate, fill, press, waitFor } from "./webview";
import type { Scenario } from "../fixtures/agents/scenario";
import { recorded } from "../support/recorded";

interface Received { method: string; params: { prompt?: Array<Record<string, unknown>> } }
type Block = Record<string, unknown> & { resource?: { uri: string; text: string; mimeType?: string } };

function received(file: string): Received[] {
  return recorded<Received>(file);
}

function prompts(file: string): Array<Array<Block>> {
  return received(file).filter((m) => m.method === "session/prompt").map((m) => (m.params.prompt ?? []) as Block[]);
}

/** The open completion list's options: kind and text. */
function options(): Promise<Array<{ kind: string; text: string; label: string }>> {
  return evaluate(() => {
    const list = document.getElementById("slash-list");
    if (!list || list.hidden) return [];
    return [...list.querySelectorAll<HTMLElement>("[role=option]")].map((o) => ({ kind: o.dataset.mentionKind ?? "", text: o.textContent ?? "", label: o.getAttribute("aria-label") ?? "" }));
  }, undefined, "sidebar");
}

function chips(): Promise<string[]> {
  return evaluate(() => [...document.querySelectorAll(".prompt-chips .chip-label")].map((c) => c.textContent ?? ""), undefined, "sidebar");
}

/** Types `@query` after `text`, walks the list with ↓ to the first option of `kind` matching `re`, and picks it with Enter. */
async function pick(text: string, query: string, kind: string, re: RegExp): Promise<void> {
  const before = (await chips()).length;
  await fill("#prompt", `${text}@${query}`, "sidebar");
  const shown = await until(async () => {
    const o = await options();
    return o.some((x) => x.kind === kind && re.test(x.text)) ? o : undefined;
  }, `a ${kind} matching ${re} offered for @${query}`);
  const index = shown.findIndex((x) => x.kind === kind && re.test(x.text));
  for (let i = 0; i < index; i++) await press("#prompt", "ArrowDown", "sidebar");
  const active = await evaluate(() => {
    const id = document.getElementById("prompt")?.getAttribute("aria-activedescendant");
    return id ? document.getElementById(id)?.dataset.mentionKind ?? "" : "";
  }, undefined, "sidebar");
  assert.equal(active, kind, "aria-activedescendant names the option ↓ reached");
  await press("#prompt", "Enter", "sidebar");
  await until(async () => (await chips()).length === before + 1, `the ${kind} chip`);
}

describe("@-mentions: folders, symbols, problems, terminals, changes", function () {
  this.timeout(120_000);
  let dir: string;
  let record: string;
  let plainRecord: string;
  let root: vscode.Uri;
  let hello: vscode.Uri;
  const disposables: vscode.Disposable[] = [];

  const scenario = (file: string, extra: Partial<Scenario> = {}): Scenario => ({
    recordFile: file,
    turns: [
      [
        { sessionUpdate: { sessionUpdate: "tool_call", toolCallId: "run-1", title: "zqtests run", kind: "execute", status: "in_progress" } },
        { terminal: { command: "printf 'zqtests \\033[31mFAILED\\033[0m: TERM-OUT-MARK 3 tests\\n'" }, toolCallId: "run-1" },
        { sessionUpdate: { sessionUpdate: "tool_call_update", toolCallId: "run-1", status: "completed" } },
        { message: "RAN-THE-TESTS" },
      ],
      [{ message: "MENTIONS2-ANSWER" }],
    ],
    ...extra,
  });

  async function useAgents(defaultName: string): Promise<void> {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Mentions2", scenario(record)),
      scriptedAgent("Mentions2Plain", scenario(plainRecord, { capabilities: { promptCapabilities: { embeddedContext: false } } })),
    ], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", defaultName, vscode.ConfigurationTarget.Global);
  }

  /** Sends what is in the box with Enter; the prompt blocks the agent recording to `file` got. */
  async function send(file: string): Promise<Block[]> {
    const a = await api();
    const before = prompts(file).length;
    const count = a._test.controller.stats.prompts;
    await press("#prompt", "Enter", "sidebar");
    await until(() => a._test.controller.stats.prompts > count, "the prompt to reach the host", 5_000);
    await until(() => prompts(file).length > before, "the prompt to reach the agent", 20_000);
    await until(() => a._test.controller.viewState.sessions[a._test.controller.activeSession ?? ""]?.status === "idle", "the turn to end");
    return prompts(file).at(-1)!;
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-mentions2-"));
    record = path.join(dir, "received.jsonl");
    plainRecord = path.join(dir, "received-plain.jsonl");
    root = vscode.workspace.workspaceFolders![0]!.uri;
    hello = vscode.Uri.joinPath(root, "src", "hello.ts");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    // A symbol provider of the test's own: the TypeScript server's answers depend on its start-up.
    disposables.push(vscode.languages.registerWorkspaceSymbolProvider({
      provideWorkspaceSymbols: (q) => "greeter".startsWith(q.toLowerCase()) || q.toLowerCase().startsWith("gree")
        ? [new vscode.SymbolInformation("greetEveryone", vscode.SymbolKind.Function, new vscode.Range(0, 0, 2, 1), hello)]
        : [],
    }));
  });
  after(async () => {
    const a = await api();
    for (const d of disposables) d.dispose();
    await a._test.manager.stop("Mentions2").catch(() => undefined);
    await a._test.manager.stop("Mentions2Plain").catch(() => undefined);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("search").update("useIgnoreFiles", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("git").update("enabled", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    for (const t of vscode.window.terminals) t.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a symbol, a folder, the workspace's problems and an agent command's output arrive as the right ACP blocks", async () => {
    await useAgents("Mentions2");
    const problems = vscode.languages.createDiagnosticCollection("mentions2-test");
    disposables.push(problems);
    const readme = vscode.Uri.joinPath(root, "README.md");
    problems.set(hello, [new vscode.Diagnostic(new vscode.Range(0, 16, 0, 20), "WS-PROBLEM-ONE: name is unused", vscode.DiagnosticSeverity.Error)]);
    problems.set(readme, [new vscode.Diagnostic(new vscode.Range(2, 0, 2, 4), "WS-PROBLEM-TWO: heading level", vscode.DiagnosticSeverity.Warning)]);
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the prompt box" });
    await fill("#prompt", "Run the tests", "sidebar");
    await send(record);
    assert.ok(await transcriptHas("RAN-THE-TESTS"));

    await pick("Why did it fail? ", "zqtests", "terminal", /Output of .*zqtests/);
    await pick("Why did it fail? ", "greet", "symbol", /greetEveryone \(hello\.ts:1\)/);
    await pick("Why did it fail? ", "src", "folder", /^.*src\//);
    await pick("Why did it fail? ", "prob", "workspaceProblems", /Problems in the workspace/);
    assert.deepEqual((await chips()).map((c) => c.replace(/Output of .*/, "Output of …")), ["Output of …", "greetEveryone (hello.ts:1)", "src/", "Problems in the workspace"]);
    const labels = await evaluate(() => [...document.querySelectorAll(".prompt-chips .chip")].map((c) => c.getAttribute("aria-label") ?? ""), undefined, "sidebar");
    assert.match(labels[0] ?? "", /^Terminal output /, "a screen reader hears each chip's kind");
    assert.match(labels[2] ?? "", /^Folder src\/$/);
    // The list for a bare @ shows the kinds together (README screenshots, light and dark).
    await fill("#prompt", "Why did it fail? @", "sidebar");
    await until(async () => new Set((await options()).map((o) => o.kind)).size >= 4, "several kinds for a bare @");
    for (const [name, theme, cls] of [["light", "Default Light Modern", "vscode-light"], ["dark", "Default Dark Modern", "vscode-dark"]] as const) {
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      await waitFor((c: string) => document.body.classList.contains(c), cls, { view: "sidebar", what: `the ${name} theme` });
      await screenshot(`test-results/prompt-mention-kinds-${name}.png`);
    }
    await press("#prompt", "Escape", "sidebar");
    await fill("#prompt", "Why did it fail?", "sidebar");

    const prompt = await send(record);
    assert.equal(prompt.length, 5, JSON.stringify(prompt).slice(0, 800));
    const [text, terminal, symbol, folder, wsProblems] = prompt as [Block, Block, Block, Block, Block];
    assert.deepEqual(text, { type: "text", text: "Why did it fail?" });
    assert.equal(terminal.type, "resource");
    assert.match(terminal.resource!.text, /zqtests FAILED: TERM-OUT-MARK 3 tests/);
    assert.ok(!terminal.resource!.text.includes("\u001b"), "no escape sequences");
    const doc = await vscode.workspace.openTextDocument(hello);
    const lines = doc.getText(new vscode.Range(0, 0, 2, doc.lineAt(2).text.length)); // whole lines, as the editor has them
    assert.deepEqual(symbol, { type: "resource", resource: { uri: `${hello.toString()}#L1-L3`, text: lines, mimeType: "text/x-typescript" } });
    assert.deepEqual(folder, { type: "resource_link", uri: vscode.Uri.joinPath(root, "src").toString(), name: "src/", mimeType: "inode/directory" });
    assert.equal(wsProblems.resource?.uri, `${root.toString()}#problems`);
    assert.match(wsProblems.resource.text, /src\/hello\.ts:1:17 Error: WS-PROBLEM-ONE: name is unused/);
    assert.match(wsProblems.resource.text, /README\.md:3:1 Warning: WS-PROBLEM-TWO: heading level/);
    assert.ok(await transcriptHas("MENTIONS2-ANSWER"));
  });

  it("an agent without embedded context gets the same mentions as text (the folder as its link)", async () => {
    await useAgents("Mentions2Plain");
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await pick("Explain ", "zqtests", "terminal", /Output of .*zqtests/);
    await pick("Explain ", "greet", "symbol", /greetEveryone/);
    await pick("Explain ", "src", "folder", /src\//);
    await pick("Explain ", "prob", "workspaceProblems", /Problems in the workspace/);
    await fill("#prompt", "Explain", "sidebar");
    const prompt = await send(plainRecord);
    assert.equal(prompt.length, 5, JSON.stringify(prompt).slice(0, 800));
    assert.deepEqual(prompt.map((b) => b.type), ["text", "text", "text", "resource_link", "text"], "no embedded resource goes to it");
    assert.match(String(prompt[1]!.text), /```\n[^]*FAILED: TERM-OUT-MARK 3 tests/);
    const doc = await vscode.workspace.openTextDocument(hello);
    const lines = doc.getText(new vscode.Range(0, 0, 2, doc.lineAt(2).text.length));
    assert.equal(prompt[2]!.text, `\n${hello.toString()}#L1-L3:\n\`\`\`\n${lines}\n\`\`\`\n`);
    assert.match(String(prompt[4]!.text), /WS-PROBLEM-TWO/);
  });

  it("a user terminal's output (read through shell integration) arrives as text", async () => {
    await useAgents("Mentions2");
    await api(); // active: commands run before the extension started are not kept
    const terminal = vscode.window.createTerminal({ name: "zqshell", shellPath: "/bin/bash", cwd: root });
    const integration = await until(() => terminal.shellIntegration, "bash's shell integration (injected by the workbench)", 30_000);
    const run = async (command: string): Promise<void> => {
      const ended = new Promise<void>((resolve) => {
        const sub = vscode.window.onDidEndTerminalShellExecution((e) => { if (e.terminal === terminal) { sub.dispose(); resolve(); } });
      });
      integration.executeCommand(command);
      await ended;
    };
    // A command that prints at once can end before VS Code hands its stream to extensions (its
    // output is then lost to them); one that takes a moment, as builds and tests do, is read whole.
    await run("sleep 1; echo USERTERM-$((40 + 2))");
    const a = await api();
    await until(() => a._test.userTerminals.list().some((t) => t.name === "zqshell" && a._test.userTerminals.output(t.key)?.includes("USERTERM-42")), "the command's output kept");
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await pick("What did it print? ", "zqshell", "terminal", /Terminal zqshell/);
    await fill("#prompt", "What did it print?", "sidebar");
    const prompt = await send(record);
    assert.equal(prompt.length, 2, JSON.stringify(prompt).slice(0, 500));
    assert.match(prompt[1]!.resource!.text, /\$ sleep 1; echo USERTERM-\$\(\(40 \+ 2\)\)\n[^]*USERTERM-42/);
    assert.ok(!prompt[1]!.resource!.text.includes("\u001b"), "no escape sequences");
    terminal.dispose();
  });

  it("files and folders .gitignore names are not offered (unless search.useIgnoreFiles is off)", async () => {
    await useAgents("Mentions2");
    const ignoredDir = vscode.Uri.joinPath(root, "generated-out");
    fs.mkdirSync(ignoredDir.fsPath, { recursive: true });
    fs.writeFileSync(path.join(ignoredDir.fsPath, "zzgen-file.ts"), "export {};\n");
    fs.writeFileSync(path.join(root.fsPath, "zzgen-debug.log"), "log\n");
    fs.writeFileSync(path.join(root.fsPath, "zzgen-kept.ts"), "export {};\n");
    fs.writeFileSync(path.join(root.fsPath, ".gitignore"), "generated-out/\n*.log\n");
    try {
      await vscode.commands.executeCommand("agentThoughts.panel.focus");
      await fill("#prompt", "@zzgen", "sidebar");
      const shown = await until(async () => {
        const o = await options();
        return o.some((x) => x.text.includes("zzgen-kept.ts")) ? o : undefined;
      }, "the kept file offered");
      assert.deepEqual(shown.map((o) => o.text).filter((t) => /zzgen-file|zzgen-debug|generated-out/.test(t)), [], "nothing git ignores");
      // The same list with the setting off: they come back, so the check above can fail.
      await vscode.workspace.getConfiguration("search").update("useIgnoreFiles", false, vscode.ConfigurationTarget.Global);
      await fill("#prompt", "@zzge", "sidebar");
      await until(async () => {
        const o = await options();
        return o.some((x) => x.text.includes("zzgen-file.ts")) && o.some((x) => x.text.includes("zzgen-debug.log"));
      }, "the ignored files offered with search.useIgnoreFiles off");
      await fill("#prompt", "@generated", "sidebar");
      await until(async () => (await options()).some((x) => x.kind === "folder" && x.text.includes("generated-out/")), "the ignored folder offered with search.useIgnoreFiles off");
      await press("#prompt", "Escape", "sidebar");
      await fill("#prompt", "", "sidebar");
    } finally {
      await vscode.workspace.getConfiguration("search").update("useIgnoreFiles", undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(ignoredDir.fsPath, { recursive: true, force: true });
      for (const f of ["zzgen-debug.log", "zzgen-kept.ts", ".gitignore"]) fs.rmSync(path.join(root.fsPath, f), { force: true });
    }
  });

  it("the working tree's changes arrive as a diff; a hostile .git/config runs nothing", async () => {
    await useAgents("Mentions2");
    // VS Code's own git extension would run git status here (and with it the hostile fsmonitor).
    await vscode.workspace.getConfiguration("git").update("enabled", false, vscode.ConfigurationTarget.Global);
    const { execFileSync } = await import("node:child_process");
    const git = (...args: string[]): void => { execFileSync("git", ["-c", "core.fsmonitor=false", ...args], { cwd: root.fsPath, stdio: "ignore" }); };
    const marker = path.join(dir, "hostile-ran");
    const touch = `node -e "require('fs').writeFileSync(process.argv[1], 'ran')" ${JSON.stringify(marker)}`;
    const original = fs.readFileSync(hello.fsPath, "utf8");
    try {
      git("init", "-q");
      git("add", "src/hello.ts");
      git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "first");
      fs.writeFileSync(path.join(root.fsPath, ".gitattributes"), "*.ts filter=evil diff=evil\n");
      git("config", "diff.external", touch);
      git("config", "diff.evil.textconv", `${touch}; cat`);
      git("config", "filter.evil.clean", `${touch}; cat`);
      git("config", "core.fsmonitor", touch);
      fs.writeFileSync(hello.fsPath, `${original}// CHANGED-LINE-MARK\n`);
      await vscode.commands.executeCommand("agentThoughts.panel.focus");
      await pick("Review ", "chan", "changes", /Working tree changes/);
      await fill("#prompt", "Review", "sidebar");
      const prompt = await send(record);
      assert.equal(prompt.length, 2, JSON.stringify(prompt).slice(0, 500));
      const diff = prompt[1]!;
      assert.equal(diff.resource?.uri, `${root.toString()}#changes`);
      assert.equal(diff.resource?.mimeType, "text/x-diff");
      assert.match(diff.resource.text, /^\+\/\/ CHANGED-LINE-MARK$/m);
      assert.match(diff.resource.text, /Untracked files:\n[^]*\.gitattributes/);
      assert.equal(fs.existsSync(marker), false, "nothing the repository configures ran");
    } finally {
      fs.writeFileSync(hello.fsPath, original);
      fs.rmSync(path.join(root.fsPath, ".git"), { recursive: true, force: true });
      fs.rmSync(path.join(root.fsPath, ".gitattributes"), { force: true });
    }
  });

  it("chips survive a reload of the panel; chips alone can be sent", async () => {
    await useAgents("Mentions2");
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await fill("#prompt", "", "sidebar");
    await pick("", "src", "folder", /src\//);
    await fill("#prompt", "", "sidebar");
    assert.equal(await evaluate(() => (document.getElementById("send") as HTMLButtonElement).disabled, undefined, "sidebar"), false, "Send is on with a chip and no text");
    await evaluate(() => { (window as Window & { __atOldPage?: boolean }).__atOldPage = true; return true; }, undefined, "sidebar");
    const readyAt = a._test.controller.stats.lastReadyAt;
    await vscode.commands.executeCommand("workbench.action.webview.reloadWebviewAction");
    await waitFor(() => document.getElementById("prompt") !== null && (window as Window & { __atOldPage?: boolean }).__atOldPage !== true, undefined, { view: "sidebar", what: "the re-created panel", timeoutMs: 60_000 });
    await until(() => a._test.controller.stats.lastReadyAt > readyAt, "the new page to ask the host for the state");
    assert.deepEqual(await chips(), ["src/"], "the chip is back after the reload");
    const prompt = await send(record);
    assert.deepEqual(prompt, [{ type: "resource_link", uri: vscode.Uri.joinPath(root, "src").toString(), name: "src/", mimeType: "inode/directory" }], "the chip alone, no empty text");
    assert.deepEqual(await chips(), [], "the chip went with the prompt");
  });
});
