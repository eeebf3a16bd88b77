// Images and dropped files in the prompt box, in a real VS Code: an image pasted into the box
// becomes a chip with its thumbnail and reaches an agent that takes images as an `image` block with
// its type and exact data, and the user's message shows the thumbnail; an agent that does not take
// images gets nothing and the panel says so, with the prompt and chip kept in the box. A file
// dropped from the Explorer (text/uri-list) becomes a file chip sent as a resource; one outside the
// workspace is refused with why. Scripted agents record what they receive.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { PNG } from "pngjs";
import { api, quickInputTitle, scriptedAgent, transcriptHas, until, useAgent } from "./helpers";
import { harnessRequest, log, screenshot } from "./index";
import { evaluate, fill, press, viewport, waitFor } from "./webview";
import { recorded } from "../support/recorded";

interface Received { method: string; params: { prompt?: Array<Record<string, unknown>> } }

function received(file: string): Received[] {
  return recorded<Received>(file);
}

/** A real 64×40 PNG (two colours), so the panel can draw its thumbnail. */
function picture(): string {
  const png = new PNG({ width: 64, height: 40 });
  for (let y = 0; y < 40; y++) {
    for (let x = 0; x < 64; x++) {
      const i = (y * 64 + x) * 4;
      png.data[i] = x < 32 ? 230 : 30;
      png.data[i + 1] = 120;
      png.data[i + 2] = x < 32 ? 40 : 210;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png).toString("base64");
}

/** Pastes files into the prompt box as Ctrl+V does: a paste event whose clipboard holds them. */
async function paste(files: Array<{ name: string; type: string; base64?: string; size?: number }>): Promise<void> {
  await evaluate((list: Array<{ name: string; type: string; base64?: string; size?: number }>) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bytes = f.base64 !== undefined ? Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0)) : new Uint8Array(f.size ?? 0);
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    const t = document.getElementById("prompt")!;
    t.focus();
    t.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
  }, files, "sidebar");
}

/** Drops URIs on the prompt box as a drag from the Explorer does (`text/uri-list`). */
async function drop(uris: string[]): Promise<void> {
  await evaluate((list: string[]) => {
    const dt = new DataTransfer();
    dt.setData("text/uri-list", list.join("\r\n"));
    const box = document.querySelector(".prompt-box")!;
    const over = new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true });
    box.dispatchEvent(over);
    if (!over.defaultPrevented) throw new Error("the prompt box did not take the drag");
    box.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, uris, "sidebar");
}

/** The prompt box's chips: label, whether it has a drawn thumbnail, its accessible name. */
function boxChips(): Promise<Array<{ label: string; thumb: boolean; name: string }>> {
  return evaluate(() => [...document.querySelectorAll<HTMLElement>(".prompt-chips .chip")].map((c) => {
    const img = c.querySelector<HTMLImageElement>("img.chip-thumb");
    return { label: c.querySelector(".chip-label")?.textContent ?? "", thumb: !!img && img.complete && img.naturalWidth > 0 && img.src.startsWith("data:image/"), name: c.getAttribute("aria-label") ?? c.querySelector(".chip-label")?.textContent ?? "" };
  }), undefined, "sidebar");
}

function notice(): Promise<string> {
  return evaluate(() => {
    const n = document.querySelector<HTMLElement>(".attach-notice");
    return n && !n.hidden ? n.textContent ?? "" : "";
  }, undefined, "sidebar");
}

