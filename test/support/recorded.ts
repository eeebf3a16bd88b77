// What a scripted agent received: its `recordFile` (test/fixtures/agents/scenario.ts), one JSON line
// `{ method, params, at }` per request or notification (`at`: when it arrived, epoch ms), in order;
// none when it wrote nothing yet.
import { existsSync, readFileSync } from "node:fs";

export function recorded<T extends { method: string } = { method: string; params: Record<string, unknown> }>(file: string): T[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as T) : [];
}
