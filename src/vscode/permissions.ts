/**
 * Permission requests answered through a quick pick (until the panel shows them inline), with the
 * agent's own options; the pick closes by itself when the turn is cancelled.
 */
import * as vscode from "vscode";
import type { PermissionPort, PermissionRequest } from "../acp/ports";
import type { PermissionOutcome } from "../core/events";

const ICON: Record<string, string> = { allow_once: "$(check)", allow_always: "$(check-all)", reject_once: "$(close)", reject_always: "$(circle-slash)" };

export class QuickPickPermissions implements PermissionPort {
  async request(req: PermissionRequest): Promise<PermissionOutcome> {
    if (req.signal.aborted) return { outcome: "cancelled" };
    const cts = new vscode.CancellationTokenSource();
    const onAbort = (): void => cts.cancel();
    req.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const items = req.options.map((o) => ({ label: `${ICON[o.kind] ?? ""} ${o.name}`.trim(), description: o.kind.replace("_", " "), optionId: o.optionId }));
      const picked = await vscode.window.showQuickPick(items, {
        title: `${req.agentName} asks permission: ${req.title}`,
        placeHolder: "Choose how to answer the agent (Esc cancels the request)",
        ignoreFocusOut: true,
      }, cts.token);
      return picked ? { outcome: "selected", optionId: picked.optionId } : { outcome: "cancelled" };
    } finally {
      req.signal.removeEventListener("abort", onAbort);
      cts.dispose();
    }
  }
}
