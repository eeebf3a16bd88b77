/**
 * The built-in demo agent shipped inside the extension (bundled to `dist/demoAgent.js`): a real
 * ACP agent over stdio that needs no model, network or API key. Each prompt plays a paced,
 * human-watchable turn that exercises every feature the client shows: thoughts, a plan, session
 * title/usage/notice updates, modes and a model option, and read/search/edit/execute tool calls
 * with a permission request, a diff, a client terminal and file-system calls. It writes only to
 * `agent-thoughts-demo/demo.md` under the session cwd. `AGENT_THOUGHTS_DEMO_SPEED` scales every
 * delay (`0` = none, for tests).
 */
import { execFile } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { sleep } from "../core/sleep";

const DEMO_DIR = "agent-thoughts-demo";
const DEMO_FILE = `${DEMO_DIR}/demo.md`;
const AGENT_VERSION = "0.1.0";

const SPEED = parseSpeed(process.env.AGENT_THOUGHTS_DEMO_SPEED);

function parseSpeed(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return 1;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : 1;
}

const MODES: acp.SessionMode[] = [
  { id: "ask", name: "Ask", description: "Answers and looks around, never changes files." },
  { id: "code", name: "Code", description: "Reads, edits and runs things; asks before writing." },
];

const MODELS = [
  { value: "demo-thoughtful", name: "Demo Thoughtful", description: "Paced like a careful model.", pace: 1 },
  { value: "demo-swift", name: "Demo Swift", description: "Twice as fast, same script.", pace: 0.5 },
] as const;
type ModelId = (typeof MODELS)[number]["value"];

const COMMANDS: acp.AvailableCommand[] = [
  { name: "explain", description: "Explain a file or a piece of code", input: { hint: "what to explain" } },
  { name: "plan", description: "Draft a plan before touching anything", input: { hint: "the goal" } },
  { name: "notes", description: "Add a note to agent-thoughts-demo/demo.md" },
];

interface DemoSession {
  id: string;
  cwd: string;
  modeId: string;
  model: ModelId;
  turns: number;
  usedTokens: number;
  alwaysAllowEdits: boolean;
  noticeSent: boolean;
  turn: AbortController | undefined;
}

const sessions = new Map<string, DemoSession>();
let clientCapabilities: acp.ClientCapabilities = {};
let nextSessionNumber = 1;

