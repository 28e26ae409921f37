/**
 * lib/inflate.ts's `inflateStreaming` (large objects indexed and checked out piece by piece)
 * against zlib itself: every level and strategy, input handed over in windows of any size (a
 * window may end inside a stored block's header, a Huffman code or the Adler-32 trailer), output
 * through a buffer much smaller than the data.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import zlib from "node:zlib";
import { inflateIntoStreaming, inflateStreaming, INPUT_ENDED_EARLY } from "../../lib/inflate.ts";
import { concatBytes } from "../../core/bytes.ts";

const { Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED, Z_DEFAULT_STRATEGY } = zlib.constants;

/** Runs inflateStreaming over `src` (the stream at `at`, other bytes after it) in windows of `window` bytes. */
function run(src: Uint8Array, at: number, size: number, window: number, buffer: Uint8Array) {
  const pieces: Uint8Array[] = [];
  // One read buffer, clobbered before each read: the inflater may not keep bytes across reads.
  const scratch = new Uint8Array(window);
  const end = inflateStreaming(
    (offset) => {
      const piece = src.subarray(at + offset, Math.min(src.length, at + offset + window));
      scratch.fill(0xee);
      scratch.set(piece);
      return scratch.subarray(0, piece.length);
    },
    size,
    (chunk) => {
      assert.ok(chunk.length > 0 && chunk.length <= buffer.length);
      pieces.push(chunk.slice());
    },
    buffer,
  );
  const out = concatBytes(pieces);
  return { end, out };
}

/** Runs inflateIntoStreaming over `src` (the stream at `at`) in windows of `window` bytes, into `out` at `outAt`. */
function runInto(src: Uint8Array, at: number, size: number, window: number, out: Uint8Array, outAt: number): number {
  const scratch = new Uint8Array(window);
  return inflateIntoStreaming(
    (offset) => {
      const piece = src.subarray(at + offset, Math.min(src.length, at + offset + window));
      scratch.fill(0xee);
      scratch.set(piece);
      return scratch.subarray(0, piece.length);
    },
    out,
    outAt,
    size,
  );
}

/** Data with long matches, short matches, literals and incompressible runs (stored blocks). */
const mixed = fc.array(
  fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 90_000 }),
    fc.array(fc.constantFrom("tree ", "blob\n", "\0\0\0", "line of text\n", "é"), { maxLength: 3000 })
      .map((parts) => new TextEncoder().encode(parts.join(""))),
    fc.tuple(fc.integer({ min: 1, max: 255 }), fc.integer({ min: 1, max: 200_000 }))
      .map(([byte, n]) => new Uint8Array(n).fill(byte)),
  ),
  { maxLength: 6 },
).map((parts) => {
  const data = concatBytes(parts);
  return data;
});

Deno.test("inflateStreaming equals zlib for any level, strategy, input window and output buffer", () => {
  fc.assert(
    fc.property(
      mixed,
      fc.constantFrom(0, 1, 6, 9),
      fc.constantFrom(Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED, Z_DEFAULT_STRATEGY),
      fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 65, max: 300_000 })),
      fc.constantFrom(64 * 1024, 64 * 1024 + 1, 100_000, 288 * 1024),
      (data, level, strategy, window, bufferBytes) => {
        const packed = new Uint8Array(zlib.deflateSync(data, { level, strategy }));
        // As in a pack: the stream sits among other bytes, and its end must be found exactly.
        const src = new Uint8Array(packed.length + 29).fill(0xa5);
        src.set(packed, 7);
        const buffer = new Uint8Array(bufferBytes);
        const { end, out } = run(src, 7, data.length, window, buffer);
        assert.equal(end, packed.length);
        assert.deepEqual(out, data);
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("inflateStreaming refuses a cut stream and a size other than the stream's", () => {
  fc.assert(
    fc.property(mixed, fc.nat(40), fc.integer({ min: 1, max: 70_000 }), (data, cut, window) => {
      const packed = new Uint8Array(zlib.deflateSync(data));
      const buffer = new Uint8Array(64 * 1024);
      const short = packed.subarray(0, Math.max(0, packed.length - 1 - cut));
      assert.throws(() => run(short, 0, data.length, window, buffer), { message: INPUT_ENDED_EARLY });
      assert.throws(() => run(packed, 0, data.length + 1, window, buffer), /inflate: output smaller/);
      if (data.length > 0) {
        assert.throws(() => run(packed, 0, data.length - 1, window, buffer), /inflate: output larger/);
      }
    }),
    { numRuns: 100 },
  );
});

Deno.test("inflateIntoStreaming: the whole output in place from input read in windows, equal to zlib", () => {
  fc.assert(
    fc.property(
      mixed,
      fc.constantFrom(0, 1, 6, 9),
      fc.constantFrom(Z_FILTERED, Z_RLE, Z_DEFAULT_STRATEGY),
      fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 65, max: 300_000 })),
      fc.nat(100),
      (data, level, strategy, window, outAt) => {
        const packed = new Uint8Array(zlib.deflateSync(data, { level, strategy }));
        const src = new Uint8Array(packed.length + 29).fill(0xa5);
        src.set(packed, 7);
        // Bytes before `outAt` and after the output are the caller's: left as they were.
        const out = new Uint8Array(outAt + data.length + 13).fill(0x5a);
        assert.equal(runInto(src, 7, data.length, window, out, outAt), packed.length);
        assert.deepEqual(out.subarray(outAt, outAt + data.length), data);
        assert.ok(out.subarray(0, outAt).every((b) => b === 0x5a));
        assert.ok(out.subarray(outAt + data.length).every((b) => b === 0x5a));
      },
    ),
    { numRuns: 100 },
  );
});

Deno.test("inflateIntoStreaming refuses a cut stream and a size other than the stream's", () => {
  fc.assert(
    fc.property(mixed, fc.nat(40), fc.integer({ min: 1, max: 70_000 }), (data, cut, window) => {
      const packed = new Uint8Array(zlib.deflateSync(data));
      const out = new Uint8Array(data.length + 64 * 1024);
      const short = packed.subarray(0, Math.max(0, packed.length - 1 - cut));
      assert.throws(() => runInto(short, 0, data.length, window, out, 0), { message: INPUT_ENDED_EARLY });
      assert.throws(() => runInto(packed, 0, data.length + 1, window, out, 0), /inflate: output smaller/);
      if (data.length > 0) {
        assert.throws(() => runInto(packed, 0, data.length - 1, window, out, 0), /inflate: output larger/);
      }
    }),
    { numRuns: 100 },
  );
});
