/**
 * Turns VS Code's MCP configuration (a `.vscode/mcp.json`, the user's `mcp` setting, or
 * `agentThoughts.mcpServers`: `{ servers: { name: { type, command, args, env, url, headers } } }`)
 * into the MCP server entries ACP's `session/new`, `session/load` and `session/resume` take.
 * Everything here is untrusted input (a repository or an agent can write a workspace file): it is
 * bounded, never throws, resolves only plain variables (`${workspaceFolder}`, `${userHome}`,
 * `${env:…}`) and skips, with a reason, any server that needs more (`${input:…}`, `${command:…}`,
 * `envFile`): resolving those could prompt or run something.
 */
import { createHash } from "node:crypto";

/** The ACP shapes (structurally the SDK's `McpServerStdio`, `McpServerHttp`, `McpServerSse`). */
export interface NameValue { name: string; value: string }
export type McpServerEntry =
  | { name: string; command: string; args: string[]; env: NameValue[] }
  | { type: "http"; name: string; url: string; headers: NameValue[] }
  | { type: "sse"; name: string; url: string; headers: NameValue[] };

/** Where a server was configured; `workspace` ones are workspace-supplied and need trust and the user's yes. */
export type McpSource = "setting" | "user" | "workspace";

export interface McpCandidate {
  source: McpSource;
  /** The file or setting it came from (for the log and the confirmation). */
  origin: string;
  server: McpServerEntry;
}

export interface McpSkipped { name: string; origin: string; reason: string }

export interface SubstitutionContext {
  /** The folder `${workspaceFolder}` means (the folder of the mcp.json; else the first workspace folder). */
  workspaceFolder?: string;
  userHome: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `${pathSeparator}` and `${/}`. */
  pathSeparator: string;
  /** Values the user typed for `${input:id}`, by id. */
  inputs?: Readonly<Record<string, string>>;
}

/** A `${input:id}` a server needs that has no value yet: what to ask the user (from the configuration's `inputs`). */
export interface McpInputNeed { id: string; description: string; password: boolean; server: string; origin: string; source: McpSource }

/** What the agent declared (`agentCapabilities.mcpCapabilities`). */
export interface McpCapabilitiesLike { http?: boolean; sse?: boolean }

export const MCP_LIMITS = {
  serversPerSource: 32,
  total: 64,
  name: 100,
  command: 4096,
  args: 256,
  arg: 8192,
  envEntries: 256,
  envName: 256,
  value: 16_384,
  headers: 64,
  url: 8192,
  /** Bytes of a mcp.json read at all. */
  fileBytes: 1_000_000,
} as const;

const VARIABLE = /\$\{([^}]*)\}/g;

