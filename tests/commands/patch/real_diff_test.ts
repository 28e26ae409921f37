/**
 * Diffs as real tools write them, applied with `git.diff` and compared with what `git apply`
 * (or GNU diff/patch's reading) makes of them: copies keep their source, a plain `diff -u`
 * never renames, a closing code fence ends the diff, a headerless diff edits (not deletes).
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
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

/** Deterministic pseudo-random bytes (a binary file git cannot diff as text). */
function noise(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  out[1] = 0; // a NUL byte: git takes the file for binary
  return out;
}

Deno.test("git diff --binary: literal and delta hunks apply, checked against the index line's blob ids", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  const big = noise(40_000, 7);
  await writeTree(r, { "img.bin": big, "small.bin": noise(300, 3), "gone.bin": noise(100, 5), "text.txt": "a\n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  const edited = new Uint8Array(big);
  edited.set(noise(64, 11), 20_000); // a small change in a large file: git writes a delta
  await writeTree(r, { "img.bin": edited, "small.bin": noise(200, 4), "new.bin": noise(500, 9), "text.txt": "b\n" });
  await Deno.remove(`${r}/gone.bin`);
  await git(r, "add", "-A");
  const diff = await git(r, "diff", "--cached", "--binary");
  assert.match(diff, /^delta \d+$/m);
  assert.match(diff, /^literal \d+$/m);
  const expected = {
    "img.bin": edited,
    "small.bin": noise(200, 4),
    "new.bin": noise(500, 9),
  };
  await git(r, "reset", "-q", "--hard");
  const body = diff.replace(/\n$/, "").split("\n");

  // A file that is not the diff's preimage is refused (a delta on it would be garbage).
  await writeTree(r, { "img.bin": noise(40_000, 8) });
  const wrongBase = await apply(root.path, patchOf(block("git.diff", ".", body)), "--repo r");
  assert.equal(wrongBase.error_code, "Conflict", wrongBase.stderr);
  assert.match(wrongBase.stderr, /`img\.bin` is not the file this binary diff was made from/);
  await git(r, "checkout", "--", ".");

  // One damaged base85 character: the blob check (or zlib) refuses, nothing is written.
  const damaged = body.map((
    l,
    i,
  ) => (i === body.findIndex((x) => /^delta /.test(x)) + 1
    ? l.slice(0, 10) + (l[10] === "0" ? "1" : "0") + l.slice(11)
    : l)
  );
  const bad = await apply(root.path, patchOf(block("git.diff", ".", damaged)), "--repo r");
  assert.equal(bad.error_code, "CorruptInput", bad.stderr);
  assert.equal(await git(r, "status", "--porcelain", "--untracked-files=no"), "");

  const envelope = await apply(root.path, patchOf(block("git.diff", ".", body)), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  for (const [path, bytes] of Object.entries(expected)) {
    assert.deepEqual(await Deno.readFile(`${r}/${path}`), bytes, path);
  }
  await assert.rejects(Deno.stat(`${r}/gone.bin`), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(`${r}/text.txt`), "b\n");
  // git agrees: applying the same diff in reverse to pterm's result gives back the base commit's tree.
  await Deno.writeTextFile(`${root.path}/bin.diff`, diff);
  await git(r, "apply", "--check", "-R", `${root.path}/bin.diff`);
  await git(r, "fsck", "--strict");
});

Deno.test('"Binary files … differ" holds no content: refused, saying to use git diff --binary', async () => {
  await using root = await makeRoot();
  await writeTree(root.path, { "x.bin": noise(50, 1) });
  const env = await apply(
    root.path,
    patchOf(
      block("git.diff", ".", [
        "diff --git a/x.bin b/x.bin",
        "index 1111111..2222222 100644",
        "Binary files a/x.bin and b/x.bin differ",
      ]),
    ),
  );
  assert.equal(env.error_code, "UnsupportedFormat", env.stderr);
  assert.match(env.stderr, /git diff --binary/);
});

Deno.test("a hunk whose text repeats lands where git apply puts it (nearest its stated line); a tie is AmbiguousMatch listing each place", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  const unit = ["    if ready:", "        start()", "    return"];
  const file = ["def a():", ...unit, "", "def b():", "    x = 1", ...unit, "", "def c():", ...unit].join("\n") + "\n";
  // A diff made against an older file: its stated line 7 is one off b's block (line 8).
  const diff = [
    "--- a/m.py",
    "+++ b/m.py",
    "@@ -7,3 +7,3 @@",
    "     if ready:",
    "-        start()",
    "+        start(fast=True)",
    "     return",
  ];
  await writeTree(r, { "m.py": file });
  await Deno.writeTextFile(`${root.path}/d.diff`, diff.join("\n") + "\n");
  await git(r, "init", "-q");
  await git(r, "apply", `${root.path}/d.diff`);
  const byGit = await Deno.readTextFile(`${r}/m.py`);
  await writeTree(r, { "m.py": file });
  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff)), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal(await Deno.readTextFile(`${r}/m.py`), byGit);

  // Stated line 5: a's block (line 2) and b's (line 8) are equally near — refused, each place shown.
  const tie = ["--- a/m.py", "+++ b/m.py", "@@ -5,3 +5,3 @@", ...diff.slice(3)];
  await writeTree(r, { "m.py": file });
  const ambiguous = await apply(root.path, patchOf(block("git.diff", ".", tie)), "--repo r");
  assert.equal(ambiguous.error_code, "AmbiguousMatch", ambiguous.stderr);
  assert.match(
    ambiguous.stderr,
    /fits 3 places \(shifted\): line 2 `if ready:`, line 8 `if ready:`, line 13 `if ready:`; its `@@` line states line 5/,
  );
});

