/**
 * Which permission requests are answered without asking: the `agentThoughts.permissions.default`
 * policy (ask / allowReads / allowAll), and "always" answers the user gave earlier in the session,
 * remembered per kind of tool as the agent's option intends. Pure: the broker asks, this decides.
 */
import type { PermissionOption, ToolKind } from "./events";

export type PermissionPolicy = "ask" | "allowReads" | "allowAll";

/** Tool kinds that only look: reading, searching, thinking, fetching. */
const READ_KINDS: readonly ToolKind[] = ["read", "search", "think", "fetch"];

export interface PolicyRequest {
  sessionId: string;
  toolKind?: ToolKind;
  options: PermissionOption[];
}

export class PermissionMemory {
  /** sessionId → tool kind → "allow" | "reject" (from allow_always / reject_always answers). */
  private readonly always = new Map<string, Map<string, "allow" | "reject">>();

  /** Records the user's answer; only "always" kinds are remembered. */
  remember(req: PolicyRequest, optionId: string): void {
    const option = req.options.find((o) => o.optionId === optionId);
    if (!option || (option.kind !== "allow_always" && option.kind !== "reject_always")) return;
    const bySession = this.always.get(req.sessionId) ?? new Map<string, "allow" | "reject">();
    bySession.set(req.toolKind ?? "other", option.kind === "allow_always" ? "allow" : "reject");
    this.always.set(req.sessionId, bySession);
  }

  forgetSession(sessionId: string): void {
    this.always.delete(sessionId);
  }

  /** The option to answer with now, or undefined to ask the user. */
  decide(policy: PermissionPolicy, req: PolicyRequest): { optionId: string; reason: string } | undefined {
    const remembered = this.always.get(req.sessionId)?.get(req.toolKind ?? "other");
    const pick = (...kinds: PermissionOption["kind"][]): PermissionOption | undefined => {
      for (const k of kinds) {
        const o = req.options.find((x) => x.kind === k);
        if (o) return o;
      }
      return undefined;
    };
    if (remembered === "allow") {
      const o = pick("allow_always", "allow_once");
      if (o) return { optionId: o.optionId, reason: `you chose "always allow" for ${req.toolKind ?? "these"} tools in this session` };
    }
    if (remembered === "reject") {
      const o = pick("reject_always", "reject_once");
      if (o) return { optionId: o.optionId, reason: `you chose "always reject" for ${req.toolKind ?? "these"} tools in this session` };
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
