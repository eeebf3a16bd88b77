/**
 * Where the user's MCP servers come from in VS Code, and which of them an agent gets: the
 * `agentThoughts.mcpServers` setting, each workspace folder's `.vscode/mcp.json`, and the `mcp`
 * setting (user settings; VS Code 1.100 keeps the user's servers there). Servers from the
 * workspace (a file the repository ships) are
 * workspace-supplied code: forwarded only in a trusted workspace, and only once the user said yes
 * to that exact server (remembered per workspace). `agentThoughts.mcp.forward` turns it all off.
 */
import { createHash } from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { parse, type ParseError } from "jsonc-parser";
import type { Logger, McpPort } from "../acp/ports";
import {
  confirmationKey, describeServer, forAgent, gate, MCP_LIMITS, readMcpConfig,
  type McpCandidate, type McpCapabilitiesLike, type McpInputNeed, type McpServerEntry, type McpSkipped, type SubstitutionContext,
} from "../core/mcpServers";
import type { Modal } from "./modal";

const ANSWERS_KEY = "agentThoughts.mcp.confirmed";
const FORWARD = "Forward";
const NEVER = "Don't Forward";

export class McpForwarding implements McpPort {
  /** One question per server at a time, however many sessions start at once. */
  private readonly asking = new Map<string, Promise<boolean>>();
  /** Skip reasons already told (each is told once per window). */
  private readonly told = new Set<string>();

  /** Values typed for `${input:…}` (origin + id → value), kept in VS Code's secret storage too; and the ones the user would not give. */
  private readonly inputValues = new Map<string, string>();
  private readonly refusedInputs = new Set<string>();
  /** One round of questions at a time, however many sessions start at once. */
  private askingInputs: Promise<unknown> = Promise.resolve();

  constructor(private readonly state: vscode.Memento, private readonly modal: Modal, private readonly logger: Logger, private readonly secrets?: vscode.SecretStorage) {}

  async serversFor(agentName: string, caps: McpCapabilitiesLike | undefined): Promise<McpServerEntry[]> {
    if (vscode.workspace.getConfiguration("agentThoughts.mcp").get<boolean>("forward", true) === false) return [];
    let { candidates, skipped, needs } = await this.candidates();
    // `${input:…}` of your own servers (user settings): asked once, kept in secret storage. A
    // workspace file's server is never given a value you type: a repository could ask for a token
    // and send it to its own URL.
    for (let pass = 0; pass < 8 && needs.some((n) => n.source !== "workspace"); pass++) {
      const round = this.askingInputs.then(() => this.askInputs(needs.filter((n) => n.source !== "workspace")));
      this.askingInputs = round.catch(() => undefined);
      if (!(await round)) break;
      ({ candidates, skipped, needs } = await this.candidates());
    }
    for (const s of skipped) if (s.reason.startsWith("needs a value you type in") && needs.some((n) => n.source === "workspace" && n.server === s.name && n.origin === s.origin)) s.reason += ", which is only asked for servers in your user settings";
    const picked = forAgent(candidates, caps);
    const allowed: McpServerEntry[] = [];
    for (const c of picked.chosen) {
      const verdict = gate(c, vscode.workspace.isTrusted);
      if (verdict === "untrusted") {
        skipped.push({ name: c.server.name, origin: c.origin, reason: "it comes from the workspace, which is not trusted" });
      } else if (verdict === "forward" || (await this.confirmed(c))) {
        allowed.push(c.server);
      } else {
        skipped.push({ name: c.server.name, origin: c.origin, reason: "you did not agree to forward it" });
      }
    }
    this.tell(agentName, [...skipped, ...picked.skipped]);
    return allowed;
  }