Deno.test("links (120000) and submodule pointers (160000) in a diff: the tree real git records, no link created", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "target.txt": "t\n", "other.txt": "o\n", "sub/.keep": "" });
  await Deno.remove(`${r}/sub/.keep`);
  await git(r, "init", "-q", "-b", "main");
  const sub1 = "1".repeat(40);
  const sub2 = "2".repeat(40);
  await git(r, "add", "target.txt", "other.txt");
  await git(r, "update-index", "--add", "--cacheinfo", `160000,${sub1},sub`);
  await git(r, "commit", "-qm", "base");
  // The change, made with real git: a new link, a new submodule pointer, the old one moved.
  await Deno.symlink("target.txt", `${r}/link`);
  await git(r, "add", "link");
  await git(r, "update-index", "--cacheinfo", `160000,${sub2},sub`);
  await git(r, "update-index", "--add", "--cacheinfo", `160000,${sub1},lib/vendored`);
  const diff = await git(r, "diff", "--cached");
  assert.match(diff, /new file mode 120000/);
  assert.match(diff, /\+Subproject commit 2{40}/);
  const expectedTree = (await git(r, "write-tree")).trim();
  await git(r, "reset", "-q");
  await Deno.remove(`${r}/link`);

  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((await git(r, "rev-parse", "HEAD^{tree}")).trim(), expectedTree);
  const link = await Deno.lstat(`${r}/link`);
  assert.ok(link.isFile && !link.isSymlink, "a link is written as a plain file");
  assert.equal(await Deno.readTextFile(`${r}/link`), "target.txt");
  assert.equal((await git(r, "config", "core.symlinks")).trim(), "false");
  // A new submodule pointer gets an empty folder, as git apply makes one: git status is clean.
  assert.ok((await Deno.stat(`${r}/lib/vendored`)).isDirectory);
  assert.equal(await git(r, "status", "--porcelain", "--untracked-files=no"), "");
  await git(r, "fsck", "--strict");
});

