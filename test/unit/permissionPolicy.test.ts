/** Permission policy: ask / allowReads / allowAll, and "always" answers remembered narrowly (same tool kind and same command or files). */
import * as assert from "node:assert/strict";
import type { PermissionOption } from "../../src/shared/events";
import { PermissionMemory, scopeOf } from "../../src/core/permissionPolicy";

const options: PermissionOption[] = [
  { optionId: "once", name: "Allow", kind: "allow_once" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
  { optionId: "never", name: "Always reject", kind: "reject_always" },
];

describe("permission policy", () => {
  it("ask never answers by itself; allowAll allows once; allowReads allows only read-like tools", () => {
    const m = new PermissionMemory();
    assert.equal(m.decide("ask", { sessionId: "s", toolKind: "read", options }), undefined);
    assert.equal(m.decide("allowAll", { sessionId: "s", toolKind: "execute", options })?.optionId, "once");
    assert.equal(m.decide("allowReads", { sessionId: "s", toolKind: "search", options })?.optionId, "once");
    assert.equal(m.decide("allowReads", { sessionId: "s", toolKind: "edit", options }), undefined);
    assert.equal(m.decide("allowAll", { sessionId: "s", toolKind: "edit", options: [options[2]!] }), undefined, "no allow option: ask");
  });

  it("never answers a guarded request (a file that configures tools) by policy or rule, and never remembers one", () => {
    const m = new PermissionMemory();
    assert.equal(m.decide("allowAll", { sessionId: "s", toolKind: "edit", guarded: true, options }), undefined);
    assert.equal(m.remember({ sessionId: "s", toolKind: "edit", scope: "files: /w/.vscode/settings.json", guarded: true, options }, "always"), undefined);
    assert.equal(m.list().length, 0);
  });

  it("remembers always-allow for the same tool kind and the same command only, lists and revokes it", () => {
    const m = new PermissionMemory();
    const ls = { sessionId: "s", toolKind: "execute" as const, scope: "command: ls", options };
    m.remember(ls, "once");
    assert.equal(m.decide("ask", ls), undefined, "a once answer is not remembered");
    const rule = m.remember(ls, "always", "Scripted");
    assert.ok(rule);
    assert.equal(m.decide("ask", ls)?.optionId, "once", "the same command is allowed (once, so the agent does not widen it)");
    assert.equal(m.decide("ask", { ...ls, scope: "command: rm -rf ~" }), undefined, "another command still asks");
    assert.equal(m.decide("ask", { ...ls, toolKind: "edit" }), undefined, "another tool kind still asks");
    assert.equal(m.decide("ask", { ...ls, scope: undefined }), undefined, "a request without a command or files still asks");
    assert.equal(m.decide("ask", { ...ls, sessionId: "other" }), undefined, "other sessions still ask");
    assert.deepEqual(m.list().map((r) => [r.scope, r.decision, r.agentName]), [["command: ls", "allow", "Scripted"]]);
    assert.ok(m.revoke(rule.id));
    assert.equal(m.decide("ask", ls), undefined, "revoked");
  });

  it("does not remember an always answer for a request that names no command and no file", () => {
    const m = new PermissionMemory();
    assert.equal(m.remember({ sessionId: "s", toolKind: "other", options }, "always"), undefined);
    assert.equal(m.decide("ask", { sessionId: "s", toolKind: "other", options }), undefined);
  });

  it("a remembered reject beats allowAll; forgetting a session drops its rules", () => {
    const m = new PermissionMemory();
    const req = { sessionId: "s", toolKind: "execute" as const, scope: "command: curl evil", options };
    m.remember(req, "never");
    assert.equal(m.decide("allowAll", req)?.optionId, "no");
    m.forgetSession("s");
    assert.equal(m.decide("ask", req), undefined);
  });

  it("scopes a call by its command, or by the files it names", () => {
    assert.equal(scopeOf({ title: "Run", rawInput: { command: ["git", "status"] } }, "execute"), `command: ["git","status"]`);
    assert.notEqual(scopeOf({ rawInput: { command: ["echo", "x; rm -rf ~"] } }, "execute"), scopeOf({ rawInput: { command: "echo x; rm -rf ~" } }, "execute"), "an argument list is not the shell line");
    assert.equal(scopeOf({ title: "npm test" }, "execute"), "command: npm test");
    assert.equal(scopeOf({ title: "List", rawInput: { command: "ls", description: "list files", cwd: "/w/sub" } }, "execute"), `command: ls {"cwd":"/w/sub"}`, "what changes the command is part of it; its description is not");
    assert.equal(scopeOf({ title: "Edit", locations: [{ path: "/w/b.ts" }], content: [{ type: "diff", path: "/w/a.ts", oldText: null, newText: "x" }] }, "edit"), "files: /w/a.ts, /w/b.ts");
    assert.equal(scopeOf({ title: "Think" }, "think"), undefined);
  });
});
