/**
 * The update mapper over recorded real-agent sessions (`../shared/fixtures/acp-traces/*.jsonl`,
 * beside the repo: one prompt turn of each agent, every JSON-RPC message as it crossed the wire).
 * Each trace is replayed as the client does (session/update → mapper → session log, permission
 * requests and their answers, a terminal the recording client ran reported as Agent Thoughts reports
 * its own (`ClientTerminalOutput`), the prompt's answer ending the turn), then checked for properties
 * that hold for any agent, and summarised against a golden file per trace in
 * test/fixtures/acp-traces/ (UPDATE_GOLDEN=1 rewrites them). Skipped when the folder is missing.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { ClientTerminalOutput } from "../../src/core/clientTerminalOutput";
import { SessionLog } from "../../src/core/sessionLog";
import { parseContentBlock, SessionUpdateMapper } from "../../src/core/updateMapper";
import type { ContentBlock, StopReason, ThoughtEvent, ThoughtEventBody } from "../../src/shared/events";
import { EMPTY_STATE, reduce } from "../../src/shared/viewModel";
import { matchGolden } from "../support/golden";

const TRACES = path.resolve(__dirname, "..", "..", "..", "shared", "fixtures", "acp-traces");
const GOLDEN = path.join(__dirname, "..", "fixtures", "acp-traces");

/** Update kinds the mapper knows: none of them may come out as an `unknown` event. */
const KNOWN_UPDATES = new Set([
  "user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan",
  "available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update",
]);

/**
 * Reports the mapper makes on purpose for a known kind (none today: claude-code-acp's repeated
 * `tool_call` for an open call is an update, shown as nothing else). Anything unknown for a known kind fails.
 */
const DELIBERATE_REPORTS: string[] = [];

interface RpcMessage { id?: string | number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: unknown }
interface TraceLine { ms: number; dir?: "client->agent" | "agent->client"; kind?: string; msg?: RpcMessage }

/** One raw update and what the mapper made of it. */
interface Mapped { update: Record<string, unknown>; bodies: ThoughtEventBody[] }

interface Replay { events: readonly ThoughtEvent[]; mapped: Mapped[]; stopReason: StopReason | undefined; permissions: number }

function readTrace(file: string): TraceLine[] {
  return fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as TraceLine);
}

const isText = (c: unknown): c is { type: "text"; text: string } =>
  typeof c === "object" && c !== null && (c as { type?: unknown }).type === "text" && typeof (c as { text?: unknown }).text === "string";

/** Replays one trace through the mapper into a session log, clocked by the trace's own `ms`; the events are what its listeners hear. */
function replay(lines: readonly TraceLine[]): Replay {
  let now = 0;
  const log = new SessionLog("trace", () => now);
  const heard: ThoughtEvent[] = [];
  log.subscribe((e) => heard.push(e));
  const mapper = new SessionUpdateMapper();
  const mapped: Mapped[] = [];
  const requests = new Map<string, { method: string; params: Record<string, unknown> }>();
  const permissionToolCall = new Map<string, string>();
  // What a terminal the recording client ran printed: what terminal/output returned, before the exit it names.
  const terminals = new ClientTerminalOutput((b) => log.append(b));
  let stopReason: StopReason | undefined;
  let permissions = 0;
  for (const line of lines) {
    const m = line.msg;
    if (!m || !line.dir) continue;
    now = line.ms;
    const key = m.id === undefined ? "" : `${line.dir}:${String(m.id)}`;
    if (m.method !== undefined) {
      if (m.id !== undefined) requests.set(key, { method: m.method, params: m.params ?? {} });
      if (line.dir === "client->agent" && m.method === "session/prompt") {
        const prompt = ((m.params?.prompt ?? []) as unknown[]).map(parseContentBlock).filter((c): c is ContentBlock => c !== undefined);
        log.append({ kind: "turn_start", turnId: 1, prompt });
        for (const c of prompt) if (c.type === "text") log.append({ kind: "user_message", text: c.text, content: c });
      } else if (line.dir === "agent->client" && m.method === "session/update") {
        const update = (m.params?.update ?? {}) as Record<string, unknown>;
        const bodies = mapper.map(update);
        mapped.push({ update, bodies });
        log.append(...bodies, ...terminals.link(bodies));
      } else if (line.dir === "agent->client" && m.method === "session/request_permission") {
        permissions++;
        const bodies = mapper.permissionRequest(String(m.id), m.params?.toolCall, m.params?.options);
        const req = bodies.find((b) => b.kind === "permission_request");
        if (req?.kind === "permission_request") permissionToolCall.set(String(m.id), req.toolCallId);
        log.append(...bodies);
      }
      continue;
    }
    // A response: to the request the other side sent with this id.
    const to = requests.get(`${line.dir === "agent->client" ? "client->agent" : "agent->client"}:${String(m.id)}`);
    if (!to) continue;
    if (to.method === "terminal/create" && typeof m.result?.terminalId === "string") {
      terminals.created(m.result.terminalId);
    } else if (to.method === "terminal/output" && typeof m.result?.output === "string" && typeof to.params.terminalId === "string") {
      terminals.output(to.params.terminalId, m.result.output);
      const exit = m.result.exitStatus as { exitCode: number | null; signal: string | null } | undefined;
      if (exit) terminals.exited(to.params.terminalId, exit);
    } else if (to.method === "session/new" && m.result) {
      log.append({ kind: "session_start", agentName: "traced agent", cwd: typeof to.params.cwd === "string" ? to.params.cwd : "" });
    } else if (to.method === "session/request_permission") {
      const outcome = (m.result?.outcome ?? {}) as { outcome?: string; optionId?: string };
      log.append({
        kind: "permission_outcome", requestId: String(m.id), toolCallId: permissionToolCall.get(String(m.id)) ?? "",
        outcome: outcome.outcome === "selected" && outcome.optionId ? { outcome: "selected", optionId: outcome.optionId } : { outcome: "cancelled" }, by: "user",
      });
    } else if (to.method === "session/prompt" && m.result) {
      stopReason = m.result.stopReason as StopReason;
      log.append(...mapper.endTurn(), { kind: "turn_end", turnId: 1, stopReason });
    }
  }
  terminals.dispose();
  return { events: heard, mapped, stopReason, permissions };
}