class Skip extends Error {}
/** A skip that a value typed by the user would lift. */
class NeedsInput extends Skip {
  constructor(readonly id: string) {
    super(`needs a value you type in (\${input:${short(id)}})`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function short(s: string, max = 80): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Resolves the plain variables in `text`; throws Skip for any other. */
function substitute(text: string, ctx: SubstitutionContext): string {
  return text.replace(VARIABLE, (_, inner: string) => {
    if (inner === "workspaceFolder") {
      if (ctx.workspaceFolder === undefined) throw new Skip("uses ${workspaceFolder}, but no folder is open");
      return ctx.workspaceFolder;
    }
    if (inner === "workspaceFolderBasename") {
      if (ctx.workspaceFolder === undefined) throw new Skip("uses ${workspaceFolderBasename}, but no folder is open");
      return ctx.workspaceFolder.split(/[\\/]/).filter(Boolean).pop() ?? "";
    }
    if (inner === "userHome") return ctx.userHome;
    if (inner === "pathSeparator" || inner === "/") return ctx.pathSeparator;
    if (inner.startsWith("env:")) {
      const name = inner.slice(4);
      // Own properties only: `${env:constructor}` must not reach Object.prototype.
      return Object.prototype.hasOwnProperty.call(ctx.env, name) ? (ctx.env[name] ?? "") : "";
    }
    if (inner.startsWith("input:")) {
      const id = inner.slice(6);
      if (ctx.inputs && Object.prototype.hasOwnProperty.call(ctx.inputs, id)) return ctx.inputs[id] ?? "";
      throw new NeedsInput(id);
    }
    throw new Skip(`uses \${${short(inner)}}, which Agent Thoughts does not resolve`);
  });
}

function text(v: unknown, what: string, max: number, ctx: SubstitutionContext): string {
  if (typeof v !== "string") throw new Skip(`its ${what} is not a string`);
  if (v.length > max) throw new Skip(`its ${what} is longer than ${max} characters`);
  const out = substitute(v, ctx);
  if (out.length > MCP_LIMITS.value * 4) throw new Skip(`its ${what} is too long once variables are resolved`);
  return out;
}

/** `env` / `headers`: an object of strings (numbers and booleans as text; null leaves the entry out). */
function pairs(v: unknown, what: string, max: number, ctx: SubstitutionContext): NameValue[] {
  if (v === undefined || v === null) return [];
  if (!isRecord(v)) throw new Skip(`its ${what} is not an object`);
  const keys = Object.keys(v);
  if (keys.length > max) throw new Skip(`it has more than ${max} ${what} entries`);
  const out: NameValue[] = [];
  for (const key of keys) {
    const raw = v[key];
    if (raw === null || raw === undefined) continue;
    if (key.length === 0 || key.length > MCP_LIMITS.envName) throw new Skip(`a ${what} name is empty or too long`);
    const value = typeof raw === "number" || typeof raw === "boolean" ? String(raw) : raw;
    out.push({ name: key, value: text(value, `${what} "${short(key, 40)}"`, MCP_LIMITS.value, ctx) });
  }
  return out;
}

function toEntry(name: string, def: unknown, ctx: SubstitutionContext): McpServerEntry {
  if (!isRecord(def)) throw new Skip("its definition is not an object");
  if (def.envFile !== undefined) throw new Skip("uses envFile, which Agent Thoughts does not read");
  const declared = def.type;
  const type = declared === undefined ? (def.command !== undefined ? "stdio" : def.url !== undefined ? "http" : undefined) : declared;
  if (type === "stdio") {
    const command = text(def.command, "command", MCP_LIMITS.command, ctx).trim();
    if (!command) throw new Skip("it has no command");
    if (def.args !== undefined && !Array.isArray(def.args)) throw new Skip("its args are not a list");
    const rawArgs: unknown[] = Array.isArray(def.args) ? def.args : [];
    if (rawArgs.length > MCP_LIMITS.args) throw new Skip(`it has more than ${MCP_LIMITS.args} args`);
    const args = rawArgs.map((a, i) => text(typeof a === "number" ? String(a) : a, `argument ${i + 1}`, MCP_LIMITS.arg, ctx));
    return { name, command, args, env: pairs(def.env, "env", MCP_LIMITS.envEntries, ctx) };
  }
  if (type === "http" || type === "sse") {
    const url = text(def.url, "url", MCP_LIMITS.url, ctx).trim();
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Skip("its url is not a URL");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Skip("its url is not http or https");
    return { type, name, url, headers: pairs(def.headers, "headers", MCP_LIMITS.headers, ctx) };
  }
  throw new Skip(type === undefined ? "it has neither a command nor a url" : `its type "${short(typeof type === "string" ? type : JSON.stringify(type) ?? "?", 40)}" is not stdio, http or sse`);
}

/**
 * The servers of one configuration (`{ servers: {...} }`, the whole mcp.json or the `mcp` setting)
 * or of a bare servers object (`agentThoughts.mcpServers`, `bare`); never throws.
 */
export function readMcpConfig(raw: unknown, source: McpSource, origin: string, ctx: SubstitutionContext, bare = false): { servers: McpCandidate[]; skipped: McpSkipped[]; needs: McpInputNeed[] } {
  const servers: McpCandidate[] = [];
  const skipped: McpSkipped[] = [];
  const needs: McpInputNeed[] = [];
  const declared = !bare && isRecord(raw) && Array.isArray(raw.inputs) ? raw.inputs.slice(0, MCP_LIMITS.serversPerSource) : [];
  const describe = (id: string): { description: string; password: boolean } => {
    const d: unknown = declared.find((x) => isRecord(x) && x.id === id);
    return isRecord(d) ? { description: typeof d.description === "string" ? short(d.description, 200) : id, password: d.password === true } : { description: id, password: true };
  };
  const all = bare ? raw : isRecord(raw) ? raw.servers : undefined;
  if (all === undefined || all === null) return { servers, skipped, needs };
  if (!isRecord(all)) {
    skipped.push({ name: "(all)", origin, reason: "`servers` is not an object" });
    return { servers, skipped, needs };
  }
  const names = Object.keys(all);
  for (const [i, key] of names.entries()) {
    const name = short(key.trim(), MCP_LIMITS.name);
    if (i >= MCP_LIMITS.serversPerSource) {
      skipped.push({ name: `(${names.length - i} more)`, origin, reason: `only the first ${MCP_LIMITS.serversPerSource} servers of a configuration are forwarded` });
      break;
    }
    if (!name) {
      skipped.push({ name: "(unnamed)", origin, reason: "it has no name" });
      continue;
    }
    if (key.length > MCP_LIMITS.name) {
      skipped.push({ name, origin, reason: `its name is longer than ${MCP_LIMITS.name} characters` });
      continue;
    }
    try {
      servers.push({ source, origin, server: toEntry(name, all[key], ctx) });
    } catch (err) {
      skipped.push({ name, origin, reason: err instanceof Skip ? err.message : "its definition could not be read" });
      if (err instanceof NeedsInput && err.id.length > 0 && err.id.length <= MCP_LIMITS.name) needs.push({ id: err.id, ...describe(err.id), server: name, origin, source });
    }
  }
  return { servers, skipped, needs };
}

/** The transport an entry uses. */
export function transportOf(server: McpServerEntry): "stdio" | "http" | "sse" {
  return "type" in server ? server.type : "stdio";
}

/**
 * What becomes of a candidate before any agent sees it: workspace-supplied servers only in a
 * trusted workspace, and only once the user said yes to that exact server (see `confirmationKey`).
 */
export function gate(c: McpCandidate, trusted: boolean): "forward" | "confirm" | "untrusted" {
  if (c.source !== "workspace") return "forward";
  return trusted ? "confirm" : "untrusted";
}

/**
 * Identifies a workspace server for its confirmation: any change to what it runs, where it
 * connects or what it sends asks again. A hash, so secrets resolved into env or headers are not kept.
 */
export function confirmationKey(c: McpCandidate): string {
  const s = c.server;
  const what = "command" in s ? [s.command, ...s.args, ...s.env.map((e) => `${e.name}=${e.value}`)] : [s.url, ...s.headers.map((h) => `${h.name}=${h.value}`)];
  return createHash("sha256").update(JSON.stringify([c.origin, s.name, transportOf(s), ...what])).digest("hex");
}

/**
 * The servers an agent gets, in order, first of each name kept: stdio always, http and sse only
 * when the agent declares them; at most `MCP_LIMITS.total`. Done before anyone is asked, so the
 * user is never asked about a server the agent would not get.
 */
export function forAgent(candidates: readonly McpCandidate[], caps: McpCapabilitiesLike | undefined): { chosen: McpCandidate[]; servers: McpServerEntry[]; skipped: McpSkipped[] } {
  const chosen: McpCandidate[] = [];
  const skipped: McpSkipped[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    const s = c.server;
    const t = transportOf(s);
    if (seen.has(s.name)) {
      skipped.push({ name: s.name, origin: c.origin, reason: "a server of the same name comes first" });
      continue;
    }
    if (t !== "stdio" && caps?.[t] !== true) {
      skipped.push({ name: s.name, origin: c.origin, reason: `the agent does not declare MCP over ${t === "http" ? "HTTP" : "SSE"}` });
      continue;
    }
    if (chosen.length >= MCP_LIMITS.total) {
      skipped.push({ name: s.name, origin: c.origin, reason: `only ${MCP_LIMITS.total} servers are forwarded` });
      continue;
    }
    seen.add(s.name);
    chosen.push(c);
  }
  return { chosen, servers: chosen.map((c) => c.server), skipped };
}

/** One line for the log and the confirmation: what a server runs or reaches (header values left out). */
export function describeServer(s: McpServerEntry): string {
  if ("command" in s) return short([s.command, ...s.args].join(" "), 300);
  return `${transportOf(s)} ${short(s.url, 300)}`;
}
