/**
 * A session's side of permission requests: each request enters here once — an agent's from the
 * wire, in wire order; ours for writes to protected files — is parsed into its event, judged
 * (does it touch files that configure tools?), and asked through the permission port, which holds
 * it until something answers. The answer is recorded here, once, as the `permission_outcome`.
 */
import type { PermissionOption, PermissionOutcome, ThoughtEventBody, ToolCallFields } from "../shared/events";
import { pathsOf, textsOf } from "../core/permissionPolicy";
import { matchesApprovedEdit, type ApprovedEdit } from "../core/protectedPaths";
import type { SessionLog } from "../core/sessionLog";
import type { SessionUpdateMapper } from "../core/updateMapper";
import type { GuardPort, Logger, PermissionAnswer, PermissionPort, ProtectedWriteQuestion } from "./ports";

/** What the requests need of their session. */
export interface PermissionSession {
  readonly sessionId: string;
  readonly agentName: string;
  readonly cwd: string;
  readonly log: SessionLog;
  readonly mapper: SessionUpdateMapper;
  /** True when nothing may be asked now (the session ended, its turn is being cancelled, or it is stuck). */
  readonly closed: boolean;
}

type RawRequest = { toolCall?: unknown; options?: unknown };
type PermissionRequestEvent = Extract<ThoughtEventBody, { kind: "permission_request" }>;
/** A request as entered: its card, and why it always asks (if it does). */
interface Entry { request: PermissionRequestEvent; reason: string | undefined }

const CANCELLED: PermissionOutcome = { outcome: "cancelled" };
const GUARDED_LABEL: Partial<Record<PermissionOption["kind"], string>> = { allow_once: "Allow once", reject_once: "Reject", reject_always: "Reject always" };
/** Numbers permission requests across all sessions (ids must never repeat while the extension runs). */
let permissionSerial = 0;
/** Agent requests seen on the wire and not yet handed over by the SDK (malformed ones never are). */
const MAX_HELD = 1000;
/** Approved diffs of protected files kept for the write that follows them. */
const MAX_APPROVED_EDITS = 20;

export class SessionPermissions {
  /** Agent requests entered from the wire, by JSON-RPC id, until their handler takes them. */
  private readonly held = new Map<string, Entry>();
  /** Agent requests refused unseen (see `refuse`), by JSON-RPC id, until their handler answers them. */
  private readonly refused = new Set<string>();
  /** Aborted to cancel every open request (turn end, cancel, session end); renewed after. */
  private abort = new AbortController();
  /** Diffs of protected files the user allowed by hand: the matching write needs no second question. */
  private readonly approvedEdits: ApprovedEdit[] = [];
  private writeSerial = 0;

  constructor(
    private readonly session: PermissionSession,
    private readonly port: PermissionPort,
    private readonly logger: Logger,
    /** Decides which requests touch files that configure tools (always asked). */
    private readonly guard?: GuardPort,
  ) {}

  /**
   * An agent's `session/request_permission`, seen in wire order: its card goes into the log here
   * (after the updates before it); it is asked when its handler takes it (`reply`), once the SDK
   * has accepted the request.
   */
  fromAgent(rpcKey: string, params: RawRequest): void {
    // An id refused before and never answered (a request the SDK rejected) is this request's now.
    this.refused.delete(rpcKey);
    if (this.held.has(rpcKey)) {
      this.logger.warn(`${this.session.agentName} reused the JSON-RPC id of an open permission request (${rpcKey}); the second request is not shown`);
      return;
    }
    if (this.held.size >= MAX_HELD) {
      // Requests the SDK refused (malformed) are never taken; an agent sending only those must not grow this.
      this.logger.warn(`${this.session.agentName} has ${MAX_HELD} permission requests not taken by their handler; ${rpcKey} is not shown`);
      return;
    }
    this.held.set(rpcKey, this.enter(params, undefined));
  }

  /** An agent's request that is not shown (its turn went past its limits): answered cancelled, unasked. */
  refuse(rpcKey: string): void {
    if (this.refused.size < MAX_HELD) this.refused.add(rpcKey);
  }

  /**
   * Asks the agent's request with this JSON-RPC id; resolves with the answer it is sent.
   * `byUser` is told first when the user (not a policy, nor a cancel) chose one of its options.
   */
  reply(rpcKey: string, byUser?: () => void): Promise<PermissionOutcome> {
    const entry = this.held.get(rpcKey);
    this.held.delete(rpcKey);
    if (!entry && this.refused.delete(rpcKey)) {
      this.logger.debug(`${this.session.agentName}'s permission request ${rpcKey} came past its turn's limits: answered cancelled, not asked`);
      return Promise.resolve(CANCELLED);
    }
    if (!entry) {
      this.logger.warn(`No permission request ${rpcKey} of ${this.session.agentName} was seen; answered cancelled`);
      return Promise.resolve(CANCELLED);
    }
    return this.ask(entry, true, byUser);
  }

