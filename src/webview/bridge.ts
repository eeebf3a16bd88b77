/**
 * The webview's side of the VS Code channel: typed `post` for the protocol's verbs and access to
 * the per-webview state store (`getState`/`setState`) that survives a reload of the page.
 */
import type { WebviewMessage } from "../shared/protocol";

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export interface Bridge {
  post(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** Acquires the API once (VS Code throws on a second call). */
export function connect(): Bridge {
  const api = acquireVsCodeApi();
  return {
    post: (message) => api.postMessage(message),
    getState: () => api.getState(),
    setState: (state) => api.setState(state),
  };
}