/** Thrown to unwind a turn once the client cancelled it. */
class Cancelled extends Error {
  constructor() {
    super("cancelled");
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function configOptions(session: DemoSession): acp.SessionConfigOption[] {
  return [{
    id: "model",
    name: "Model",
    description: "Which (pretend) model the demo agent uses.",
    category: "model",
    type: "select",
    currentValue: session.model,
    options: MODELS.map(({ value, name, description }) => ({ value, name, description })),
  }];
}

/**
 * Splits text the way a model streams it: pieces of 20–40 characters, ending on a word boundary
 * where one is near, with a deterministic jitter so runs are repeatable.
 */
function modelChunks(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (let n = 0; i < text.length; n++) {
    if (text.length - i <= 40) {
      out.push(text.slice(i));
      break;
    }
    let end = i + 20 + ((n * 7) % 21);
    const before = text.lastIndexOf(" ", end - 1);
    const after = text.indexOf(" ", end);
    if (before >= i + 19) end = before + 1;
    else if (after !== -1 && after < i + 40) end = after + 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

function promptText(prompt: acp.ContentBlock[]): { text: string; attachments: string[] } {
  const texts: string[] = [];
  const attachments: string[] = [];
  for (const block of prompt) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "resource_link") attachments.push(block.name);
    else if (block.type === "resource") attachments.push(path.basename(block.resource.uri));
    else attachments.push(`an ${block.type}`);
  }
  return { text: texts.join("\n").trim(), attachments };
}

const STOP_WORDS = new Set(
  "about above after again also because been before being below between both could does doing down during each from further have having here into just more most much only other over same should some such than that their them then there these they this those through under until very want were what when where which while will with would your please make show tell".split(" "),
);

/** The prompt's most telling word, used as the search term. */
function keyword(text: string): string {
  const words = text.replace(/^\/\S+/, "").match(/[A-Za-z][A-Za-z0-9_-]{3,}/g) ?? [];
  const candidates = words.filter((w) => !STOP_WORDS.has(w.toLowerCase()));
  return candidates.sort((a, b) => b.length - a.length)[0] ?? "todo";
}

function titleFrom(text: string): string {
  const firstLine = text.split(/[\n.?!]/).find((s) => s.trim() !== "")?.trim() ?? "";
  if (firstLine === "") return "Demo session";
  const words = firstLine.replace(/^\/\S+\s*/, "").split(/\s+/).slice(0, 7).join(" ");
  const title = words.length > 48 ? `${words.slice(0, 47)}…` : words;
  return title === "" ? "Demo session" : title.charAt(0).toUpperCase() + title.slice(1);
}

function excerpt(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

const TEXT_EXTENSIONS = new Set(
  ".md .txt .ts .tsx .js .jsx .mjs .cjs .json .py .rs .go .java .kt .swift .c .h .cc .cpp .hpp .cs .rb .php .css .scss .html .vue .svelte .yml .yaml .toml .ini .cfg .sh .sql .xml".split(" "),
);
const SKIPPED_DIRS = new Set(["node_modules", "dist", "out", "build", "target", "coverage", "vendor", DEMO_DIR]);
const PREFERRED_READS = ["README.md", "readme.md", "README", "package.json", "pyproject.toml", "Cargo.toml", "go.mod"];

async function isSmallFile(file: string): Promise<boolean> {
  try {
    const stat = await fsp.stat(file);
    return stat.isFile() && stat.size < 256 * 1024;
  } catch {
    return false;
  }
}

/** A workspace file worth reading for context, or undefined in an empty workspace. */
async function pickReadTarget(cwd: string): Promise<string | undefined> {
  for (const name of PREFERRED_READS) {
    if (await isSmallFile(path.join(cwd, name))) return path.join(cwd, name);
  }
  try {
    const entries = await fsp.readdir(cwd, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(cwd, entry.name);
      if (entry.isFile() && !entry.name.startsWith(".") && TEXT_EXTENSIONS.has(path.extname(entry.name)) && (await isSmallFile(file))) {
        return file;
      }
    }
  } catch {
    // An unreadable cwd just means there is nothing to read.
  }
  const notes = path.join(cwd, DEMO_FILE);
  return (await isSmallFile(notes)) ? notes : undefined;
}

interface SearchHit { file: string; line: number; text: string }

/** A bounded, real text search so the search tool call shows genuine results even in big repos. */
async function searchWorkspace(cwd: string, term: string, signal: AbortSignal): Promise<{ hits: SearchHit[]; files: number; scanned: number }> {
  const hits: SearchHit[] = [];
  const matchedFiles = new Set<string>();
  const queue = [cwd];
  let scanned = 0;
  let bytes = 0;
  const needle = term.toLowerCase();
  while (queue.length > 0 && scanned < 400 && bytes < 4_000_000 && !signal.aborted) {
    const dir = queue.shift() ?? cwd;
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) queue.push(full);
        continue;
      }
      if (!entry.isFile() || !TEXT_EXTENSIONS.has(path.extname(entry.name)) || scanned >= 400) continue;
      try {
        const stat = await fsp.stat(full);
        if (stat.size > 200 * 1024) continue;
        const content = await fsp.readFile(full, "utf8");
        scanned++;
        bytes += content.length;
        const lines = content.split("\n");
        lines.forEach((text, i) => {
          if (!text.toLowerCase().includes(needle)) return;
          matchedFiles.add(full);
          if (hits.length < 8) hits.push({ file: full, line: i + 1, text: text.trim() });
        });
      } catch {
        // Files that vanish or cannot be read are simply not searched.
      }
    }
  }
  return { hits, files: matchedFiles.size, scanned };
}


/** Waits for a client answer, but unwinds the turn as soon as it is cancelled. */
function unlessCancelled<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Cancelled());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(new Cancelled());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => { signal.removeEventListener("abort", onAbort); resolve(value); },
      (error: unknown) => { signal.removeEventListener("abort", onAbort); reject(error instanceof Error ? error : new Error(String(error))); },
    );
  });
}

type PlanStatus = acp.PlanEntry["status"];

/** One prompt's worth of demo: plays the script and keeps the bookkeeping a real agent would. */
class DemoTurn {
  private readonly plan: acp.PlanEntry[] = [];
  private readonly openToolCalls = new Set<string>();
  private readonly done: string[] = [];
  private readonly problems: string[] = [];
  private toolCounter = 0;
  private thoughtBursts = 0;
  private readonly pace: number;
  private readonly term: string;
  private readonly title: string;

