/**
 * Several packfiles at once — the state after a clone and a fetch, or any `git repack` without
 * `-a` — with loose objects beside them and deep delta chains. Offsets repeat across packs
 * (every pack's first object is at offset 12), so anything keyed by offset alone reads the
 * wrong object. Real git builds each layout; `git cat-file --batch` is the oracle for every
 * object, and log, diff and checkout are compared with real git on a two-pack repository.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { ObjectStore } from "../../../../commands/git/odb/objects.ts";
import { assertFsck, git, gitBytes, gitInit, pterm, result, write } from "../oracle.ts";

/** Every object of the repository as real git reads it: oid → type and bytes. */
async function gitObjects(dir: string): Promise<Map<string, { type: string; content: Uint8Array }>> {
  const oids = (await git(dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")).trim().split("\n");
  const out = await gitBytes(dir, ["cat-file", "--batch"], new TextEncoder().encode(oids.join("\n") + "\n"));
  const objects = new Map<string, { type: string; content: Uint8Array }>();
  let at = 0;
  while (at < out.length) {
    const newline = out.indexOf(10, at);
    const [oid, type, size] = new TextDecoder().decode(out.subarray(at, newline)).split(" ");
    const start = newline + 1;
    objects.set(oid, { type, content: out.slice(start, start + Number(size)) });
    at = start + Number(size) + 1;
  }
  assert.equal(objects.size, oids.length);
  return objects;
}

/** How many packfiles and loose objects the repository has. */
async function layout(dir: string): Promise<{ packs: number; loose: number }> {
  const counts = await git(dir, "count-objects", "-v");
  return {
    packs: Number(counts.match(/^packs: (\d+)/m)![1]),
    loose: Number(counts.match(/^count: (\d+)/m)![1]),
  };
}

const REPACKS = [
  ["repack", "-q"], // a new pack of the loose objects; the older packs stay
  ["repack", "-q", "-d"],
  ["repack", "-q", "-d", "-f", "--depth=250", "--window=50"], // deep delta chains
  ["gc", "-q", "--aggressive", "--prune=now"],
  null, // leave the new objects loose
] as const;

Deno.test("several packs, loose objects and deep delta chains: every object reads as real git reads it", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          edits: fc.array(fc.tuple(fc.nat(5), fc.nat(299), fc.string({ maxLength: 12 })), {
            minLength: 1,
            maxLength: 8,
          }),
          repack: fc.nat(REPACKS.length - 1),
        }),
        { minLength: 3, maxLength: 7 },
      ),
      async (steps) => {
        const dir = `${root.path}/r${run++}`;
        await gitInit(dir);
        // Six files of 300 lines: small edits between commits make git store deltas.
        const files = Array.from({ length: 6 }, (_, f) => Array.from({ length: 300 }, (_, i) => `f${f} line ${i}`));
        for (const [n, step] of steps.entries()) {
          for (const [file, line, text] of step.edits) files[file][line] = `${text} (commit ${n})`;
          for (const [f, lines] of files.entries()) await write(`${dir}/d${f % 2}/file${f}.txt`, lines.join("\n"));
          await git(dir, "add", "-A");
          await git(dir, "commit", "-q", "--allow-empty", "-m", `commit ${n}`);
          const repack = REPACKS[step.repack];
          if (repack) await git(dir, ...repack);
        }
        const expected = await gitObjects(dir);
        const store = new ObjectStore(`${dir}/.git`);
        for (const [oid, want] of expected) {
          const got = await store.read(oid);
          assert.equal(got.type, want.type, `type of ${oid}`);
          assert.deepEqual(got.content, want.content, `content of ${oid} (${want.type})`);
        }
      },
    ),
    { numRuns: 8, seed: 0x5eed },
  );
});

Deno.test("two packs (as after a clone and a fetch): log, diff, checkout and reset agree with real git", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const body = (tag: string) => Array.from({ length: 100 }, (_, i) => `${tag} ${i}`).join("\n") + "\n";
  for (let i = 0; i < 3; i++) {
    await write(`${dir}/a.txt`, body(`first-${i}`));
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", `first ${i}`);
  }
  await git(dir, "repack", "-q", "-d");
  for (let i = 0; i < 3; i++) {
    await write(`${dir}/a.txt`, body(`second-${i}`));
    await write(`${dir}/b${i}.txt`, `${i}\n`);
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", `second ${i}`);
  }
  await git(dir, "repack", "-q", "-d"); // packs the new loose objects only: a second pack
  assert.deepEqual(await layout(dir), { packs: 2, loose: 0 });

  const log = result(await pterm(root.path, "git log --repo r --max 10"));
  assert.deepEqual(
    log.commits.map((c: { id: string; subject: string }) => `${c.id} ${c.subject}`),
    (await git(dir, "log", "--format=%H %s")).trim().split("\n"),
  );
  const diff = await pterm(root.path, "git diff --repo r HEAD~1 HEAD");
  assert.ok(diff.stdout.startsWith(await git(dir, "diff", "HEAD~1", "HEAD")), diff.stdout.slice(0, 400));
  await pterm(root.path, "git checkout --repo r HEAD~4");
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), body("first-1"));
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  await pterm(root.path, "git checkout --repo r main");
  await pterm(root.path, "git reset --repo r --hard HEAD~2");
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), body("second-0"));
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  await assertFsck(dir);
});

