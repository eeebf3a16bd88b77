/** Our ndjson framing of an agent's stdout: noise, oversized lines, and an agent that keeps writing after we hung up. */
import * as assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { ndJsonStream } from "../../src/acp/ndjson";

function setup(max?: number): { stdout: PassThrough; incoming: AnyMessage[]; noise: string[]; reader: ReadableStreamDefaultReader<AnyMessage> } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const incoming: AnyMessage[] = [];
  const noise: string[] = [];
  const stream = ndJsonStream(stdin, stdout, { incoming: (m) => incoming.push(m), outgoing: () => undefined, noise: (_line, reason) => noise.push(reason) }, max);
  return { stdout, incoming, noise, reader: stream.readable.getReader() };
}

const msg = (n: number): string => JSON.stringify({ jsonrpc: "2.0", id: n, method: "session/request_permission", params: { n } }) + "\n";
const update = (n: number): string => JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { n } }) + "\n";

describe("ndjson framing", () => {
  it("passes messages in order and reports noise and oversized lines instead of dropping them silently", async () => {
    const { stdout, incoming, noise, reader } = setup(200);
    stdout.write(msg(1) + "DEBUG not json\n" + update(7) + `{"jsonrpc":"2.0","method":"x","params":{"t":"${"y".repeat(300)}"}}\n` + '{"truncated":\n' + msg(2));
    assert.deepEqual((await reader.read()).value, JSON.parse(msg(1)));
    // Updates reach the tap only (it maps them); the SDK gets everything else.
    assert.deepEqual((await reader.read()).value, JSON.parse(msg(2)));
    assert.deepEqual(incoming, [JSON.parse(msg(1)), JSON.parse(update(7)), JSON.parse(msg(2))]);
    assert.deepEqual(noise, ["not JSON", "larger than 200 bytes (dropped)", "not JSON"]);
  });

  it("ignores what an agent writes after the connection was closed (no throw, nothing enqueued)", async () => {
    const { stdout, incoming, reader } = setup();
    stdout.write(msg(1));
    await reader.read();
    await reader.cancel();
    const errors: unknown[] = [];
    const onError = (e: unknown): void => { errors.push(e); };
    process.on("uncaughtException", onError);
    try {
      for (let i = 2; i < 100; i++) stdout.write(msg(i));
      stdout.end();
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      process.off("uncaughtException", onError);
    }
    assert.deepEqual(errors, []);
    assert.equal(incoming.length, 1, "nothing after the close reaches the tap");
  });

  it("turns invalid UTF-8 bytes and lone surrogate escapes into U+FFFD before anyone reads the message", () => {
    const { stdout, incoming } = setup();
    const head = Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"bad":"a');
    // 0xff and 0xfe are never valid in UTF-8; 0xc3 starts a two-byte sequence that does not go on.
    stdout.write(Buffer.concat([head, Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(String.raw`b \ud800 \udfff c \ud83d\ude00","\ud800key":1}}` + "\n")]));
    const params = (incoming[0] as { params: Record<string, unknown> }).params;
    assert.equal(params.bad, "a\ufffd\ufffd\ufffdb \ufffd \ufffd c 😀");
    assert.equal(params["\ufffdkey"], 1);
    assert.doesNotThrow(() => new TextEncoder().encode(JSON.stringify(params)));
  });
});