  constructor(
    private readonly client: acp.AgentContext,
    private readonly session: DemoSession,
    private readonly signal: AbortSignal,
    private readonly prompt: { text: string; attachments: string[] },
  ) {
    this.pace = SPEED * (MODELS.find((m) => m.value === session.model)?.pace ?? 1);
    this.term = keyword(prompt.text);
    this.title = titleFrom(prompt.text);
  }

  private check(): void {
    if (this.signal.aborted) throw new Cancelled();
  }

  private async pause(ms: number): Promise<void> {
    this.check();
    if (this.pace > 0) await sleep(ms * this.pace, this.signal);
    this.check();
  }

  private async send(update: acp.SessionUpdate): Promise<void> {
    this.check();
    await this.client.notify(acp.methods.client.session.update, { sessionId: this.session.id, update });
  }

  private async stream(kind: "agent_thought_chunk" | "agent_message_chunk", text: string, msPerChunk: number): Promise<void> {
    for (const [n, piece] of modelChunks(text).entries()) {
      await this.send({ sessionUpdate: kind, content: { type: "text", text: piece } });
      await this.pause(msPerChunk * (0.7 + ((n * 37) % 7) / 10));
    }
  }

  /** Later bursts of thinking start a new paragraph, as a model's reasoning between tool calls does. */
  private think(text: string): Promise<void> {
    const paragraph = this.thoughtBursts++ > 0 ? `\n\n${text}` : text;
    return this.stream("agent_thought_chunk", paragraph, 85);
  }

  private abs(relative: string): string {
    return path.resolve(this.session.cwd, relative);
  }

  private rel(file: string): string {
    return path.relative(this.session.cwd, file) || path.basename(file);
  }

  /** Applies status changes and sends the whole plan once (ACP plans are full replacements). */
  private async setPlan(...changes: [index: number, status: PlanStatus][]): Promise<void> {
    let changed = false;
    for (const [index, status] of changes) {
      const entry = this.plan[index];
      if (!entry || entry.status === status) continue;
      entry.status = status;
      changed = true;
    }
    if (changed) await this.send({ sessionUpdate: "plan", entries: this.plan.map((e) => ({ ...e })) });
  }

  private async usage(extraTokens: number): Promise<void> {
    this.session.usedTokens += extraTokens;
    const used = this.session.usedTokens;
    await this.send({ sessionUpdate: "usage_update", used, size: 200_000, cost: { amount: Math.round(used * 0.6) / 100_000, currency: "USD" } });
  }

  private newToolCallId(kind: string): string {
    return `demo-${this.session.turns}-${++this.toolCounter}-${kind}`;
  }

  private async startTool(call: Omit<acp.ToolCall, "toolCallId">, kind: string): Promise<string> {
    const toolCallId = this.newToolCallId(kind);
    this.openToolCalls.add(toolCallId);
    await this.send({ sessionUpdate: "tool_call", toolCallId, ...call });
    return toolCallId;
  }

  private async updateTool(toolCallId: string, fields: Omit<acp.ToolCallUpdate, "toolCallId">): Promise<void> {
    if (fields.status === "completed" || fields.status === "failed") this.openToolCalls.delete(toolCallId);
    await this.send({ sessionUpdate: "tool_call_update", toolCallId, ...fields });
  }

  private textContent(text: string): acp.ToolCallContent {
    return { type: "content", content: { type: "text", text } };
  }

  /** Tool calls still open when a turn is cancelled are closed so no spinner is left behind. */
  async closeOpenToolCalls(): Promise<void> {
    for (const toolCallId of [...this.openToolCalls]) {
      this.openToolCalls.delete(toolCallId);
      await this.client
        .notify(acp.methods.client.session.update, {
          sessionId: this.session.id,
          update: { sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: [this.textContent("Cancelled before it finished.")] },
        })
        .catch(() => undefined);
    }
  }