Deno.test("delta chains longer than 64 (pack.depth up to git's 4095) read right", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  // One file with one line rewritten per commit: each version is closest to its neighbours, so git
  // chains the deltas version after version.
  const lines: string[] = Array.from({ length: 400 }, (_, i) => `base line ${i} ${"x".repeat(40)}`);
  for (let i = 0; i < 160; i++) {
    lines[(i * 7) % lines.length] = `rewritten in commit ${i} ${"y".repeat(40)}`;
    await write(`${dir}/grow.txt`, lines.join("\n") + "\n");
    await git(dir, "add", "grow.txt");
    await git(dir, "commit", "-qm", `commit ${i}`);
  }
  await git(dir, "repack", "-q", "-a", "-d", "-f", "--depth=4095", "--window=4");
  const pack = (await git(dir, "rev-parse", "--git-path", "objects/pack")).trim();
  const idx = [...Deno.readDirSync(`${dir}/${pack}`)].find((e) => e.name.endsWith(".idx"))!.name;
  const verify = await git(dir, "verify-pack", "-v", `${pack}/${idx}`);
  const longest = Math.max(...[...verify.matchAll(/^chain length = (\d+):/gm)].map((m) => Number(m[1])));
  assert.ok(longest > 64, `the pack has a chain of ${longest}`);
  const expected = await gitObjects(dir);
  const store = new ObjectStore(`${dir}/.git`);
  for (const [oid, want] of expected) assert.deepEqual((await store.read(oid)).content, want.content, oid);
  const log = result(await pterm(root.path, "git log --repo r --max 200"));
  assert.equal(log.commits.length, 160);
});

Deno.test("the cache of decoded pack objects stays within 32 MiB while reading 48 MiB of delta-chained blobs", async () => {
  const { PackSet } = await import("../../../../commands/git/odb/pack.ts");
  const { inflate } = await import("../../../../commands/git/odb/codec.ts");
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const line = (i: number) => `${i.toString(36).padStart(8, "0")} ${"lorem ipsum dolor sit amet ".repeat(3)}\n`;
  const base = Array.from({ length: 50_000 }, (_, i) => line(i)); // about 4 MiB
  for (let version = 0; version < 12; version++) {
    base[version * 1000] = `version ${version}\n`;
    await Deno.writeTextFile(`${dir}/big.txt`, base.join(""));
    await git(dir, "add", "big.txt");
    await git(dir, "commit", "-qm", `v${version}`);
  }
  await git(dir, "repack", "-adq", "--depth=50");
  const blobs = (await git(dir, "log", "--format=%H")).trim().split("\n")
    .map(async (commit) => (await git(dir, "rev-parse", `${commit}:big.txt`)).trim());
  const packs = new PackSet(`${dir}/.git/objects`, inflate, () => Promise.resolve(null));
  let total = 0;
  for (const oid of await Promise.all(blobs)) {
    const object = await packs.read(oid);
    assert.ok(object, oid);
    total += object.content.length;
    assert.ok(packs.cachedBytes <= 32 * 1024 * 1024, `cache holds ${packs.cachedBytes} bytes`);
  }
  assert.ok(total > 40 * 1024 * 1024, `read ${total} bytes`);
});

