/**
 * Where the newer @-mentions come from, the parts that run without VS Code: the working tree's
 * changes from git in a repository whose configuration tries to make git run programs (none runs),
 * git's ignore files as the file list applies them, and a terminal's output as an agent reads it.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { mentionedTerminalText } from "../../src/core/terminalText";
import { isMentionRef, rankMentions } from "../../src/shared/mentions";
import { parseWebviewMessage } from "../../src/shared/protocol";
import { IgnoreFiles } from "../../src/vscode/ignoreFiles";
import { MAX_DIFF_CHARS, safeOverrides, workingTreeChanges } from "../../src/vscode/workingTreeChanges";

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "core.fsmonitor=false", ...args], { cwd, stdio: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd } });
}

describe("@-mention sources", () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-mention-src-")); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the working tree's changes: the diff against HEAD and the untracked files, with nothing the repository configures run", async function () {
    this.timeout(20_000);
    const repo = path.join(dir, "repo");
    fs.mkdirSync(repo);
    git(repo, "init", "-q");
    git(repo, "config", "user.email", "t@example.com");
    git(repo, "config", "user.name", "t");
    fs.writeFileSync(path.join(repo, "a.txt"), "one\n");
    fs.writeFileSync(path.join(repo, ".gitattributes"), "*.txt filter=evil diff=evil\n");
    git(repo, "add", ".");
    git(repo, "commit", "-qm", "first");
    const marker = (name: string): string => path.join(dir, `ran-${name}`);
    const touch = (name: string): string => `node -e "require('fs').writeFileSync(process.argv[1], '')" ${JSON.stringify(marker(name))}`;
    git(repo, "config", "diff.external", touch("external"));
    git(repo, "config", "diff.evil.command", touch("diff-command"));
    git(repo, "config", "diff.evil.textconv", `${touch("textconv")}; cat`);
    git(repo, "config", "filter.evil.clean", `${touch("clean")}; cat`);
    git(repo, "config", "filter.evil.process", touch("process"));
    git(repo, "config", "filter.evil.required", "true");
    git(repo, "config", "core.fsmonitor", touch("fsmonitor"));
    git(repo, "config", "core.pager", touch("pager"));
    fs.writeFileSync(path.join(repo, "a.txt"), "one\ntwo\n");
    fs.writeFileSync(path.join(repo, "new.txt"), "untracked\n");
    // The index's stat data older than the file: git would clean-filter it to compare.
    const old = new Date(2000, 0, 1);
    fs.utimesSync(path.join(repo, ".git", "index"), old, old);

    const text = await workingTreeChanges(repo);
    assert.match(text, /^diff --git a\/a\.txt b\/a\.txt$/m);
    assert.match(text, /^\+two$/m);
    assert.match(text, /Untracked files:\nnew\.txt/);
    const ran = fs.readdirSync(dir).filter((f) => f.startsWith("ran-"));
    assert.deepEqual(ran, [], "no program the repository names ran");

    // The check itself can fail: plain git in this repository runs them.
    try {
      execFileSync("git", ["diff", "HEAD"], { cwd: repo, stdio: "ignore" });
    } catch {
      // an external diff that prints nothing may fail the diff
    }
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith("ran-")), "the hostile configuration does run programs in plain git");
  });

  it("the working tree's changes outside a repository say so, and a long diff is cut", async function () {
    this.timeout(20_000);
    assert.match(await workingTreeChanges(dir), /Not a git repository/);
    const repo = path.join(dir, "big");
    fs.mkdirSync(repo);
    git(repo, "init", "-q");
    fs.writeFileSync(path.join(repo, "big.txt"), "");
    git(repo, "add", ".");
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "first");
    fs.writeFileSync(path.join(repo, "big.txt"), "line of text\n".repeat(40_000));
    const text = await workingTreeChanges(repo);
    assert.ok(text.length < MAX_DIFF_CHARS + 200, String(text.length));
    assert.match(text, /cut at 200000 characters/);
  });

  it("every filter the configuration names is emptied, whatever its name", () => {
    const o = safeOverrides(["filter.lfs.clean", "filter.a.b.process", "FILTER.x y.required"]);
    for (const d of ["lfs", "a.b", "x y"]) {
      assert.ok(o.some(([k, v]) => k === `filter.${d}.clean` && v === ""), d);
      assert.ok(o.some(([k, v]) => k === `filter.${d}.process` && v === ""), d);
    }
    assert.ok(o.some(([k, v]) => k === "core.fsmonitor" && v === "false"));
  });

  it("git's ignore files: the root's, a nested one's negation, .git/info/exclude and ignored folders", async () => {
    fs.mkdirSync(path.join(dir, "src", "gen"), { recursive: true });
    fs.mkdirSync(path.join(dir, ".git", "info"), { recursive: true });
    fs.writeFileSync(path.join(dir, ".gitignore"), "*.log\nbuild/\n");
    fs.writeFileSync(path.join(dir, "src", ".gitignore"), "!keep.log\ngen/\n");
    fs.writeFileSync(path.join(dir, ".git", "info", "exclude"), "secret.txt\n");
    const ig = new IgnoreFiles([dir]);
    const at = (p: string, isDir = false): Promise<boolean> => ig.ignored(path.join(dir, ...p.split("/")), isDir);
    assert.equal(await at("a.log"), true);
    assert.equal(await at("src/a.log"), true);
    assert.equal(await at("src/keep.log"), false, "a nested .gitignore takes it back");
    assert.equal(await at("build/out.js"), true, "inside an ignored folder");
    assert.equal(await at("build", true), true);
    assert.equal(await at("src/gen/x.ts"), true);
    assert.equal(await at("secret.txt"), true);
    assert.equal(await at("src/hello.ts"), false);
    assert.equal(await at("src", true), false);
    assert.equal(await new IgnoreFiles([dir]).ignored(path.join(os.tmpdir(), "elsewhere.log")), false, "outside the workspace: not its business");
  });

  it("a terminal's output as an agent reads it: no colours, a progress line as it was left, the end kept", () => {
    assert.equal(mentionedTerminalText("\u001b[31mred\u001b[0m ok\r\n10%\r50%\r100%\nend", 1000), "red ok\n100%\nend");
    const long = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const cut = mentionedTerminalText(long, 50);
    assert.match(cut, /^\[… \d+ earlier characters left out\]\n/);
    assert.ok(cut.endsWith("line 99"));
    assert.ok(!cut.includes("line 9\n"), "cut at a line start");
  });

  it("ranked on the label too, the active file's problems come before the workspace's for @prob", () => {
    const items = [
      { kind: "workspaceProblems", label: "Problems in the workspace", detail: "Problems (2) in the workspace" },
      { kind: "problems", label: "Problems in hello.ts", detail: "Problems (1) src/hello.ts" },
    ];
    assert.deepEqual(rankMentions("prob", items).map((i) => i.kind), ["workspaceProblems", "problems"], "on the detail alone, the workspace's first");
    assert.deepEqual(rankMentions("prob", items, 50, (i) => [i.label, i.detail]).map((i) => i.kind), ["problems", "workspaceProblems"]);
  });

  it("the new kinds are well-formed mentions, and chips alone can be sent", () => {
    for (const kind of ["folder", "symbol", "workspaceProblems", "terminal", "changes"]) assert.equal(isMentionRef({ kind, uri: "file:///w/x", label: "x" }), true, kind);
    assert.equal(isMentionRef({ kind: "shell", uri: "file:///w/x", label: "x" }), false);
    assert.equal(parseWebviewMessage({ type: "sendPrompt", text: "", mentions: [{ kind: "folder", uri: "file:///w/src", label: "src/" }] }).ok, true);
    assert.equal(parseWebviewMessage({ type: "sendPrompt", text: "" }).ok, false, "neither text nor mentions");
  });
});
