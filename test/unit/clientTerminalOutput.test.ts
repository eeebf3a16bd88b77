/**
 * What a terminal Agent Thoughts runs for an agent prints becomes events of the tool call that
 * shows it (the card's preview folds them like output an agent streams itself): reported once the
 * call shows the terminal, gathered into a few reports a second, bounded under a flood, with the exit.
 */
import * as assert from "node:assert/strict";
import { ClientTerminalOutput, EVENT_CHARS, FLUSH_MS } from "../../src/core/clientTerminalOutput";
import { SessionLog } from "../../src/core/sessionLog";
import type { ThoughtEventBody } from "../../src/shared/events";
import { EMPTY_STATE, findToolEntry, reduce } from "../../src/shared/viewModel";
import { sleep, until } from "../support/until";

type Update = Extract<ThoughtEventBody, { kind: "tool_update" }>;
const shows = (toolCallId: string, terminalId: string): ThoughtEventBody => ({ kind: "tool_update", toolCallId, content: [{ type: "terminal", terminalId }] });

describe("output of terminals run for the agent, as tool call events", () => {
  it("what a terminal printed before a tool call showed it is reported right after that update; its exit with the last output", () => {
    const emitted: ThoughtEventBody[] = [];
    const feed = new ClientTerminalOutput((b) => emitted.push(b));
    try {
      feed.created("term-1");
      feed.output("term-1", "hello ");
      feed.output("term-1", "world\n");
      assert.deepEqual(feed.link([{ kind: "tool_update", toolCallId: "run", title: "Run it" }]), [], "no terminal shown yet");
      assert.deepEqual(feed.link([shows("run", "term-1")]), [{ kind: "tool_update", toolCallId: "run", terminal: { terminalId: "term-1", client: true, output: "hello world\n" } }]);
      assert.deepEqual(feed.link([shows("run", "term-1")]), [], "shown again: nothing new to say");
      feed.output("term-1", "bye\n");
      feed.exited("term-1", { exitCode: 3, signal: null });
      assert.deepEqual(emitted, [{ kind: "tool_update", toolCallId: "run", terminal: { terminalId: "term-1", client: true, output: "bye\n", exit: { exitCode: 3, signal: null } } }]);
      feed.output("term-1", "late\n");
      assert.deepEqual(feed.link([shows("other", "term-1")]), [], "an ended terminal is forgotten once reported");
      // A command that ended before any update showed it: reported, exit and all, when one does.
      feed.created("term-2");
      feed.output("term-2", "quick\n");
      feed.exited("term-2", { exitCode: 0, signal: null });
      assert.deepEqual(feed.link([{ kind: "tool_start", toolCallId: "q", announced: true, title: "q", content: [{ type: "terminal", terminalId: "term-2" }] }]),
        [{ kind: "tool_update", toolCallId: "q", terminal: { terminalId: "term-2", client: true, output: "quick\n", exit: { exitCode: 0, signal: null } } }]);
      // Terminals this session did not create are not its to report.
      assert.deepEqual(feed.link([shows("x", "term-9")]), []);
      feed.output("term-9", "nope");
      assert.equal(emitted.length, 1);
    } finally {
      feed.dispose();
    }
  });

  it("output while it runs comes in a few reports, not one per chunk; the view model folds them into the card's output", async () => {
    const emitted: ThoughtEventBody[] = [];
    const feed = new ClientTerminalOutput((b) => emitted.push(b));
    try {
      feed.created("t");
      feed.link([shows("run", "t")]);
      const started = Date.now();
      let all = "";
      for (let i = 0; Date.now() - started < 3 * FLUSH_MS; i++) {
        all += `line ${i}\n`;
        feed.output("t", `line ${i}\n`);
        await sleep(2); // pacing: a chunk every few milliseconds
      }
      await until(() => emitted.length > 0 && (emitted.at(-1) as Update).terminal?.output?.endsWith(all.slice(-12)), "the last chunk reported");
      const elapsed = Date.now() - started;
      assert.ok(emitted.length <= Math.ceil(elapsed / FLUSH_MS) + 1, `${emitted.length} reports in ${elapsed} ms`);
      assert.equal(emitted.map((b) => (b as Update).terminal?.output).join(""), all, "everything, in order");
      const log = new SessionLog("s");
      log.append({ kind: "turn_start", turnId: 1, prompt: [] }, { kind: "tool_start", toolCallId: "run", announced: true, title: "Run" }, ...emitted);
      assert.equal(findToolEntry(reduce(EMPTY_STATE, log.all()), "s", "run")?.terminalOutput, all);
    } finally {
      feed.dispose();
    }
  });

  it("a flood is reported as its tail, replacing what the card had, and less often", async () => {
    const emitted: ThoughtEventBody[] = [];
    const feed = new ClientTerminalOutput((b) => emitted.push(b));
    try {
      feed.created("t");
      feed.link([shows("run", "t")]);
      const line = `${"y".repeat(99)}\n`;
      for (let i = 0; i < 10_000; i++) feed.output("t", line); // 1 MB at once
      feed.output("t", "the end\n");
      await until(() => emitted.length === 1, "the first report");
      const first = emitted[0] as Update;
      assert.equal(first.terminal?.replace, true);
      assert.ok((first.terminal?.output ?? "").length <= EVENT_CHARS);
      assert.ok(first.terminal?.output?.endsWith(`y\nthe end\n`));
      feed.output("t", "more\n");
      await sleep(2 * FLUSH_MS); // pacing: longer than a report's usual wait
      assert.equal(emitted.length, 1, "after a flood the next report waits longer");
      feed.exited("t", { exitCode: 0, signal: null });
      assert.deepEqual((emitted[1] as Update).terminal, { terminalId: "t", client: true, output: "more\n", exit: { exitCode: 0, signal: null } });
    } finally {
      feed.dispose();
    }
  });

  it("a disposed feed (the session ended) reports nothing more", async () => {
    const emitted: ThoughtEventBody[] = [];
    const feed = new ClientTerminalOutput((b) => emitted.push(b));
    feed.created("t");
    feed.link([shows("run", "t")]);
    feed.output("t", "pending\n");
    feed.dispose();
    await sleep(2 * FLUSH_MS); // pacing: past the time a report would have come
    feed.exited("t", { exitCode: 0, signal: null });
    assert.deepEqual(emitted, []);
  });
});