  async run(): Promise<void> {
    const { session, prompt } = this;
    const firstTurn = session.turns === 1;
    const readTarget = await pickReadTarget(session.cwd);
    const canEdit = session.modeId !== "ask";

    await this.send({ sessionUpdate: "session_info_update", ...(firstTurn ? { title: this.title } : {}), updatedAt: new Date().toISOString() });
    await this.usage(Math.ceil(prompt.text.length / 4) + 900);
    await this.pause(400);

    await this.think(this.openingThoughts(readTarget, canEdit));
    this.plan.push(
      { content: readTarget ? `Read ${this.rel(readTarget)} for context` : "Look for a file to read", priority: "high", status: "pending" },
      { content: `Search the workspace for “${this.term}”`, priority: "medium", status: "pending" },
      { content: canEdit ? `Write notes to ${DEMO_FILE}` : `Draft notes (Ask mode: no file changes)`, priority: "high", status: "pending" },
      { content: "Run a quick check in a terminal", priority: "medium", status: "pending" },
      { content: "Summarise what I did", priority: "low", status: "pending" },
    );
    await this.send({ sessionUpdate: "plan", entries: this.plan.map((e) => ({ ...e })) });
    if (!session.noticeSent) {
      session.noticeSent = true;
      await this.send({
        sessionUpdate: "notice",
        severity: "info",
        title: "This is the built-in demo agent",
        description: "No model and no network: every step is scripted locally. Add a real ACP agent in the agentThoughts.agents setting to use it here.",
      });
    }
    await this.pause(500);

    await this.setPlan([0, "in_progress"]);
    const readSummary = await this.readStep(readTarget);
    await this.setPlan([0, "completed"], [1, "in_progress"]);
    await this.think(readSummary
      ? `${readSummary} That's enough context. Next I'll search for “${this.term}” to see where it shows up.`
      : `Nothing to read yet, so I'll go straight to searching for “${this.term}”.`);
    const searchSummary = await this.searchStep();
    await this.setPlan([1, "completed"], [2, "in_progress"]);
    await this.usage(1400);

    if (canEdit) {
      await this.think(`${searchSummary} Now I'll write what I found into ${DEMO_FILE}. That changes a file, so I'll show the diff and ask first.`);
      await this.editStep(readTarget, searchSummary);
    } else {
      await this.think(`${searchSummary} I'm in Ask mode, so I won't touch any files; my notes go into the answer instead.`);
      this.done.push(`**Kept notes in this answer**: Ask mode never changes files (switch to Code mode to see an edit with a diff).`);
    }
    await this.setPlan([2, "completed"], [3, "in_progress"]);

    await this.think("Last, a quick sanity check in a terminal: which Node runs me, and on what platform.");
    await this.executeStep();
    await this.setPlan([3, "completed"], [4, "in_progress"]);
    await this.usage(1100);

    await this.think("Everything is in place. Time to write up a short answer with what I did.");
    await this.pause(300);
    const answer = this.answer();
    await this.stream("agent_message_chunk", answer, 40);
    await this.setPlan([4, "completed"]);
    await this.usage(Math.ceil(answer.length / 4));
  }

  private openingThoughts(readTarget: string | undefined, canEdit: boolean): string {
    const { text, attachments } = this.prompt;
    const words = text === "" ? 0 : text.split(/\s+/).length;
    const parts: string[] = [];
    parts.push(text === "" ? "The prompt is empty, so I'll give a tour of what I can show. " : `The user writes: “${excerpt(text, 90)}”. `);
    const command = /^\/(\w+)/.exec(text)?.[1];
    if (command) parts.push(`That's the /${command} command; I'll treat the rest as its argument. `);
    if (attachments.length > 0) parts.push(`They attached ${attachments.join(", ")}, which I'll keep in mind. `);
    parts.push(text.trimEnd().endsWith("?")
      ? "It's a question, so the answer should explain rather than just act. "
      : "It reads like a request to do something, so I should act and then report back. ");
    if (words > 0) {
      parts.push(words <= 12
        ? `It's short (${words} word${words === 1 ? "" : "s"}), so I'll keep the answer focused. `
        : `It's fairly detailed (${words} words); the key term seems to be “${this.term}”. `);
    }
    parts.push(readTarget
      ? `Before answering I want some context from the workspace, and ${this.rel(readTarget)} looks like the right place to start. `
      : "The workspace looks empty, so there's nothing to read for context. ");
    parts.push(canEdit
      ? "I'm in Code mode: I may edit files, but I'll ask before writing anything. "
      : "I'm in Ask mode: I must not change any files. ");
    parts.push("Let me make a plan.");
    return parts.join("");
  }

