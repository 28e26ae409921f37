/**
 * Clones of large blobs (made by the real git, served by `git http-backend`): the indexer hashes
 * a large whole blob piece by piece and the checkout streams it from the pack into its file
 * (lib/inflate.ts inflateStreaming). The oracle is the real git's clone of the same server:
 * identical bytes, index and refs, `fsck --strict` clean; then checkouts back and forth through
 * the ordinary work-tree writer (a delta on the large blob is decoded whole), and a large file
 * whose line endings change on checkout (written whole, converted); and a large file checked out
 * from a delta (hashed while indexing and written while checking out piece by piece, its base
 * spilled to a temporary file, which a killed pterm's next fetch removes).
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace } from "./fixture.ts";
import { concatBytes } from "../../../../core/bytes.ts";

/** `n` bytes of a deterministic mix: incompressible runs (stored blocks), text (Huffman codes, matches) and long repeats. */
function mixedBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let state = seed >>> 0;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const words = ["lorem ", "ipsum ", "dolor\n", "sit ", "amet, ", "\0\0\0\0", "consectetur "].map((w) =>
    new TextEncoder().encode(w)
  );
  let o = 0;
  while (o < n) {
    const kind = next() % 3;
    const run = Math.min(n - o, 1 + (next() % 300_000));
    if (kind === 0) { for (let k = 0; k < run; k++) out[o + k] = next() & 0xff; }
    else if (kind === 1) {
      for (let k = 0; k < run;) {
        const word = words[next() % words.length];
        for (let b = 0; b < word.length && k < run; b++) out[o + k++] = word[b];
      }
    } else out.fill(next() & 0xff, o, o + run);
    o += run;
  }
  return out;
}

async function sameFile(a: string, b: string): Promise<void> {
  const digest = async (path: string) =>
    Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(path))));
  assert.deepEqual(await digest(a), await digest(b), `${a} differs from ${b}`);
}

Deno.test("clone of large blobs: streamed into the pack index and the work tree, identical to the real git's clone", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await server.createBare("big.git");
  const src = `${work.path}/src`;
  await git(work.path, "init", "--quiet", "--initial-branch=main", src);
  // A large text file under eol=crlf: the checkout converts it, so it is written whole.
  await Deno.writeTextFile(`${src}/.gitattributes`, "*.txt text eol=crlf\n");
  await Deno.writeTextFile(`${src}/notes.txt`, "line of notes\n".repeat(150_000));
  const big = mixedBytes(12 * 1024 * 1024, 7);
  await Deno.writeFile(`${src}/big.bin`, big);
  await Deno.writeFile(`${src}/small.bin`, mixedBytes(5000, 3));
  await git(src, "add", "-A");
  await git(src, "commit", "--quiet", "-m", "large files");
  // A second version close to the first: git stores one of the two as a delta on the other.
  big.set(mixedBytes(100_000, 11), 3_000_000);
  await Deno.writeFile(`${src}/big.bin`, big);
  await git(src, "commit", "--quiet", "-am", "edit the large file");
  // A third large blob of its own, under a folder and executable.
  await Deno.mkdir(`${src}/data`);
  await Deno.writeFile(`${src}/data/other.bin`, mixedBytes(6 * 1024 * 1024, 5));
  await Deno.chmod(`${src}/data/other.bin`, 0o755);
  await git(src, "add", "-A");
  await git(src, "commit", "--quiet", "-m", "another");
  await git(src, "push", "--quiet", server.url("big.git"), "main");

  await using root = await allowedWorkspace(server);
  const url = server.url("big.git");
  await execOk(root.path, `git clone --url ${url} --dir big --confirm`);
  const real = `${work.path}/real`;
  await git(work.path, "clone", "--quiet", url, real);
  const mine = `${root.path}/big`;
  for (const path of ["big.bin", "data/other.bin", "notes.txt", "small.bin", ".gitattributes"]) {
    await sameFile(`${mine}/${path}`, `${real}/${path}`);
  }
  assert.equal((await Deno.stat(`${mine}/data/other.bin`)).mode! & 0o111, 0o111);
  assert.equal(await git(mine, "ls-files", "--stage"), await git(real, "ls-files", "--stage"));
  assert.equal(await git(mine, "show-ref"), await git(real, "show-ref"));
  assert.equal(await git(mine, "status", "--porcelain"), "");
  // pterm's .idx is the real git's own for the pack pterm received.
  const packs = [...Deno.readDirSync(`${mine}/.git/objects/pack`)].map((e) => e.name).filter((n) =>
    n.endsWith(".pack")
  );
  assert.equal(packs.length, 1);
  const idx = `${mine}/.git/objects/pack/${packs[0].replace(/\.pack$/, ".idx")}`;
  await git(work.path, "index-pack", "-o", `${work.path}/oracle.idx`, `${mine}/.git/objects/pack/${packs[0]}`);
  assert.deepEqual(await Deno.readFile(idx), await Deno.readFile(`${work.path}/oracle.idx`));
  await assertFsck(mine);
  // The older big.bin is a delta on the newer (a large deltified blob is decoded whole).
  assert.match(await git(mine, "verify-pack", "-v", idx), /^\S+ blob +\d+ \d+ \d+ 1 \S+$/m);

  // Back and forth through the ordinary checkout: the older version (a delta, or the base of one)
  // and the newer again, each byte-identical to the real git's checkout of the same commit.
  for (const rev of ["HEAD~1", "main"]) {
    const detach = rev === "main" ? "main" : (await git(real, "rev-parse", rev)).trim();
    await execOk(root.path, `git checkout --repo big ${detach}`);
    await git(real, "checkout", "--quiet", detach);
    for (const path of ["big.bin", "notes.txt", "small.bin"]) await sameFile(`${mine}/${path}`, `${real}/${path}`);
    assert.equal(await git(mine, "status", "--porcelain"), "");
  }
  await assertFsck(mine);
});

