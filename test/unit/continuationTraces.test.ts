/**
 * Continuing sessions of the real agents whose wire traffic was recorded
 * (`../shared/fixtures/acp-traces/*.jsonl`): what each one's `initialize` answer lets us do with a
 * saved session, and its recorded turn replayed as `session/load` would replay it (the prompt as a
 * user message, then every update) merged into a continued session — nothing added when the panel
 * already shows that turn, exactly that turn added when it does not. Skipped when the folder is missing.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { sessionAbilities } from "../../src/acp/agentConnection";
import { AgentSession, type SessionTransport } from "../../src/acp/agentSession";
import type { Logger } from "../../src/acp/ports";
import { EMPTY_STATE, reduce } from "../../src/shared/viewModel";

const TRACES = path.resolve(__dirname, "..", "..", "..", "shared", "fixtures", "acp-traces");
const quiet: Logger = { traceEnabled: false, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const transport: SessionTransport = {
  agentName: "Recorded", cwd: "/w", dead: new Promise<never>(() => undefined),
  prompt: () => Promise.resolve({ stopReason: "end_turn" }), cancel: () => Promise.resolve(),
  setMode: () => Promise.resolve(), setModel: () => Promise.resolve(), setConfigOption: () => Promise.resolve([]),
};

interface Msg { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> }
interface Line { dir?: string; msg?: Msg }

/** How each recorded agent's saved sessions continue (checked against its initialize answer). */
const EXPECTED: Record<string, { continues: "resume" | "load"; list: boolean; close: boolean; delete: boolean }> = {
  "claude-code-acp.jsonl": { continues: "resume", list: true, close: false, delete: false },
  "codex-acp.jsonl": { continues: "resume", list: true, close: true, delete: false },
  "claude-agent-acp.jsonl": { continues: "resume", list: true, close: true, delete: true },
  "zed-claude-agent-acp.jsonl": { continues: "resume", list: true, close: true, delete: false },
  "acp-codex-acp.jsonl": { continues: "resume", list: true, close: true, delete: true },
  "gemini-cli.jsonl": { continues: "load", list: false, close: false, delete: false },
};

const present = fs.existsSync(TRACES);
(present ? describe : describe.skip)("continuing the recorded real agents' sessions", () => {
  for (const [file, expected] of Object.entries(EXPECTED)) {
    const lines = (): Line[] => fs.readFileSync(path.join(TRACES, file), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Line);

    it(`${file}: continues with session/${expected.continues}${expected.list ? ", lists" : ""}${expected.close ? ", closes" : ""}${expected.delete ? ", deletes" : ""}`, () => {
      const init = lines().find((l) => l.dir === "agent->client" && l.msg?.result && "agentCapabilities" in l.msg.result);
      assert.ok(init, "the trace has the initialize answer");
      const a = sessionAbilities(init.msg!.result!.agentCapabilities as Parameters<typeof sessionAbilities>[0]);
      assert.equal(a.load, true, "every recorded agent declares session/load");
      assert.equal(a.resume ? "resume" : a.load ? "load" : "none", expected.continues);
      assert.equal(!!a.list, expected.list);
      assert.equal(!!a.close, expected.close);
      assert.equal(!!a.delete, expected.delete);
    });

    it(`${file}: its turn replayed by session/load is shown once`, async () => {
      const all = lines();
      const prompt = all.find((l) => l.dir === "client->agent" && l.msg?.method === "session/prompt")?.msg?.params?.prompt as { type: string; text?: string }[] | undefined;
      assert.ok(prompt, "the trace has the prompt");
      const replay: unknown[] = [
        ...prompt.filter((b) => b.type === "text").map((b) => ({ sessionUpdate: "user_message_chunk", content: b })),
        ...all.filter((l) => l.dir === "agent->client" && l.msg?.method === "session/update").map((l) => l.msg!.params!.update),
      ];
      const promptText = prompt.filter((b) => b.type === "text").map((b) => b.text ?? "").join("");
      const merged = async (shown: string[]): Promise<AgentSession> => {
        const s = new AgentSession("key", "agent-id", transport, { request: () => Promise.resolve({ outcome: "cancelled" }) }, quiet, () => 1, undefined, { lastSeq: 10, lastTurnId: shown.length });
        s.beginReplay(shown);
        for (const u of replay) s.ingestUpdate(u);
        s.endReplay();
        await s.drainReplay();
        return s;
      };
      const shown = await merged([promptText]);
      assert.equal(shown.log.all().filter((e) => e.kind === "turn_start").length, 0, "the turn the panel has is not added again");
      assert.ok(shown.log.all().every((e) => e.turnId === undefined), "nothing of it lands in a turn");
      assert.equal((await merged(["a prompt this agent never replays"])).log.all().filter((e) => e.kind === "turn_start").length, 0, "a replay that matches no shown prompt is lined up by count");
      const fresh = await merged([]);
      assert.ok(fresh.log.all().every((e) => e.replayed === true), "every replayed event is marked (shown, never acted on)");
      const state = reduce(EMPTY_STATE, [...fresh.log.all()]);
      const view = state.sessions.key!;
      assert.equal(view.turns.length, 1, "a session the panel never saw gets its turn");
      assert.equal(view.turns[0]!.turnId, 1);
      assert.ok(view.turns[0]!.prompt.length > 0, "with its prompt");
      const tools = new Set(replay.filter((u): u is { sessionUpdate: string; toolCallId: string } => typeof u === "object" && u !== null && (u as { sessionUpdate?: unknown }).sessionUpdate === "tool_call").map((u) => u.toolCallId));
      assert.equal(view.turns[0]!.entries.filter((e) => e.type === "tool" && e.announced).length, tools.size, "every tool call once");
    });
  }
});
