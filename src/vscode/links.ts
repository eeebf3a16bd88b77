/**
 * Opening what an agent's text points at, from the panel: a link in its markdown, a tool call's
 * location. Agent text is untrusted, so only `http(s)` links open (through VS Code's own
 * external-link confirmation), `file:` links and locations open only inside the workspace and
 * only regular files, and every other scheme (`command:`, `vscode:`, …) is inert.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { Logger } from "../acp/ports";
import { plainText } from "../core/plainText";
import { diskFile } from "./documents";
import { isNetworkPath, realpathOrParentSync } from "./guard";

/** Link schemes the panel opens; everything else is refused. */
export const OPENABLE_SCHEMES: readonly string[] = ["http", "https", "file"];

const TEST_MODE = !!process.env.AGENT_THOUGHTS_TEST_MODE;

export class AgentLinks {
  /**
   * TEST ONLY — with `record` set (honoured only when AGENT_THOUGHTS_TEST_MODE is set), an
   * external link that would open is listed in `opened` instead: opening one in the test browser
   * would take the focus from the workbench the next tests drive.
   */
  readonly testExternal: { record: boolean; opened: string[] } = { record: false, opened: [] };

  constructor(private readonly inWorkspace: (real: string) => boolean, private readonly logger: Logger) {}

  /** Opens a link from agent markdown or a resource link; returns what happened (for the log and tests). */
  async openLink(href: string): Promise<"opened" | "refused"> {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(href, true);
    } catch {
      this.logger.warn(`Refused a malformed link from the agent: ${href.slice(0, 200)}`);
      return "refused";
    }
    if (!OPENABLE_SCHEMES.includes(uri.scheme.toLowerCase())) {
      this.logger.warn(`Refused a ${uri.scheme}: link from the agent: ${href.slice(0, 200)}`);
      void vscode.window.showWarningMessage(plainText(`Agent Thoughts opens only http(s) links and files in the workspace from agent text, not ${uri.scheme.slice(0, 40)}: links.`));
      return "refused";
    }
    if (uri.scheme.toLowerCase() === "file") return this.openFile(uri.fsPath, undefined);
    // VS Code asks before opening a site that is not a trusted domain.
    this.logger.info(`Opening an external link from the agent: ${uri.toString(true).slice(0, 300)}`);
    if (TEST_MODE && this.testExternal.record) {
      this.testExternal.opened.push(uri.toString(true));
      return "opened";
    }
    return (await vscode.env.openExternal(uri)) ? "opened" : "refused";
  }

  /** Opens a file (at a 1-based line) that a tool call names, when it is a regular file in the workspace. */
  async openFile(file: string, line: number | undefined): Promise<"opened" | "refused"> {
    const real = realpathOrParentSync(path.normalize(file));
    const disk = isNetworkPath(real) ? ({ kind: "missing" } as const) : await diskFile(real);
    const problem = !this.inWorkspace(real) ? "is outside the workspace" : disk.kind === "special" ? `is ${disk.what}` : disk.kind === "missing" ? "does not exist" : undefined;
    if (problem) {
      this.logger.warn(`Refused to open ${file}${real !== file ? ` (→ ${real})` : ""} from agent text: it ${problem}`);
      void vscode.window.showWarningMessage(plainText(`Agent Thoughts did not open ${file.slice(0, 300)}: it ${problem}. Agent text opens only files in the workspace.`));
      return "refused";
    }
    if (disk.kind === "directory") {
      await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(file));
      return "opened";
    }
    const at = Math.max(0, (line ?? 1) - 1);
    await vscode.window.showTextDocument(vscode.Uri.file(file), { selection: new vscode.Range(at, 0, at, 0), preview: true });
    return "opened";
  }
}
