/**
 * A session's side of the agent's form questions (`elicitation/create`, form mode): each is
 * normalised into a bounded form and recorded as an `elicitation_request` (the panel pins it), one
 * at a time, and waits until the user answers from the panel (`answer`, re-validated here against
 * the form) or it is cancelled (turn end, Stop, session end). The outcome is recorded once, and
 * the agent gets accept with the checked content, decline, or cancel.
 */
import type { SessionLog } from "../core/sessionLog";
import type { ThoughtEventBody } from "../shared/events";
import { boundMessage, normaliseForm, openableUrl, validateAnswer, type ElicitContent, type ElicitForm } from "../shared/elicitation";
import type { Logger } from "./ports";

/** What the questions need of their session. */
export interface ElicitationSession {
  readonly sessionId: string;
  readonly agentName: string;
  readonly log: SessionLog;
  /** True when nothing may be asked now (the session ended, its turn is being cancelled, or it is stuck). */
  readonly closed: boolean;
  /** Records something the agent caused, within its turn's output limits (see AgentSession). */
  recordFromAgent(body: ThoughtEventBody): void;
}

export type ElicitationReply = { action: "accept"; content: ElicitContent } | { action: "decline" } | { action: "cancel" };
type Action = ElicitationReply["action"];

interface Open { requestId: string; form: ElicitForm; url?: { url: string; origin: string; elicitationId: string }; settle: (reply: ElicitationReply, by: "user" | "cancel") => void }

/** Questions an agent may have waiting behind the open one; more are declined at once. */
const MAX_WAITING = 20;
/** Numbers questions across all sessions (the panel answers by request id). */
let elicitationSerial = 0;

export class SessionElicitations {
  private open: Open | undefined;
  private readonly waiting: (() => void)[] = [];
  /** Bumped by `cancelAll`: questions waiting from before it are cancelled rather than asked. */
  private generation = 0;

  constructor(private readonly session: ElicitationSession, private readonly logger: Logger) {}

  /** The id of the question on screen, if any. */
  get openRequestId(): string | undefined {
    return this.open?.requestId;
  }

  /** The page the open URL-mode question with this id would open (only once the user agrees). */
  urlOf(requestId: string): string | undefined {
    return this.open?.requestId === requestId ? this.open.url?.url : undefined;
  }

  /** `elicitation/complete`: the agent says the URL-mode question is done; it closes if still open. */
  complete(elicitationId: string): boolean {
    if (this.open?.url?.elicitationId !== elicitationId) return false;
    this.open.settle({ action: "cancel" }, "cancel");
    return true;
  }

  /**
   * An agent's question — a form, or (with `url`) a page to open — resolves with the reply it is
   * sent. A URL that is not plain http(s) is declined without showing it. `byUser` is told first
   * when the user answers it (not when it is cancelled or declined unasked).
   */
  async ask(params: { message?: unknown; requestedSchema?: unknown; toolCallId?: unknown; url?: unknown; elicitationId?: unknown }, byUser?: () => void): Promise<ElicitationReply> {
    const page = params.url !== undefined ? openableUrl(params.url) : undefined;
    if (params.url !== undefined && (!page || typeof params.elicitationId !== "string" || params.elicitationId.length > 500)) {
      this.session.recordFromAgent({ kind: "notice", severity: "warning", title: `${this.session.agentName} asked you to open a page Agent Thoughts does not open (only http and https, without a user name in it); it was declined`, description: typeof params.url === "string" ? params.url.slice(0, 300) : "" });
      return { action: "decline" };
    }
    if (this.session.closed) return { action: "cancel" };
    if (this.open) {
      if (this.waiting.length >= MAX_WAITING) {
        this.logger.warn(`${this.session.agentName} has ${MAX_WAITING} questions waiting; another one is declined`);
        return { action: "decline" };
      }
      const generation = this.generation;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (generation !== this.generation || this.session.closed) return { action: "cancel" };
    }
    const requestId = `elicit-${++elicitationSerial}`;
    const form = page ? { fields: [], problems: [] } : normaliseForm(params.requestedSchema);
    const url = page && typeof params.elicitationId === "string" ? { ...page, elicitationId: params.elicitationId } : undefined;
    const toolCallId = typeof params.toolCallId === "string" && params.toolCallId.length <= 500 ? params.toolCallId : undefined;
    return new Promise<ElicitationReply>((resolve) => {
      this.open = {
        requestId, form, ...(url ? { url } : {}),
        settle: (reply, by) => {
          if (this.open?.requestId !== requestId) return;
          this.open = undefined;
          this.session.log.append({ kind: "elicitation_outcome", requestId, action: reply.action, by });
          if (by === "user") byUser?.();
          resolve(reply);
          this.waiting.shift()?.();
        },
      };
      this.session.log.append({
        kind: "elicitation_request", requestId, message: boundMessage(params.message), fields: form.fields,
        ...(form.problems.length ? { problems: form.problems } : {}), ...(toolCallId ? { toolCallId } : {}), ...(url ? { url: url.url, origin: url.origin } : {}),
      });
    });
  }

  /**
   * The user's answer from the panel. An accept is checked against the form first; returns why
   * it was not taken (the question is not open, or the content does not fit), or undefined.
   */
  answer(requestId: string, action: Action, content?: unknown): string | undefined {
    const open = this.open;
    if (!open || open.requestId !== requestId) return `question ${requestId} is not open`;
    if (action !== "accept" || open.url) {
      open.settle(action === "accept" ? { action, content: {} } : { action }, "user");
      return undefined;
    }
    const checked = validateAnswer(open.form, content ?? {});
    if (!checked.ok) return `the answer does not fit the form: ${Object.entries(checked.problems).map(([k, v]) => `${k || "form"} ${v}`).join("; ").slice(0, 500)}`;
    open.settle({ action: "accept", content: checked.content }, "user");
    return undefined;
  }

  /** Cancels the open question and every waiting one (turn end, Stop, session end). */
  cancelAll(): void {
    this.generation++;
    this.open?.settle({ action: "cancel" }, "cancel");
    for (const wake of this.waiting.splice(0)) wake();
  }
}
