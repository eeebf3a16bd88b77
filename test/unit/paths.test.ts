/** One containment check, with the Windows and macOS rules tested on any machine. */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { isInside } from "../../src/core/paths";

describe("isInside", () => {
  it("POSIX: inside, the root itself, siblings with a shared prefix, parents, case matters on Linux", () => {
    const o = { api: path.posix, caseInsensitive: false };
    assert.ok(isInside("/w/src/a.ts", "/w", o));
    assert.ok(isInside("/w", "/w", o));
    assert.ok(!isInside("/work/a.ts", "/w", o), "a sibling that shares the prefix is outside");
    assert.ok(!isInside("/", "/w", o));
    assert.ok(!isInside("/W/a.ts", "/w", o), "Linux file systems are case-sensitive");
    assert.ok(isInside("/w/..x/a", "/w", o), "a folder named ..x is still inside");
  });

  it("macOS: case-insensitive like APFS by default", () => {
    assert.ok(isInside("/Users/me/Proj/.VSCode/settings.json", "/users/me/proj", { api: path.posix, caseInsensitive: true }));
  });

  it("Windows: drive letters and folders in any case, other drives and UNC paths outside", () => {
    const o = { api: path.win32, caseInsensitive: true };
    assert.ok(isInside("C:\\Work\\src\\a.ts", "c:\\work", o));
    assert.ok(isInside("c:\\work", "C:\\Work", o));
    assert.ok(!isInside("D:\\work\\a.ts", "C:\\work", o), "another drive");
    assert.ok(!isInside("C:\\workspace\\a.ts", "C:\\work", o));
    assert.ok(!isInside("\\\\server\\share\\a.ts", "C:\\work", o), "a network path");
  });
});
