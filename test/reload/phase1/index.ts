// Phase 1 of the reload test: an agent edits a file; the edit is left pending review.
import { runMocha } from "../../integration/index";

export function run(): Promise<void> {
  return runMocha(__dirname, "reload phase 1");
}