Deno.test("a pack larger than the page cache: entries across page boundaries read as git reads them, the pages stay within 32 MiB, a cut pack is refused", async () => {
  const { PackSet } = await import("../../../../commands/git/odb/pack.ts");
  const { inflate } = await import("../../../../commands/git/odb/codec.ts");
  const { PtermError } = await import("../../../../core/errors.ts");
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  // Incompressible blobs of every size from a few bytes to past a page (256 KiB), about 40 MiB in
  // all, so entries start and end anywhere in a page and many span two or three pages; and a file
  // with many versions, so delta chains reach back across pages.
  const sizes = fc.sample(fc.oneof(fc.integer({ min: 1, max: 4000 }), fc.integer({ min: 200_000, max: 700_000 })), {
    numRuns: 190,
    seed: 30,
  });
  let seed = 7;
  const random = (size: number) => {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 24;
    return bytes;
  };
  const oids: string[] = [];
  for (const size of sizes) {
    oids.push(new TextDecoder().decode(await gitBytes(dir, ["hash-object", "-w", "--stdin"], random(size))).trim());
  }
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} ${"v".repeat(30)}\n`);
  for (let version = 0; version < 30; version++) {
    lines[(version * 97) % lines.length] = `changed in version ${version}\n`;
    const text = new TextEncoder().encode(lines.join(""));
    oids.push(new TextDecoder().decode(await gitBytes(dir, ["hash-object", "-w", "--stdin"], text)).trim());
  }
  const list = new TextEncoder().encode(oids.join("\n") + "\n");
  const name = new TextDecoder().decode(
    await gitBytes(dir, ["pack-objects", "-q", "--delta-base-offset", ".git/objects/pack/pack"], list),
  )
    .trim();
  const packPath = `${dir}/.git/objects/pack/pack-${name}.pack`;
  assert.ok(
    Deno.statSync(packPath).size > 34 * 1024 * 1024,
    `the pack (${Deno.statSync(packPath).size} bytes) is larger than the page cache`,
  );
  const expected = await gitObjects(dir);
  const packs = new PackSet(`${dir}/.git/objects`, inflate, () => Promise.resolve(null));
  // Read in an order that jumps about the pack (each object once, then again).
  const order = fc.sample(fc.shuffledSubarray(oids, { minLength: oids.length }), { numRuns: 1, seed: 3 })[0];
  for (const oid of [...order, ...order.slice().reverse()]) {
    const object = await packs.read(oid);
    assert.ok(object, oid);
    assert.equal(object.type, "blob");
    assert.deepEqual(object.content, expected.get(oid)!.content, oid);
    assert.ok(packs.pageBytes <= 32 * 1024 * 1024, `pages hold ${packs.pageBytes} bytes`);
  }
  // The same pack cut short inside its last entry: every object in the lost part is refused as corrupt.
  const bytes = Deno.readFileSync(packPath);
  const cut = bytes.length - 20 - 1000;
  Deno.writeFileSync(packPath, bytes.subarray(0, cut));
  const afterCut = new PackSet(`${dir}/.git/objects`, inflate, () => Promise.resolve(null));
  const index = new TextDecoder().decode(
    await gitBytes(dir, ["show-index"], Deno.readFileSync(packPath.replace(/\.pack$/, ".idx"))),
  );
  const entries = index.trim().split("\n").map((l) => l.split(" ")).map(([offset, oid]) => ({
    offset: Number(offset),
    oid,
  }));
  const last = entries.reduce((a, b) => (b.offset > a.offset ? b : a));
  await assert.rejects(
    () => afterCut.read(last.oid),
    (error: unknown) => error instanceof PtermError && error.code === "CorruptRepository",
  );
  // The objects wholly before the cut still read as git read them.
  for (const { oid, offset } of entries.filter((e) => e.offset < cut - 1_000_000).slice(0, 20)) {
    const object = await afterCut.read(oid);
    assert.ok(object, `${oid} at ${offset}`);
  }
});

Deno.test("a pack of REF_DELTA entries (git pack-objects without --delta-base-offset) reads as git reads it", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const lines = Array.from({ length: 300 }, (_, i) => `line ${i} ${"r".repeat(30)}`);
  for (let version = 0; version < 20; version++) {
    lines[(version * 13) % lines.length] = `version ${version}`;
    await write(`${dir}/f.txt`, lines.join("\n") + "\n");
    await git(dir, "add", "f.txt");
    await git(dir, "commit", "-qm", `v${version}`);
  }
  const oids = (await git(dir, "rev-list", "--objects", "--all")).trim().split("\n").map((l) => l.split(" ")[0]);
  const list = new TextEncoder().encode(oids.join("\n") + "\n");
  await gitBytes(dir, ["pack-objects", "-q", ".git/objects/pack/pack"], list);
  await git(dir, "prune-packed");
  const expected = await gitObjects(dir);
  assert.equal((await layout(dir)).loose, 0);
  const store = new ObjectStore(`${dir}/.git`);
  for (const [oid, want] of expected) {
    const object = await store.read(oid);
    assert.equal(object.type, want.type, oid);
    assert.deepEqual(object.content, want.content, oid);
  }
});
