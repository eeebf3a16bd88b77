// @-mentions in the prompt box, in a real VS Code: typing `@hel` lists the workspace's src/hello.ts,
// the keyboard picks it into a chip, and sending delivers it to the agent as an embedded resource
// with the file's URI and text; the current selection arrives with its #L1-L2 fragment. A scripted
// agent records what it receives. The active file's problems go as text, a file over 256 KB as a
// link, and a forged mention of a file outside the workspace (directly or through a symlink in it)
// is never read.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { api, transcriptHas, until, useAgent } from "./helpers";
import { screenshot } from "./index";
import { evaluate, fill, postRaw, press, waitFor } from "./webview";
import { recorded } from "../support/recorded";

interface Received { method: string; params: { prompt?: Array<Record<string, unknown>> } }

function received(file: string): Received[] {
  return recorded<Received>(file);
}

/** The open completion list's options: kind, text, and whether it is the active one. */
function options(): Promise<Array<{ kind: string; text: string; selected: boolean }>> {
  return evaluate(() => {
    const list = document.getElementById("slash-list");
    if (!list || list.hidden) return [];
    return [...list.querySelectorAll<HTMLElement>("[role=option]")].map((o) => ({ kind: o.dataset.mentionKind ?? "", text: o.textContent ?? "", selected: o.getAttribute("aria-selected") === "true" }));
  }, undefined, "sidebar");
}