  private async readStep(file: string | undefined): Promise<string | undefined> {
    if (!file) {
      this.done.push("**Looked for a file to read**: the workspace is empty.");
      return undefined;
    }
    const rel = this.rel(file);
    const viaClient = clientCapabilities.fs?.readTextFile === true;
    const id = await this.startTool({
      title: `Read ${rel}`,
      kind: "read",
      status: "pending",
      locations: [{ path: file, line: 1 }],
      rawInput: { path: file, line: 1, limit: 40 },
    }, "read");
    await this.pause(300);
    await this.updateTool(id, { status: "in_progress" });
    try {
      const content = viaClient
        ? (await unlessCancelled(this.client.request(acp.methods.client.fs.readTextFile, { sessionId: this.session.id, path: file, line: 1, limit: 40 }), this.signal)).content
        : (await fsp.readFile(file, "utf8")).split("\n").slice(0, 40).join("\n");
      await this.pause(400);
      const lines = content.split("\n");
      const shown = lines.slice(0, 12).join("\n");
      const fence = shown.includes("```") ? "~~~" : "```";
      const lang = path.extname(file).slice(1);
      await this.updateTool(id, {
        status: "completed",
        content: [this.textContent(`${fence}${lang}\n${shown}${lines.length > 12 ? "\n…" : ""}\n${fence}`)],
      });
      const first = lines.find((l) => l.trim() !== "")?.trim();
      this.done.push(`**Read** \`${rel}\`${viaClient ? " (through the editor)" : ""}: ${lines.length} line${lines.length === 1 ? "" : "s"}${first ? `, starting with “${excerpt(first, 50)}”` : ""}.`);
      return `${rel} ${first ? `opens with “${excerpt(first, 60)}”` : "is empty"}.`;
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      await this.updateTool(id, { status: "failed", content: [this.textContent(`Could not read ${rel}: ${errorText(error)}`)] });
      this.problems.push(`Reading \`${rel}\` failed: ${errorText(error)}`);
      return `Reading ${rel} failed (${errorText(error)}); I'll manage without it.`;
    }
  }

  private async searchStep(): Promise<string> {
    const id = await this.startTool({
      title: `Search for “${this.term}”`,
      kind: "search",
      status: "in_progress",
      rawInput: { query: this.term, path: this.session.cwd },
    }, "search");
    await this.pause(600);
    const { hits, files, scanned } = await searchWorkspace(this.session.cwd, this.term, this.signal);
    this.check();
    const summary = hits.length === 0
      ? `No matches for “${this.term}” in ${scanned} file${scanned === 1 ? "" : "s"}.`
      : `${files} file${files === 1 ? " mentions" : "s mention"} “${this.term}” (searched ${scanned}).`;
    const list = hits.map((h) => `- \`${this.rel(h.file)}:${h.line}\`: ${excerpt(h.text, 70)}`).join("\n");
    await this.updateTool(id, {
      status: "completed",
      locations: hits.map((h) => ({ path: h.file, line: h.line })),
      content: [this.textContent(list ? `${summary}\n\n${list}` : summary)],
      rawOutput: { matches: hits.length, files, scanned },
    });
    this.done.push(`**Searched** for \`${this.term}\`: ${summary}`);
    return summary;
  }

