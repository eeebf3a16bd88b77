// Phase 2 of the reload test: after the reload the edit is still pending, and undo restores the original.
import { runMocha } from "../../integration/index";

export function run(): Promise<void> {
  return runMocha(__dirname, "reload phase 2");
}
