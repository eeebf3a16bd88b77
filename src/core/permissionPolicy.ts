/**
 * Which permission requests are answered without asking: the `agentThoughts.permissions.default`
 * policy (ask / allowReads / allowAll), and "always" answers the user gave earlier in the session.
 * An "always" answer is remembered narrowly — for the same kind of tool *and* the same command
 * or the same files — never for "every execute tool from now on"; a request with neither is left
 * to the agent, which offered the option and remembers it itself. Requests that touch files that
 * configure tools (`guarded`) are never answered by a policy or a remembered rule.
 * Pure: the broker asks, this decides.
 */
import type { PermissionOption, ToolCallFields, ToolKind } from "../shared/events";

export type PermissionPolicy = "ask" | "allowReads" | "allowAll";

/** Tool kinds that only look: reading, searching, thinking, fetching. */
const READ_KINDS: readonly ToolKind[] = ["read", "search", "think", "fetch"];

export interface PolicyRequest {
  sessionId: string;
  toolKind?: ToolKind;
  /** What the request is about: the command, or the files (see `scopeOf`); none = not remembered by us. */
  scope?: string;
  /** Set when the request touches files that configure tools: always asks. */
  guarded?: boolean;
  options: PermissionOption[];
}

/** One remembered "always" answer, as the user can list and revoke it. */
export interface PermissionRule {
  id: string;
  sessionId: string;
  toolKind: string;
  scope: string;
  decision: "allow" | "reject";
  /** Who asked (for the list). */
  agentName?: string;
  at: number;
}

const COMMAND_KEYS = ["command", "cmd", "commandLine"];
/** Input fields that describe a command without changing what it does. */
const DESCRIPTIVE_KEYS = new Set([...COMMAND_KEYS, "description", "title", "reason", "timeout", "timeout_ms", "timeoutMs"]);

function commandOf(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  for (const key of COMMAND_KEYS) {
    const v = r[key];
    if (typeof v === "string" && v.trim()) return v.trim();
    // An argument list stays a list: ["echo", "x; rm -rf ~"] is not the shell line `echo x; rm -rf ~`.
    if (Array.isArray(v) && v.length && v.every((x) => typeof x === "string")) return JSON.stringify(v);
  }
  return undefined;
}

/** The input fields besides the command that change what it does (cwd, env…), in a stable order. */
function commandContext(raw: unknown): string {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "";
  const rest = Object.entries(raw as Record<string, unknown>).filter(([k]) => !DESCRIPTIVE_KEYS.has(k)).sort(([a], [b]) => a.localeCompare(b));
  return rest.length ? ` ${JSON.stringify(Object.fromEntries(rest))}` : "";
}

/** Files a tool call names: its locations, diff paths, and path-like fields of its input. */
export function pathsOf(tc: ToolCallFields): string[] {
  const out = new Set<string>();
  for (const l of tc.locations ?? []) out.add(l.path);
  for (const c of tc.content ?? []) if (c.type === "diff") out.add(c.path);
  if (typeof tc.rawInput === "object" && tc.rawInput !== null) {
    for (const [k, v] of Object.entries(tc.rawInput as Record<string, unknown>)) {
      if (typeof v === "string" && /^(path|file|file_?path|filePath|notebook_?path|abs_?path|target|destination|dest)$/i.test(k)) out.add(v);
    }
  }
  return [...out];
}

/** Every string a tool call carries (title, input), for spotting protected folders named in commands. */
export function textsOf(tc: ToolCallFields, limit = 256 * 1024): string[] {
  const out: string[] = [];
  let size = 0;
  const walk = (v: unknown, depth: number): void => {
    if (size > limit || depth > 20) return;
    if (typeof v === "string") { out.push(v.slice(0, limit)); size += v.length; }
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (typeof v === "object" && v !== null) for (const x of Object.values(v as Record<string, unknown>)) walk(x, depth + 1);
  };
  if (tc.title) out.push(tc.title);
  walk(tc.rawInput, 0);
  return out;
}

/**
 * What an "always" answer to this tool call covers: the exact command for commands, the set
 * of files for everything else. Undefined when the call names neither.
 */
export function scopeOf(tc: ToolCallFields, toolKind: ToolKind | undefined): string | undefined {
  const command = commandOf(tc.rawInput);
  if (command || toolKind === "execute") {
    const c = command ?? tc.title?.trim();
    return c ? `command: ${c}${commandContext(tc.rawInput)}` : undefined;
  }
  const files = pathsOf(tc).sort();
  return files.length ? `files: ${files.join(", ")}` : undefined;
}

export class PermissionMemory {
  private readonly rules: PermissionRule[] = [];
  private serial = 0;

  /** Records the user's answer; only "always" kinds with a scope are remembered. Returns the new rule. */
  remember(req: PolicyRequest, optionId: string, agentName?: string): PermissionRule | undefined {
    const option = req.options.find((o) => o.optionId === optionId);
    if (!option || (option.kind !== "allow_always" && option.kind !== "reject_always")) return undefined;
    if (req.guarded || req.scope === undefined) return undefined;
    const toolKind = req.toolKind ?? "other";
    const decision = option.kind === "allow_always" ? "allow" : "reject";
    const existing = this.rules.findIndex((r) => r.sessionId === req.sessionId && r.toolKind === toolKind && r.scope === req.scope);
    if (existing >= 0) this.rules.splice(existing, 1);
    const rule: PermissionRule = { id: `rule-${++this.serial}`, sessionId: req.sessionId, toolKind, scope: req.scope, decision, at: Date.now(), ...(agentName ? { agentName } : {}) };
    this.rules.push(rule);
    return rule;
  }

  /** The remembered rules, oldest first. */
  list(): readonly PermissionRule[] {
    return this.rules;
  }

  revoke(ruleId: string): boolean {
    const i = this.rules.findIndex((r) => r.id === ruleId);
    if (i < 0) return false;
    this.rules.splice(i, 1);
    return true;
  }

  forgetSession(sessionId: string): void {
    for (let i = this.rules.length - 1; i >= 0; i--) if (this.rules[i]!.sessionId === sessionId) this.rules.splice(i, 1);
  }

  /** The option to answer with now, or undefined to ask the user. */
  decide(policy: PermissionPolicy, req: PolicyRequest): { optionId: string; reason: string } | undefined {
    if (req.guarded) return undefined;
    const pick = (...kinds: PermissionOption["kind"][]): PermissionOption | undefined => {
      for (const k of kinds) {
        const o = req.options.find((x) => x.kind === k);
        if (o) return o;
      }
      return undefined;
    };
    const toolKind = req.toolKind ?? "other";
    const rule = req.scope === undefined ? undefined : this.rules.find((r) => r.sessionId === req.sessionId && r.toolKind === toolKind && r.scope === req.scope);
    if (rule?.decision === "allow") {
      const o = pick("allow_once", "allow_always");
      if (o) return { optionId: o.optionId, reason: `you chose "always allow" for ${rule.scope} in this session` };
    }
    if (rule?.decision === "reject") {
      const o = pick("reject_once", "reject_always");
      if (o) return { optionId: o.optionId, reason: `you chose "always reject" for ${rule.scope} in this session` };
    }
    const allowOnce = pick("allow_once", "allow_always");
    if (!allowOnce) return undefined;
    if (policy === "allowAll") return { optionId: allowOnce.optionId, reason: "agentThoughts.permissions.default is allowAll" };
    if (policy === "allowReads" && req.toolKind && READ_KINDS.includes(req.toolKind)) {
      return { optionId: allowOnce.optionId, reason: "agentThoughts.permissions.default allows reads" };
    }
    return undefined;
  }
}
