/**
 * `git status` against the real git's `status --porcelain=v2`: fixed scenarios (racy edits,
 * type changes, executable bits, staged deletions, nested repositories) and a property test
 * over random trees and random edits.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, gitInit, gitRaw, porcelainCounts, porcelainFiles, pterm, result, write } from "../oracle.ts";

async function ptermFiles(root: string, repo: string): Promise<{ files: string[]; counts: unknown; clean: boolean }> {
  const r = result(await pterm(root, `git status --repo ${repo}`));
  return {
    files: r.files.map((f: { xy: string; path: string }) => `${f.xy} ${f.path}`).sort(),
    counts: r.counts,
    clean: r.is_clean,
  };
}

async function assertSameStatus(root: string, repo: string, note = ""): Promise<void> {
  const ours = await ptermFiles(root, repo);
  const theirs = await porcelainCounts(`${root}/${repo}`);
  assert.deepEqual(ours.files, await porcelainFiles(`${root}/${repo}`), `files ${note}`);
  assert.deepEqual(ours.counts, theirs.counts, `counts ${note}`);
  assert.equal(ours.clean, theirs.lines.length === 0);
}

Deno.test("status matches git on staged, unstaged, untracked, deleted and type-changed files", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/a.txt`, "a\n");
  await write(`${dir}/b.txt`, "b\n");
  await write(`${dir}/c/d.txt`, "d\n");
  await write(`${dir}/c/e.txt`, "e\n");
  await write(`${dir}/run.sh`, "#!/bin/sh\n");
  await write(`${dir}/link-target.txt`, "t\n");
  await Deno.symlink("link-target.txt", `${dir}/link`);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await assertSameStatus(root.path, "r", "clean");

  await write(`${dir}/a.txt`, "A\n"); // same size, racy: written right after the index
  await write(`${dir}/b.txt`, "bb\n");
  await git(dir, "add", "b.txt");
  await write(`${dir}/b.txt`, "bbb\n"); // staged and modified again
  await Deno.remove(`${dir}/c/d.txt`);
  await git(dir, "rm", "-q", "--cached", "c/e.txt"); // staged removal, file stays untracked
  await Deno.chmod(`${dir}/run.sh`, 0o755);
  await Deno.remove(`${dir}/link`);
  await write(`${dir}/link`, "now a file\n"); // symlink → file: a type change
  await write(`${dir}/new/deep/file.txt`, "n\n");
  await write(`${dir}/added.txt`, "x\n");
  await git(dir, "add", "added.txt");
  await assertSameStatus(root.path, "r", "mixed changes");
});

Deno.test("status: nested repositories, empty folders and a file replaced by a folder", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/x`, "x\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await gitInit(`${dir}/inner`);
  await write(`${dir}/inner/f.txt`, "f\n");
  await Deno.mkdir(`${dir}/empty/deeper`, { recursive: true });
  await Deno.remove(`${dir}/x`);
  await write(`${dir}/x/inside.txt`, "i\n");
  await assertSameStatus(root.path, "r");
});

Deno.test("status reads an index written by git in version 4 and 3", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  for (let i = 0; i < 30; i++) await write(`${dir}/dir${i % 3}/sub/file-${i}.txt`, `${i}\n`);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await git(dir, "update-index", "--index-version", "4");
  await write(`${dir}/dir1/sub/file-1.txt`, "changed\n");
  await assertSameStatus(root.path, "r", "v4");
  await git(dir, "add", "-N", "dir2/new.txt").catch(() => {});
  await write(`${dir}/dir2/intent.txt`, "i\n");
  await git(dir, "add", "-N", "dir2/intent.txt");
  await git(dir, "update-index", "--index-version", "3");
  await assertSameStatus(root.path, "r", "v3 with intent-to-add");
});

Deno.test("status, add, commit and diff with non-ASCII and spaced file names", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const names = ["é.txt", "日本/語.md", "with space.txt", "z-last.txt", "a-first.txt", "ä/ö ü.txt"];
  for (const name of names) await write(`${dir}/${name}`, `${name}\n`);
  await assertSameStatus(root.path, "r", "untracked unicode");
  await pterm(root.path, "git add --repo r --all");
  await assertSameStatus(root.path, "r", "staged unicode");
  await pterm(root.path, "git commit --repo r -m unicode");
  await assertSameStatus(root.path, "r", "committed unicode");
  assert.equal(
    (await git(dir, "ls-files", "-z")).split("\0").filter(Boolean).sort().join("|"),
    [...names].sort().join("|"),
  );
  await write(`${dir}/é.txt`, "changed\n");
  const patch = (await pterm(root.path, "git diff --repo r")).stdout;
  await git(dir, "checkout", "--", "é.txt");
  const applied = await gitRaw(dir, ["apply", "-"], patch);
  assert.equal(applied.code, 0, applied.stderr + patch);
  assert.equal(await Deno.readTextFile(`${dir}/é.txt`), "changed\n");
});

const NAMES = ["a", "b", "c.txt", "d.md", "e.log", "f"];
const DIRS = ["", "src/", "src/lib/", "docs/", "build/"];

const pathArb = fc.tuple(fc.constantFrom(...DIRS), fc.constantFrom(...NAMES)).map(([d, n]) => d + n);
const contentArb = fc.constantFrom("one\n", "two\n", "three\n", "", "x".repeat(40) + "\n", "one\ntwo\n");
const editArb = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), path: pathArb, content: contentArb }),
  fc.record({ kind: fc.constant("delete" as const), path: pathArb }),
  fc.record({ kind: fc.constant("stage" as const), path: pathArb }),
  fc.record({ kind: fc.constant("chmod" as const), path: pathArb }),
);

Deno.test("property: random trees and edits give the same status as git", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(pathArb, contentArb), { minLength: 1, maxLength: 12 }),
      fc.array(editArb, { maxLength: 12 }),
      fc.constantFrom("", "*.log\n", "build/\n", "*.md\n!docs/d.md\n", "src/lib\n"),
      async (initial, edits, gitignore) => {
        await using root = await makeRoot();
        const dir = `${root.path}/r`;
        await gitInit(dir);
        const exists = new Set<string>();
        const isDirPath = (p: string) => [...exists].some((e) => e.startsWith(p + "/"));
        for (const [path, content] of initial) {
          if (isDirPath(path) || [...exists].some((e) => path.startsWith(e + "/"))) continue;
          await write(`${dir}/${path}`, content);
          exists.add(path);
        }
        if (gitignore) await write(`${dir}/.gitignore`, gitignore);
        await git(dir, "add", "-A");
        await git(dir, "commit", "-qm", "base", "--allow-empty");
        for (const edit of edits) {
          const abs = `${dir}/${edit.path}`;
          if (edit.kind === "write") {
            if (isDirPath(edit.path) || [...exists].some((e) => edit.path.startsWith(e + "/"))) continue;
            await write(abs, edit.content);
            exists.add(edit.path);
          } else if (edit.kind === "delete" && exists.has(edit.path)) {
            await Deno.remove(abs);
            exists.delete(edit.path);
          } else if (edit.kind === "stage") {
            await git(dir, "add", "-A", "--", edit.path).catch(() => {});
          } else if (edit.kind === "chmod" && exists.has(edit.path)) {
            await Deno.chmod(abs, 0o755);
          }
        }
        await assertSameStatus(root.path, "r", JSON.stringify({ initial, edits, gitignore }));
      },
    ),
    { numRuns: 25 },
  );
});
