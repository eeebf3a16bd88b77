/**
 * Images in a prompt, with the real SessionManager and the scripted agent over stdio: an agent that
 * declares promptCapabilities.image gets the image block (data and type, without the panel's
 * thumbnail), and the session log keeps the thumbnail but not the data; one that does not declare
 * it gets nothing — no session/new opened for it, no session/prompt in an existing session — and
 * the refusal names the agent.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SessionManager, type AgentStatus } from "../../src/acp/sessionManager";
import type { ContentBlock, ThoughtEvent } from "../../src/shared/events";
import { harness, type Harness } from "./harness";
import type { Scenario } from "../fixtures/agents/scenario";
import { recorded } from "../support/recorded";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).toString("base64");
const THUMB = `data:image/png;base64,${PNG}`;
const prompt: ContentBlock[] = [{ type: "text", text: "what is this?" }, { type: "image", data: PNG, mimeType: "image/png", thumbnail: THUMB }];

describe("images in a prompt", function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  let manager: SessionManager | undefined;
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(path.join(os.tmpdir(), "at-images-")); });
  afterEach(async () => {
    manager?.dispose();
    manager = undefined;
    await h?.cleanup();
    h = undefined;
    rmSync(tmp, { recursive: true, force: true });
  });

  async function setUp(scenario: Omit<Scenario, "recordFile">): Promise<{ m: SessionManager; events: ThoughtEvent[]; statuses: AgentStatus[]; received: () => { method: string; params: Record<string, unknown> }[] }> {
    const recordFile = path.join(tmp, "received.jsonl");
    h = await harness({ ...scenario, recordFile });
    const hh = h;
    const m = new SessionManager(hh.ports, { initializeTimeoutMs: 10_000, clientName: "test", clientVersion: "0", resolveAgent: () => hh.spec });
    manager = m;
    const events: ThoughtEvent[] = [];
    const statuses: AgentStatus[] = [];
    m.onEvent((e) => events.push(e));
    m.onStatus((s) => statuses.push(s));
    const received = (): { method: string; params: Record<string, unknown> }[] =>
      recorded(recordFile);
    return { m, events, statuses, received };
  }

  it("an agent that takes images gets the image block without the thumbnail; the log keeps the thumbnail, not the data", async () => {
    const { m, events, received } = await setUp({ turns: [[{ message: "a PNG" }]], capabilities: { promptCapabilities: { image: true, embeddedContext: true } } });
    await m.stream(prompt, { newSession: true }).result;
    const sent = received().find((r) => r.method === "session/prompt")?.params.prompt;
    assert.deepEqual(sent, [{ type: "text", text: "what is this?" }, { type: "image", data: PNG, mimeType: "image/png" }]);
    const logged = events.filter((e): e is Extract<ThoughtEvent, { kind: "user_message" }> => e.kind === "user_message").map((e) => e.content);
    assert.deepEqual(logged, [{ type: "text", text: "what is this?" }, { type: "image", data: "", mimeType: "image/png", thumbnail: THUMB }]);
  });

  it("an agent that does not declare images gets nothing: no new session for it, no prompt in its open session", async () => {
    const { m, statuses, received } = await setUp({ agentName: "Blind", turns: [[{ message: "text only" }], [{ message: "never" }]] });
    await assert.rejects(m.stream(prompt, { newSession: true }).result, /Scripted does not accept images: the prompt was not sent/);
    assert.equal(received().filter((r) => r.method === "session/new").length, 0, "no session opened for a prompt it cannot take");
    assert.match(statuses.at(-1)?.error ?? "", /does not accept images/);
    const first = await m.stream("plain words", { newSession: true }).result;
    await assert.rejects(m.stream(prompt, { sessionId: first.sessionId }).result, /does not accept images/);
    assert.equal(received().filter((r) => r.method === "session/prompt").length, 1, "only the text prompt reached it");
    assert.equal(received().filter((r) => r.method === "session/new").length, 1);
  });
});