Deno.test("blob sources read from a pack piece by piece: interleaved and repeated pipes give the real git's bytes", async () => {
  const { ObjectStore } = await import("../../../../commands/git/odb/objects.ts");
  await using work = await makeRoot();
  const dir = `${work.path}/r`;
  await git(work.path, "init", "--quiet", dir);
  // Random bytes do not compress: each large one needs several reads of the shared 1 MiB buffer.
  const random = (n: number) => {
    const bytes = new Uint8Array(n);
    for (let at = 0; at < n; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536));
    return bytes;
  };
  await Deno.writeFile(`${dir}/a.bin`, random(3 * 1024 * 1024));
  await Deno.writeFile(`${dir}/b.bin`, random(2 * 1024 * 1024 + 7));
  await Deno.writeTextFile(`${dir}/small.txt`, "small\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "--quiet", "-m", "blobs");
  await git(dir, "gc", "--quiet");
  const oid = async (path: string) => (await git(dir, "rev-parse", `HEAD:${path}`)).trim();
  const real = async (id: string) =>
    (await new Deno.Command("git", { args: ["cat-file", "blob", id], cwd: dir, stdout: "piped" }).output()).stdout;
  const [a, b, small] = [await oid("a.bin"), await oid("b.bin"), await oid("small.txt")];
  const expected = new Map([[a, await real(a)], [b, await real(b)], [small, await real(small)]]);
  const store = new ObjectStore(`${dir}/.git`);
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
  const sourceA = store.largeBlob(a, 0)!;
  const sourceSmall = store.largeBlob(small, 0)!;
  const sourceB = store.largeBlob(b, 1024 * 1024)!;
  // Piped in another order than made, and each twice: every pipe reads what it needs again.
  for (
    const [id, source] of [[b, sourceB], [small, sourceSmall], [a, sourceA], [small, sourceSmall], [
      a,
      sourceA,
    ]] as const
  ) {
    assert.deepEqual(bytesOf(source), expected.get(id), id);
  }
  // The same source twice in a row: its first bytes were overwritten by its own later reads.
  const again = store.largeBlob(b, 0)!;
  assert.deepEqual(bytesOf(again), expected.get(b));
  assert.deepEqual(bytesOf(again), expected.get(b));
  assert.equal(store.largeBlob(b, 3 * 1024 * 1024), null, "smaller than the threshold");
  assert.equal(store.largeBlob((await git(dir, "rev-parse", "HEAD^{tree}")).trim(), 0), null, "a tree");
});