  /** Asks for the values not known yet; true when any became known. */
  private async askInputs(needs: readonly McpInputNeed[]): Promise<boolean> {
    let any = false;
    for (const n of needs) {
      const key = `${n.origin}\0${n.id}`;
      if (this.inputValues.has(key) || this.refusedInputs.has(key)) {
        any ||= this.inputValues.has(key);
        continue;
      }
      const secretKey = `agentThoughts.mcp.input.${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
      const stored = await this.secrets?.get(secretKey);
      if (stored !== undefined) {
        this.inputValues.set(key, stored);
        any = true;
        continue;
      }
      const value = await vscode.window.showInputBox({
        title: `MCP server "${n.server}": ${n.description}`,
        prompt: `${n.origin} asks for \${input:${n.id}}. Kept in VS Code's secret storage; asked once.`,
        password: n.password,
        ignoreFocusOut: true,
      });
      if (value === undefined) {
        this.refusedInputs.add(key);
        continue;
      }
      this.inputValues.set(key, value);
      await this.secrets?.store(secretKey, value);
      any = true;
    }
    return any;
  }

  /** What was typed for one configuration's `${input:…}`. */
  private inputsOf(origin: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of this.inputValues) {
      const at = key.lastIndexOf("\0");
      if (key.slice(0, at) === origin) out[key.slice(at + 1)] = value;
    }
    return out;
  }

  /** Every configured server, in precedence order (the setting, then each folder's mcp.json, then the user's `mcp`). */
  private async candidates(): Promise<{ candidates: McpCandidate[]; skipped: McpSkipped[]; needs: McpInputNeed[] }> {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file");
    const base: Omit<SubstitutionContext, "workspaceFolder"> = { userHome: os.homedir(), env: process.env, pathSeparator: path.sep };
    const first = folders[0]?.uri.fsPath;
    const results: ReturnType<typeof readMcpConfig>[] = [];
    const own = vscode.workspace.getConfiguration("agentThoughts").inspect<unknown>("mcpServers");
    // Machine-scoped: only the user's own settings count (a workspace value is ignored, see settingsGuard).
    results.push(readMcpConfig(own?.globalValue, "setting", "agentThoughts.mcpServers", { ...base, workspaceFolder: first, inputs: this.inputsOf("agentThoughts.mcpServers") }, true));
    for (const folder of folders) {
      const file = vscode.Uri.joinPath(folder.uri, ".vscode", "mcp.json");
      const raw = await this.readJson(file);
      if (raw !== undefined) results.push(readMcpConfig(raw, "workspace", file.fsPath, { ...base, workspaceFolder: folder.uri.fsPath }));
    }
    // Only the user's value: VS Code 1.100 mirrors each folder's .vscode/mcp.json into the
    // workspace values of `mcp` (read above, from the file, with its folder).
    const mcp = vscode.workspace.getConfiguration().inspect<unknown>("mcp");
    results.push(readMcpConfig(mcp?.globalValue, "user", "user settings (mcp)", { ...base, workspaceFolder: first, inputs: this.inputsOf("user settings (mcp)") }));
    return { candidates: results.flatMap((r) => r.servers), skipped: results.flatMap((r) => r.skipped), needs: results.flatMap((r) => r.needs) };
  }

  private async readJson(uri: vscode.Uri): Promise<unknown> {
    let bytes: Uint8Array;
    try {
      bytes = await vscode.workspace.fs.readFile(uri);
    } catch {
      return undefined;
    }
    if (bytes.byteLength > MCP_LIMITS.fileBytes) {
      this.logger.warn(`${uri.fsPath} is larger than ${MCP_LIMITS.fileBytes} bytes: its MCP servers are not forwarded`);
      return undefined;
    }
    const errors: ParseError[] = [];
    const value: unknown = parse(new TextDecoder().decode(bytes), errors, { allowTrailingComma: true });
    if (errors.length > 0) this.logger.warn(`${uri.fsPath} has JSON errors; its MCP servers are read as far as they parse`);
    return value;
  }

  /** The user's yes to a workspace server: asked the first time, remembered per workspace (a dismissed dialog asks again next time). */
  private confirmed(c: McpCandidate): Promise<boolean> {
    const key = confirmationKey(c);
    const answers = this.state.get<Record<string, boolean>>(ANSWERS_KEY) ?? {};
    const known = answers[key];
    if (typeof known === "boolean") return Promise.resolve(known);
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.ask(c, key).finally(() => this.asking.delete(key));
      this.asking.set(key, pending);
    }
    return pending;
  }

  private async ask(c: McpCandidate, key: string): Promise<boolean> {
    const s = c.server;
    const what = "command" in s ? `runs: ${describeServer(s)}` : `connects to ${describeServer(s)}${s.headers.length ? ` (sending ${s.headers.map((h) => h.name).join(", ")})` : ""}`;
    const answer = await this.modal.ask(
      `Give your agents the MCP server "${s.name}" from this workspace?`,
      `${c.origin} configures it. It ${what}\n\nThe agent will start or use it on your behalf. Forward it only if you trust this workspace's configuration.`,
      FORWARD,
      NEVER,
    );
    if (answer === undefined) return false;
    const answers = { ...(this.state.get<Record<string, boolean>>(ANSWERS_KEY) ?? {}), [key]: answer === FORWARD };
    await this.state.update(ANSWERS_KEY, answers);
    this.logger.info(`MCP server "${s.name}" from ${c.origin}: ${answer === FORWARD ? "forwarded" : "not forwarded"} from now on (your answer)`);
    return answer === FORWARD;
  }

  /** Logs every skipped server; a notification once per window for each reason not seen before. */
  private tell(agentName: string, skipped: readonly McpSkipped[]): void {
    const fresh: McpSkipped[] = [];
    for (const s of skipped) {
      this.logger.info(`MCP server "${s.name}" (${s.origin}) not given to "${agentName}": ${s.reason}`);
      const id = `${s.origin}\0${s.name}\0${s.reason}`;
      // Told in a notification: servers you configured that no agent can get as they are (not the ones the agent or you left out).
      if (this.told.has(id) || s.reason.startsWith("the agent does not declare") || s.reason === "you did not agree to forward it" || s.reason === "a server of the same name comes first") continue;
      this.told.add(id);
      fresh.push(s);
    }
    if (fresh.length === 0) return;
    const first = fresh[0]!;
    const more = fresh.length > 1 ? ` (and ${fresh.length - 1} more; see Agent Thoughts: Show Log)` : "";
    void vscode.window.showWarningMessage(`Agent Thoughts did not give the MCP server "${first.name}" to the agent: ${first.reason}.${more}`);
  }
}
