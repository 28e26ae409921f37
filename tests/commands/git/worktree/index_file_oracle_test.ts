/**
 * `parseIndex` against the real git's own account of the same index file (`git ls-files --debug`):
 * every entry's name (as bytes), mode, object id, stage, stat data and flags, for indexes real git
 * wrote in versions 2, 3 and 4 (4 compresses each name against the one before it). The names mix
 * ASCII, UTF-8 whose bytes fall in 0x80–0x9f (where a Latin-1 or Windows-1252 reading of the file
 * differs from its bytes) and, through a shell, a name that is not UTF-8 at all.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { encodeName } from "../../../../commands/git/odb/bytes.ts";
import { parseIndex } from "../../../../commands/git/worktree/index_file.ts";
import { git, GIT_ENV, gitInit } from "../oracle.ts";

interface GitEntry {
  readonly tag: string;
  readonly mode: number;
  readonly oid: string;
  readonly stage: number;
  readonly name: Uint8Array;
  readonly debug: Record<string, number[]>;
}

/** `git ls-files --debug -v -s -z`, record by record: `tag mode oid stage\tname\0` then the stat lines. */
async function gitEntries(dir: string): Promise<GitEntry[]> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "--debug", "-v", "-s", "-z"],
    cwd: dir,
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const bytes = out.stdout;
  const text = (from: number, to: number) => new TextDecoder().decode(bytes.subarray(from, to));
  const entries: GitEntry[] = [];
  let at = 0;
  while (at < bytes.length) {
    const tab = bytes.indexOf(0x09, at);
    const nul = bytes.indexOf(0, tab);
    const flagsAt = bytes.indexOf(0x0a, text(nul + 1, bytes.length).indexOf("flags:") + nul + 1);
    const [tag, mode, oid, stage] = text(at, tab).split(" ");
    const debug: Record<string, number[]> = {};
    for (const [, key, value] of text(nul + 1, flagsAt).matchAll(/(\w+): ([0-9a-f:]+)/g)) {
      debug[key] = key === "flags" ? [parseInt(value, 16)] : value.split(":").map(Number);
    }
    entries.push({ tag, mode: parseInt(mode, 8), oid, stage: Number(stage), name: bytes.slice(tab + 1, nul), debug });
    at = flagsAt + 1;
  }
  return entries;
}

/** Compares what pterm read from the index with what git says of it, entry by entry, in index order. */
async function assertSameAsGit(dir: string, intentToAdd: ReadonlySet<string>): Promise<void> {
  const index = parseIndex(await Deno.readFile(`${dir}/.git/index`));
  const ours = index.sorted();
  const theirs = await gitEntries(dir);
  assert.equal(ours.length, theirs.length);
  for (const [i, entry] of ours.entries()) {
    const real = theirs[i];
    const where = `entry ${i} (${entry.path})`;
    assert.deepEqual(encodeName(entry.path), real.name, where);
    assert.equal(entry.mode, real.mode, where);
    assert.equal(entry.oid, real.oid, where);
    assert.equal(entry.stage, real.stage, where);
    assert.deepEqual([entry.ctimeS, entry.ctimeNs], real.debug.ctime, where);
    assert.deepEqual([entry.mtimeS, entry.mtimeNs], real.debug.mtime, where);
    assert.deepEqual([entry.dev, entry.ino, entry.uid, entry.gid, entry.size], [
      real.debug.dev[0],
      real.debug.ino[0],
      real.debug.uid[0],
      real.debug.gid[0],
      real.debug.size[0],
    ], where);
    // `-v` tags an assume-unchanged entry in lowercase.
    assert.equal(entry.assumeValid, real.tag === real.tag.toLowerCase(), where);
    assert.equal(entry.intentToAdd, intentToAdd.has(entry.path), where);
  }
}

/** One name of a path: ASCII, and UTF-8 with bytes in 0x80–0x9f (U+0080 is C2 80, U+00C0 is C3 80, € is E2 82 AC). */
const segment = fc.stringMatching(/^[a-z0-9][a-z0-9 ._-]{0,6}$/).chain((ascii) =>
  fc.constantFrom("", "é", "\u0080", "\u00c0", "€", "日本", "\u0099x").map((extra) => ascii + extra)
);

const pathsArb = fc.uniqueArray(fc.array(segment, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 })
  .map((lists) => {
    // No path may be both a file and a folder of another.
    const paths: string[] = [];
    for (const path of lists.map((segments) => segments.join("/"))) {
      if (paths.some((p) => p === path || p.startsWith(path + "/") || path.startsWith(p + "/"))) continue;
      paths.push(path);
    }
    return paths;
  });

Deno.test("parseIndex reads what real git wrote, in index versions 2, 3 and 4, name by name and field by field", async () => {
  const base = await Deno.makeTempDir({ prefix: "pterm-index-oracle-" });
  let run = 0;
  try {
    await fc.assert(
      fc.asyncProperty(pathsArb, fc.boolean(), fc.boolean(), async (paths, latin1Name, markSome) => {
        const dir = `${base}/r${run++}`;
        await gitInit(dir);
        for (const [i, path] of paths.entries()) {
          const slash = path.lastIndexOf("/");
          if (slash > 0) await Deno.mkdir(`${dir}/${path.slice(0, slash)}`, { recursive: true });
          await Deno.writeTextFile(`${dir}/${path}`, `file ${i}\n`.repeat(i + 1));
        }
        if (latin1Name) {
          // Deno names files in UTF-8 only: a shell makes the Latin-1 `café.txt`.
          const made = await new Deno.Command("sh", {
            args: ["-c", `printf 'x\\n' > "$(printf 'caf\\351.txt')"`],
            cwd: dir,
          })
            .output();
          assert.ok(made.success);
        }
        await git(dir, "add", "-A");
        const intentToAdd = new Set<string>();
        if (markSome) {
          await git(dir, "update-index", "--assume-unchanged", "--", paths[0]);
          // An intent-to-add entry needs the extended flags (version 3 or 4).
          await Deno.writeTextFile(`${dir}/zz-intent.txt`, "later\n");
          await git(dir, "add", "-N", "zz-intent.txt");
          intentToAdd.add("zz-intent.txt");
        }
        for (const version of markSome ? ["3", "4"] : ["2", "3", "4"]) {
          await git(dir, "update-index", "--index-version", version);
          await assertSameAsGit(dir, intentToAdd);
        }
      }),
      { numRuns: 12 },
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