  private async editStep(readTarget: string | undefined, searchSummary: string): Promise<void> {
    const file = this.abs(DEMO_FILE);
    let oldText: string | null = null;
    try {
      if (await isSmallFile(file)) {
        oldText = clientCapabilities.fs?.readTextFile === true
          ? (await unlessCancelled(this.client.request(acp.methods.client.fs.readTextFile, { sessionId: this.session.id, path: file }), this.signal)).content
          : await fsp.readFile(file, "utf8");
      }
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      oldText = null;
    }
    const header = "# Agent Thoughts demo notes\n\nWritten by the built-in demo agent of Agent Thoughts. Safe to delete.\n";
    const section = [
      `## Turn ${this.session.turns}: ${this.title}`,
      "",
      `> ${excerpt(this.prompt.text || "(empty prompt)", 200)}`,
      "",
      `- Context: ${readTarget ? `\`${this.rel(readTarget)}\`` : "none (empty workspace)"}`,
      `- Search: ${searchSummary}`,
      `- Written: ${new Date().toISOString()}`,
      "",
    ].join("\n");
    const newText = `${(oldText ?? header).trimEnd()}\n\n${section}`;
    const diff: acp.ToolCallContent = { type: "diff", path: file, oldText, newText };
    const title = `${oldText === null ? "Create" : "Update"} ${DEMO_FILE}`;
    const id = await this.startTool({ title, kind: "edit", status: "pending", locations: [{ path: file }], content: [diff], rawInput: { path: file } }, "edit");
    await this.pause(500);

    let allowed = this.session.alwaysAllowEdits;
    if (!allowed) {
      let outcome: acp.RequestPermissionOutcome;
      try {
        const answer = await unlessCancelled(this.client.request(acp.methods.client.session.requestPermission, {
          sessionId: this.session.id,
          toolCall: { toolCallId: id, title, kind: "edit", status: "pending", content: [diff], locations: [{ path: file }] },
          options: [
            { optionId: "allow_once", name: "Allow", kind: "allow_once" },
            { optionId: "allow_always", name: "Always allow edits in this session", kind: "allow_always" },
            { optionId: "reject_once", name: "Reject", kind: "reject_once" },
          ],
        }), this.signal);
        outcome = answer.outcome;
      } catch (error) {
        if (error instanceof Cancelled) throw error;
        await this.updateTool(id, { status: "failed", content: [this.textContent(`Could not ask for permission: ${errorText(error)}`)] });
        this.problems.push(`Asking permission to edit \`${DEMO_FILE}\` failed: ${errorText(error)}`);
        return;
      }
      // The client answers "cancelled" when the turn was cancelled while it was asking.
      if (outcome.outcome === "cancelled") throw new Cancelled();
      allowed = outcome.optionId === "allow_once" || outcome.optionId === "allow_always";
      if (outcome.optionId === "allow_always") this.session.alwaysAllowEdits = true;
    }
    if (!allowed) {
      await this.updateTool(id, { status: "failed", content: [this.textContent("Rejected by the user: nothing was written.")] });
      this.done.push(`**Did not edit** \`${DEMO_FILE}\`: you rejected the change, so nothing was written.`);
      return;
    }

    await this.updateTool(id, { status: "in_progress" });
    await this.pause(300);
    const viaClient = clientCapabilities.fs?.writeTextFile === true;
    try {
      // The client may not create parent folders; the agent runs on the same machine, so it can.
      await fsp.mkdir(path.dirname(file), { recursive: true });
      if (viaClient) {
        await unlessCancelled(this.client.request(acp.methods.client.fs.writeTextFile, { sessionId: this.session.id, path: file, content: newText }), this.signal);
      } else {
        await fsp.writeFile(file, newText, "utf8");
      }
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      await this.updateTool(id, { status: "failed", content: [this.textContent(`Writing failed: ${errorText(error)}`)] });
      this.problems.push(`Writing \`${DEMO_FILE}\` failed: ${errorText(error)}`);
      return;
    }
    await this.updateTool(id, { status: "completed", content: [diff] });
    this.done.push(`**${oldText === null ? "Created" : "Updated"}** \`${DEMO_FILE}\`${viaClient ? " through the editor" : ""} with notes for this turn (you approved the diff${this.session.alwaysAllowEdits ? "; edits are now always allowed in this session" : ""}).`);
  }

  private checkScript(): string {
    const step = Math.round(350 * this.pace);
    const lines = [
      "console.log('Checking the environment…')",
      "console.log('node ' + process.version + ' on ' + process.platform + '/' + process.arch)",
      "console.log('cwd: ' + process.cwd())",
      `console.log('demo notes: ' + (require('fs').existsSync(${JSON.stringify(DEMO_FILE)}) ? 'present' : 'not written'))`,
      "console.log('All good ✔')",
    ];
    return `const s=[${lines.map((l) => `()=>${l}`).join(",")}];let i=0;const t=()=>{s[i++]();if(i<s.length)setTimeout(t,${step})};t();`;
  }

  private async executeStep(): Promise<void> {
    const script = this.checkScript();
    const args = ["-e", script];
    const display = `node -e "…environment check…"`;
    const id = await this.startTool({
      title: `Run ${display}`,
      kind: "execute",
      status: "pending",
      rawInput: { command: process.execPath, args, cwd: this.session.cwd },
    }, "execute");
    await this.pause(300);
    if (clientCapabilities.terminal === true) await this.executeInClientTerminal(id, args, display);
    else await this.executeHere(id, args, display);
  }

  private async executeInClientTerminal(id: string, args: string[], display: string): Promise<void> {
    const sessionId = this.session.id;
    let terminalId: string | undefined;
    try {
      terminalId = (await unlessCancelled(this.client.request(acp.methods.client.terminal.create, {
        sessionId,
        command: process.execPath,
        args,
        // Inside VS Code process.execPath is Electron; this makes it behave as plain node.
        env: [{ name: "ELECTRON_RUN_AS_NODE", value: "1" }],
        cwd: this.session.cwd,
        outputByteLimit: 64 * 1024,
      }), this.signal)).terminalId;
      await this.updateTool(id, { status: "in_progress", content: [{ type: "terminal", terminalId }] });
      const exit = await unlessCancelled(this.client.request(acp.methods.client.terminal.waitForExit, { sessionId, terminalId }), this.signal);
      const output = await unlessCancelled(this.client.request(acp.methods.client.terminal.output, { sessionId, terminalId }), this.signal);
      const ok = exit.exitCode === 0;
      await this.updateTool(id, {
        status: ok ? "completed" : "failed",
        content: [{ type: "terminal", terminalId }],
        rawOutput: { exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, output: output.output },
      });
      this.done.push(`**Ran** \`${display}\` in a terminal: ${ok ? "exit code 0" : `exit ${exit.exitCode ?? exit.signal ?? "?"}`}.`);
      if (!ok) this.problems.push(`The terminal command ended with ${exit.exitCode ?? exit.signal ?? "no exit code"}.`);
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      await this.updateTool(id, { status: "failed", content: [this.textContent(`Terminal failed: ${errorText(error)}`)] });
      this.problems.push(`Running \`${display}\` in a terminal failed: ${errorText(error)}`);
    } finally {
      if (terminalId !== undefined) {
        // Release even on cancel: it kills a still-running command and frees the client's terminal.
        await this.client.request(acp.methods.client.terminal.release, { sessionId, terminalId }).catch(() => undefined);
      }
    }
  }

  /** Without a client terminal the agent runs the command itself, as most real agents do. */
  private async executeHere(id: string, args: string[], display: string): Promise<void> {
    await this.updateTool(id, { status: "in_progress" });
    const result = await new Promise<{ code: number | null; output: string; error?: string }>((resolve) => {
      execFile(process.execPath, args, {
        cwd: this.session.cwd,
        env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" },
        timeout: 15_000,
        signal: this.signal,
      }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, output: `${stdout}${stderr}`, ...(error ? { error: error.message } : {}) });
      });
    });
    this.check();
    const ok = result.code === 0;
    await this.updateTool(id, {
      status: ok ? "completed" : "failed",
      content: [this.textContent(`\`\`\`console\n$ ${display}\n${result.output.trimEnd()}\n\`\`\``)],
      rawOutput: { exitCode: result.code, output: result.output },
    });
    this.done.push(`**Ran** \`${display}\` myself (the client has no terminal support): ${ok ? "exit code 0" : `failed (${result.error ?? result.code})`}.`);
    if (!ok) this.problems.push(`The check command failed: ${result.error ?? String(result.code)}`);
  }

  private answer(): string {
    const mode = MODES.find((m) => m.id === this.session.modeId)?.name ?? this.session.modeId;
    const model = MODELS.find((m) => m.value === this.session.model)?.name ?? this.session.model;
    const sections = [
      `## ${this.title}`,
      "",
      this.prompt.text === "" ? "You sent an empty prompt, so here is a tour instead:" : `Here's what I did for “${excerpt(this.prompt.text, 80)}”:`,
      "",
      ...this.done.map((item, i) => `${i + 1}. ${item}`),
      "",
    ];
    if (this.problems.length > 0) sections.push("### Problems", "", ...this.problems.map((p) => `- ${p}`), "");
    sections.push(
      "### About this demo",
      "",
      `I'm the built-in demo agent: the thoughts, plan and tool calls above were scripted, with no model and no network. Mode: **${mode}**, model: **${model}**. Switch either and ask again to see the difference.`,
      "",
      "### Try a real agent",
      "",
      "Run **Agent Thoughts: Add Agent…** (or pick *Add Agent…* in Select Agent): Claude Code, Codex, Gemini CLI, Goose and OpenCode are presets — it finds the ones on your PATH, says how to install the others, and writes the entry to your user settings. Any other ACP agent is a custom command.",
      "",
    );
    return sections.join("\n");
  }
}

