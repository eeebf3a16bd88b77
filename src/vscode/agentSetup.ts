/**
 * Add Agent… (in Select Agent, and in the palette): a preset for a well-known ACP agent, or a
 * command of the user's own, written to the user's settings — never a workspace's, whose files an
 * agent can write — and then selected. Which presets are installed is looked up without blocking
 * while the list already shows; a missing one says how to install it (copy the command, open the
 * docs: nothing is ever run for the user) and can be added anyway. The presets, the rows' words,
 * the merging and the checks of a typed command are in core/agentPresets.ts.
 */
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import { findCommand } from "../acp/spawn";
import {
  AGENT_PRESETS, agentNames, checkAgentName, checkCommand, commandLine, describeEntry, detect, installSteps, mergeAgent, parseArgs, presetEntry, presetRow, replaceAgent, unusedName,
  type AgentPreset, type AgentSetting, type Detection,
} from "../core/agentPresets";
import { plainText } from "../core/plainText";
import { expand, workspaceCwd, type AgentRegistry } from "./agents";

type PresetItem = vscode.QuickPickItem & { preset?: AgentPreset; custom?: true };
type PresetChoice = { preset: AgentPreset; detection: Detection } | "custom";
type InstallItem = vscode.QuickPickItem & { act: "copy" | "docs" | "add"; text?: string };
type ClashItem = vscode.QuickPickItem & { answer: "replace" | "rename" | "keep" };

const ICONS: Record<Detection["state"], string> = { checking: "$(loading~spin)", found: "$(pass)", missing: "$(circle-slash)" };

export class AgentSetup {
  constructor(private readonly registry: AgentRegistry, private readonly logger: Logger) {}

  /** Runs Add Agent…; resolves the name written and selected, or undefined when the user gave up. */
  async run(): Promise<string | undefined> {
    const choice = await this.pickPreset();
    if (!choice) return undefined;
    if (choice === "custom") {
      const entry = await this.askCustom();
      return entry ? this.save(entry) : undefined;
    }
    const { preset, detection } = choice;
    if (detection.state === "found") return this.save(presetEntry(preset, detection.launch));
    return (await this.offerInstall(preset)) ? this.save(presetEntry(preset)) : undefined;
  }

  /** The user's own `agentThoughts.agents`, as their settings hold it. */
  private userAgents(): unknown {
    return vscode.workspace.getConfiguration("agentThoughts").inspect<unknown>("agents")?.globalValue;
  }

  /** The presets (found, missing, or still looked for — the list shows at once) and Custom command…. */
  private pickPreset(): Promise<PresetChoice | undefined> {
    const cwd = workspaceCwd();
    const env = process.env;
    const detections = new Map<string, Detection>(AGENT_PRESETS.map((p) => [p.id, { state: "checking" }]));
    const lookups = new Map(AGENT_PRESETS.map((p) => [p.id, detect(p, (command) => findCommand(command, cwd, env)).catch((err: unknown): Detection => {
      this.logger.warn(`Add Agent: could not look for ${p.title}: ${String(err)}`);
      return { state: "missing" };
    })]));
    const added = new Set(agentNames(this.userAgents()));
    const qp = vscode.window.createQuickPick<PresetItem>();
    qp.title = "Add an ACP agent to your user settings";
    qp.placeholder = "Pick an agent (found ones are on your PATH), or enter a command of your own";
    qp.matchOnDescription = true;
    qp.keepScrollPosition = true;
    qp.busy = true;
    const items = (): PresetItem[] => [
      ...AGENT_PRESETS.map((preset): PresetItem => {
        const detection = detections.get(preset.id) ?? { state: "checking" };
        const row = presetRow(preset, detection, { platform: process.platform, cwd, added: added.has(preset.name) });
        return { label: `${ICONS[detection.state]} ${row.label}`, description: plainText(row.description), detail: plainText(row.detail), preset };
      }),
      { label: "", kind: vscode.QuickPickItemKind.Separator },
      { label: "$(terminal) Custom command…", detail: "Any ACP agent: its name, the program and its arguments", custom: true },
    ];
    // New rows must not move the user's place in the list (Enter would pick another agent).
    const render = (): void => {
      const active = qp.activeItems[0];
      qp.items = items();
      const same = active && qp.items.find((i) => (active.preset ? i.preset === active.preset : i.custom && active.custom));
      if (same) qp.activeItems = [same];
    };
    render();
    return new Promise((resolve) => {
      let accepted = false;
      let closed = false;
      let left = lookups.size;
      for (const [id, lookup] of lookups) {
        void lookup.then((d) => {
          detections.set(id, d);
          if (closed) return;
          if (--left === 0) qp.busy = false;
          render();
        });
      }
      const subs = [
        qp.onDidAccept(() => {
          const item = qp.selectedItems[0] ?? qp.activeItems[0];
          if (!item || (!item.preset && !item.custom)) return;
          accepted = true;
          qp.hide();
          const preset = item.preset;
          if (preset) void lookups.get(preset.id)?.then((detection) => resolve({ preset, detection }));
          else resolve("custom");
        }),
        qp.onDidHide(() => {
          closed = true;
          for (const s of subs) s.dispose();
          qp.dispose();
          if (!accepted) resolve(undefined);
        }),
      ];
      qp.show();
    });
  }

