/**
 * Holds every open permission request, with its resolver, until one answer settles it: the
 * policy or a remembered rule (at once), or the user through `resolve` — from the thought panel,
 * the notification (`notify`, shown when no panel puts the question on screen), the Respond to Permission Request
 * command or Allow/Reject in a proposed edit's diff — or cancellation (its signal). The first
 * answer wins; late answers are ignored and logged.
 */
import * as vscode from "vscode";
import type { Logger, PermissionAnswer, PermissionPort, PermissionRequest } from "../acp/ports";
import type { PermissionOption, PermissionOutcome } from "../shared/events";
import { PermissionMemory, scopeOf, type PermissionPolicy, type PolicyRequest } from "../core/permissionPolicy";
import { plainText } from "../core/plainText";

interface Pending { req: PermissionRequest; resolve: (o: PermissionOutcome) => void }

const ICON: Record<string, string> = { allow_once: "$(check)", allow_always: "$(check-all)", reject_once: "$(close)", reject_always: "$(circle-slash)" };

export class PermissionBroker implements PermissionPort, vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private readonly memory = new PermissionMemory();
  private readonly asked = new vscode.EventEmitter<PermissionRequest>();
  /** Fires when a request waits for the user (no policy or rule answered it). */
  readonly onDidAsk = this.asked.event;

  constructor(private readonly logger: Logger) {}

  request(req: PermissionRequest): Promise<PermissionAnswer> {
    if (req.signal.aborted) return Promise.resolve({ outcome: "cancelled" });
    if (this.pending.has(req.requestId)) {
      // Never let a second request take over an open one's id (and so its answer).
      this.logger.warn(`Permission request ${req.requestId} from ${req.agentName} is already open; the second one is cancelled`);
      return Promise.resolve({ outcome: "cancelled" });
    }
    const policy = vscode.workspace.getConfiguration("agentThoughts").get<PermissionPolicy>("permissions.default") ?? "ask";
    const auto = this.memory.decide(policy, policyRequest(req));
    if (auto) {
      this.logger.info(`Answered "${req.title}" for ${req.agentName} with ${auto.optionId}: ${auto.reason}`);
      return Promise.resolve({ outcome: "selected", optionId: auto.optionId, by: "policy" });
    }
    return new Promise<PermissionOutcome>((resolve) => {
      const entry: Pending = { req, resolve };
      this.pending.set(req.requestId, entry);
      req.signal.addEventListener("abort", () => this.finish(req.requestId, { outcome: "cancelled" }), { once: true });
      this.asked.fire(req);
    });
  }

  /** Open requests, oldest first. */
  open(): PermissionRequest[] {
    return [...this.pending.values()].map((p) => p.req);
  }

  /** Answers a request; `optionId` null cancels it. Returns false when it is not open (already answered, unknown). */
  resolve(requestId: string, optionId: string | null, sessionId?: string): boolean {
    const p = this.pending.get(requestId);
    if (!p) {
      this.logger.warn(`Permission request ${requestId} is not open; answer ignored`);
      return false;
    }
    if (sessionId !== undefined && p.req.sessionId !== sessionId) {
      this.logger.warn(`Permission request ${requestId} belongs to another session than ${sessionId}; answer ignored`);
      return false;
    }
    if (optionId !== null && !p.req.options.some((o) => o.optionId === optionId)) {
      this.logger.warn(`Permission request ${requestId} has no option ${optionId}; answer ignored`);
      return false;
    }
    if (optionId !== null) {
      const rule = this.memory.remember(policyRequest(p.req), optionId, p.req.agentName);
      if (rule) this.logger.info(`Remembered: ${rule.decision} ${rule.toolKind} ${rule.scope} for ${p.req.agentName} in this session (Manage Permission Rules revokes it)`);
    }
    return this.finish(requestId, optionId === null ? { outcome: "cancelled" } : { outcome: "selected", optionId });
  }

  private finish(requestId: string, outcome: PermissionOutcome): boolean {
    const p = this.pending.get(requestId);
    if (!p) return false;
    this.pending.delete(requestId);
    p.resolve(outcome);
    return true;
  }

  /** Answers with the first of `kinds` the request offers (Allow / Reject in a proposed edit's diff: never an "always" rule). */
  answerWith(requestId: string, kinds: readonly PermissionOption["kind"][]): "answered" | "not open" | "no such option" {
    const req = this.pending.get(requestId)?.req;
    if (!req) return "not open";
    const option = kinds.map((k) => req.options.find((o) => o.kind === k)).find((o) => o !== undefined);
    if (!option) return "no such option";
    return this.resolve(requestId, option.optionId) ? "answered" : "not open";
  }

  /** A notification with the request's options (for when no thought panel shows it); nothing once it is answered. */
  async notify(req: PermissionRequest): Promise<void> {
    if (!this.pending.has(req.requestId)) return; // answered meanwhile
    const choice = await vscode.window.showInformationMessage(plainText(`${req.agentName} asks permission: ${req.title}${req.guard ? ` (always asked: ${req.guard})` : ""}`), ...req.options.map((o) => o.name));
    if (!choice) return;
    const option = req.options.find((o) => o.name === choice);
    if (option && !this.resolve(req.requestId, option.optionId)) void vscode.window.showInformationMessage("That permission request was already answered.");
  }

  /** Agent Thoughts: Manage Permission Rules…: lists the remembered "always" answers; the picked ones are revoked. */
  async manageRules(): Promise<number> {
    const rules = this.memory.list();
    if (rules.length === 0) {
      void vscode.window.showInformationMessage("No permission rules are remembered. \"Always\" answers you give are remembered for one session, one kind of tool and one command or set of files.");
      return 0;
    }
    const picked = await vscode.window.showQuickPick(
      [...rules].reverse().map((r) => ({
        label: `${r.decision === "allow" ? "$(check-all) Always allow" : "$(circle-slash) Always reject"} ${r.toolKind}`,
        description: plainText(`${r.agentName ?? ""} · ${new Date(r.at).toLocaleTimeString()}`),
        detail: plainText(r.scope.length > 300 ? `${r.scope.slice(0, 300)}…` : r.scope),
        rule: r,
      })),
      { title: "Permission rules (remembered for their session)", placeHolder: "Pick the rules to revoke", canPickMany: true },
    );
    if (!picked?.length) return 0;
    for (const p of picked) this.memory.revoke(p.rule.id);
    this.logger.info(`Revoked ${picked.length} permission rule(s)`);
    return picked.length;
  }

  /** The remembered "always" answers (for tests and the rules list). */
  rules(): ReturnType<PermissionMemory["list"]> {
    return this.memory.list();
  }

  /** The command-palette way: pick a request (if several), then an option. */
  async pick(): Promise<void> {
    const open = this.open();
    if (open.length === 0) {
      void vscode.window.showInformationMessage("No agent is waiting for permission.");
      return;
    }
    let req = open[0]!;
    if (open.length > 1) {
      const chosen = await vscode.window.showQuickPick(open.map((r) => ({ label: plainText(r.title), description: plainText(r.agentName), req: r })), { title: "Which request?" });
      if (!chosen) return;
      req = chosen.req;
    }
    const picked = await vscode.window.showQuickPick(
      req.options.map((o) => ({ label: `${ICON[o.kind] ?? ""} ${plainText(o.name)}`.trim(), description: o.kind.replace("_", " "), optionId: o.optionId })),
      { title: plainText(`${req.agentName} asks permission: ${req.title}`), placeHolder: req.guard ? `Always asked: ${plainText(req.guard)}` : "Choose how to answer the agent", ignoreFocusOut: true },
    );
    if (picked) this.resolve(req.requestId, picked.optionId);
  }

  dispose(): void {
    for (const id of [...this.pending.keys()]) this.finish(id, { outcome: "cancelled" });
    this.asked.dispose();
  }
}

function policyRequest(req: PermissionRequest): PolicyRequest {
  const scope = scopeOf(req.toolCall, req.toolKind);
  return { sessionId: req.sessionId, options: req.options, ...(req.toolKind ? { toolKind: req.toolKind } : {}), ...(scope !== undefined ? { scope } : {}), ...(req.guard ? { guarded: true } : {}) };
}

/** Respond to Permission Request and Manage Permission Rules…, from the palette (and the status bar). */
export function registerPermissionCommands(broker: PermissionBroker): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand("agentThoughts.respondToPermission", () => broker.pick()),
    vscode.commands.registerCommand("agentThoughts.managePermissionRules", () => broker.manageRules()),
  ];
}
