/**
 * The pack indexer against git's own: packs made by the real git's pack-objects (OFS_DELTA and
 * REF_DELTA chains) must give an .idx byte-identical to `git index-pack`'s; a damaged pack is
 * refused with nothing left in objects/pack; the connectivity check finds what a pack lacks.
 */

import assert from "node:assert/strict";
import { receivePack } from "../../../../commands/git/remote/index_pack.ts";
import { checkConnected } from "../../../../commands/git/remote/operations.ts";
import { openRepo } from "../../../../commands/git/repo/repo.ts";
import { assertFsck, git, gitBytes } from "../oracle.ts";
import { makeRoot } from "../../../_support/helpers.ts";

async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function history(dir: string): Promise<void> {
  await git(Deno.cwd(), "init", "--quiet", "--initial-branch=main", dir);
  for (let i = 1; i <= 25; i++) {
    await Deno.mkdir(`${dir}/d${i % 3}`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/big.txt`,
      Array.from({ length: i * 80 }, (_, k) => `row ${k} ${k * i}`).join("\n"),
    );
    await Deno.writeTextFile(`${dir}/d${i % 3}/f.txt`, `${i}\n`.repeat(i));
    await git(dir, "add", "-A");
    await git(dir, "commit", "--quiet", "-m", `c${i}`);
  }
}

Deno.test("index_pack: the .idx of git's own packs is byte-identical to git index-pack's", async (t) => {
  await using work = await makeRoot();
  const src = `${work.path}/src`;
  await history(src);
  const objects = await git(src, "rev-list", "--objects", "--all");
  // A ring of 2 KiB keeps almost no delta base: nearly every delta is resolved by pass two.
  for (
    const [label, args, cacheBytes] of [
      ["ofs-delta", ["--delta-base-offset"], undefined],
      ["ref-delta", [], undefined],
      ["ofs-delta, bases re-read", ["--delta-base-offset"], 2048],
      ["ref-delta, bases re-read", [], 2048],
    ] as const
  ) {
    await t.step(label, async () => {
      const pack = await gitBytes(src, ["pack-objects", "--stdout", ...args], new TextEncoder().encode(objects));
      const dst = `${work.path}/dst-${label.replace(/[ ,]+/g, "-")}`;
      await git(work.path, "init", "--quiet", dst);
      // Odd chunk sizes: the trailer and object headers straddle chunk boundaries.
      const indexed = await receivePack(chunksOf(pack, 997), `${dst}/.git/objects`, { maxBytes: 1 << 30, cacheBytes });
      assert.ok(indexed);
      assert.equal(indexed.objects, objects.trim().split("\n").length);
      const packPath = `${dst}/.git/objects/pack/${indexed.name}.pack`;
      await git(dst, "index-pack", "-o", `${work.path}/theirs.idx`, packPath);
      assert.deepEqual(
        await Deno.readFile(`${dst}/.git/objects/pack/${indexed.name}.idx`),
        await Deno.readFile(`${work.path}/theirs.idx`),
      );
      await git(dst, "update-ref", "refs/heads/main", (await git(src, "rev-parse", "main")).trim());
      await assertFsck(dst);
    });
  }

  await t.step("objects larger than the read window and the ring (and deltas on them): the same .idx", async () => {
    const big = `${work.path}/big`;
    await git(work.path, "init", "--quiet", "--initial-branch=main", big);
    const noise = crypto.getRandomValues(new Uint8Array(65536));
    const content = new Uint8Array(3 * 1024 * 1024).map((_, i) => noise[i % 65536] ^ (i >> 16));
    for (let round = 0; round < 3; round++) {
      content.set(crypto.getRandomValues(new Uint8Array(100)), round * 1000);
      await Deno.writeFile(`${big}/blob.bin`, content);
      await git(big, "add", "-A");
      await git(big, "commit", "--quiet", "-m", `round ${round}`);
    }
    const listed = await git(big, "rev-list", "--objects", "--all");
    const pack = await gitBytes(
      big,
      ["pack-objects", "--stdout", "--delta-base-offset"],
      new TextEncoder().encode(listed),
    );
    for (const cacheBytes of [undefined, 2048]) {
      const dst = `${work.path}/dst-big-${cacheBytes ?? "default"}`;
      await git(work.path, "init", "--quiet", dst);
      const indexed = await receivePack(chunksOf(pack, 65536), `${dst}/.git/objects`, {
        maxBytes: 1 << 30,
        cacheBytes,
      });
      const packPath = `${dst}/.git/objects/pack/${indexed!.name}.pack`;
      await git(dst, "index-pack", "-o", `${work.path}/theirs-big.idx`, packPath);
      assert.deepEqual(
        await Deno.readFile(`${dst}/.git/objects/pack/${indexed!.name}.idx`),
        await Deno.readFile(`${work.path}/theirs-big.idx`),
      );
    }
  });

  await t.step("a pack past the 1 MiB read window, bases re-read by pass two: the same .idx", async () => {
    // 240 files of incompressible text (the pack ~1.2 MiB), then commits rewriting a line in some:
    // with a 2 KiB ring every delta's base is read again, from anywhere in the pack, through the
    // random-read window rather than the sequential one (which pass one left at the pack's end).
    const wide = `${work.path}/wide`;
    await git(work.path, "init", "--quiet", "--initial-branch=main", wide);
    const text = (seed: number) => {
      const bytes = new Uint8Array(6000);
      let state = seed * 2654435761 >>> 0 || 1;
      for (let i = 0; i < bytes.length; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        bytes[i] = 0x21 + ((state >>> 0) % 90);
      }
      return new TextDecoder().decode(bytes).replace(/(.{79})/g, "$1\n");
    };
    const files = Array.from({ length: 240 }, (_, f) => text(f + 1));
    for (let round = 0; round < 12; round++) {
      for (let f = round; f < files.length; f += 12) {
        if (round > 0) files[f] = files[f].replace(/^.*$/m, `round ${round} of file ${f}`);
        await Deno.writeTextFile(`${wide}/f${f}.txt`, files[f]);
      }
      if (round === 0) {
        for (let f = 0; f < files.length; f++) await Deno.writeTextFile(`${wide}/f${f}.txt`, files[f]);
      }
      await git(wide, "add", "-A");
      await git(wide, "commit", "--quiet", "-m", `round ${round}`);
    }
    const listed = await git(wide, "rev-list", "--objects", "--all");
    const pack = await gitBytes(
      wide,
      ["pack-objects", "--stdout", "--delta-base-offset"],
      new TextEncoder().encode(listed),
    );
    assert.ok(pack.length > 1024 * 1024, `the pack is ${pack.length} bytes`);
    const dst = `${work.path}/dst-wide`;
    await git(work.path, "init", "--quiet", dst);
    const indexed = await receivePack(chunksOf(pack, 65536), `${dst}/.git/objects`, {
      maxBytes: 1 << 30,
      cacheBytes: 2048,
    });
    const packPath = `${dst}/.git/objects/pack/${indexed!.name}.pack`;
    await git(dst, "index-pack", "-o", `${work.path}/theirs-wide.idx`, packPath);
    assert.deepEqual(
      await Deno.readFile(`${dst}/.git/objects/pack/${indexed!.name}.idx`),
      await Deno.readFile(`${work.path}/theirs-wide.idx`),
    );
  });

  await t.step("a damaged pack is refused and leaves objects/pack empty", async () => {
    const pack = await gitBytes(src, ["pack-objects", "--stdout"], new TextEncoder().encode(objects));
    for (const at of [20, Math.floor(pack.length / 2), pack.length - 3]) {
      const damaged = pack.slice();
      damaged[at] ^= 0x40;
      const dst = `${work.path}/damaged-${at}`;
      await git(work.path, "init", "--quiet", dst);
      await assert.rejects(
        receivePack(chunksOf(damaged, 4096), `${dst}/.git/objects`, { maxBytes: 1 << 30 }),
        (e: Error & { code?: string }) => e.code === "CorruptInput",
      );
      assert.deepEqual([...Deno.readDirSync(`${dst}/.git/objects/pack`)], []);
    }
  });

  await t.step(
    "a complete pack passes the connectivity check; a depth-2 pack only with its boundary declared shallow",
    async () => {
      const pack = await gitBytes(src, ["pack-objects", "--stdout"], new TextEncoder().encode(objects));
      const dst = `${work.path}/complete`;
      await git(work.path, "init", "--quiet", dst);
      const indexed = await receivePack(chunksOf(pack, 65536), `${dst}/.git/objects`, { maxBytes: 1 << 30 });
      const tip = (await git(src, "rev-parse", "main")).trim();
      await checkConnected(openRepo(dst, "complete"), [tip], new Set(), indexed!.links);
      // The last two commits with their whole trees, as a depth-2 fetch sends them: main~1's parent is absent.
      const recent = await git(src, "rev-list", "--objects", "--no-walk", "main", "main~1");
      const boundary = (await git(src, "rev-parse", "main~1")).trim();
      const part = await gitBytes(src, ["pack-objects", "--stdout"], new TextEncoder().encode(recent));
      const cut = `${work.path}/cut`;
      await git(work.path, "init", "--quiet", cut);
      const cutPack = await receivePack(chunksOf(part, 65536), `${cut}/.git/objects`, { maxBytes: 1 << 30 });
      await assert.rejects(
        checkConnected(openRepo(cut, "cut"), [tip], new Set(), cutPack!.links),
        (e: Error & { code?: string }) => e.code === "CorruptInput",
      );
      await checkConnected(openRepo(cut, "cut"), [tip], new Set([boundary]), cutPack!.links);
    },
  );

  await t.step("a pack that lacks a blob of its history fails the connectivity check", async () => {
    const all = objects.trim().split("\n");
    const blob = (await git(src, "rev-parse", "main:big.txt")).trim();
    const partial = all.filter((line) => !line.startsWith(blob)).join("\n") + "\n";
    const pack = await gitBytes(src, ["pack-objects", "--stdout"], new TextEncoder().encode(partial));
    const dst = `${work.path}/partial`;
    await git(work.path, "init", "--quiet", dst);
    const indexed = await receivePack(chunksOf(pack, 65536), `${dst}/.git/objects`, { maxBytes: 1 << 30 });
    const tip = (await git(src, "rev-parse", "main")).trim();
    await assert.rejects(
      checkConnected(openRepo(dst, "partial"), [tip], new Set(), indexed!.links),
      (e: Error & { code?: string }) => e.code === "CorruptInput" && e.message.includes(blob),
    );
  });
});