/** Makes a change in a real repository, returns git's diff of it and the tree git records, and resets. */
async function realChange(r: string, edit: () => Promise<void>, ...diffArgs: string[]) {
  await edit();
  await git(r, "add", "-A");
  const diff = await git(r, "diff", "--cached", "--binary", ...diffArgs);
  const tree = (await git(r, "write-tree")).trim();
  await git(r, "reset", "-q", "--hard");
  await git(r, "clean", "-fdq");
  return { diff, tree };
}

Deno.test("found by the git apply oracle: a diff that adds or removes a BOM does so; a copied link stays a link; `a/x y b/x y`", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  const bom = "\ufeff";
  await writeTree(r, { "with-bom.txt": `${bom}one\ntwo\n`, "plain.txt": "one\ntwo\n", "keep.txt": "k\n" });
  await git(r, "init", "-q", "-b", "main");
  await Deno.symlink("keep.txt", `${r}/link`);
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await Deno.remove(`${r}/link`);
  await writeTree(r, { link: "keep.txt" }); // as pterm checks links out: a plain file holding the target
  await git(r, "update-index", "--assume-unchanged", "link");

  const { diff, tree } = await realChange(
    r,
    async () => {
      await Deno.remove(`${r}/link`);
      await Deno.symlink("keep.txt", `${r}/link`);
      await Deno.symlink("keep.txt", `${r}/link copy`);
      await writeTree(r, { "with-bom.txt": "one\ntwo\n", "plain.txt": `${bom}one\ntwo\n`, "lib/a b/x y.c": "" });
    },
    "-C",
    "-C",
  );
  assert.match(diff, /^copy from link$/m);
  assert.match(diff, /^diff --git a\/lib\/a b\/x y\.c b\/lib\/a b\/x y\.c$/m);
  await Deno.remove(`${r}/link`);
  await writeTree(r, { link: "keep.txt" });

  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((await git(r, "rev-parse", "HEAD^{tree}")).trim(), tree);
  assert.equal(await Deno.readTextFile(`${r}/with-bom.txt`), "one\ntwo\n");
  assert.equal(await Deno.readTextFile(`${r}/plain.txt`), `${bom}one\ntwo\n`);
});

