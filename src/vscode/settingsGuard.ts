/**
 * Settings that decide what runs or what is allowed without asking are `machine`-scoped in
 * package.json, so VS Code applies them only from the user's own settings: a repository's
 * `.vscode/settings.json` (or an agent that writes it) cannot pick the agent command, loosen the
 * permission policy, move the trace file or shrink the protected files. VS Code ignores such
 * workspace values silently; this says so, once per workspace and content, so nobody wonders
 * why their workspace setting does nothing.
 */
import * as vscode from "vscode";
import { parse, type ParseError } from "jsonc-parser";
import type { Logger } from "../acp/ports";
import { plainText } from "../core/plainText";

/** The settings only the user's own settings can set (keep in step with `"scope": "machine"` in package.json). */
export const USER_ONLY_SETTINGS = [
  "agentThoughts.agents",
  "agentThoughts.defaultAgent",
  "agentThoughts.permissions.default",
  "agentThoughts.trace.file",
  "agentThoughts.protectedFiles",
  "agentThoughts.history.maxMegabytes",
  "agentThoughts.mcpServers",
  "agentThoughts.mcp.forward",
] as const;

const NOTICED_KEY = "agentThoughts.settingsGuard.noticed";

/** The user-only settings an object of settings (a settings.json, or a workspace file's `settings`) tries to set. */
export function userOnlyKeysIn(settings: unknown): string[] {
  if (typeof settings !== "object" || settings === null) return [];
  const obj = settings as Record<string, unknown>;
  const nested = typeof obj.agentThoughts === "object" && obj.agentThoughts !== null ? (obj.agentThoughts as Record<string, unknown>) : {};
  return USER_ONLY_SETTINGS.filter((key) => {
    if (key in obj) return true;
    // `"agentThoughts": { "permissions.default": … }` or `{ "permissions": { "default": … } }`.
    const rest = key.slice("agentThoughts.".length);
    if (rest in nested) return true;
    const [head, tail] = rest.split(".");
    const inner = head !== undefined ? nested[head] : undefined;
    return tail !== undefined && typeof inner === "object" && inner !== null && tail in (inner as Record<string, unknown>);
  });
}

export class SettingsGuard implements vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The last notice shown (tests read it). */
  lastNotice: string | undefined;

  constructor(private readonly state: vscode.Memento, private readonly logger: Logger) {
    const watcher = vscode.workspace.createFileSystemWatcher("**/{.vscode/settings.json,*.code-workspace}");
    this.subs.push(
      watcher,
      watcher.onDidChange(() => this.schedule()),
      watcher.onDidCreate(() => this.schedule()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.schedule()),
    );
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = undefined; void this.check(); }, 200);
  }

  /** Files whose settings apply to this window: each folder's `.vscode/settings.json` and the workspace file. */
  private sources(): vscode.Uri[] {
    const out = (vscode.workspace.workspaceFolders ?? []).map((f) => vscode.Uri.joinPath(f.uri, ".vscode", "settings.json"));
    const file = vscode.workspace.workspaceFile;
    if (file && file.scheme === "file") out.push(file);
    return out;
  }

  async check(): Promise<string[]> {
    const found = new Map<string, string[]>();
    for (const uri of this.sources()) {
      let text: string;
      try {
        text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      } catch {
        continue;
      }
      const errors: ParseError[] = [];
      const parsed: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
      const settings = uri.path.endsWith(".code-workspace") && typeof parsed === "object" && parsed !== null ? (parsed as { settings?: unknown }).settings : parsed;
      for (const key of userOnlyKeysIn(settings)) found.set(key, [...(found.get(key) ?? []), vscode.workspace.asRelativePath(uri)]);
    }
    const keys = [...found.keys()];
    if (keys.length === 0) return keys;
    const fingerprint = [...found].map(([k, files]) => `${k}@${files.join(",")}`).sort().join(";");
    const noticed = this.state.get<string[]>(NOTICED_KEY, []);
    this.logger.warn(`Ignored workspace settings that only user settings may set: ${fingerprint}`);
    if (noticed.includes(fingerprint)) return keys;
    await this.state.update(NOTICED_KEY, [...noticed, fingerprint].slice(-20));
    const files = [...new Set([...found.values()].flat())];
    this.lastNotice = `This workspace's settings (${files.join(", ")}) try to set ${keys.join(", ")}. Agent Thoughts ignores them: settings that decide what runs or what is allowed without asking apply only from your user settings.`;
    void vscode.window.showWarningMessage(plainText(this.lastNotice), "Open User Settings").then((choice) => {
      if (choice) void vscode.commands.executeCommand("workbench.action.openSettings", "@ext:agent-thoughts.agent-thoughts");
    });
    return keys;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
  }
}