function findSession(sessionId: string): DemoSession {
  const session = sessions.get(sessionId);
  if (!session) throw acp.RequestError.sessionNotFound(sessionId);
  return session;
}

function log(text: string): void {
  process.stderr.write(`[demo agent] ${text}\n`);
}

/** A session, new or resumed (the demo keeps nothing between turns, so resuming is opening it again). */
function openSession(id: string, cwd: string, client: acp.AgentContext): { sessionId: string; modes: acp.SessionModeState; configOptions: acp.SessionConfigOption[] } {
  const session: DemoSession = {
    id,
    cwd: path.resolve(cwd),
    modeId: "code",
    model: "demo-thoughtful",
    turns: 0,
    usedTokens: 0,
    alwaysAllowEdits: false,
    noticeSent: false,
    turn: undefined,
  };
  sessions.set(session.id, session);
  // setImmediate runs after the SDK queued the answer (it writes in queue order), so the client
  // knows the session id before this update arrives.
  setImmediate(() => {
    client
      .notify(acp.methods.client.session.update, { sessionId: session.id, update: { sessionUpdate: "available_commands_update", availableCommands: COMMANDS } })
      .catch((error: unknown) => log(`available_commands_update failed: ${errorText(error)}`));
  });
  return { sessionId: session.id, modes: { currentModeId: session.modeId, availableModes: MODES }, configOptions: configOptions(session) };
}

