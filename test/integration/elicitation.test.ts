// An agent's questions (ACP elicitation) in a real VS Code: the capability is announced; a form
// request is pinned above the prompt box, filled in and submitted from the panel, and reaches the
// agent as accept with exactly the content typed; Decline answers decline; Stop cancels an open
// one; a URL request shows its origin and opens only when the user clicks Open (a javascript: or
// user-name URL is declined without showing it).
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Scenario } from "../fixtures/agents/scenario";
import { api, clickToastButton, scriptedAgent, toastShows, until } from "./helpers";
import { click, evaluate, fill, press, viewport, waitFor } from "./webview";
import { screenshot } from "./index";

const SCHEMA = {
  type: "object",
  properties: {
    project: { type: "string", title: "Project name", minLength: 2, description: "As it appears in package.json" },
    port: { type: "integer", title: "Port", minimum: 1024, maximum: 65535, default: 8080 },
    tests: { type: "boolean", title: "Run the tests", default: true },
    licence: { type: "string", title: "Licence", oneOf: [{ const: "mit", title: "MIT" }, { const: "apache", title: "Apache 2.0" }] },
    targets: { type: "array", title: "Targets", items: { anyOf: [{ const: "node", title: "Node.js" }, { const: "web", title: "Browser" }] }, minItems: 1 },
  },
  required: ["project", "licence", "targets"],
};

interface Received { method: string; params: Record<string, unknown> }

