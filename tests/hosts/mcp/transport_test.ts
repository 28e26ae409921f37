/**
 * pterm's stdio transport on its own: lines split across chunks and several lines in one chunk,
 * CRLF, blank lines, a line over the size limit answered and skipped while the next one still
 * arrives, and the end of input closing it.
 */

import assert from "node:assert/strict";
import { LineTransport } from "../../../hosts/mcp/transport.ts";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

Deno.test("the line transport delivers messages, answers oversized lines, and closes at the end of input", async () => {
  const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
  const big = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "x".repeat(500) } });
  const written: string[] = [];
  const received: unknown[] = [];
  let closed!: () => void;
  const done = new Promise<void>((resolve) => (closed = resolve));
  const transport = new LineTransport({
    input: streamOf([
      ping(1).slice(0, 10),
      ping(1).slice(10) + "\r\n\n" + big.slice(0, 300),
      big.slice(300) + "\n" + ping(3) + "\n" + ping(4),
    ]),
    write: (text) => {
      written.push(text);
      return Promise.resolve();
    },
    log: () => {},
    maxMessageBytes: 200,
  });
  transport.onmessage = (message) => received.push(message);
  transport.onclose = closed;
  await transport.start();
  await done;
  assert.deepEqual(
    received.map((m) => (m as { id: number }).id),
    [1, 3],
    "the unterminated last line is not a message",
  );
  assert.equal(written.length, 1);
  const error = JSON.parse(written[0]);
  assert.equal(error.id, null);
  assert.equal(error.error.code, -32600);
  assert.match(error.error.message, /larger than 200 bytes/);
});
