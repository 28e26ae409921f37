/** The pure-JS SHA-1 against WebCrypto, and zlib round trips through both paths. */

import assert from "node:assert/strict";
import fc from "fast-check";
import { deflate, inflate, sha1, sha1Sync } from "../../../../commands/git/odb/codec.ts";
import { objectHeader } from "../../../../commands/git/odb/objects.ts";
import { toHex } from "../../../../commands/git/odb/bytes.ts";

Deno.test("sha1Sync equals WebCrypto SHA-1 on any input (block boundaries included)", async () => {
  for (const size of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
    const data = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 255);
    const expected = toHex(new Uint8Array(await crypto.subtle.digest("SHA-1", data)));
    assert.equal(sha1Sync(data), expected, `size ${size}`);
  }
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 3000 }), async (data) => {
      const expected = toHex(new Uint8Array(await crypto.subtle.digest("SHA-1", data as Uint8Array<ArrayBuffer>)));
      assert.equal(sha1Sync(data), expected);
      assert.equal(await sha1(data), expected);
    }),
    { numRuns: 150 },
  );
});

Deno.test("deflate/inflate round trip (web streams first, then node:zlib)", async () => {
  for (let i = 0; i < 140; i++) {
    const data = new TextEncoder().encode(`object ${i}\n`.repeat(i));
    assert.deepEqual(await inflate(await deflate(data)), data);
  }
});

Deno.test("the JavaScript inflater agrees with zlib on stored, fixed and dynamic blocks", async () => {
  const zlib = await import("node:zlib");
  const { inflateZlibSync } = await import("../../../../lib/inflate.ts");
  await fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 5000 }),
        fc.string({ maxLength: 4000 }).map((s) => new TextEncoder().encode(s.repeat(3))),
      ),
      fc.constantFrom(0, 1, 6, 9),
      fc.constantFrom(0, 1),
      (data, level, strategy) => {
        const packed = new Uint8Array(
          zlib.deflateSync(data, { level, strategy: strategy ? zlib.constants.Z_FIXED : 0 }),
        );
        assert.deepEqual(inflateZlibSync(packed), data);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("stored zlib streams are valid for zlib and for git", async () => {
  const zlib = await import("node:zlib");
  const { storedZlib } = await import("../../../../commands/git/odb/codec.ts");
  for (const size of [0, 1, 100, 65535, 65536, 200_000]) {
    const data = new Uint8Array(size).map((_, i) => (i * 13) & 255);
    assert.deepEqual(new Uint8Array(zlib.inflateSync(storedZlib(data))), data, `size ${size}`);
  }
});

Deno.test("inflateInto: zlib's every strategy, a stream followed by more bytes, and a cut stream", async () => {
  const zlib = await import("node:zlib");
  const { inflateInto, INPUT_ENDED_EARLY } = await import("../../../../lib/inflate.ts");
  const { Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED, Z_DEFAULT_STRATEGY } = zlib.constants;
  await fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 70_000 }),
        fc.array(fc.constantFrom("tree ", "blob\n", "\0\0\0", "line of text\n", "é"), { maxLength: 5000 })
          .map((parts) => new TextEncoder().encode(parts.join(""))),
      ),
      fc.constantFrom(0, 1, 6, 9),
      fc.constantFrom(Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED, Z_DEFAULT_STRATEGY),
      fc.nat(40),
      (data, level, strategy, cut) => {
        const packed = new Uint8Array(zlib.deflateSync(data, { level, strategy }));
        // As in a pack: the stream sits among other bytes, and its end must be found exactly.
        const src = new Uint8Array(packed.length + 13).fill(0xa5);
        src.set(packed, 7);
        const out = new Uint8Array(data.length + 9);
        assert.equal(inflateInto(src, 7, out, 9, data.length), 7 + packed.length);
        assert.deepEqual(out.subarray(9), data);
        const short = src.subarray(0, 7 + Math.max(0, packed.length - 1 - cut));
        assert.throws(() => inflateInto(short, 7, out, 9, data.length), { message: INPUT_ENDED_EARLY });
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("Sha1 (reused, fed in pieces) equals node:crypto's SHA-1 on any input", async () => {
  const { createHash } = await import("node:crypto");
  const { Sha1 } = await import("../../../../commands/git/odb/sha1.ts");
  const hasher = new Sha1();
  await fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 6 }), (pieces) => {
      hasher.reset();
      const reference = createHash("sha1");
      for (const piece of pieces) {
        hasher.update(piece);
        reference.update(piece);
      }
      const out = new Uint8Array(24);
      hasher.digestInto(out, 2);
      assert.deepEqual(out.subarray(2, 22), new Uint8Array(reference.digest()));
    }),
    { numRuns: 400 },
  );
});

Deno.test("objectHeader: `<type> <length>\\0` for every type and any length, as real git hashes it", async () => {
  fc.assert(
    fc.property(
      fc.constantFrom("blob", "tree", "commit", "tag" as const),
      fc.oneof(fc.nat(20), fc.nat(), fc.constantFrom(9, 10, 99, 100, 999_999, 1_000_000)),
      (type, length) => {
        assert.equal(new TextDecoder().decode(objectHeader(type, length)), `${type} ${length}\0`);
      },
    ),
  );
  // The object id of a blob hashed with it is real git's.
  const content = new TextEncoder().encode("file 7/8\n");
  const dir = await Deno.makeTempDir();
  try {
    const git = new Deno.Command("git", { args: ["hash-object", "--stdin"], cwd: dir, stdin: "piped", stdout: "piped" })
      .spawn();
    const writer = git.stdin.getWriter();
    await writer.write(content);
    await writer.close();
    const real = new TextDecoder().decode((await git.output()).stdout).trim();
    assert.equal(sha1Sync(objectHeader("blob", content.length), content), real);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
