/**
 * The connection worker's reading side (connection_link.ts's LineFramer): however the server's
 * bytes are cut into reads, the same lines come out, and a line too long to be IRC is dropped
 * whole without the lines around it.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { LineFramer } from "../../../commands/irc/connection_link.ts";

const encoder = new TextEncoder();

/** Every line `framer` gives for `chunks`, read one after another. */
function framed(chunks: readonly Uint8Array[]): string[] {
  const framer = new LineFramer();
  return chunks.flatMap((chunk) => framer.lines(chunk));
}

/** `bytes` cut at `cuts` (positions, any order, duplicates allowed). */
function cut(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const end of [...at, bytes.length]) {
    chunks.push(bytes.slice(start, end));
    start = end;
  }
  return chunks;
}

Deno.test("LineFramer: CR LF and bare LF end a line; a line without its end waits for the next read", () => {
  const framer = new LineFramer();
  assert.deepEqual(framer.lines(encoder.encode(":a PRIVMSG #c :hi\r\nPING :x\nPART")), [
    ":a PRIVMSG #c :hi",
    "PING :x",
  ]);
  assert.deepEqual(framer.lines(encoder.encode(" #c\r")), []);
  assert.deepEqual(framer.lines(encoder.encode("\n")), ["PART #c"]);
});

Deno.test("LineFramer: a UTF-8 character cut between two reads is whole in its line", () => {
  const bytes = encoder.encode(":a PRIVMSG #c :héllo → 世界\r\n");
  const split = bytes.indexOf(0xe4) + 1; // inside 世
  assert.deepEqual(framed([bytes.slice(0, split), bytes.slice(split)]), [":a PRIVMSG #c :héllo → 世界"]);
});

Deno.test("LineFramer: a line longer than 16 KiB is dropped up to its end; the lines around it are kept", () => {
  const long = "x".repeat(40 * 1024);
  const bytes = encoder.encode(`PING :before\r\n:a PRIVMSG #c :${long}\r\nPING :after\r\n`);
  assert.deepEqual(framed(cut(bytes, [5, 20, 20_000, 41_000])), ["PING :before", "PING :after"]);
});

Deno.test("LineFramer: the lines do not depend on where reads cut the bytes", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: "grapheme", maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, "")), {
        maxLength: 8,
      }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (lines, cuts) => {
        const bytes = encoder.encode(lines.map((line) => `${line}\r\n`).join(""));
        assert.deepEqual(framed(cut(bytes, cuts)), lines);
      },
    ),
  );
});
