/**
 * Diffs as real tools write them, applied with `git.diff` and compared with what `git apply`
 * (or GNU diff/patch's reading) makes of them: copies keep their source, a plain `diff -u`
 * never renames, a closing code fence ends the diff, a headerless diff edits (not deletes).
 */

import assert from "node:assert/strict";
import { makeRoot } from "../helpers.ts";
import { apply, block, git, patchOf, readTree, writeTree } from "./helpers.ts";

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`);

/** Runs git in `dir` and returns its stdout even when it exits 1 (diff's "differences found"). */
async function diffOutput(dir: string, cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd: dir, stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("copy from / copy to (git diff -C): the source stays and the copy starts from its original", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "a.txt": lines(30, "a").join("\n") + "\n", "other.txt": "x\n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  // The change real git describes as a copy: b.txt from a.txt with one edit, and a.txt edited too.
  const copied = lines(30, "a");
  copied[3] = "edited in the copy";
  await Deno.writeTextFile(`${r}/b.txt`, copied.join("\n") + "\n");
  const source = lines(30, "a");
  source[20] = "edited in the source";
  await Deno.writeTextFile(`${r}/a.txt`, source.join("\n") + "\n");
  await git(r, "add", "-A");
  const diff = await git(r, "diff", "--cached", "-C", "-C", "--find-copies-harder");
  assert.match(diff, /copy from a\.txt\ncopy to b\.txt/);
  const expected = await readTree(r);
  delete expected[".git"];
  await git(r, "reset", "-q", "--hard");

  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const got = await readTree(r);
  for (const path of ["a.txt", "b.txt", "other.txt"]) assert.equal(got[path], expected[path], path);
  // git apply agrees on the same diff.
  await git(r, "reset", "-q", "--hard", "HEAD~1"); // before pterm's commit
  await git(r, "clean", "-fdq");
  await Deno.writeTextFile(`${root.path}/copy.diff`, diff);
  await git(r, "apply", `${root.path}/copy.diff`);
  const byGit = await readTree(r);
  for (const path of ["a.txt", "b.txt"]) assert.equal(byGit[path], expected[path], `git apply: ${path}`);
});

Deno.test("a plain `diff -u x.py x.py.new` edits x.py: it renames nothing", async () => {
  await using root = await makeRoot();
  const scratch = `${root.path}/scratch`;
  await writeTree(scratch, { "x.py": "a = 1\nb = 2\nc = 3\n", "x.py.new": "a = 1\nb = 20\nc = 3\n" });
  const diff = await diffOutput(scratch, "diff", ["-u", "x.py", "x.py.new"]);
  assert.match(diff, /^--- x\.py\t/m);
  const r = `${root.path}/r`;
  await writeTree(r, { "x.py": "a = 1\nb = 2\nc = 3\n" });
  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.deepEqual(await readTree(r), { "x.py": "a = 1\nb = 20\nc = 3\n" });
});

Deno.test("a closing code fence ends the diff: prose after it never joins the last hunk", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "notes.md": "one\ntwo\nthree\n" });
  const body = [
    "```diff",
    "--- a/notes.md",
    "+++ b/notes.md",
    "@@ -1,3 +1,3 @@",
    " one",
    "-two",
    "+TWO",
    " three",
    "```",
    "- this bullet explains the change",
    "+ and so does this one",
    " (indented prose)",
  ];
  const envelope = await apply(root.path, patchOf(block("git.diff", ".", body)), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal(await Deno.readTextFile(`${r}/notes.md`), "one\nTWO\nthree\n");
});

Deno.test("a diff without file headers edits the block's file, and says modified", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "a.txt": "one\ntwo\nthree\n" });
  const envelope = await apply(
    root.path,
    patchOf(block("git.diff", "a.txt", ["@@ -1,3 +1,3 @@", " one", "-two", "+2", " three"])),
    "--repo r",
  );
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  // deno-lint-ignore no-explicit-any
  assert.equal((envelope.result as any).blocks[0].status, "modified");
  assert.equal(await Deno.readTextFile(`${r}/a.txt`), "one\n2\nthree\n");
});

Deno.test("a UTF-8 BOM survives every kind of edit, as git apply keeps it", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  const withBom = (text: string) => new Uint8Array([...bom, ...new TextEncoder().encode(text)]);
  await writeTree(r, { "a.txt": withBom("one\ntwo\nthree\n"), "b.txt": withBom("alpha\nbeta\n") });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await writeTree(r, { "a.txt": withBom("one\nTWO\nthree\n") });
  const diff = await git(r, "diff");
  await git(r, "checkout", "--", ".");
  const envelope = await apply(
    root.path,
    patchOf(
      block("git.diff", ".", diff.trimEnd().split("\n")),
      block("line.replace", "b.txt", ["keys=beta", "BETA"]),
    ),
    "--repo r",
  );
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.deepEqual(await Deno.readFile(`${r}/a.txt`), withBom("one\nTWO\nthree\n"));
  assert.deepEqual(await Deno.readFile(`${r}/b.txt`), withBom("alpha\nBETA\n"));
});

Deno.test("git diff --no-prefix renames and edits paths with spaces, as git apply -p0 does", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, {
    "old name.txt": lines(20, "o").join("\n") + "\n",
    "keep me.txt": "same\n",
    "dir with space/mode me.sh": "echo hi\n",
    "edit me.txt": "x\ny\n",
  });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await git(r, "mv", "old name.txt", "new name.txt");
  await git(r, "mv", "keep me.txt", "kept here.txt");
  const edited = lines(20, "o");
  edited[4] = "EDITED";
  await writeTree(r, { "new name.txt": edited.join("\n") + "\n", "edit me.txt": "x\nY\n" });
  await Deno.chmod(`${r}/dir with space/mode me.sh`, 0o755);
  await git(r, "add", "-A");
  const diff = await git(r, "diff", "--cached", "--no-prefix", "-M");
  assert.match(diff, /^diff --git old name\.txt new name\.txt$/m);
  const expected = await readTree(r);
  await git(r, "reset", "-q", "--hard");
  await Deno.chmod(`${r}/dir with space/mode me.sh`, 0o644);
  await Deno.writeTextFile(`${root.path}/np.diff`, diff);
  await git(r, "apply", "--check", "-p0", `${root.path}/np.diff`);

  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.deepEqual(await readTree(r), expected);
  assert.equal((await Deno.stat(`${r}/dir with space/mode me.sh`)).mode! & 0o777, 0o755);
});