  /**
   * A write to a file that configures tools: asks the user as a permission request in this
   * session (with the diff), whatever the policy — unless it is exactly a diff the user allowed
   * by hand a moment ago. Resolves true only on the user's yes.
   */
  async confirmWrite(q: ProtectedWriteQuestion): Promise<boolean> {
    const approved = this.approvedEdits.findIndex((a) => matchesApprovedEdit(a, q.path, q.current, q.content));
    if (approved >= 0) {
      this.approvedEdits.splice(approved, 1);
      this.logger.info(`Write to ${q.path} is the diff the user allowed; not asked again`);
      return true;
    }
    const toolCallId = `agent-thoughts-write-${++this.writeSerial}`;
    const outcome = await this.ask(this.enter({
      toolCall: { toolCallId, title: `Write ${q.path}`, kind: "edit", status: "pending", locations: [{ path: q.path }], content: [{ type: "diff", path: q.path, oldText: q.current, newText: q.content }] },
      options: [{ optionId: "allow", name: "Allow this write", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }],
    }, q.reason), false);
    const allowed = outcome.outcome === "selected" && outcome.optionId === "allow";
    if (allowed) this.session.log.append(...this.session.mapper.map({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" }));
    return allowed;
  }

  /** Cancels every open request (each is answered `cancelled`), and those the SDK never handed over. */
  cancelAll(): void {
    const abort = this.abort;
    this.abort = new AbortController();
    abort.abort();
    for (const entry of this.held.values()) this.record(entry, CANCELLED, "cancel");
    this.held.clear();
  }

  /** Parses and records a request (its card); the request id is our own. */
  private enter(params: RawRequest, guard: string | undefined): Entry {
    // Unique across every session: the broker, the panel and the diff title answer by request id.
    const requestId = `perm-${++permissionSerial}`;
    const events = this.session.mapper.permissionRequest(requestId, params.toolCall, params.options);
    const request = events.find((e): e is PermissionRequestEvent => e.kind === "permission_request")!;
    const reason = guard ?? this.guardReason(request.toolCallId, request.toolCall);
    if (reason) {
      request.guard = reason;
      // No "always", and labels that say what the kind does: an agent's "Reject" labelled allow_once must not approve anything.
      request.options = request.options.filter((o) => o.kind !== "allow_always").map((o) => ({ ...o, name: GUARDED_LABEL[o.kind] ?? o.name }));
    }
    this.session.log.append(...events);
    return { request, reason };
  }

  private record({ request }: Entry, outcome: PermissionOutcome, by: "user" | "policy" | "cancel"): PermissionOutcome {
    this.session.log.append({ kind: "permission_outcome", requestId: request.requestId, toolCallId: request.toolCallId, outcome, by });
    return outcome;
  }

  /** Asks through the port; resolves with the outcome recorded for it. */
  private async ask(entry: Entry, fromAgent: boolean, byUser?: () => void): Promise<PermissionOutcome> {
    const { session } = this;
    const { request, reason } = entry;
    const { requestId } = request;
    const done = (outcome: PermissionOutcome, by: "user" | "policy" | "cancel"): PermissionOutcome => this.record(entry, outcome, by);
    if (session.closed) return done(CANCELLED, "cancel");
    const signal = this.abort.signal;
    const toolKind = request.toolCall.toolKind ?? session.mapper.toolCall(request.toolCallId)?.kind;
    let answer: PermissionAnswer;
    try {
      answer = await this.port.request({
        sessionId: session.sessionId, agentName: session.agentName, requestId, toolCallId: request.toolCallId,
        title: request.title, options: request.options, toolCall: request.toolCall, signal,
        ...(toolKind ? { toolKind } : {}), ...(reason ? { guard: reason } : {}),
      });
    } catch (err) {
      this.logger.error(`Permission request ${requestId} failed: ${String(err)}`);
      answer = CANCELLED;
    }
    if (signal.aborted) return done(CANCELLED, "cancel");
    if (answer.outcome !== "selected") return done(CANCELLED, answer.by ?? "user");
    const outcome: PermissionOutcome = { outcome: "selected", optionId: answer.optionId };
    const userChose = answer.by !== "policy";
    if (userChose) byUser?.();
    if (reason && fromAgent && userChose && request.options.find((o) => o.optionId === answer.optionId)?.kind.startsWith("allow")) {
      for (const c of request.toolCall.content ?? []) if (c.type === "diff") this.approvedEdits.push({ path: c.path, oldText: c.oldText, newText: c.newText });
      this.approvedEdits.splice(0, Math.max(0, this.approvedEdits.length - MAX_APPROVED_EDITS));
    }
    return done(outcome, answer.by ?? "user");
  }

  /** Why a request must always ask: judged on what it says now and everything the agent said of its tool call before. */
  private guardReason(toolCallId: string, fields: ToolCallFields): string | undefined {
    if (!this.guard) return undefined;
    const known: readonly ToolCallFields[] = [fields, ...this.session.mapper.toolCall(toolCallId)?.seen ?? []];
    return this.guard.reasonFor(known.flatMap(pathsOf), known.flatMap((f) => textsOf(f)), this.session.cwd);
  }
}
