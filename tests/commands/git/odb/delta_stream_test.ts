/**
 * Blobs stored as deltas, read piece by piece: `applyDeltaStreaming` (a large blob stored as a
 * delta is hashed while indexing and written while checking out without being whole in memory)
 * against `applyDelta` on any delta, damaged ones included, from memory or from a base spilled to
 * a file; and the pack reader's sources of
 * blobs stored as deltas — OFS_DELTA and REF_DELTA, chains, a base too large for the cache —
 * against the real git's `cat-file`, piped in any order.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { ObjectStore } from "../../../../commands/git/odb/objects.ts";
import { applyDelta, applyDeltaStreaming, SpilledBase } from "../../../../commands/git/odb/pack.ts";
import { git, gitBytes } from "../oracle.ts";
import { concatBytes } from "../../../../core/bytes.ts";

function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

type Op = { copy: [number, number] } | { insert: Uint8Array };

/** git's delta encoding of `ops` on a base of `baseSize` bytes (the result size as the ops make it, unless given). */
function encodeDelta(baseSize: number, ops: readonly Op[], resultSize?: number): Uint8Array {
  const made = ops.reduce((n, op) => n + ("copy" in op ? op.copy[1] : op.insert.length), 0);
  const bytes = [...varint(baseSize), ...varint(resultSize ?? made)];
  for (const op of ops) {
    if ("insert" in op) {
      bytes.push(op.insert.length, ...op.insert);
      continue;
    }
    const [offset, length] = op.copy;
    let code = 0x80;
    const args: number[] = [];
    for (let k = 0; k < 4; k++) {
      const b = Math.floor(offset / 2 ** (8 * k)) & 0xff;
      if (b) (code |= 1 << k), args.push(b);
    }
    const encoded = length === 0x10000 ? 0 : length;
    for (let k = 0; k < 3; k++) {
      const b = (encoded >> (8 * k)) & 0xff;
      if (b) (code |= 0x10 << k), args.push(b);
    }
    bytes.push(code, ...args);
  }
  return new Uint8Array(bytes);
}

/** applyDeltaStreaming's result, its pieces joined (each copied: the buffer is reused). */
function streamed(base: Uint8Array, delta: Uint8Array, bufferBytes: number): Uint8Array {
  const pieces: Uint8Array[] = [];
  const size = applyDeltaStreaming(base, delta, (chunk) => pieces.push(chunk.slice()), new Uint8Array(bufferBytes));
  const out = concatBytes(pieces);
  assert.equal(out.length, size);
  return out;
}

const baseAndOps = fc.uint8Array({ minLength: 1, maxLength: 200_000, size: "max" }).chain((base) =>
  fc.tuple(
    fc.constant(base),
    fc.array(
      fc.oneof(
        fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 1, max: 0x10000 }))
          .map(([offset, length]): Op => ({ copy: [offset, Math.min(length, base.length - offset)] })),
        fc.uint8Array({ minLength: 1, maxLength: 127 }).map((insert): Op => ({ insert })),
      ),
      { maxLength: 40, size: "max" },
    ),
  )
);

Deno.test("applyDeltaStreaming gives applyDelta's bytes, through any buffer", () => {
  fc.assert(
    fc.property(baseAndOps, fc.constantFrom(16 * 1024, 16 * 1024 + 3, 64 * 1024, 288 * 1024), ([base, ops], buffer) => {
      const delta = encodeDelta(base.length, ops);
      assert.deepEqual(streamed(base, delta, buffer), applyDelta(base, delta));
    }),
    { numRuns: 100 },
  );
});

Deno.test("applyDeltaStreaming from a base spilled to a file gives applyDelta's bytes; the file goes when closed", async () => {
  await using work = await makeRoot();
  fc.assert(
    fc.property(baseAndOps, fc.integer({ min: 1, max: 70_000 }), ([base, ops], piece) => {
      const delta = encodeDelta(base.length, ops);
      const spilled = SpilledBase.create(work.path, base.length, (write) => {
        for (let at = 0; at < base.length; at += piece) write(base.subarray(at, at + piece));
      })!;
      try {
        const pieces: Uint8Array[] = [];
        applyDeltaStreaming(spilled, delta, (chunk) => pieces.push(chunk.slice()), new Uint8Array(16 * 1024));
        assert.deepEqual(concatBytes(pieces), applyDelta(base, delta));
      } finally {
        spilled.close();
      }
      assert.deepEqual([...Deno.readDirSync(work.path)], []);
    }),
    { numRuns: 60 },
  );
  // A fill that fails, or gives another size, leaves no file.
  assert.throws(() => SpilledBase.create(work.path, 10, (write) => write(new Uint8Array(9))), /not the size/);
  assert.throws(() =>
    SpilledBase.create(work.path, 10, () => {
      throw new Error("cut");
    }), /cut/);
  assert.deepEqual([...Deno.readDirSync(work.path)], []);
});