  /**
   * A preset whose command is not on PATH: how to install it, as text to copy (never run), its
   * docs, or add it anyway. Copy and Open keep the list open; true when the user adds it anyway.
   */
  private offerInstall(preset: AgentPreset): Promise<boolean> {
    const first = preset.launches[0] ?? { command: preset.id, args: [] };
    const qp = vscode.window.createQuickPick<InstallItem>();
    qp.title = `${preset.title} is not installed`;
    qp.placeholder = `No ${first.command} on your PATH: install it in a terminal, or add ${preset.name} anyway`;
    qp.ignoreFocusOut = true;
    qp.items = [
      ...installSteps(preset, process.platform).map((s): InstallItem => ({ label: "$(copy) Copy install command", description: s.command, act: "copy", text: s.command })),
      { label: "$(link-external) Open docs", description: preset.docs, act: "docs" },
      { label: `$(add) Add ${preset.name} anyway`, description: `saves ${commandLine(first.command, first.args)}`, detail: `Needs ${preset.needs}. Restart VS Code if the install adds a folder to PATH.`, act: "add" },
    ];
    return new Promise((resolve) => {
      let added = false;
      const subs = [
        qp.onDidAccept(() => {
          const item = qp.selectedItems[0] ?? qp.activeItems[0];
          switch (item?.act) {
            case "copy":
              if (item.text) {
                const text = item.text;
                void vscode.env.clipboard.writeText(text).then(() => { qp.title = `${preset.title} is not installed · copied “${text}”: run it in a terminal`; });
              }
              return;
            case "docs":
              void vscode.env.openExternal(vscode.Uri.parse(preset.docs));
              return;
            case "add":
              added = true;
              qp.hide();
              return;
            case undefined:
              return;
          }
        }),
        qp.onDidHide(() => {
          for (const s of subs) s.dispose();
          qp.dispose();
          resolve(added);
        }),
      ];
      qp.show();
    });
  }

  /** Custom command…: name, program, arguments, each checked as it is typed. */
  private async askCustom(): Promise<AgentSetting | undefined> {
    const cwd = workspaceCwd();
    const taken = new Set(agentNames(this.userAgents()));
    const name = (await vscode.window.showInputBox({
      title: "Custom agent (1/3): its name",
      prompt: "The name Select Agent shows",
      placeHolder: "e.g. My Agent",
      ignoreFocusOut: true,
      validateInput: (v) => checkAgentName(v) ?? (taken.has(v.trim()) ? { message: `You already have an agent named ${plainText(v.trim())}: you will be asked before it is replaced.`, severity: vscode.InputBoxValidationSeverity.Warning } : undefined),
    }))?.trim();
    if (!name) return undefined;
    const command = (await vscode.window.showInputBox({
      title: `Custom agent (2/3): the program ${name} runs`,
      prompt: "A name on your PATH or a full path (~ and ${workspaceFolder} are expanded)",
      placeHolder: "e.g. gemini",
      ignoreFocusOut: true,
      validateInput: async (v) => {
        const problem = checkCommand(v);
        if (problem) return problem;
        const file = await findCommand(expand(v.trim()), cwd, process.env);
        return file
          ? { message: plainText(`Found at ${file}`), severity: vscode.InputBoxValidationSeverity.Info }
          : { message: `Not on your PATH now; it is looked for again each time ${plainText(name)} starts.`, severity: vscode.InputBoxValidationSeverity.Warning };
      },
    }))?.trim();
    if (!command) return undefined;
    const line = await vscode.window.showInputBox({
      title: `Custom agent (3/3): the arguments of ${command}`,
      prompt: "Separated by spaces; quote an argument that has spaces. No shell runs them.",
      placeHolder: "e.g. --acp (empty for none)",
      ignoreFocusOut: true,
      validateInput: (v) => { const r = parseArgs(v); return "error" in r ? r.error : undefined; },
    });
    if (line === undefined) return undefined;
    const parsed = parseArgs(line);
    if ("error" in parsed) return undefined;
    return parsed.args.length ? { name, command, args: parsed.args } : { name, command };
  }

