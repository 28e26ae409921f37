/**
 * Line endings, final newlines and bytes through `git.diff`: a file keeps its
 * line-ending style and its final-newline state unless the diff clearly changes them, and a diff
 * real git wrote of a CRLF or mixed file applies byte for byte, as `git apply` applies it.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { apply, block, git, patchOf, writeTree } from "./helpers.ts";

const decoder = new TextDecoder();

async function applyDiff(root: string, diffLines: string[]) {
  const env = await apply(root, patchOf(block("git.diff", ".", diffLines)));
  assert.equal(env.exit_code, 0, env.stderr);
}

Deno.test("CRLF lines pasted into an LF patch write no \\r into an LF file", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "app.py": "import os\n\ndef main():\n    return 0\n" });
  await applyDiff(dir.path, [
    "--- a/app.py",
    "+++ b/app.py",
    "@@ -1,4 +1,5 @@",
    " import os\r",
    "+import sys\r",
    " \r",
    " def main():",
    "-    return 0",
    "+    return 1\r",
  ]);
  assert.equal(await Deno.readTextFile(`${dir.path}/app.py`), "import os\nimport sys\n\ndef main():\n    return 1\n");
});

Deno.test("an LF patch keeps a CRLF file CRLF, also when some of its lines came with CRLF", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "w.txt": "one\r\ntwo\r\nthree\r\n" });
  const env = await apply(
    dir.path,
    patchOf(block("git.diff", "w.txt", ["@@ -1,3 +1,4 @@", " one", "-two", "+TWO", "+TWO and a half\r", " three"])),
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/w.txt`), "one\r\nTWO\r\nTWO and a half\r\nthree\r\n");
});

Deno.test("a hunk without `\\ No newline at end of file` adds no final newline to a file that had none", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "lf.txt": "a\nb", "crlf.txt": "a\r\nb" });
  await applyDiff(dir.path, ["--- a/lf.txt", "+++ b/lf.txt", "@@ -1,2 +1,3 @@", " a", " b", "+c"]);
  assert.equal(await Deno.readTextFile(`${dir.path}/lf.txt`), "a\nb\nc");
  await applyDiff(dir.path, ["--- a/lf.txt", "+++ b/lf.txt", "@@ -2,2 +2,2 @@", " b", "-c", "+C"]);
  assert.equal(await Deno.readTextFile(`${dir.path}/lf.txt`), "a\nb\nC");
  await applyDiff(dir.path, ["--- a/crlf.txt", "+++ b/crlf.txt", "@@ -1,2 +1,2 @@", " a", "-b", "+B"]);
  assert.equal(await Deno.readTextFile(`${dir.path}/crlf.txt`), "a\r\nB");
  // The marker on the old side only: the diff clearly adds the newline.
  await applyDiff(dir.path, [
    "--- a/lf.txt",
    "+++ b/lf.txt",
    "@@ -3 +3 @@",
    "-C",
    "\\ No newline at end of file",
    "+C",
  ]);
  assert.equal(await Deno.readTextFile(`${dir.path}/lf.txt`), "a\nb\nC\n");
});

/** The same edit made by real git and applied by `git apply` and by pterm gives the same bytes. */
Deno.test("diffs real git wrote of CRLF, mixed and no-final-newline files apply byte for byte", async () => {
  const cases: Record<string, [string, string]> = {
    "crlf.txt": ["a\r\nb\r\nc\r\n", "a\r\nB\r\nnew\r\nc\r\n"],
    "mixed.txt": ["lf\ncrlf\r\nlf2\n", "lf\ncrlf\r\nadded lf\nadded crlf\r\nlf2\n"],
    "crlf-to-lf.txt": ["x\r\ny\r\nz\r\n", "x\r\ny\nz\r\n"],
    "lose-newline.txt": ["p\nq\n", "p\nq"],
    "crlf-lose.txt": ["p\r\nq\r\n", "p\r\nQ"],
    "gain-newline.txt": ["p\nq", "p\nq\nr\n"],
  };
  await using dir = await makeRoot();
  const r = `${dir.path}/r`;
  const before = Object.fromEntries(Object.entries(cases).map(([p, [b]]) => [p, b]));
  await writeTree(r, before);
  await git(r, "init", "-q", "-b", "main");
  await git(r, "config", "core.autocrlf", "false");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await writeTree(r, Object.fromEntries(Object.entries(cases).map(([p, [, a]]) => [p, a])));
  const diff = await git(r, "diff");
  await new Deno.Command("git", { args: ["checkout", "--", "."], cwd: r }).output();
  const env = await apply(dir.path, patchOf(block("git.diff", ".", diff.replace(/\n$/, "").split("\n"))), "--repo r");
  assert.equal(env.exit_code, 0, env.stderr);
  for (const [path, [, after]] of Object.entries(cases)) {
    assert.equal(decoder.decode(await Deno.readFile(`${r}/${path}`)), after, path);
  }
});