Deno.test("git format-patch output applies: the mail header is skipped and the `-- ` signature joins no hunk", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "f.txt": "a\nb\nc\n", "g.md": "- item\n- \n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await writeTree(r, { "f.txt": "a\nB\nc\n", "g.md": "- item\n- \nmore\n" });
  await git(r, "commit", "-qam", "change b");
  const mail = await git(r, "format-patch", "-1", "--stdout");
  assert.match(mail, /^-- $/m);
  const expected = await readTree(r);
  await git(r, "reset", "-q", "--hard", "HEAD~1");
  const envelope = await apply(root.path, patchOf(block("git.diff", ".", mail.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.deepEqual(await readTree(r), expected);
});

Deno.test("GNU diff -ruN of two trees applies as git apply does: its command lines separate files, epoch timestamps create and delete", async () => {
  await using root = await makeRoot();
  const scratch = `${root.path}/scratch`;
  await writeTree(scratch, {
    "a/f.txt": "1\n2\n3\n",
    "a/sub/g.txt": "p\n",
    "a/gone.txt": "bye\n",
    "b/f.txt": "1\nX\n3\n",
    "b/sub/g.txt": "p\nq\n",
    "b/new file.txt": "new\n",
  });
  const diff = await diffOutput(scratch, "diff", ["-ruN", "a", "b"]);
  assert.match(diff, /^diff -ruN a\/f\.txt b\/f\.txt$/m);
  assert.match(diff, /^--- "a\/new file\.txt"\t1970-01-01/m);
  const r = `${root.path}/r`;
  const byGit = `${root.path}/byGit`;
  for (const dir of [r, byGit]) {
    await writeTree(dir, { "f.txt": "1\n2\n3\n", "sub/g.txt": "p\n", "gone.txt": "bye\n" });
  }
  await Deno.writeTextFile(`${root.path}/tree.diff`, diff);
  await new Deno.Command("git", { args: ["apply", `${root.path}/tree.diff`], cwd: byGit }).output();
  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.deepEqual(await readTree(r), await readTree(byGit));
  assert.deepEqual(Object.keys(await readTree(r)), ["f.txt", "new file.txt", "sub/g.txt"]);
});

Deno.test("a patch that would stage a link, then fails, leaves .git/config (core.symlinks) as it was", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "a.txt": "a\n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await git(r, "tag", "taken");
  const config = await Deno.readTextFile(`${r}/.git/config`);
  const diff = [
    "diff --git a/l b/l",
    "new file mode 120000",
    "--- /dev/null",
    "+++ b/l",
    "@@ -0,0 +1 @@",
    "+a.txt",
    "\\ No newline at end of file",
  ];
  const env = await apply(
    root.path,
    patchOf(block("git.diff", ".", diff), block("git.tag", ".", ["name=taken"])),
    "--repo r",
  );
  assert.equal(env.error_code, "AlreadyExists", env.stderr);
  assert.equal(await Deno.readTextFile(`${r}/.git/config`), config);
  await assert.rejects(Deno.lstat(`${r}/l`), Deno.errors.NotFound);
  assert.equal(await git(r, "status", "--porcelain"), "");
});

Deno.test("found by the git apply oracle: a link turned into a file (and a file into a link) at one path", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "target.txt": "t\n", "was-file": "plain\n" });
  await git(r, "init", "-q", "-b", "main");
  await Deno.symlink("target.txt", `${r}/was-link`);
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  const { diff, tree } = await realChange(r, async () => {
    await Deno.remove(`${r}/was-link`);
    await writeTree(r, { "was-link": "now a file\n" });
    await Deno.remove(`${r}/was-file`);
    await Deno.symlink("target.txt", `${r}/was-file`);
  });
  assert.match(diff, /^deleted file mode 120000$/m);
  // pterm's own checkout of a link: a plain file holding the target, core.symlinks=false.
  await Deno.remove(`${r}/was-link`);
  await writeTree(r, { "was-link": "target.txt" });
  await git(r, "config", "core.symlinks", "false");
  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((await git(r, "rev-parse", "HEAD^{tree}")).trim(), tree);
  assert.equal(await git(r, "status", "--porcelain"), "");
});

Deno.test("found by the git apply oracle: a removed submodule pointer takes its empty folder with it, so a file can take the path", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "a.txt": "a\n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "update-index", "--add", "--cacheinfo", `160000,${"3".repeat(40)},mod`);
  await git(r, "commit", "-qm", "base");
  await Deno.mkdir(`${r}/mod`);
  await git(r, "rm", "-q", "--cached", "mod");
  const removal = await git(r, "diff", "--cached");
  await git(r, "reset", "-q");
  const envelope = await apply(root.path, patchOf(block("git.diff", ".", removal.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  await assert.rejects(Deno.lstat(`${r}/mod`), Deno.errors.NotFound);
  const create = await apply(root.path, patchOf(block("file.write", "mod", ["now a file"])), "--repo r");
  assert.equal(create.exit_code, 0, create.stderr);
  assert.equal(await git(r, "status", "--porcelain"), "");
});

Deno.test("--no-commit with a link or a submodule pointer in the diff warns that the index did not record them", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "a.txt": "a\n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  const diff = [
    "diff --git a/l b/l",
    "new file mode 120000",
    "--- /dev/null",
    "+++ b/l",
    "@@ -0,0 +1 @@",
    "+a.txt",
    "\\ No newline at end of file",
    "diff --git a/m b/m",
    "new file mode 160000",
    "--- /dev/null",
    "+++ b/m",
    "@@ -0,0 +1 @@",
    `+Subproject commit ${"4".repeat(40)}`,
  ];
  const env = await apply(root.path, patchOf(block("git.diff", ".", diff)), "--repo r --no-commit");
  assert.equal(env.exit_code, 0, env.stderr);
  // deno-lint-ignore no-explicit-any
  const warnings: string[] = (env.result as any).warnings;
  assert.ok(
    warnings.some((w) => /`l` is a symbolic link in the diff; it was written as a plain file/.test(w)),
    warnings.join("\n"),
  );
  assert.ok(warnings.some((w) => /`m` is a submodule pointer in the diff/.test(w)), warnings.join("\n"));
  assert.equal(await Deno.readTextFile(`${r}/l`), "a.txt");
});

