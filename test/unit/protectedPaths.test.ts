/** Files that configure tools: which writes always ask, and when an approved diff covers a write. */
import * as assert from "node:assert/strict";
import { matchesApprovedEdit, ProtectedPaths } from "../../src/core/protectedPaths";

describe("protected paths", () => {
  const guard = new ProtectedPaths({ roots: ["/w"], extra: ["scripts/*.sh"] });

  it("protects VS Code settings and tasks, git hooks and config, CI workflows, dev containers, workspace files, and the user's patterns", () => {
    for (const p of ["/w/.vscode/settings.json", "/w/.vscode/tasks.json", "/w/.VSCode/Settings.json", "/w/.git/hooks/pre-commit", "/w/.git/config", "/w/sub/.git/hooks/post-checkout",
      "/w/.github/workflows/ci.yml", "/w/.devcontainer/devcontainer.json", "/w/.devcontainer.json", "/w/x.code-workspace", "/w/.husky/pre-push", "/w/scripts/build.sh"]) {
      assert.ok(guard.reasonForPath(p), `${p} is protected`);
    }
    for (const p of ["/w/src/a.ts", "/w/.gitignore", "/w/README.md", "/w/.github/ISSUE_TEMPLATE.md", "/other/.vscode/settings.json", "/w/scripts/sub/x.sh"]) {
      assert.equal(guard.reasonForPath(p), undefined, `${p} is not protected here`);
    }
    assert.match(guard.reasonForPath("/w/.vscode/settings.json")!, /\.vscode\/settings\.json configures tools/);
  });

  it("spots protected folders named in a command", () => {
    assert.ok(guard.reasonForText(`echo '{"x":1}' > .vscode/settings.json`));
    assert.ok(guard.reasonForText("cp hook .git/hooks/pre-commit"));
    assert.ok(guard.reasonForText("sed -i s/a/b/ .github/workflows/ci.yml"));
    assert.equal(guard.reasonForText("git status && cat .gitignore"), undefined);
    assert.equal(guard.reasonForText("npm test"), undefined);
  });

  it("an approved diff covers exactly its own text", () => {
    const whole = { path: "/w/.vscode/settings.json", oldText: "{}", newText: `{"editor.tabSize": 2}` };
    assert.ok(matchesApprovedEdit(whole, "/w/.vscode/settings.json", "{}", `{"editor.tabSize": 2}`));
    assert.ok(!matchesApprovedEdit(whole, "/w/.vscode/settings.json", "{}", `{"task.allowAutomaticTasks": "on"}`), "other content");
    assert.ok(!matchesApprovedEdit(whole, "/w/.vscode/settings.json", `{"a":1}`, `{"editor.tabSize": 2}`), "the file changed since");
    assert.ok(!matchesApprovedEdit(whole, "/w/.vscode/tasks.json", "{}", `{"editor.tabSize": 2}`), "other file");
    const fragment = { path: "/w/.vscode/settings.json", oldText: `"a": 1`, newText: `"a": 2` };
    assert.ok(matchesApprovedEdit(fragment, "/w/.vscode/settings.json", `{"a": 1, "b": 0}`, `{"a": 2, "b": 0}`));
    assert.ok(!matchesApprovedEdit(fragment, "/w/.vscode/settings.json", `{"a": 1, "b": 0}`, `"a": 2`), "a fragment approval does not cover replacing the whole file");
    const created = { path: "/w/.vscode/launch.json", oldText: null, newText: "{}" };
    assert.ok(matchesApprovedEdit(created, "/w/.vscode/launch.json", null, "{}"));
    assert.ok(!matchesApprovedEdit(created, "/w/.vscode/launch.json", "{}", "{}"), "it exists now: not the diff the user saw");
  });
});
