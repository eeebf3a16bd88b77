// `npm run bench` scenario `cold` (issue 16): a prompt with no agent running → its first thought
// on screen, for the built-in demo agent and a scripted agent. Every agent is stopped first, so the
// time includes starting the agent's process, `initialize`, `session/new`, the prompt and the first
// thought drawn in the panel (the window itself is already open; activation is measured in
// `startup`). The prompt goes the way Ask Agent from the command palette sends it (the public API).
import * as vscode from "vscode";
import type { AgentThoughtsInternalApi } from "../../src/extension";
import { log } from "../integration/index";
import { evaluate, waitFor } from "../integration/webview";
import { benchFile, fmt, scriptedAgent, setAgents, spread } from "./util";

const RUNS = 5;

/** One run, ms from the prompt: the session started (agent up, initialize, session/new), the turn started, the first thought in the host, on screen. */
interface Run { session: number; turn: number; host: number; shown: number }

/**
 * Inside the webview: notes (epoch ms) the first frame in which the newest turn's prompt is
 * `prompt` and a thought is below it (with its text, or folded: its header), after that frame is painted.
 */
function watchFirstThought(prompt: string): boolean {
  const w = window as Window & { __atFirstThought?: number };
  w.__atFirstThought = undefined;
  const check = (): boolean => {
    const turns = document.querySelectorAll("#transcript .turn");
    const last = turns[turns.length - 1];
    if (!last || last.querySelector(".turn-prompt .prompt-text")?.textContent !== prompt) return false;
    // Its text while it streams; a thought that came whole is drawn folded (its text drawn when opened): its header then.
    return [...last.querySelectorAll<HTMLElement>("[data-entry-type='thought']")].some((t) => t.dataset.body === "later" || (t.querySelector(".thought-text")?.textContent ?? "").trim().length > 0);
  };
  const frame = (): void => {
    if (!check()) {
      requestAnimationFrame(frame);
      return;
    }
    const ch = new MessageChannel();
    ch.port1.onmessage = () => { w.__atFirstThought = performance.timeOrigin + performance.now(); };
    ch.port2.postMessage(0);
  };
  requestAnimationFrame(frame);
  return true;
}

async function coldOnce(a: AgentThoughtsInternalApi, agent: string, run: number): Promise<Run> {
  await a._test.manager.stop();
  const prompt = `cold start ${agent} ${run}`;
  await evaluate(watchFirstThought, prompt, "sidebar");
  const t0 = performance.timeOrigin + performance.now();
  let host = NaN;
  const marks: Partial<Record<"session_start" | "turn_start", number>> = {};
  const sub = a.onEvent((e) => {
    const at = performance.timeOrigin + performance.now() - t0;
    if ((e.kind === "session_start" || e.kind === "turn_start") && marks[e.kind] === undefined) marks[e.kind] = at;
    if (Number.isNaN(host) && e.kind === "thought" && e.text.trim()) host = at;
  });
  const stream = a.stream(prompt, { agent, newSession: true });
  const shownAt = await waitFor(() => (window as Window & { __atFirstThought?: number }).__atFirstThought, undefined, { view: "sidebar", timeoutMs: 30_000, what: `${agent}'s first thought on screen` });
  // The demo goes on to ask for permissions; the turn is not what is measured.
  stream.cancel();
  await stream.result.catch(() => undefined);
  sub.dispose();
  return { host, shown: (shownAt ?? NaN) - t0, session: marks.session_start ?? NaN, turn: marks.turn_start ?? NaN };
}

export async function coldStart(a: AgentThoughtsInternalApi): Promise<void> {
  await setAgents([scriptedAgent("Cold", { turns: [[{ thought: "Reading the request first." }, { message: "Done." }]] }, benchFile("Cold.json"))]);
  await vscode.commands.executeCommand("agentThoughts.panel.focus");
  log(`  Cold start: a prompt with no agent running → its first thought (agent started, initialize, session/new, prompt; ${RUNS} runs each; the window already open, activation ${a._test.activationMs} ms)`);
  for (const agent of ["Demo", "Cold"]) {
    const runs: Run[] = [];
    // The demo at the pace a user gets. At the bench's speed 0 its turn ran on to its search, edit
    // and terminal steps before the cancel came, and what they left going slowed the next start
    // (its session started in 0.4-2.3 s instead of 0.17-0.23 s).
    const speed = process.env.AGENT_THOUGHTS_DEMO_SPEED;
    if (agent === "Demo") process.env.AGENT_THOUGHTS_DEMO_SPEED = "1";
    try {
      for (let i = 0; i < RUNS; i++) runs.push(await coldOnce(a, agent, i));
    } finally {
      if (speed === undefined) delete process.env.AGENT_THOUGHTS_DEMO_SPEED;
      else process.env.AGENT_THOUGHTS_DEMO_SPEED = speed;
    }
    const shown = runs.map((r) => r.shown);
    log(`    ${agent === "Demo" ? "the built-in demo agent (at its own pace: it thinks after a 400 ms pause, as if a model were starting)" : "a scripted agent (Node)"}: on screen ${spread(shown)}; of which the session started (process, initialize, session/new) ${spread(runs.map((r) => r.session))}, the turn started ${spread(runs.map((r) => r.turn))}, the first thought in the extension host ${spread(runs.map((r) => r.host))}; the first run ${fmt(shown[0]!)}`);
  }
  await a._test.manager.stop();
}