Deno.test("a submodule git diff shows as renamed (rename from/to, no mode, no file) moves its pointer, as git apply --index", async () => {
  // As in sharkdp/bat's v0.25.0..v0.26.0: `assets/syntaxes/02_Extra/{Assembly (ARM) => Assembly_(ARM)}`.
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await writeTree(r, { "a.txt": "a\n" });
  await git(r, "init", "-q", "-b", "main");
  const sub1 = "1".repeat(40);
  const sub2 = "2".repeat(40);
  await git(r, "add", "a.txt");
  await git(r, "update-index", "--add", "--cacheinfo", `160000,${sub1},libs/Assembly (ARM)`);
  await git(r, "update-index", "--add", "--cacheinfo", `160000,${sub1},libs/other`);
  await git(r, "commit", "-qm", "base");
  await Deno.mkdir(`${r}/libs/Assembly (ARM)`, { recursive: true });
  await Deno.mkdir(`${r}/libs/other`, { recursive: true });
  // One pointer moved as it is, one moved to another commit (git shows that as a deletion and an addition).
  await git(r, "update-index", "--force-remove", "libs/Assembly (ARM)");
  await git(r, "update-index", "--add", "--cacheinfo", `160000,${sub1},libs/Assembly_(ARM)`);
  await git(r, "update-index", "--force-remove", "libs/other");
  await git(r, "update-index", "--add", "--cacheinfo", `160000,${sub2},vendor/other`);
  const diff = await git(r, "diff", "--cached");
  assert.match(diff, /rename from libs\/Assembly \(ARM\)\nrename to libs\/Assembly_\(ARM\)/);
  const expectedTree = (await git(r, "write-tree")).trim();
  await git(r, "reset", "-q");

  // The real git applies it to the index; so must pterm, to the same tree.
  const theirs = `${root.path}/theirs`;
  await git(root.path, "clone", "-q", r, theirs);
  await Deno.writeTextFile(`${root.path}/moved.diff`, diff);
  await git(theirs, "apply", "--index", `${root.path}/moved.diff`);
  assert.equal((await git(theirs, "write-tree")).trim(), expectedTree);

  const envelope = await apply(root.path, patchOf(block("git.diff", ".", diff.trimEnd().split("\n"))), "--repo r");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((await git(r, "rev-parse", "HEAD^{tree}")).trim(), expectedTree);
  assert.ok((await Deno.stat(`${r}/libs/Assembly_(ARM)`)).isDirectory, "the new pointer has its empty folder");
  await assert.rejects(Deno.stat(`${r}/libs/Assembly (ARM)`), Deno.errors.NotFound, "the emptied old folder went");
  assert.equal(await git(r, "status", "--porcelain", "--untracked-files=no"), "");
  await git(r, "fsck", "--strict");

  // A rename whose source is neither a file nor a submodule pointer is still NotFound, nothing written.
  const bogus = diff.replaceAll("libs/Assembly_(ARM)", "libs/again").replaceAll("libs/Assembly (ARM)", "libs/nothing");
  const refused = await apply(root.path, patchOf(block("git.diff", ".", bogus.trimEnd().split("\n"))), "--repo r");
  assert.equal(refused.error_code, "NotFound", refused.stderr);
  assert.equal((await git(r, "rev-parse", "HEAD^{tree}")).trim(), expectedTree);
});
