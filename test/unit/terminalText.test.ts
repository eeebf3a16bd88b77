/** A command's terminal name (the command, never a placeholder, made safe to show) and what a completed call's rawOutput says of its exit. */
import * as assert from "node:assert/strict";
import { commandOf, isPlaceholderTitle, nextCommandName, rawOutputExit, terminalName, type CommandName } from "../../src/core/terminalText";

/** The name after each update in turn. */
const fold = (updates: { title?: string; rawInput?: unknown }[]): CommandName | undefined =>
  updates.reduce<CommandName | undefined>((prev, u) => nextCommandName(prev, u.title, u.rawInput), undefined);

describe("a command's terminal name", () => {
  it("knows the placeholder titles agents give a command before they know it", () => {
    for (const t of ["Terminal", "terminal", " Terminal ", "`Terminal`", "", "   ", "Run command", "Bash", "Tool call", "Tool call x1", "Execute"]) assert.ok(isPlaceholderTitle(t), JSON.stringify(t));
    for (const t of ["cat hello.txt && echo ok", "npm test", "Run the greeting script", "terminal-notifier -message hi", "`ls -la`"]) assert.ok(!isPlaceholderTitle(t), JSON.stringify(t));
  });

  it("finds the command in rawInput: a string, codex's shell argument list, or other argument lists", () => {
    assert.equal(commandOf({ command: "cat hello.txt && echo ok", description: "Show it" }), "cat hello.txt && echo ok");
    assert.equal(commandOf({ command: ["/bin/bash", "-lc", "cat hello.txt && echo ok"], cwd: "/w" }), "cat hello.txt && echo ok");
    assert.equal(commandOf({ command: ["sh", "-c", "ls"] }), "ls");
    assert.equal(commandOf({ command: ["git", "status", "--short"] }), "git status --short");
    for (const raw of [undefined, null, "ls", {}, { command: "" }, { command: [] }, { command: ["git", 3] }, { command: { x: 1 } }]) assert.equal(commandOf(raw), undefined, JSON.stringify(raw));
  });

  it("follows the updates: a placeholder first, the real title or the command later; a later placeholder never replaces a real name", () => {
    // claude-agent-acp: "Terminal" with `{}` as input, then the command as title and input.
    assert.deepEqual(fold([{ title: "Terminal", rawInput: {} }]), { text: "Terminal", real: false });
    assert.deepEqual(fold([{ title: "Terminal", rawInput: {} }, { title: "cat hello.txt && echo ok", rawInput: { command: "cat hello.txt && echo ok" } }]), { text: "cat hello.txt && echo ok", real: true });
    // The command only in rawInput.
    assert.deepEqual(fold([{ title: "Terminal" }, { rawInput: { command: ["/bin/bash", "-lc", "make"] } }]), { text: "make", real: true });
    assert.deepEqual(fold([{ title: "make all" }, { title: "Terminal" }, {}]), { text: "make all", real: true });
    // A real title wins over the command (the tool call's name), the latest one counts.
    assert.deepEqual(fold([{ title: "Terminal", rawInput: { command: "ls" } }, { title: "List the files" }]), { text: "List the files", real: true });
    assert.equal(fold([{}]), undefined);
  });

  it("is one short line of plain text, whatever the agent sends", () => {
    assert.equal(terminalName("cat hello.txt && echo ok"), "cat hello.txt && echo ok");
    assert.equal(terminalName("`cat hello.txt && echo ok`"), "cat hello.txt && echo ok");
    assert.equal(terminalName("npm test\n\n--watch\tnow"), "npm test --watch now");
    const hostile = terminalName("\x1b]0;owned\x07\x1b[31mrm\x1b[0m -rf /\u202e\u200bgnp.exe\x00\x7f$(bell) [x](command:evil)");
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(hostile, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u200b]/);
    assert.ok(hostile.startsWith("rm -rf / gnp.exe"), hostile);
    assert.ok(!hostile.includes("$("), "no $(icon) syntax");
    assert.ok(!hostile.includes("]("), "no markdown link");
    const long = terminalName("x".repeat(10_000));
    assert.equal(long, `${"x".repeat(59)}…`);
    const emoji = terminalName("😀".repeat(40));
    assert.ok(emoji.endsWith("…") && !/[\ud800-\udbff]…$/.test(emoji), "never ends with half a character");
    assert.equal(terminalName(""), "Command");
    assert.equal(terminalName("\x1b[0m\n\t "), "Command");
    assert.equal(terminalName("  ", "The command"), "The command");
  });

  it("reads the exit code a completed call's rawOutput names", () => {
    assert.deepEqual(rawOutputExit({ exit_code: 0, stdout: "" }), { exitCode: 0, signal: null });
    assert.deepEqual(rawOutputExit({ exitCode: 3 }), { exitCode: 3, signal: null });
    for (const raw of [undefined, "out", { exit_code: "0" }, { exit_code: 1.5 }, null]) assert.equal(rawOutputExit(raw), undefined);
  });
});