const app = acp
  .agent({ name: "Demo" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientCapabilities = params.clientCapabilities ?? {};
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      // It keeps no memory between turns, so any of its sessions can be resumed by id (a window reload, a restart).
      agentCapabilities: { loadSession: false, sessionCapabilities: { resume: {}, close: {} }, promptCapabilities: { image: false, audio: false, embeddedContext: true } },
      authMethods: [],
      agentInfo: { name: "agent-thoughts-demo", title: "Demo", version: AGENT_VERSION },
    };
  })
  .onRequest(acp.methods.agent.authenticate, () => ({}))
  .onRequest(acp.methods.agent.session.new, ({ params, client }) => openSession(`demo-${process.pid}-${nextSessionNumber++}`, params.cwd, client))
  .onRequest(acp.methods.agent.session.resume, ({ params, client }) => {
    sessions.get(params.sessionId)?.turn?.abort();
    const { modes, configOptions: options } = openSession(params.sessionId, params.cwd, client);
    return { modes, configOptions: options };
  })
  .onRequest(acp.methods.agent.session.close, ({ params }) => {
    sessions.get(params.sessionId)?.turn?.abort();
    sessions.delete(params.sessionId);
    return {};
  })
  .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
    const session = findSession(params.sessionId);
    if (!MODES.some((m) => m.id === params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId }, "unknown mode");
    session.modeId = params.modeId;
    return {};
  })
  .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
    const session = findSession(params.sessionId);
    const model = MODELS.find((m) => m.value === params.value);
    if (params.configId !== "model" || !model) {
      throw acp.RequestError.invalidParams({ configId: params.configId, value: params.value }, "unknown config option or value");
    }
    session.model = model.value;
    return { configOptions: configOptions(session) };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
    const session = findSession(params.sessionId);
    // One turn at a time per session: a new prompt supersedes a turn the client forgot to cancel.
    session.turn?.abort();
    const controller = new AbortController();
    session.turn = controller;
    const onRequestCancel = (): void => controller.abort();
    signal.addEventListener("abort", onRequestCancel, { once: true });
    session.turns++;
    const turn = new DemoTurn(client, session, controller.signal, promptText(params.prompt));
    try {
      await turn.run();
      return { stopReason: "end_turn" };
    } catch (error) {
      if (error instanceof Cancelled || controller.signal.aborted) {
        await turn.closeOpenToolCalls();
        return { stopReason: "cancelled" };
      }
      log(`turn failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await client
        .notify(acp.methods.client.session.update, {
          sessionId: session.id,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\n**The demo hit an error:** ${errorText(error)}\n` } },
        })
        .catch(() => undefined);
      await turn.closeOpenToolCalls();
      return { stopReason: "end_turn" };
    } finally {
      signal.removeEventListener("abort", onRequestCancel);
      if (session.turn === controller) session.turn = undefined;
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.turn?.abort();
  });

// The demo must never die on a stray error: log it (stderr is the client's agent log) and go on.
process.on("uncaughtException", (error) => log(`uncaught: ${error.stack ?? error.message}`));
process.on("unhandledRejection", (reason) => log(`unhandled rejection: ${errorText(reason)}`));
process.stdout.on("error", () => process.exit(0));

const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>),
);
void connection.closed.then(() => process.exit(0));
log(`ready (speed ${SPEED})`);