Deno.test("a diff of a file that is not UTF-8 (Latin-1) applies byte for byte from --file, as git apply; never U+FFFD", async () => {
  await using dir = await makeRoot();
  const r = `${dir.path}/r`;
  const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  await writeTree(r, { "f.txt": latin1("caf\xe9\nna\xefve\nend\n"), "g.txt": latin1("\xff\xfe odd\n") });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await writeTree(r, {
    "f.txt": latin1("caf\xe9 cr\xe8me\nna\xefve\nend\n"),
    "g.txt": latin1("\xff\xfe odd\nnew \xa9\n"),
  });
  const diff = new Uint8Array(
    await new Deno.Command("git", { args: ["diff"], cwd: r, stdout: "piped" }).output().then((o) => o.stdout),
  );
  const expected = { f: await Deno.readFile(`${r}/f.txt`), g: await Deno.readFile(`${r}/g.txt`) };
  await git(r, "checkout", "--", ".");
  const enc = new TextEncoder();
  const patch = new Uint8Array([
    ...enc.encode('=== git.diff: "." ===\n'),
    ...diff,
    ...enc.encode("=== end ===\n=== PATCH EOF ===\n"),
  ]);
  await writeTree(dir.path, { "latin1.patch": patch });
  const env = await apply(dir.path, "", "--repo r --file latin1.patch");
  assert.equal(env.exit_code, 0, env.stderr);
  assert.deepEqual(await Deno.readFile(`${r}/f.txt`), expected.f);
  assert.deepEqual(await Deno.readFile(`${r}/g.txt`), expected.g);
  await git(r, "fsck", "--strict");
  // The same bytes on stdin, which carries text only, are refused with a precise code, not mangled.
  await git(r, "reset", "-q", "--hard", "HEAD~1");
  const viaStdin = await apply(dir.path, new TextDecoder().decode(patch), "--repo r");
  // (decoded here with U+FFFD, as a client that mangles bytes would: the hunks then do not match)
  assert.notEqual(viaStdin.exit_code, 0);
  assert.deepEqual(await Deno.readFile(`${r}/f.txt`), latin1("caf\xe9\nna\xefve\nend\n"));
});

Deno.test("a diff real git made of this very file (its index line names the file's blob) keeps its line endings, as git apply", async () => {
  await using dir = await makeRoot();
  const r = `${dir.path}/r`;
  await writeTree(r, { "lf.txt": "a\nb\nc\n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "config", "core.autocrlf", "false");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await writeTree(r, { "lf.txt": "a\r\nb\r\nc\n" }); // lines made CRLF on purpose
  const diff = await git(r, "diff");
  await new Deno.Command("git", { args: ["checkout", "--", "."], cwd: r }).output();
  const env = await apply(dir.path, patchOf(block("git.diff", ".", diff.replace(/\n$/, "").split("\n"))), "--repo r");
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal(decoder.decode(await Deno.readFile(`${r}/lf.txt`)), "a\r\nb\r\nc\n");
  // Without the index line (a diff as a model writes it), the LF file stays LF.
  await new Deno.Command("git", { args: ["reset", "-q", "--hard", "HEAD~1"], cwd: r }).output();
  const bare = diff.replace(/^index .*\n/m, "");
  const env2 = await apply(dir.path, patchOf(block("git.diff", ".", bare.replace(/\n$/, "").split("\n"))), "--repo r");
  assert.equal(env2.exit_code, 0, env2.stderr);
  assert.equal(decoder.decode(await Deno.readFile(`${r}/lf.txt`)), "a\nb\nc\n");
});