describe("@-mentions in the prompt box", function () {
  this.timeout(90_000);
  let dir: string;
  let record: string;
  let hello: vscode.Uri;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-mentions-"));
    record = path.join(dir, "received.jsonl");
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(root);
    hello = vscode.Uri.joinPath(root, "src", "hello.ts");
    await useAgent("Mentions", { recordFile: record, turns: [[{ message: "MENTIONS-ANSWER" }]] }, true);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });
  after(async () => {
    const a = await api();
    await a._test.manager.stop("Mentions").catch(() => undefined);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Sends what is in the box with Enter and returns the prompt blocks the agent got. */
  async function sendAndReceive(): Promise<Array<Record<string, unknown>>> {
    const a = await api();
    const before = received(record).filter((m) => m.method === "session/prompt").length;
    const prompts = a._test.controller.stats.prompts;
    await press("#prompt", "Enter", "sidebar");
    await until(() => a._test.controller.stats.prompts > prompts, "the prompt to reach the host", 5_000);
    await until(() => received(record).filter((m) => m.method === "session/prompt").length > before, "the prompt to reach the agent", 20_000);
    const prompt = received(record).filter((m) => m.method === "session/prompt").at(-1)?.params.prompt;
    assert.ok(prompt);
    return prompt;
  }

  it("@hel lists src/hello.ts; Enter makes it a chip; sending embeds the file's URI and text", async () => {
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the prompt box" });
    await fill("#prompt", "Explain @hel", "sidebar");
    await until(async () => (await options()).some((o) => o.text.includes("hello.ts")), "src/hello.ts offered for @hel");
    const shown = await options();
    assert.equal(shown[0]?.kind, "file", `a workspace file first (${JSON.stringify(shown)})`);
    assert.match(shown[0]?.text ?? "", /hello\.ts.*src\/hello\.ts/);
    assert.equal(shown[0]?.selected, true, "the first option is active");
    const a11y = await evaluate(() => {
      const t = document.getElementById("prompt")!;
      const active = t.getAttribute("aria-activedescendant");
      return { label: document.getElementById("slash-list")?.getAttribute("aria-label"), option: active ? document.getElementById(active)?.getAttribute("aria-label") : null };
    }, undefined, "sidebar");
    assert.match(a11y.label ?? "", /Mention/);
    assert.match(a11y.option ?? "", /^File hello\.ts, src\/hello\.ts$/, "a screen reader hears what the active option is");

    await press("#prompt", "Escape", "sidebar");
    assert.deepEqual(await options(), [], "Escape closes the list");
    await fill("#prompt", "Explain @hel", "sidebar");
    await until(async () => (await options())[0]?.text.includes("hello.ts"), "the list again");
    await press("#prompt", "Enter", "sidebar");
    const box = await waitFor(() => {
      const chips = [...document.querySelectorAll<HTMLElement>(".prompt-chips .chip-label")].map((c) => c.textContent ?? "");
      const list = document.getElementById("slash-list");
      return chips.length ? { chips, text: (document.getElementById("prompt") as HTMLTextAreaElement).value, open: !!list && !list.hidden } : undefined;
    }, undefined, { view: "sidebar", what: "a chip in the prompt box" });
    assert.deepEqual(box, { chips: ["hello.ts"], text: "Explain ", open: false }, "the @query became the chip");

    const prompt = await sendAndReceive();
    const text = (await vscode.workspace.openTextDocument(hello)).getText();
    assert.deepEqual(prompt, [{ type: "text", text: "Explain" }, { type: "resource", resource: { uri: hello.toString(), text, mimeType: "text/x-typescript" } }]);
    assert.ok(await transcriptHas("MENTIONS-ANSWER"));
    const chips = await evaluate(() => {
      const users = document.querySelectorAll("#transcript .chips");
      return [...(users[users.length - 1]?.querySelectorAll(".chip") ?? [])].map((c) => c.textContent ?? "");
    }, undefined, "sidebar");
    assert.deepEqual(chips, ["hello.ts"], "the user's message shows the chip");
    assert.equal(await evaluate(() => document.querySelectorAll(".prompt-chips .chip").length, undefined, "sidebar"), 0, "the box's chips went with the prompt");
  });

  it("the selection arrives as its lines with a #L1-L2 fragment; Backspace at the start removes a chip", async () => {
    const editor = await vscode.window.showTextDocument(hello);
    editor.selection = new vscode.Selection(0, 0, 1, editor.document.lineAt(1).text.length);
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await fill("#prompt", "@hel", "sidebar");
    await until(async () => (await options()).some((o) => o.kind === "editor"), "the open editor offered");
    await press("#prompt", "Enter", "sidebar");
    await waitFor(() => document.querySelectorAll(".prompt-chips .chip").length === 1, undefined, { view: "sidebar", what: "a chip" });
    // The whole list for a bare @ with a chip already in the box: the selection, the open editor, the other files.
    await fill("#prompt", "Explain @", "sidebar");
    await until(async () => {
      const kinds = (await options()).map((o) => o.kind);
      return kinds[0] === "selection" && kinds.includes("editor") && kinds.includes("file");
    }, "the selection first, then the open editor and files, for a bare @");
    // As a user sees it: the default light theme, then dark (README).
    for (const [name, theme, cls] of [["light", "Default Light Modern", "vscode-light"], ["dark", "Default Dark Modern", "vscode-dark"]] as const) {
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      await waitFor((c: string) => document.body.classList.contains(c), cls, { view: "sidebar", what: `the ${name} theme` });
      await screenshot(`test-results/prompt-mentions-${name}.png`); // (the README shows mentionSources.test.ts's, with more kinds)
    }

    await press("#prompt", "Escape", "sidebar");
    await fill("#prompt", "", "sidebar");
    await press("#prompt", "Backspace", "sidebar");
    await waitFor(() => document.querySelectorAll(".prompt-chips .chip").length === 0, undefined, { view: "sidebar", what: "Backspace at the start to remove the chip" });

    await fill("#prompt", "What does this do? @sel", "sidebar");
    await until(async () => (await options())[0]?.kind === "selection", "the selection offered first for @sel");
    assert.match((await options())[0]?.text ?? "", /hello\.ts:1-2/);
    await press("#prompt", "Tab", "sidebar");
    await waitFor(() => [...document.querySelectorAll(".prompt-chips .chip-label")].map((c) => c.textContent).join() === "hello.ts:1-2", undefined, { view: "sidebar", what: "the selection's chip" });
    const prompt = await sendAndReceive();
    const lines = editor.document.getText(new vscode.Range(0, 0, 1, editor.document.lineAt(1).text.length));
    assert.deepEqual(prompt, [{ type: "text", text: "What does this do?" }, { type: "resource", resource: { uri: `${hello.toString()}#L1-L2`, text: lines, mimeType: "text/x-typescript" } }]);
  });

  it("problems go as text, a file over 256 KB as a resource_link, and nothing outside the workspace is read", async () => {
    const root = vscode.workspace.workspaceFolders![0]!.uri;
    const big = vscode.Uri.joinPath(root, "big-mention.txt");
    const secret = path.join(dir, "secret.txt");
    const link = vscode.Uri.joinPath(root, "mention-link.txt");
    fs.writeFileSync(big.fsPath, "x".repeat(300 * 1024));
    fs.writeFileSync(secret, "SECRET-OUTSIDE");
    fs.symlinkSync(secret, link.fsPath);
    // A hard link in the workspace is the outside file itself under a workspace name.
    const hard = vscode.Uri.joinPath(root, "mention-hard.txt");
    fs.linkSync(secret, hard.fsPath);
    const problems = vscode.languages.createDiagnosticCollection("mentions-test");
    try {
      const warning = new vscode.Diagnostic(new vscode.Range(1, 2, 1, 8), "MENTION-PROBLEM: greet returns too soon", vscode.DiagnosticSeverity.Warning);
      warning.source = "mentions-test";
      problems.set(hello, [warning]);
      await vscode.window.showTextDocument(hello);
      await vscode.commands.executeCommand("agentThoughts.panel.focus");
      await fill("#prompt", "Fix @prob", "sidebar");
      await until(async () => (await options())[0]?.kind === "problems", "the active file's problems offered for @prob");
      await press("#prompt", "Enter", "sidebar");
      await fill("#prompt", "Fix @big-men", "sidebar");
      await until(async () => (await options())[0]?.text.includes("big-mention.txt"), "the big file offered");
      await press("#prompt", "Enter", "sidebar");
      assert.deepEqual(await evaluate(() => [...document.querySelectorAll(".prompt-chips .chip-label")].map((c) => c.textContent), undefined, "sidebar"), ["Problems in hello.ts", "big-mention.txt"]);
      const prompt = await sendAndReceive();
      assert.equal(prompt.length, 3, JSON.stringify(prompt).slice(0, 500));
      const [, shown, linked] = prompt as [unknown, { resource: { uri: string; text: string } }, Record<string, unknown>];
      assert.equal(shown.resource.uri, `${hello.toString()}#problems`);
      assert.match(shown.resource.text, /src\/hello\.ts:2:3 Warning: MENTION-PROBLEM: greet returns too soon \(mentions-test\)/);
      assert.deepEqual(linked, { type: "resource_link", uri: big.toString(), name: "big-mention.txt", size: 300 * 1024 });

      // A script in the webview forging mentions: a file outside the workspace, a symlink in it to
      // that file, and a hard link to it (sent as links the agent must ask to read, never as text).
      const a = await api();
      const before = received(record).filter((m) => m.method === "session/prompt").length;
      await postRaw([{ type: "sendPrompt", text: "forged", mentions: [
        { kind: "file", uri: vscode.Uri.file(secret).toString(), label: "secret.txt" },
        { kind: "selection", uri: link.toString(), label: "mention-link.txt:1-1", startLine: 1, endLine: 1 },
        { kind: "file", uri: hard.toString(), label: "mention-hard.txt" },
        { kind: "selection", uri: hard.toString(), label: "mention-hard.txt:1-1", startLine: 1, endLine: 1 },
      ] }]);
      await until(() => received(record).filter((m) => m.method === "session/prompt").length > before, "the forged prompt to reach the agent", 20_000);
      const forged = received(record).filter((m) => m.method === "session/prompt").at(-1)?.params.prompt;
      const size = "SECRET-OUTSIDE".length;
      assert.deepEqual(forged, [
        { type: "text", text: "forged" },
        { type: "resource_link", uri: hard.toString(), name: "mention-hard.txt", size },
        { type: "resource_link", uri: `${hard.toString()}#L1-L1`, name: "mention-hard.txt", size },
      ], "only the text and links went");
      assert.ok(!fs.readFileSync(record, "utf8").includes("SECRET-OUTSIDE"));
      await until(() => a._test.controller.viewState.sessions[a._test.controller.activeSession ?? ""]?.status === "idle", "the turn to end");
    } finally {
      problems.dispose();
      fs.rmSync(big.fsPath, { force: true });
      fs.rmSync(link.fsPath, { force: true });
      fs.rmSync(hard.fsPath, { force: true });
    }
  });
});