Deno.test("clone of a large file checked out from a delta: hashed and written piece by piece, identical to the real git's clone", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const bare = await server.createBare("delta.git");
  const src = `${work.path}/src`;
  await git(work.path, "init", "--quiet", "--initial-branch=main", src);
  // The older version is the larger, so git keeps it whole and stores the one checked out as a
  // delta on it: the base (9 MiB) is past both the indexer's ring and the reader's cache.
  const large = mixedBytes(9 * 1024 * 1024, 7);
  await Deno.writeFile(
    `${src}/large.bin`,
    concatBytes([large.subarray(0, 4_000_000), mixedBytes(1024 * 1024, 11), large.subarray(4_000_000)]),
  );
  await git(src, "add", "large.bin");
  await git(src, "commit", "--quiet", "-m", "a large file");
  await Deno.writeFile(`${src}/large.bin`, large);
  await git(src, "commit", "--quiet", "-am", "shorter");
  await git(src, "push", "--quiet", `file://${bare}`, "main");
  await git(bare, "repack", "-a", "-d", "-f", "-q");
  const oid = (await git(bare, "rev-parse", "main:large.bin")).trim();
  const idxName = [...Deno.readDirSync(`${bare}/objects/pack`)].find((e) => e.name.endsWith(".idx"))!.name;
  assert.match(
    await git(bare, "verify-pack", "-v", `objects/pack/${idxName}`),
    new RegExp(`^${oid} blob +\\d+ \\d+ \\d+ 1 `, "m"),
  );

  await using root = await allowedWorkspace(server);
  const url = server.url("delta.git");
  await execOk(root.path, `git clone --url ${url} --dir delta --confirm`);
  const real = `${work.path}/real`;
  await git(work.path, "clone", "--quiet", url, real);
  const mine = `${root.path}/delta`;
  await sameFile(`${mine}/large.bin`, `${real}/large.bin`);
  assert.equal(await git(mine, "ls-files", "--stage"), await git(real, "ls-files", "--stage"));
  assert.equal(await git(mine, "status", "--porcelain"), "");
  const packs = [...Deno.readDirSync(`${mine}/.git/objects/pack`)].map((e) => e.name).filter((n) =>
    n.endsWith(".pack")
  );
  assert.equal(packs.length, 1);
  await git(work.path, "index-pack", "-o", `${work.path}/oracle.idx`, `${mine}/.git/objects/pack/${packs[0]}`);
  assert.deepEqual(
    await Deno.readFile(`${mine}/.git/objects/pack/${packs[0].replace(/\.pack$/, ".idx")}`),
    await Deno.readFile(`${work.path}/oracle.idx`),
  );
  await assertFsck(mine);
  // The base was spilled to a temporary file while indexing and while checking out: none is left.
  const temporaries = () =>
    [...Deno.readDirSync(`${mine}/.git/objects/pack`)].map((e) => e.name).filter((n) => n.startsWith("tmp_"));
  assert.deepEqual(temporaries(), []);
  // What comes next: the older version (the base, whole) and back to the delta, as the real git's checkouts.
  for (const rev of ["HEAD~1", "main"]) {
    const target = rev === "main" ? "main" : (await git(real, "rev-parse", rev)).trim();
    await execOk(root.path, `git checkout --repo delta ${target}`);
    await git(real, "checkout", "--quiet", target);
    await sameFile(`${mine}/large.bin`, `${real}/large.bin`);
    assert.equal(await git(mine, "status", "--porcelain"), "");
  }
  assert.deepEqual(temporaries(), []);
  await assertFsck(mine);
  // A spilled base a killed pterm left (no process holds its lock) goes with the next fetch.
  Deno.writeFileSync(`${mine}/.git/objects/pack/tmp_base_0123abcd`, new Uint8Array(1000));
  await execOk(root.path, "git fetch --repo delta --confirm");
  assert.deepEqual(temporaries(), []);
  await assertFsck(mine);
});

Deno.test("a checkout that meets a damaged large blob midway leaves the file it would replace as it was", async () => {
  await using root = await makeRoot();
  const repo = `${root.path}/r`;
  await git(root.path, "init", "--quiet", "--initial-branch=main", repo);
  // Text (Huffman-coded, so damage to it is noticed), 10 MiB: read from the pack piece by piece.
  const words = ["lorem ", "ipsum ", "dolor\n", "sit ", "amet, "];
  let text = "";
  for (let i = 0; text.length < 10 * 1024 * 1024; i++) text += words[(i * 7919) % 5] + (i % 1000);
  await Deno.writeTextFile(`${repo}/large.txt`, text);
  await git(repo, "add", "large.txt");
  await git(repo, "commit", "--quiet", "-m", "first");
  const edited = text.slice(0, 5_000_000) + "an edit in the middle\n" + text.slice(5_000_000);
  await Deno.writeTextFile(`${repo}/large.txt`, edited);
  await git(repo, "commit", "--quiet", "-am", "second");
  await git(repo, "gc", "--quiet");
  const first = (await git(repo, "rev-parse", "HEAD~1")).trim();
  // Damage the whole (not delta) copy of the file in the pack: whichever version it is, the
  // checkout of the first commit reads it, as the blob or as the base of its delta.
  const packDir = `${repo}/.git/objects/pack`;
  const idx = [...Deno.readDirSync(packDir)].find((e) => e.name.endsWith(".idx"))!.name;
  const whole = (await git(repo, "verify-pack", "-v", `.git/objects/pack/${idx}`)).split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find((f) => f[1] === "blob" && f.length === 5 && Number(f[2]) > 8 * 1024 * 1024)!;
  const [offset, stored] = [Number(whole[4]), Number(whole[3])];
  const packPath = `${packDir}/${idx.replace(/\.idx$/, ".pack")}`;
  await Deno.chmod(packPath, 0o644);
  const pack = await Deno.readFile(packPath);
  pack.fill(0, offset + Math.floor(stored / 2), offset + Math.floor(stored / 2) + 4096);
  await Deno.writeFile(packPath, pack);

  const failed = await exec(root.path, `git checkout --repo r ${first}`);
  assert.equal(failed.error_code, "CorruptRepository", failed.stderr);
  assert.equal(await Deno.readTextFile(`${repo}/large.txt`), edited, "the file is as it was");
  assert.deepEqual(
    [...Deno.readDirSync(repo)].map((e) => e.name).sort(),
    [".git", "large.txt"],
    "no temporary file is left",
  );
  assert.deepEqual([...Deno.readDirSync(packDir)].filter((e) => e.name.startsWith("tmp_")), []);
});