describe("images and dropped files in the prompt box", function () {
  this.timeout(120_000);
  let dir: string;
  let record: string;
  let blindRecord: string;
  const data = picture();

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-images-"));
    record = path.join(dir, "received.jsonl");
    blindRecord = path.join(dir, "blind.jsonl");
    await useAgent("Seeing", { recordFile: record, capabilities: { promptCapabilities: { image: true, embeddedContext: true } }, turns: [[{ message: "IMAGE-ANSWER" }], [{ message: "DROP-ANSWER" }], [{ message: "THIRD" }]] }, true);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });
  after(async () => {
    const a = await api();
    await a._test.manager.stop("Seeing").catch(() => undefined);
    await a._test.manager.stop("Blind").catch(() => undefined);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Sends what is in the box with Enter and returns the prompt blocks the agent got. */
  async function sendAndReceive(file: string): Promise<Array<Record<string, unknown>>> {
    const a = await api();
    const before = received(file).filter((m) => m.method === "session/prompt").length;
    const prompts = a._test.controller.stats.prompts;
    await press("#prompt", "Enter", "sidebar");
    await until(() => a._test.controller.stats.prompts > prompts, "the prompt to reach the host", 5_000);
    await until(() => received(file).filter((m) => m.method === "session/prompt").length > before, "the prompt to reach the agent", 20_000);
    const prompt = received(file).filter((m) => m.method === "session/prompt").at(-1)?.params.prompt;
    assert.ok(prompt);
    return prompt;
  }

  it("a pasted image is a chip with its thumbnail, arrives as an image block with its type and data, and the message shows the thumbnail", async () => {
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.getElementById("prompt") !== null, undefined, { view: "sidebar", what: "the prompt box" });
    const attach = await evaluate(() => {
      const b = document.getElementById("attach-image");
      return b ? { name: b.textContent?.trim(), tab: b.tabIndex, tag: b.tagName } : undefined;
    }, undefined, "sidebar");
    assert.deepEqual(attach, { name: "Attach image", tab: 0, tag: "BUTTON" }, "Attach image is a named button in the tab order");

    await fill("#prompt", "What is in this picture?", "sidebar");
    await paste([{ name: "image.png", type: "image/png", base64: data }]);
    await until(async () => (await boxChips()).some((c) => c.thumb), "the image chip with its thumbnail");
    assert.deepEqual(await boxChips(), [{ label: "image.png", thumb: true, name: "Image image.png" }]);
    assert.equal(await evaluate(() => (document.getElementById("prompt") as HTMLTextAreaElement).value, undefined, "sidebar"), "What is in this picture?", "the text stays as typed");
    // Too big, and not an image a prompt takes: refused in the panel, with why.
    await paste([{ name: "huge.png", type: "image/png", size: 6 * 1024 * 1024 }, { name: "logo.svg", type: "image/svg+xml", base64: btoaText("<svg/>") }]);
    await until(async () => (await notice()).includes("huge.png"), "the refusal under the box");
    assert.equal(await notice(), "Not attached: huge.png is 6 MB, more than the 5 MB an image may be; logo.svg is not a PNG, JPEG, GIF or WebP image.");
    assert.equal((await boxChips()).length, 1);

    // As a user sees it: light (the default theme), then dark; the rectangle of the box is logged for the README's crop.
    const rect = await evaluate(() => {
      const r = document.querySelector(".prompt-box")!.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height, inner: window.innerHeight };
    }, undefined, "sidebar");
    log("prompt box rectangle in the webview:", JSON.stringify(rect));
    await screenshot("test-results/prompt-image-light.png");
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", "Default Dark Modern", vscode.ConfigurationTarget.Global);
    try {
      await until(async () => (await evaluate(() => document.body.classList.contains("vscode-dark"), undefined, "sidebar")), "the dark theme in the panel");
      await screenshot("test-results/prompt-image-dark.png");
    } finally {
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      await viewport(1400, 900);
    }

    const prompt = await sendAndReceive(record);
    assert.deepEqual(prompt, [{ type: "text", text: "What is in this picture?" }, { type: "image", data, mimeType: "image/png" }], "the exact bytes, without the panel's thumbnail");
    assert.ok(await transcriptHas("IMAGE-ANSWER"));
    const shown = await waitFor(() => {
      const chips = document.querySelectorAll("#transcript .chips");
      const img = chips[chips.length - 1]?.querySelector<HTMLImageElement>("img.chip-thumb");
      return img && img.complete && img.naturalWidth > 0 ? { src: img.src.slice(0, 22), label: img.closest(".chip")?.textContent ?? "", width: img.naturalWidth } : undefined;
    }, undefined, { view: "sidebar", what: "the thumbnail in the user's message" });
    assert.deepEqual(shown, { src: "data:image/png;base64,", label: "Image (image/png)", width: 64 }, "our own small picture (a 64 px image stays 64 px)");
    assert.deepEqual(await boxChips(), [], "the chip went with the prompt");
    assert.equal(await notice(), "", "and the notice with it");
    const a = await api();
    const session = a._test.controller.viewState.sessions[a._test.controller.activeSession ?? ""];
    assert.ok(session);
    assert.ok(!JSON.stringify(session).includes(data.slice(0, 200)), "the panel's state holds the thumbnail, not the image's data");
  });

  it("× (by keyboard) and Backspace at the start remove image chips", async () => {
    await fill("#prompt", "two pictures", "sidebar");
    await paste([{ name: "one.png", type: "image/png", base64: data }, { name: "two.png", type: "image/png", base64: data }]);
    await until(async () => (await boxChips()).length === 2, "two image chips");
    const remove = await evaluate(() => [...document.querySelectorAll(".prompt-chips .chip-remove")].map((b) => b.textContent?.trim()), undefined, "sidebar");
    assert.deepEqual(remove, ["Remove image one.png", "Remove image two.png"], "each × is named for a screen reader");
    await press(".prompt-chips .chip-image .chip-remove", "Enter", "sidebar");
    await until(async () => (await boxChips()).map((c) => c.label).join() === "two.png", "one.png removed by its ×");
    await evaluate(() => { const t = document.getElementById("prompt") as HTMLTextAreaElement; t.focus(); t.setSelectionRange(0, 0); }, undefined, "sidebar");
    await press("#prompt", "Backspace", "sidebar");
    await until(async () => (await boxChips()).length === 0, "two.png removed by Backspace");
    assert.equal(await evaluate(() => (document.getElementById("prompt") as HTMLTextAreaElement).value, undefined, "sidebar"), "two pictures");
    await fill("#prompt", "", "sidebar");
  });

  it("a workspace file dropped from the Explorer is a chip sent as a resource; a file outside the workspace is refused", async () => {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(root);
    const hello = vscode.Uri.joinPath(root, "src", "hello.ts");
    const outside = path.join(dir, "outside-secret.txt");
    fs.writeFileSync(outside, "OUTSIDE-SECRET");
    await fill("#prompt", "Review this file", "sidebar");
    await drop([hello.toString()]);
    await until(async () => (await boxChips()).some((c) => c.label === "hello.ts"), "the dropped file's chip");
    await drop([vscode.Uri.file(outside).toString()]);
    await until(async () => (await notice()).includes("outside-secret.txt"), "the refusal of the file outside the workspace");
    assert.equal(await notice(), "Not attached: outside-secret.txt is outside the workspace.");
    // A hard link in the workspace to that file is the same file under a workspace name.
    const hard = vscode.Uri.joinPath(root, "dropped-hard.txt");
    fs.linkSync(outside, hard.fsPath);
    try {
      await drop([hard.toString()]);
      await until(async () => (await notice()).includes("dropped-hard.txt"), "the refusal of the hard-linked file");
      assert.equal(await notice(), "Not attached: dropped-hard.txt has 2 hard links, so it may be the same file as one outside the workspace.");
    } finally {
      fs.rmSync(hard.fsPath, { force: true });
    }
    assert.deepEqual((await boxChips()).map((c) => c.label), ["hello.ts"]);
    const prompt = await sendAndReceive(record);
    const text = (await vscode.workspace.openTextDocument(hello)).getText();
    assert.deepEqual(prompt, [{ type: "text", text: "Review this file" }, { type: "resource", resource: { uri: hello.toString(), text, mimeType: "text/x-typescript" } }]);
    assert.ok(!fs.readFileSync(record, "utf8").includes("OUTSIDE-SECRET"));
    assert.ok(await transcriptHas("DROP-ANSWER"));
  });

  it("Attach image (by keyboard) opens VS Code's file dialog and the picked PNG becomes a chip", async () => {
    const shot = path.join(dir, "picked-shot.png");
    fs.writeFileSync(shot, Buffer.from(data, "base64"));
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await waitFor(() => document.getElementById("attach-image") !== null, undefined, { view: "sidebar", what: "the Attach image button" });
    await press("#attach-image", "Enter", "sidebar");
    await until(async () => (await quickInputTitle()).includes("Attach images to the prompt"), "VS Code's file dialog", 20_000);
    // The dialog fills its box with the folder it opens in, possibly after we typed: type the path
    // (again, if the dialog replaced it) and press Enter until the picked image is a chip.
    await until(async () => {
      if ((await boxChips()).some((c) => c.label === "picked-shot.png" && c.thumb)) return true;
      if (!(await quickInputTitle()).includes("Attach images to the prompt")) return false;
      const typed = await harnessRequest<{ value: boolean }>({ op: "workbench", arg: shot, fn: ((p: string) => {
        const input = document.querySelector<HTMLInputElement>(".quick-input-widget .quick-input-box input");
        if (!input) return false;
        input.focus();
        if (input.value !== p) {
          input.value = p;
          input.dispatchEvent(new Event("input", { bubbles: true }));
          return false;
        }
        return true;
      }).toString() });
      if (typed?.value) await harnessRequest({ op: "keyboard", key: "Enter" });
      return false;
    }, "the picked image's chip with its thumbnail", 30_000, 500);
    assert.equal(await quickInputTitle(), "", "the dialog closed");
    await evaluate(() => { const t = document.getElementById("prompt") as HTMLTextAreaElement; t.focus(); t.setSelectionRange(0, 0); }, undefined, "sidebar");
    await press("#prompt", "Backspace", "sidebar");
    await until(async () => (await boxChips()).length === 0, "the chip removed");
  });

  it("an agent that does not take images gets nothing: the panel says so and keeps the prompt and its chip", async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Seeing", { recordFile: record, turns: [[{ message: "x" }]] }),
      scriptedAgent("Blind", { recordFile: blindRecord, turns: [[{ message: "BLIND" }]] }),
    ], vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration("agentThoughts").update("defaultAgent", "Blind", vscode.ConfigurationTarget.Global);
    await fill("#prompt", "Describe this", "sidebar");
    await paste([{ name: "image.png", type: "image/png", base64: data }]);
    await until(async () => (await boxChips()).some((c) => c.thumb), "the image chip");
    const a = await api();
    const prompts = a._test.controller.stats.prompts;
    await press("#prompt", "Enter", "sidebar");
    await until(() => a._test.controller.stats.prompts > prompts, "the prompt to reach the host", 5_000);
    const banner = await waitFor(() => [...document.querySelectorAll<HTMLElement>(".banner[role=alert]")].map((b) => b.textContent ?? "").find((t) => t.includes("does not accept images")), undefined, { view: "sidebar", what: "the refusal", timeoutMs: 20_000 });
    assert.match(banner ?? "", /Blind does not accept images: the prompt was not sent/);
    await until(async () => (await boxChips()).length === 1, "the chip back in the box");
    assert.equal(await evaluate(() => (document.getElementById("prompt") as HTMLTextAreaElement).value, undefined, "sidebar"), "Describe this", "the prompt back in the box");
    assert.deepEqual(received(blindRecord).map((m) => m.method).filter((m) => m.startsWith("session/")), [], "no session opened, nothing prompted");
    await fill("#prompt", "", "sidebar");
    await press("#prompt", "Backspace", "sidebar");
    await until(async () => (await boxChips()).length === 0, "the box emptied");
  });
});

function btoaText(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}