/** What a trace comes to, compact enough to read in a golden file. */
function summary(r: Replay): unknown {
  const count = <T>(xs: readonly T[], key: (x: T) => string): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  };
  const text = (kind: "thought" | "message"): { chars: number; start: string; end: string } => {
    const s = r.events.map((e) => (e.kind === kind ? e.text : "")).join("");
    return { chars: s.length, start: s.slice(0, 60), end: s.slice(-60) };
  };
  const outcomeOf = (id: string, after: number): string | null => {
    for (const d of r.events) if (d.kind === "tool_done" && d.toolCallId === id && d.seq > after) return d.outcome;
    return null;
  };
  const state = reduce(EMPTY_STATE, r.events);
  const session = state.sessions.trace;
  const turn = session?.turns[0];
  return {
    updates: count(r.mapped, (m) => String(m.update.sessionUpdate)),
    events: count(r.events, (e) => e.kind),
    unknown: r.events.flatMap((e) => (e.kind === "unknown" ? [`${e.what}: ${e.reason}`] : [])),
    thought: text("thought"),
    message: text("message"),
    tools: r.events.flatMap((e) => (e.kind === "tool_start" ? [{
      id: e.toolCallId, kind: e.toolKind ?? null, title: e.title, announced: e.announced,
      outcome: outcomeOf(e.toolCallId, e.seq),
    }] : [])),
    permissions: r.permissions,
    stopReason: r.stopReason ?? null,
    view: {
      status: session?.status ?? null,
      entries: (turn?.entries ?? []).map((e) => (e.type === "tool" ? `tool:${e.status}` : e.type)),
      terminals: (turn?.entries ?? []).flatMap((e) => (e.type === "tool" && e.terminalOutput !== undefined
        ? [{ id: e.toolCallId, output: e.terminalOutput, exit: e.terminalExit ?? null }] : [])),
      plan: session?.plan?.map((p) => `${p.status}: ${p.content}`) ?? null,
    },
  };
}

const traces = fs.existsSync(TRACES) ? fs.readdirSync(TRACES).filter((f) => f.endsWith(".jsonl")).sort() : [];

