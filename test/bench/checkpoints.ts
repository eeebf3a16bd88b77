// Checkpoint cost on a 10,000-file workspace: the shadow repository's snapshot before a turn
// (cold, then warm with nothing changed, then after ten files changed), the diff a restore plans
// with, and reading one file back. Runs the same ShadowGit code the extension runs, in the host.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Logger } from "../../src/acp/ports";
import { ShadowGit } from "../../src/vscode/shadowGit";
import { log } from "../integration/index";
import { fmt, percentile } from "./util";

const quiet: Logger = { traceEnabled: false, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m) => log(`    warn: ${m}`), error: (m) => log(`    error: ${m}`) };

function makeWorkspace(root: string, files: number): number {
  let bytes = 0;
  const perDir = 100;
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, "src", `module${String(Math.floor(i / perDir)).padStart(3, "0")}`);
    if (i % perDir === 0) fs.mkdirSync(dir, { recursive: true });
    // Source-like text of 0.5–4 KB.
    const lines = 15 + (i % 100);
    let text = "";
    for (let l = 0; l < lines; l++) text += `export const value${l} = ${i * 31 + l}; // file ${i} line ${l}\n`;
    fs.writeFileSync(path.join(dir, `file${i}.ts`), text);
    bytes += text.length;
  }
  fs.writeFileSync(path.join(root, ".gitignore"), "node_modules/\ndist/\n");
  return bytes;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const v = await fn();
  return [performance.now() - t, v];
}

export async function checkpointCost(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "at-bench-ws-"));
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), "at-bench-storage-"));
  try {
    const files = 10_000;
    const bytes = makeWorkspace(root, files);
    const git = new ShadowGit(storage, root, quiet);
    const [cold, first] = await time(() => git.snapshot("cold"));
    const warm: number[] = [];
    let last = first;
    for (let i = 0; i < 5; i++) {
      const [ms, c] = await time(() => git.snapshot(`warm ${i}`));
      warm.push(ms);
      last = c;
    }
    const changed: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (let k = 0; k < 10; k++) fs.appendFileSync(path.join(root, "src", `module${String(k * 7).padStart(3, "0")}`, `file${k * 700 + round}.ts`), `// edit ${round}\n`);
      const [ms, c] = await time(() => git.snapshot(`changed ${round}`));
      changed.push(ms);
      last = c;
    }
    const [diffMs, diff] = await time(() => git.diff(first, last));
    const [readMs] = await time(() => git.read(first, path.join(root, "src", "module000", "file0.ts")));
    log(`  Checkpoints on a ${files.toLocaleString("en")}-file workspace (${(bytes / 1048576).toFixed(1)} MB of source):`);
    log(`    first snapshot (cold shadow index, done when a session starts): ${fmt(cold)}`);
    log(`    before a turn, nothing changed: median ${fmt(percentile([...warm].sort((x, y) => x - y), 50))} (max ${fmt(Math.max(...warm))}) over ${warm.length}`);
    log(`    before a turn, 10 files changed: median ${fmt(percentile([...changed].sort((x, y) => x - y), 50))} (max ${fmt(Math.max(...changed))}) over ${changed.length}`);
    log(`    planning a restore (diff of ${diff.length} files): ${fmt(diffMs)}; reading one file back: ${fmt(readMs)}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(storage, { recursive: true, force: true });
  }
}
