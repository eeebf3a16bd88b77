/** Starts the scripted ACP agent as a real child process and connects our client to it over stdio. */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { AgentConnection, type ConnectOptions } from "../../src/acp/agentConnection";
import { NodeTerminals } from "../../src/acp/nodeTerminals";
import type { AgentSpec, ClientPorts, FsPort, Logger, PermissionAnswer, PermissionPort, PermissionRequest } from "../../src/acp/ports";
import { SCENARIO_ENV, type Scenario } from "../fixtures/agents/scenario";

export const AGENT_JS = path.resolve(__dirname, "../../out/fixtures/agents/scriptedAgent.js");

export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  traceEnabled = false;
  trace(m: string): void { this.lines.push(`trace ${m}`); }
  debug(m: string): void { this.lines.push(`debug ${m}`); }
  info(m: string): void { this.lines.push(`info ${m}`); }
  warn(m: string): void { this.lines.push(`warn ${m}`); }
  error(m: string): void { this.lines.push(`error ${m}`); }
}

/** Answers permission requests with a scripted decision and records them. */
export class ScriptedPermissions implements PermissionPort {
  readonly asked: PermissionRequest[] = [];
  constructor(public decide: (req: PermissionRequest) => Promise<PermissionAnswer> | PermissionAnswer = (req) => ({ outcome: "selected", optionId: req.options[0]!.optionId })) {}
  request(req: PermissionRequest): Promise<PermissionAnswer> {
    this.asked.push(req);
    return Promise.resolve(this.decide(req));
  }
}

/** Plain-disk fs port (the VS Code one is tested in the extension host). */
export class DiskFs implements FsPort {
  async readTextFile(req: { path: string }): Promise<string> {
    try { return await fs.readFile(req.path, "utf8"); } catch { return ""; }
  }
  async writeTextFile(req: { path: string; content: string }): Promise<void> {
    await fs.mkdir(path.dirname(req.path), { recursive: true });
    await fs.writeFile(req.path, req.content);
  }
}

export interface Harness {
  dir: string;
  logger: MemoryLogger;
  permissions: ScriptedPermissions;
  terminals: NodeTerminals;
  ports: ClientPorts;
  spec: AgentSpec;
  start(timeoutMs?: number, options?: Partial<ConnectOptions>): Promise<AgentConnection>;
  cleanup(): Promise<void>;
}

export async function harness(scenario: Scenario, extraEnv: Record<string, string> = {}): Promise<Harness> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "at-proto-"));
  const logger = new MemoryLogger();
  const permissions = new ScriptedPermissions();
  const terminals = new NodeTerminals();
  const ports: ClientPorts = { fs: new DiskFs(), permission: permissions, terminal: terminals, logger };
  const spec: AgentSpec = { name: "Scripted", command: process.execPath, args: [AGENT_JS], env: { [SCENARIO_ENV]: JSON.stringify(scenario), ...extraEnv }, cwd: dir };
  const connections: AgentConnection[] = [];
  return {
    dir, logger, permissions, terminals, ports, spec,
    async start(timeoutMs = 10_000, options = {}) {
      const c = await AgentConnection.start(spec, ports, { initializeTimeoutMs: timeoutMs, clientName: "agent-thoughts-test", clientVersion: "0.0.0", ...options });
      connections.push(c);
      return c;
    },
    async cleanup() {
      for (const c of connections) c.dispose();
      terminals.dispose();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