describe("the update mapper over recorded real-agent traces", () => {
  if (traces.length === 0) {
    it("(skipped: no traces)", function () {
      console.log(`      no recorded ACP traces at ${TRACES} (the shared fixtures are cloned beside the repo as ../shared); skipping`);
      this.skip();
    });
    return;
  }

  for (const name of traces) {
    describe(name, () => {
      const r = replay(readTrace(path.join(TRACES, name)));

      it("maps every update of a known kind without an unknown event", () => {
        for (const { update, bodies } of r.mapped) {
          if (!KNOWN_UPDATES.has(String(update.sessionUpdate))) continue;
          const unknown = bodies.filter((b) => b.kind === "unknown" && !DELIBERATE_REPORTS.includes(b.reason));
          assert.deepEqual(unknown, [], `${String(update.sessionUpdate)} mapped to unknown: ${JSON.stringify(update).slice(0, 300)}`);
        }
      });

      it("thought and message text are the concatenation of the agent's chunks", () => {
        for (const [kind, updateKind] of [["thought", "agent_thought_chunk"], ["message", "agent_message_chunk"]] as const) {
          const sent = r.mapped.filter((m) => m.update.sessionUpdate === updateKind).map((m) => (isText(m.update.content) ? m.update.content.text : "")).join("");
          const got = r.events.map((e) => (e.kind === kind ? e.text : "")).join("");
          assert.equal(got, sent, `${kind} text`);
        }
      });

      it("tool call ids are consistent: started once, updated and finished only after their start, all finished by the turn's end", () => {
        const open = new Set<string>();
        const started = new Set<string>();
        for (const e of r.events) {
          if (e.kind === "tool_start") {
            assert.ok(!open.has(e.toolCallId), `${e.toolCallId} started while still open`);
            open.add(e.toolCallId);
            started.add(e.toolCallId);
          } else if (e.kind === "tool_update" || e.kind === "permission_request") {
            assert.ok(open.has(e.toolCallId) || started.has(e.toolCallId), `${e.kind} for ${e.toolCallId} before its start`);
          } else if (e.kind === "tool_done") {
            assert.ok(open.delete(e.toolCallId), `tool_done for ${e.toolCallId}, which is not open`);
          } else if (e.kind === "permission_outcome") {
            assert.ok(started.has(e.toolCallId), `the answer names a tool call the panel shows (${e.toolCallId})`);
          }
        }
        assert.deepEqual([...open], [], "no tool call left open after the turn");
        const raw = new Set(r.mapped.flatMap((m) => (typeof m.update.toolCallId === "string" ? [m.update.toolCallId] : [])));
        for (const id of raw) assert.ok(started.has(id), `the agent's tool call ${id} has a card`);
      });

      it("the log is dense and ordered: seq 1..n, times never go back, every turn event carries the turn", () => {
        r.events.forEach((e, i) => assert.equal(e.seq, i + 1));
        for (let i = 1; i < r.events.length; i++) assert.ok(r.events[i]!.at >= r.events[i - 1]!.at, `event ${i + 1} is not earlier than ${i}`);
        const start = r.events.findIndex((e) => e.kind === "turn_start");
        const end = r.events.findIndex((e) => e.kind === "turn_end");
        assert.ok(start >= 0 && end > start, "one turn, started and ended");
        for (const e of r.events.slice(start, end + 1)) assert.equal(e.turnId, 1, `${e.kind} #${e.seq} belongs to the turn`);
        assert.equal(end, r.events.length - 1, "nothing after the turn's end");
      });

      it("folds into a finished turn in the view model", () => {
        const state = reduce(EMPTY_STATE, r.events);
        const s = state.sessions.trace;
        assert.ok(s);
        assert.equal(s.status, "idle");
        assert.deepEqual(s.pendingPermissions, {});
        const turn = s.turns[0];
        assert.ok(turn?.endedAt !== undefined, "the turn ended");
        for (const e of turn.entries) if (e.type === "tool") assert.ok(["completed", "failed", "canceled"].includes(e.status), `${e.toolCallId} is ${e.status}`);
      });

      it("a command's card shows its output whenever the agent or the terminal it ran in reported it", () => {
        const state = reduce(EMPTY_STATE, r.events);
        const marker = "fake-llm-shell-ok";
        // The command's output, wherever the agent put it (its title names the command, so it does not count).
        const said = (id: string): string => JSON.stringify(r.mapped.filter((m) => m.update.toolCallId === id).map((m) => [m.update.rawOutput, m.update._meta]));
        let commands = 0;
        for (const e of state.sessions.trace?.turns[0]?.entries ?? []) {
          if (e.type !== "tool" || e.toolKind !== "execute" || !said(e.toolCallId).includes(marker)) continue;
          commands++;
          assert.ok(e.terminalOutput?.includes(marker), `${e.toolCallId}'s preview: ${JSON.stringify(e.terminalOutput)}`);
        }
        if (name !== "gemini-cli.jsonl") assert.equal(commands, 1, "the trace's one command reported its output");
      });

      it("matches its golden summary", () => {
        matchGolden(path.join(GOLDEN, name.replace(/\.jsonl$/, ".summary.json")), summary(r));
      });
    });
  }
});
