// The bench's start-up phases (test/bench/startup.ts): run by test/host/runTests.mjs in a fresh
// workbench and extension host after the main bench run saved 20 hour-long sessions.
import { log } from "../../integration/index";
import { measureStartup } from "../startup";
import { api } from "../util";

export async function run(): Promise<void> {
  const a = await api();
  log("[agent-thoughts-tests] start bench (start-up)");
  await measureStartup(a);
}
