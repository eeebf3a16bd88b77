/**
 * The webview's replica of the host's view state, and the pure decision of what each host message
 * does to it. A `snapshot` replaces it; a `patch` (or `sessions`, `turns`) applies only to the version it starts from —
 * before the first snapshot it is ignored, and at any other version it is a gap that calls for a
 * fresh snapshot (`resync`); `host` facts replace the old ones.
 */
import { unpackEvent, type ThoughtEvent } from "./events";
import type { HostInfo, HostMessage } from "./protocol";
import { EMPTY_STATE, prependTurns, putSessions, reduce, type ViewState } from "./viewModel";

export interface Replica {
  state: ViewState;
  host: HostInfo;
  /** The host's version of `state`. */
  version: number;
  /** False until the first snapshot: patches before it have nothing to apply to. */
  synced: boolean;
}

/** The messages that change the replica. */
export type ReplicaMessage = Extract<HostMessage, { type: "snapshot" | "patch" | "sessions" | "turns" | "host" }>;

export type ApplyResult =
  /** The replica is the snapshot's. */
  | { outcome: "replaced"; replica: Replica }
  /** The patch's events were folded in. */
  | { outcome: "applied"; replica: Replica; events: readonly ThoughtEvent[] }
  /** Whole session views, or a session's earlier turns, were put in. */
  | { outcome: "sessions"; replica: Replica }
  /** New host facts. */
  | { outcome: "host"; replica: Replica }
  /** Nothing to do (a patch before the first snapshot); the replica is unchanged. */
  | { outcome: "ignored"; replica: Replica }
  /** A patch that does not start at our version: unchanged, and a snapshot is needed. */
  | { outcome: "resync"; replica: Replica };

const DEFAULT_HOST: HostInfo = { agents: [], defaultAgent: "the agent", thinkingDisplay: "auto" };

export const EMPTY_REPLICA: Replica = { state: EMPTY_STATE, host: DEFAULT_HOST, version: 0, synced: false };

export function apply(replica: Replica, message: ReplicaMessage): ApplyResult {
  switch (message.type) {
    case "snapshot":
      return { outcome: "replaced", replica: { state: message.state, host: message.host, version: message.version, synced: true } };
    case "host":
      return { outcome: "host", replica: { ...replica, host: message.host } };
    case "patch": {
      if (!replica.synced) return { outcome: "ignored", replica };
      if (message.from !== replica.version) return { outcome: "resync", replica };
      const events = message.events.map(unpackEvent);
      return { outcome: "applied", replica: { ...replica, state: reduce(replica.state, events), version: message.to }, events };
    }
    case "sessions":
      if (!replica.synced) return { outcome: "ignored", replica };
      if (message.from !== replica.version) return { outcome: "resync", replica };
      return { outcome: "sessions", replica: { ...replica, state: putSessions(replica.state, message.sessions, message.order), version: message.to } };
    case "turns":
      if (!replica.synced) return { outcome: "ignored", replica };
      if (message.from !== replica.version) return { outcome: "resync", replica };
      return { outcome: "sessions", replica: { ...replica, state: prependTurns(replica.state, message.sessionId, message.turns, message.done), version: message.to } };
  }
}