Deno.test("applyDeltaStreaming refuses every damaged delta applyDelta refuses, with its message", () => {
  const base = new Uint8Array(70_000).map((_, i) => i * 7);
  const cases: [string, Uint8Array][] = [
    ["another base size", encodeDelta(base.length - 1, [{ copy: [0, 10] }])],
    ["a copy past the base", encodeDelta(base.length, [{ copy: [69_990, 11] }])],
    ["a copy past the result", encodeDelta(base.length, [{ copy: [0, 40_000] }], 30_000)],
    ["an insert past the result", encodeDelta(base.length, [{ insert: new Uint8Array(50) }], 20)],
    ["an insert past the delta", encodeDelta(base.length, [{ insert: new Uint8Array(50) }]).subarray(0, 30)],
    ["a result shorter than its header", encodeDelta(base.length, [{ copy: [0, 20_000] }], 20_001)],
    ["the reserved instruction", new Uint8Array([...varint(base.length), 5, 0])],
  ];
  for (const [label, delta] of cases) {
    let expected: Error | null = null;
    try {
      applyDelta(base, delta);
    } catch (error) {
      expected = error as Error;
    }
    assert.ok(expected, `applyDelta takes ${label}`);
    assert.throws(() => streamed(base, delta, 16 * 1024), { message: expected.message }, label);
  }
});

/** `n` bytes of a deterministic mix of incompressible runs, text and repeats. */
function mixedBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  for (let o = 0; o < n;) {
    const run = Math.min(n - o, 1 + (next() % 200_000));
    if (next() % 2) { for (let k = 0; k < run; k++) out[o + k] = next() & 0xff; }
    else out.fill(next() & 0xff, o, o + run);
    o += run;
  }
  return out;
}

Deno.test("sources of blobs stored as deltas (OFS and REF, chains, a base past the cache): the real git's bytes, piped in any order", async (t) => {
  await using work = await makeRoot();
  const src = `${work.path}/src`;
  await git(work.path, "init", "--quiet", "--initial-branch=main", src);
  // Four versions of a file, each shorter than the one before: git keeps the first (largest,
  // 9 MiB: past the reader's 8 MiB cache of decoded objects) whole and stores the others as deltas,
  // the later ones on the second (which alone holds their new tail): a chain.
  const large = mixedBytes(9 * 1024 * 1024, 7);
  const tail = mixedBytes(300_000, 11);
  const versions = [
    large,
    concatBytes([large.subarray(0, 8_500_000), tail]),
    concatBytes([large.subarray(0, 8_400_000), tail.subarray(0, 250_000)]),
    concatBytes([large.subarray(0, 3_000_000), tail.subarray(0, 200_000)]),
  ].map((bytes, v) => {
    const copy = bytes.slice();
    if (v > 0) copy.set(mixedBytes(5000, 100 + v), 700_000 * v);
    return copy;
  });
  for (const [v, bytes] of versions.entries()) {
    await Deno.writeFile(`${src}/large.bin`, bytes);
    await git(src, "add", "large.bin");
    await git(src, "commit", "--quiet", "-m", `v${v}`);
  }
  const oids = await Promise.all(
    versions.map(async (_, v) => (await git(src, "rev-parse", `HEAD~${versions.length - 1 - v}:large.bin`)).trim()),
  );
  for (const [label, offsets] of [["OFS_DELTA", "true"], ["REF_DELTA", "false"]] as const) {
    await t.step(label, async () => {
      const dir = `${work.path}/${label}`;
      await git(work.path, "clone", "--quiet", "--bare", "--no-local", src, dir);
      await git(dir, "-c", `repack.useDeltaBaseOffset=${offsets}`, "repack", "-a", "-d", "-f", "-q", "--depth=3");
      const idx = [...Deno.readDirSync(`${dir}/objects/pack`)].find((e) => e.name.endsWith(".idx"))!.name;
      const verified = await git(dir, "verify-pack", "-v", `objects/pack/${idx}`);
      const depthOf = (oid: string) =>
        Number(verified.split("\n").find((l) => l.startsWith(oid))!.trim().split(/\s+/)[5] ?? 0);
      assert.equal(depthOf(oids[0]), 0, "the largest version is whole");
      assert.ok(oids.slice(1).every((oid) => depthOf(oid) > 0), "the others are deltas");
      assert.ok(oids.some((oid) => depthOf(oid) > 1), `a chain:\n${verified}`);
      const expected = new Map<string, Uint8Array>();
      for (const oid of oids) expected.set(oid, await gitBytes(dir, ["cat-file", "blob", oid], new Uint8Array(0)));
      const store = new ObjectStore(dir);
      const bytesOf = (source: { size: number; pipe(sink: (chunk: Uint8Array) => void): void }) => {
        const out = new Uint8Array(source.size);
        let at = 0;
        source.pipe((chunk) => {
          out.set(chunk, at);
          at += chunk.length;
        });
        assert.equal(at, source.size);
        return out;
      };
      // Every source made first, then piped backwards, and again forwards: each reads its base when piped.
      const sources = oids.map((oid) => store.largeBlob(oid, 0));
      // A REF_DELTA on a delta waits for its base (read whole then); one on a whole base does not.
      const expectSource = label === "OFS_DELTA" ? [true, true, true, true] : [true, true, false, false];
      assert.deepEqual(sources.map((source) => source !== null), expectSource, verified);
      for (const k of [3, 2, 1, 0, 1, 2, 3]) {
        if (sources[k]) assert.deepEqual(bytesOf(sources[k]), expected.get(oids[k]), `v${k}`);
      }
      assert.equal(store.largeBlob(oids[1], versions[1].length), null, "not larger than the threshold");
      // Read whole, the same bytes.
      for (const oid of oids) assert.deepEqual((await store.read(oid)).content, expected.get(oid));
    });
  }
});