  /**
   * Writes `entry` to the user's settings (asking first when another entry has its name) and
   * selects it; resolves the name selected, or undefined when nothing was.
   */
  private async save(entry: AgentSetting): Promise<string | undefined> {
    const config = vscode.workspace.getConfiguration("agentThoughts");
    const current = this.userAgents();
    const write = async (agents: unknown[]): Promise<void> => {
      await config.update("agents", agents, vscode.ConfigurationTarget.Global);
    };
    let name = entry.name;
    let wrote = false;
    try {
      const merge = mergeAgent(current, entry);
      switch (merge.kind) {
        case "add":
          await write(merge.agents);
          wrote = true;
          break;
        case "same":
          break;
        case "clash": {
          const free = unusedName(current, entry.name);
          const answer = await this.askReplace(entry, merge.existing, free);
          if (!answer) return undefined;
          if (answer === "replace") {
            await write(replaceAgent(current, entry));
            wrote = true;
          } else if (answer === "rename") {
            const renamed = mergeAgent(current, { ...entry, name: free });
            if (renamed.kind !== "add") return undefined;
            await write(renamed.agents);
            name = free;
            wrote = true;
          }
          break;
        }
      }
      await this.registry.select(name);
    } catch (err) {
      // e.g. a user settings.json with errors, which VS Code refuses to write.
      this.logger.error(`Add Agent: could not write the user settings: ${String(err)}`);
      void vscode.window.showErrorMessage(plainText(`Could not add ${name} to your user settings: ${err instanceof Error ? err.message : String(err)}`), "Open User Settings").then((choice) => {
        if (choice) void vscode.commands.executeCommand("workbench.action.openSettingsJson");
      });
      return undefined;
    }
    this.logger.info(`Add Agent: ${wrote ? "added" : "kept"} ${name} (${describeEntry({ ...entry, name })}) in the user settings and selected it`);
    void vscode.window.showInformationMessage(
      plainText(wrote ? `${name} is in your user settings (agentThoughts.agents) and selected.` : `${name} is selected (it was already in your user settings).`),
      "Open Settings",
    ).then((choice) => {
      if (choice) void vscode.commands.executeCommand("workbench.action.openSettings", "agentThoughts.agents");
    });
    return name;
  }

  /** Another entry has the new one's name: replace it, add the new one under `free`, or keep the old one. */
  private async askReplace(entry: AgentSetting, existing: unknown, free: string): Promise<ClashItem["answer"] | undefined> {
    const usable = this.registry.names().includes(entry.name);
    const items: ClashItem[] = [
      { label: "$(replace) Replace it", detail: plainText(`Yours: ${describeEntry(existing)} — new: ${describeEntry(entry)}`), answer: "replace" },
      { label: `$(add) Add the new one as ${plainText(free)}`, detail: plainText(describeEntry(entry)), answer: "rename" },
      ...(usable ? [{ label: "$(check) Keep yours and select it", detail: plainText(describeEntry(existing)), answer: "keep" as const }] : []),
    ];
    const picked = await vscode.window.showQuickPick(items, { title: `You already have an agent named ${plainText(entry.name)}`, placeHolder: "Replace it?", ignoreFocusOut: true });
    return picked?.answer;
  }
}

export function registerAgentSetup(registry: AgentRegistry, logger: Logger): vscode.Disposable[] {
  const setup = new AgentSetup(registry, logger);
  return [vscode.commands.registerCommand("agentThoughts.addAgent", () => setup.run())];
}
