/** Permission policy: ask / allowReads / allowAll, and "always" answers remembered per session and tool kind. */
import * as assert from "node:assert/strict";
import type { PermissionOption } from "../../src/core/events";
import { PermissionMemory } from "../../src/core/permissionPolicy";

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

  it("remembers always-allow and always-reject per session and tool kind, not once answers", () => {
    const m = new PermissionMemory();
    m.remember({ sessionId: "s", toolKind: "edit", options }, "once");
    assert.equal(m.decide("ask", { sessionId: "s", toolKind: "edit", options }), undefined);
    m.remember({ sessionId: "s", toolKind: "edit", options }, "always");
    assert.equal(m.decide("ask", { sessionId: "s", toolKind: "edit", options })?.optionId, "always");
    assert.equal(m.decide("ask", { sessionId: "s", toolKind: "execute", options }), undefined, "other kinds still ask");
    assert.equal(m.decide("ask", { sessionId: "other", toolKind: "edit", options }), undefined, "other sessions still ask");
    m.remember({ sessionId: "s", toolKind: "execute", options }, "never");
    assert.equal(m.decide("allowAll", { sessionId: "s", toolKind: "execute", options })?.optionId, "never", "a remembered reject beats allowAll");
    m.forgetSession("s");
    assert.equal(m.decide("ask", { sessionId: "s", toolKind: "edit", options }), undefined);
  });
});