describe("agent questions (elicitation)", function () {
  this.timeout(90_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "at-elicit-")); });
  after(async () => {
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [], vscode.ConfigurationTarget.Global);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function agent(name: string, scenario: Scenario): Promise<string> {
    const record = path.join(dir, `${name}.jsonl`);
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [scriptedAgent(name, { recordFile: record, ...scenario })], vscode.ConfigurationTarget.Global);
    return record;
  }

  const formReady = () => waitFor(() => document.querySelector("#elicitation[data-ready]:not([hidden])") !== null, undefined, { view: "sidebar", what: "the pinned form, ready" });
  const submitEnabled = () => evaluate(() => document.querySelector<HTMLButtonElement>('#elicitation [data-action="accept"]')?.disabled === false, undefined, "sidebar");

  it("a form is pinned with the agent's message, its fields and defaults, checked before Submit, and the answer reaches the agent as accept with the content", async () => {
    const record = await agent("Former", { turns: [[{ elicit: { message: "Set up the project.\nI need a few details.", requestedSchema: SCHEMA } }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("set it up", { agent: "Former", newSession: true });
    await formReady();
    const init = fs.readFileSync(record, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Received).find((m) => m.method === "initialize");
    assert.deepEqual((init?.params.clientCapabilities as { elicitation?: unknown }).elicitation, { form: {}, url: {} }, "form and URL elicitation are announced");
    const shown = await evaluate(() => ({
      message: document.querySelector("#elicitation .elicit-message")?.textContent,
      labels: [...document.querySelectorAll("#elicitation .elicit-label")].map((l) => l.textContent),
      port: document.querySelector<HTMLInputElement>('#elicitation [data-field="port"]')?.value,
      tests: document.querySelector<HTMLInputElement>('#elicitation [data-field="tests"]')?.checked,
      options: [...document.querySelectorAll('#elicitation [data-field="licence"] option')].map((o) => o.textContent),
    }), undefined, "sidebar");
    assert.deepEqual(shown, {
      message: "Set up the project.\nI need a few details.",
      labels: ["Project name *", "Port", "Run the tests", "Licence *", "Targets *"],
      port: "8080", tests: true, options: ["Choose…", "MIT", "Apache 2.0"],
    });
    assert.equal(await submitEnabled(), false, "required fields are empty: Submit is disabled");

    // As a user: too short a name says why and keeps Submit off; then every required field.
    await fill('#elicitation [data-field="project"]', "x", "sidebar");
    const problem = await waitFor(() => document.querySelector("#elicitation .elicit-problem:not(:empty)")?.textContent, undefined, { view: "sidebar", what: "the field's problem" });
    assert.match(problem ?? "", /Project name needs at least 2 characters/);
    await fill('#elicitation [data-field="project"]', "thoughts", "sidebar");
    await fill('#elicitation [data-field="port"]', "70000", "sidebar");
    await evaluate(() => {
      const select = document.querySelector<HTMLSelectElement>('#elicitation [data-field="licence"]')!;
      select.value = "apache";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    }, undefined, "sidebar");
    await click('#elicitation [data-field="targets"] input[value="web"]', "sidebar");
    assert.equal(await submitEnabled(), false, "a port above the maximum keeps Submit off");
    await fill('#elicitation [data-field="port"]', "3000", "sidebar");
    await waitFor(() => document.querySelector<HTMLButtonElement>('#elicitation [data-action="accept"]')?.disabled === false, undefined, { view: "sidebar", what: "Submit enabled" });

    // Looked at: light and dark, and within the default 300 px sidebar (focus out, so the form shows from its top).
    await evaluate(() => { (document.activeElement as HTMLElement | null)?.blur(); document.querySelector(".elicit-fields")!.scrollTop = 0; }, undefined, "sidebar");
    await screenshot("test-results/elicitation-form-light.png");
    const config = vscode.workspace.getConfiguration("workbench");
    try {
      await viewport(1280, 800);
      await config.update("colorTheme", "Default Dark Modern", vscode.ConfigurationTarget.Global);
      await waitFor(() => document.body.classList.contains("vscode-dark"), undefined, { view: "sidebar", what: "the dark theme" });
      await screenshot("test-results/elicitation-form-dark.png");
      await screenshot("docs/screenshots/elicitation-form.png");
      const fits = await evaluate(() => {
        const form = document.getElementById("elicitation")!.getBoundingClientRect();
        const submit = document.querySelector('#elicitation [data-action="accept"]')!.getBoundingClientRect();
        if (submit.bottom > form.bottom + 0.5 || submit.height === 0) return { inside: false, width: -1 };
        const inside = [...document.querySelectorAll<HTMLElement>("#elicitation input, #elicitation select, #elicitation button")].every((el) => {
          const r = el.getBoundingClientRect();
          return r.left >= form.left - 0.5 && r.right <= form.right + 0.5;
        });
        return { inside, width: Math.round(window.innerWidth) };
      }, undefined, "sidebar");
      assert.ok(fits.inside, `every input and button inside the form at ${fits.width} px, Submit in sight`);
    } finally {
      await config.update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
      await viewport(1400, 900);
    }

    // Enter in a field submits.
    await press('#elicitation [data-field="project"]', "Enter", "sidebar");
    const r = await turn.result;
    const sent = JSON.parse(r.text.replace(/^elicited:/, "")) as unknown;
    assert.deepEqual(sent, { action: "accept", content: { project: "thoughts", port: 3000, tests: true, licence: "apache", targets: ["web"] } });
    await waitFor(() => document.querySelector("#elicitation")?.hasAttribute("hidden") === true, undefined, { view: "sidebar", what: "the form gone once answered" });
    const s = a._test.controller.viewState.sessions[r.sessionId]!;
    assert.equal(s.elicitation, undefined);
    assert.ok(s.turns.at(-1)!.entries.some((e) => e.type === "notice" && e.title === "You answered the agent's question"), "the transcript says it was answered");
  });

  it("Decline answers decline; the host refuses an answer that does not fit the form", async () => {
    await agent("Decliner", { turns: [[{ elicit: { message: "Your token?", requestedSchema: { type: "object", properties: { token: { type: "string" } }, required: ["token"] } } }]] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const turn = a.stream("go", { agent: "Decliner", newSession: true });
    await formReady();
    const session = a._test.controller.viewState.order.map((id) => a._test.controller.viewState.sessions[id]!).find((v) => v.elicitation);
    assert.ok(session?.elicitation);
    const live = a._test.manager.sessionById(session.sessionId)!;
    assert.match(live.answerElicitation(session.elicitation.requestId, "accept", { token: 42 }) ?? "", /token must be text/, "a forged answer is refused");
    assert.match(live.answerElicitation("elicit-none", "decline") ?? "", /not open/);
    await click('#elicitation [data-action="decline"]', "sidebar");
    assert.equal((await turn.result).text, 'elicited:{"action":"decline"}');
  });

  it("Stop cancels an open question; a URL request shows its origin and opens nothing until the user agrees; a javascript: or user-name URL is declined", async () => {
    await agent("Urler", { turns: [
      [{ elicit: { message: "Fill this in", requestedSchema: { type: "object", properties: { a: { type: "boolean" } } } } }],
      [{ elicit: { message: "Sign in to finish", url: "http://localhost:9/login?state=abc", elicitationId: "u1" } }],
      [{ elicit: { message: "Click", url: "javascript:alert(1)", elicitationId: "u2" } }, { elicit: { message: "Bank", url: "https://bank.example@evil.example/", elicitationId: "u3" } }],
    ] });
    const a = await api();
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    const events: string[] = [];
    const sub = a.onEvent((e) => { if (e.kind === "elicitation_outcome") events.push(`${e.action} by ${e.by}`); });
    const first = a.stream("one", { agent: "Urler", newSession: true });
    await formReady();
    const sessionId = a._test.controller.viewState.order.find((id) => a._test.controller.viewState.sessions[id]!.elicitation)!;
    a._test.manager.sessionById(sessionId)!.cancelTurn();
    assert.equal((await first.result).stopReason, "cancelled");
    await until(() => events.length === 1, "the outcome recorded");
    assert.deepEqual(events, ["cancel by cancel"]);
    await waitFor(() => document.querySelector("#elicitation")?.hasAttribute("hidden") === true, undefined, { view: "sidebar", what: "the form gone with the turn" });

    // Opening it for real would open a browser tab that takes the focus from the workbench later tests drive.
    a._test.links.testExternal.record = true;
    const opened = a._test.controller.stats.elicitationLinksOpened;
    const second = a.stream("two", { sessionId });
    await formReady();
    const shown = await evaluate(() => ({
      origin: document.querySelector("#elicitation .elicit-origin")?.textContent,
      url: document.querySelector("#elicitation .elicit-url")?.textContent,
      button: document.querySelector('#elicitation [data-action="accept"]')?.textContent,
      fields: document.querySelectorAll("#elicitation [data-field]").length,
    }), undefined, "sidebar");
    assert.deepEqual(shown, { origin: "http://localhost:9", url: "http://localhost:9/login?state=abc", button: "Open http://localhost:9", fields: 0 });
    await screenshot("test-results/elicitation-url.png");
    assert.equal(a._test.controller.stats.elicitationLinksOpened, opened, "nothing opened before the click");
    await click('#elicitation [data-action="accept"]', "sidebar");
    assert.equal((await second.result).text, 'elicited:{"action":"accept","content":{}}');
    assert.equal(a._test.controller.stats.elicitationLinksOpened, opened + 1, "opened once, on the click");
    assert.deepEqual(a._test.links.testExternal.opened, ["http://localhost:9/login?state=abc"], "the page itself, once");
    a._test.links.testExternal.record = false;

    const third = await a.stream("three", { sessionId }).result;
    sub.dispose();
    assert.equal(third.text, 'elicited:{"action":"decline"}elicited:{"action":"decline"}');
    assert.equal(a._test.controller.stats.elicitationLinksOpened, opened + 1, "a javascript: or user-name URL never opens");
    const notices = a._test.controller.viewState.sessions[sessionId]!.turns.at(-1)!.entries.filter((e) => e.type === "notice").map((e) => (e.type === "notice" ? e.title : ""));
    assert.equal(notices.filter((t) => /a page Agent Thoughts does not open.*declined/.test(t)).length, 2, notices.join(" | "));
  });

  it("a question of a session the visible panel does not show comes as a notification; one it pins is reported on screen and gets none", async () => {
    const ask = (message: string): Scenario["turns"][number] => [{ elicit: { message, requestedSchema: { type: "object", properties: { branch: { type: "string" } } } } }];
    await vscode.workspace.getConfiguration("agentThoughts").update("agents", [
      scriptedAgent("Asker", { turns: [[{ message: "ready" }], ask("Background branch?")] }),
      scriptedAgent("Front", { turns: [[{ message: "front here" }], ask("Front branch?")] }),
    ], vscode.ConfigurationTarget.Global);
    const a = await api();
    const asker = (await a.stream("start", { agent: "Asker", newSession: true }).result).sessionId;
    const front = (await a.stream("look", { agent: "Front", newSession: true }).result).sessionId;
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
    await until(() => a._test.controller.anyVisible && a._test.controller.activeSession === front, "the panel showing the front session");
    // Loaded and drawn: a panel still loading puts nothing on screen, and its questions come as notifications too.
    await waitFor(() => (document.querySelector("#transcript")?.textContent ?? "").includes("front here"), undefined, { view: "sidebar", what: "the front session in the panel" });
    const background = a.stream("ask", { sessionId: asker });
    await until(() => clickToastButton("asks you a question: Background branch?", "Decline"), "the notification for the session the panel does not show, to click Decline", 20_000);
    assert.equal((await background.result).text, 'elicited:{"action":"decline"}');
    await vscode.commands.executeCommand("notifications.clearAll");
    const foreground = a.stream("ask too", { sessionId: front });
    await formReady();
    const requestId = await until(() => a._test.controller.viewState.sessions[front]?.elicitation?.requestId, "the front question open");
    await until(() => a._test.controller.seenWithin(requestId, 1), "the panel to report the pinned question on screen", 20_000);
    const toasts = (): Promise<boolean> => toastShows("Front branch?");
    assert.equal(await toasts(), false);
    await click('#elicitation [data-action="decline"]', "sidebar");
    assert.equal((await foreground.result).text, 'elicited:{"action":"decline"}');
    assert.equal(await toasts(), false, "no notification for a question the panel showed");
  });

  it("with no panel showing, a question comes as a notification whose Decline answers the agent", async () => {
    await agent("Hidden", { turns: [[{ elicit: { message: "Which branch?", requestedSchema: { type: "object", properties: { branch: { type: "string" } } } } }]] });
    await vscode.commands.executeCommand("workbench.view.explorer");
    const a = await api();
    await until(() => !a._test.controller.anyVisible, "the panel to be hidden");
    const turn = a.stream("go", { agent: "Hidden", newSession: true });
    await until(() => clickToastButton("asks you a question: Which branch?", "Decline"), "the notification, to click Decline", 20_000);
    assert.equal((await turn.result).text, 'elicited:{"action":"decline"}');
    await vscode.commands.executeCommand("agentThoughts.panel.focus");
  });
});
