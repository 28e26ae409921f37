/**
 * Line endings, `.gitattributes` and filters against the real git: the blobs pterm stages, the
 * bytes it checks out and the status it reports equal git's for the same repository, over fixed
 * shapes (autocrlf=true with a touched file, eol=lf with CRLF edits, git's "safer autocrlf" for
 * text=auto files already committed with CRLF, attributes written by the checkout itself, LFS)
 * and a property test over random contents × attribute files × config.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitInit, gitRaw, porcelainFiles, pterm, ptermTry, result, write } from "../oracle.ts";
import { Twin } from "../twin.ts";

const enc = new TextEncoder();

async function ptermStatus(root: string, repo: string): Promise<string[]> {
  const r = result(await pterm(root, `git status --repo ${repo}`));
  return r.files.map((f: { xy: string; path: string }) => `${f.xy} ${f.path}`).sort();
}

async function stagedBlobs(dir: string): Promise<string> {
  return await git(dir, "ls-files", "-s");
}

Deno.test("autocrlf=true: a checked-out file is CRLF in the work tree, a touched one is clean, an edit is staged LF", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/a.txt`, "one\ntwo\nthree\n");
  await write(`${dir}/b.txt`, "keep\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await git(dir, "config", "core.autocrlf", "true");
  await Deno.remove(`${dir}/a.txt`);
  await Deno.remove(`${dir}/b.txt`);
  await git(dir, "checkout", "--", ".");
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "one\r\ntwo\r\nthree\r\n");

  // Touched: same bytes, new mtime. git says clean; pterm used to hash the CRLF bytes and see a change.
  await new Promise((r) => setTimeout(r, 1100));
  await Deno.writeTextFile(`${dir}/a.txt`, "one\r\ntwo\r\nthree\r\n");
  assert.deepEqual(await ptermStatus(root.path, "r"), []);
  assert.deepEqual(await porcelainFiles(dir), []);
  const diff = await pterm(root.path, "git diff --repo r");
  assert.deepEqual(result(diff).files, []);
  assert.equal(await git(dir, "diff"), "");

  // pterm's own checkout writes CRLF, as git's does.
  await Deno.remove(`${dir}/b.txt`);
  await pterm(root.path, "git reset --repo r --hard");
  assert.equal(await Deno.readTextFile(`${dir}/b.txt`), "keep\r\n");
  assert.deepEqual(await ptermStatus(root.path, "r"), []);

  // An edit in CRLF is staged in git's form (LF), as `git add` stores it.
  await Deno.writeTextFile(`${dir}/a.txt`, "one\r\n2\r\nthree\r\n");
  await pterm(root.path, "git add --repo r --all");
  assert.equal(await git(dir, "cat-file", "-p", ":a.txt"), "one\n2\nthree\n");
  assert.deepEqual(await porcelainFiles(dir), ["M. a.txt"]);
  await pterm(root.path, "git commit --repo r -m edit");
  await assertFsck(dir);
});

Deno.test("eol=lf: CRLF edits are committed LF; text=auto files committed with CRLF keep it (git's safer autocrlf)", async () => {
  await using root = await makeRoot();
  const ours = `${root.path}/r`;
  const theirs = `${root.path}/g`;
  for (const dir of [ours, theirs]) {
    await gitInit(dir);
    await write(`${dir}/legacy.txt`, "old\r\nstyle\r\n"); // committed with CRLF before any attribute
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "legacy");
    await write(`${dir}/.gitattributes`, "*.c text eol=lf\n*.txt text=auto\n*.bin -text\n");
    await write(`${dir}/main.c`, "int main() {\r\n  return 0;\r\n}\r\n");
    await write(`${dir}/legacy.txt`, "old\r\nstyle\r\nmore\r\n");
    await write(`${dir}/new.txt`, "fresh\r\nfile\r\n");
    await write(`${dir}/data.bin`, "raw\r\nbytes\r\n");
  }
  await git(theirs, "add", "-A");
  await pterm(root.path, "git add --repo r --all");
  assert.equal(await stagedBlobs(ours), await stagedBlobs(theirs));
  assert.equal(await git(ours, "cat-file", "-p", ":main.c"), "int main() {\n  return 0;\n}\n");
  assert.equal(await git(ours, "cat-file", "-p", ":legacy.txt"), "old\r\nstyle\r\nmore\r\n");
  await pterm(root.path, "git commit --repo r -m attrs");
  await assertFsck(ours);
});

Deno.test("a checkout follows the .gitattributes it writes itself, as git's does", async () => {
  await using root = await makeRoot();
  const ours = `${root.path}/r`;
  const theirs = `${root.path}/g`;
  await gitInit(ours);
  await write(`${ours}/a.txt`, "x\ny\n");
  await write(`${ours}/sub/b.txt`, "b\n");
  await write(`${ours}/sub/d.txt`, "d\n");
  await git(ours, "add", "-A");
  await git(ours, "commit", "-qm", "base");
  await git(ours, "checkout", "-qb", "crlf");
  await write(`${ours}/.gitattributes`, "*.txt text eol=crlf\n");
  await write(`${ours}/sub/.gitattributes`, "b.txt -text\n");
  await write(`${ours}/c.txt`, "c\n");
  await write(`${ours}/sub/b.txt`, "b\nb\n");
  await write(`${ours}/sub/d.txt`, "d\nd\n");
  await git(ours, "add", "-A");
  await git(ours, "commit", "-qm", "attributes");
  await git(ours, "checkout", "-q", "main");
  await git(root.path, "clone", "-q", ours, theirs);
  await git(theirs, "checkout", "-q", "crlf");
  await pterm(root.path, "git checkout --repo r crlf");
  for (const path of ["a.txt", "c.txt", "sub/b.txt", "sub/d.txt", ".gitattributes"]) {
    assert.deepEqual(await Deno.readFile(`${ours}/${path}`), await Deno.readFile(`${theirs}/${path}`), path);
  }
  assert.equal(await Deno.readTextFile(`${ours}/c.txt`), "c\r\n");
  assert.equal(await Deno.readTextFile(`${ours}/sub/b.txt`), "b\nb\n");
  assert.equal(await Deno.readTextFile(`${ours}/sub/d.txt`), "d\r\nd\r\n");
  assert.deepEqual(await ptermStatus(root.path, "r"), []);
  assert.deepEqual(await porcelainFiles(ours), []);
  await assertFsck(ours);
});

const POINTER = "version https://git-lfs.github.com/spec/v1\n" +
  "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";

Deno.test("filters: a filtered path is refused (UnsupportedFilter) unless it is already an LFS pointer; pointers check out unchanged", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/.gitattributes`, "*.psd filter=lfs diff=lfs merge=lfs -text\n*.enc filter=crypt\n");
  await write(`${dir}/art.psd`, POINTER);
  await write(`${dir}/readme.txt`, "r\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "lfs pointer");
  await git(dir, "config", "core.autocrlf", "true");

  // Checkout writes the pointer blob as it is.
  await Deno.remove(`${dir}/art.psd`);
  await pterm(root.path, "git reset --repo r --hard");
  assert.equal(await Deno.readTextFile(`${dir}/art.psd`), POINTER);
  assert.deepEqual(await ptermStatus(root.path, "r"), []);

  // The smudged content (what git-lfs would have written) must never be committed as the blob.
  await Deno.writeFile(`${dir}/art.psd`, new Uint8Array([0x38, 0x42, 0x50, 0x53, 0, 1, 2, 3]));
  for (const line of ["git add --repo r --all", "git add --repo r --path art.psd"]) {
    const refused = await ptermTry(root.path, line);
    assert.equal(refused.error_code, "UnsupportedFilter", refused.stderr);
    assert.match(refused.stderr, /art\.psd has filter=lfs/);
  }
  assert.equal(await git(dir, "cat-file", "-p", ":art.psd"), POINTER);
  await write(`${dir}/secret.enc`, "plain text\n");
  const crypt = await ptermTry(root.path, "git add --repo r --path secret.enc");
  assert.equal(crypt.error_code, "UnsupportedFilter", crypt.stderr);
  assert.match(crypt.stderr, /secret\.enc has filter=crypt/);

  // A new pointer (what `git lfs clean` gives back unchanged) is staged as it is.
  await Deno.remove(`${dir}/secret.enc`);
  await write(`${dir}/art.psd`, POINTER.replace("12345", "999"));
  await pterm(root.path, "git add --repo r --all");
  assert.equal(await git(dir, "cat-file", "-p", ":art.psd"), POINTER.replace("12345", "999"));
  await pterm(root.path, "git commit --repo r -m pointer");
  await assertFsck(dir);
});

Deno.test("binary and merge=union in .gitattributes: diff says binary, merge conflicts or unions as git's", async () => {
  await using twin = await Twin.create();
  const lines = (first: string, last: string) => `${first}\n2\n3\n4\n5\n6\n7\n8\n${last}\n`;
  await twin.write(".gitattributes", "*.dat binary\n*.log merge=union\nplain.txt -merge\n");
  for (const name of ["table.dat", "changes.log", "plain.txt", "normal.txt"]) await twin.write(name, lines("1", "9"));
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m base", ["commit", "-qm", "base"]);
  await twin.run("git checkout --repo R --create other", ["checkout", "-qb", "other"]);
  for (const name of ["table.dat", "changes.log", "plain.txt", "normal.txt"]) await twin.write(name, lines("one", "9"));
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m other", ["commit", "-qm", "other"]);
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  for (const name of ["table.dat", "changes.log", "plain.txt", "normal.txt"]) {
    await twin.write(name, lines("1", "nine"));
  }
  await twin.write("changes.log", lines("uno", "9"));
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m main", ["commit", "-qm", "main"]);

  const shown = await pterm(twin.root.path, "git show --repo p other");
  assert.match(shown.stdout, /Binary files a\/table\.dat and b\/table\.dat differ/);
  assert.match(await git(twin.g, "show", "other"), /Binary files a\/table\.dat and b\/table\.dat differ/);

  const conflict = await twin.run("git merge --repo R --branch other", ["merge", "-q", "other"], "Conflict");
  assert.deepEqual(result(conflict).conflicts, ["plain.txt", "table.dat"]);
  assert.equal(await git(twin.p, "ls-files", "-s"), await git(twin.g, "ls-files", "-s"));
  await twin.compare("merge with attributes");
});

Deno.test("a racy entry whose file changed size is not smudged: after pterm's status, git still sees the line-ending flip", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/.gitattributes`, "* text=auto\n");
  await write(`${dir}/flipped.txt`, "alpha\nbeta\n");
  await write(`${dir}/touched.txt`, "same\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  // Every entry is racy (not older than the index file), as right after a checkout in the same second.
  const past = new Date(Date.now() - 60_000);
  await Deno.utime(`${dir}/.git/index`, past, past);
  // The flip changes the size: git's stat check says modified without looking at the content.
  await Deno.writeTextFile(`${dir}/flipped.txt`, "alpha\r\nbeta\r\n");
  // A touched file is refreshed, so pterm's status writes the index back.
  const earlier = new Date(Date.now() - 10_000);
  await Deno.utime(`${dir}/touched.txt`, earlier, earlier);
  assert.deepEqual(await ptermStatus(root.path, "r"), [".M flipped.txt"]);
  assert.deepEqual(await porcelainFiles(dir), [".M flipped.txt"]);
  // What git's own index write would keep: the size of the committed file, not a smudged 0.
  assert.match(await git(dir, "ls-files", "--debug", "flipped.txt"), /size: 11\t/);
});

// ---- property test -------------------------------------------------------------------------------

const CONTENTS: Record<string, string> = {
  lf: "alpha\nbeta\ngamma\n",
  crlf: "alpha\r\nbeta\r\ngamma\r\n",
  mixed: "alpha\r\nbeta\ngamma\r\n",
  lonecr: "alpha\rbeta\n",
  nul: "bin\0ary\r\ndata\n",
  noeol: "last line\r\nno newline",
  empty: "",
  ctrl: "\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10 mostly control\r\n",
  ctrlz: "dos text\r\nends here\r\n\x1a",
  ident: "$Id$\r\nkeep $Id: 0123 $ and $Id: from another tool $\n",
};
const KINDS = Object.keys(CONTENTS);
const ATTRS = [
  "text",
  "-text",
  "binary",
  "text=auto",
  "text eol=lf",
  "text eol=crlf",
  "text=auto eol=crlf",
  "text=auto eol=lf",
  "eol=lf",
  "eol=crlf",
  "crlf",
  "-crlf",
  "crlf=input",
  "!text",
  "ident",
];
const PATTERNS = ["*.txt", "*", "f1*", "sub/*.txt", "/f2.txt", "*.dat", "sub/"];
const NAMES = ["f0.txt", "f1.txt", "f2.txt", "f3.dat", "sub/f4.txt", "sub/f5.dat", "sub/deep/f6.txt"];

const flip = (text: string) => text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text.replaceAll("\n", "\r\n");

interface Scenario {
  autocrlf: string | null;
  safecrlf?: string | null;
  eol: string | null;
  rules: { where: "root" | "sub" | "info"; pattern: string; attrs: string }[];
  files: string[];
  committedAs: string[];
  edits: ("keep" | "touch" | "flip" | "replace")[];
  replacement: string[];
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  autocrlf: fc.constantFrom(null, "true", "input", "false"),
  safecrlf: fc.constantFrom(null, null, "true", "warn"),
  eol: fc.constantFrom(null, "lf", "crlf"),
  rules: fc.array(
    fc.record({
      where: fc.constantFrom("root" as const, "sub" as const, "info" as const),
      pattern: fc.constantFrom(...PATTERNS),
      attrs: fc.constantFrom(...ATTRS),
    }),
    { maxLength: 4 },
  ),
  files: fc.array(fc.constantFrom(...KINDS), { minLength: NAMES.length, maxLength: NAMES.length }),
  committedAs: fc.array(fc.constantFrom(...KINDS), { minLength: NAMES.length, maxLength: NAMES.length }),
  edits: fc.array(fc.constantFrom("keep" as const, "touch" as const, "flip" as const, "replace" as const), {
    minLength: NAMES.length,
    maxLength: NAMES.length,
  }),
  replacement: fc.array(fc.constantFrom(...KINDS), { minLength: NAMES.length, maxLength: NAMES.length }),
});

async function setUp(dir: string, s: Scenario): Promise<void> {
  await gitInit(dir);
  // A first commit made before any setting, so "safer autocrlf" meets blobs with CRLF in the index.
  for (const [i, name] of NAMES.entries()) await write(`${dir}/${name}`, CONTENTS[s.committedAs[i]]);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "before");
  if (s.autocrlf) await git(dir, "config", "core.autocrlf", s.autocrlf);
  if (s.eol) await git(dir, "config", "core.eol", s.eol);
  if (s.safecrlf) await git(dir, "config", "core.safecrlf", s.safecrlf);
  const files: Record<string, string> = { root: "", sub: "", info: "" };
  for (const rule of s.rules) files[rule.where] += `${rule.pattern} ${rule.attrs}\n`;
  if (files.root) await write(`${dir}/.gitattributes`, files.root);
  if (files.sub) await write(`${dir}/sub/.gitattributes`, files.sub);
  if (files.info) await write(`${dir}/.git/info/attributes`, files.info);
  for (const [i, name] of NAMES.entries()) await write(`${dir}/${name}`, CONTENTS[s.files[i]]);
}

Deno.test("property: staged blobs, checked-out bytes and status equal git's over contents × attributes × config", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      run++;
      const ours = `${root.path}/p${run}`;
      const theirs = `${root.path}/g${run}`;
      await setUp(ours, s);
      await setUp(theirs, s);
      const note = JSON.stringify(s);
      // add: the same blobs as git's add, or the same refusal (core.safecrlf=true).
      const realAdd = await gitRaw(theirs, ["add", "-A"]);
      if (realAdd.code !== 0) {
        assert.match(realAdd.stderr, /would be replaced by/, realAdd.stderr);
        const refused = await ptermTry(root.path, `git add --repo p${run} --all`);
        assert.equal(refused.error_code, "InvalidArgs", `git refused (${realAdd.stderr}), pterm: ${refused.stderr}`);
        assert.match(refused.stderr, /core\.safecrlf=true/);
        assert.equal(await stagedBlobs(ours), await stagedBlobs(theirs), `nothing staged ${note}`);
        return;
      }
      await pterm(root.path, `git add --repo p${run} --all`);
      assert.equal(await stagedBlobs(ours), await stagedBlobs(theirs), `staged blobs ${note}`);
      await git(theirs, "commit", "-qm", "attrs");
      await pterm(root.path, `git commit --repo p${run} -m attrs`);
      await assertFsck(ours);
      // checkout: the same bytes in the work tree as git's checkout writes.
      for (const name of NAMES) {
        await Deno.remove(`${ours}/${name}`);
        await Deno.remove(`${theirs}/${name}`);
      }
      await git(theirs, "checkout", "--", ".");
      await pterm(root.path, `git reset --repo p${run} --hard`);
      for (const name of NAMES) {
        assert.deepEqual(await Deno.readFile(`${ours}/${name}`), await Deno.readFile(`${theirs}/${name}`), name + note);
      }
      // status: after touches, line-ending flips and replacements, pterm says what git says.
      await new Promise((r) => setTimeout(r, 1100)); // past the index's second: no racy entries
      for (const [i, name] of NAMES.entries()) {
        const path = `${ours}/${name}`;
        const now = new TextDecoder().decode(await Deno.readFile(path));
        const edit = s.edits[i];
        if (edit === "touch") await Deno.writeFile(path, enc.encode(now));
        else if (edit === "flip") await Deno.writeFile(path, enc.encode(flip(now)));
        else if (edit === "replace") await Deno.writeFile(path, enc.encode(CONTENTS[s.replacement[i]]));
      }
      const ptermSays = await ptermStatus(root.path, `p${run}`);
      assert.deepEqual(ptermSays, await porcelainFiles(ours), `status ${note}`);
    }),
    {
      numRuns: Number(Deno.env.get("ATTR_RUNS") ?? 12),
      // Always tried: ident expansion, and a quoted pattern, with CRLF checkout.
      examples: [[{
        autocrlf: "true",
        eol: null,
        rules: [{ where: "root", pattern: "*", attrs: "ident" }, { where: "sub", pattern: '"f4.txt"', attrs: "-text" }],
        files: NAMES.map(() => "ident"),
        committedAs: NAMES.map(() => "lf"),
        edits: NAMES.map(() => "touch" as const),
        replacement: NAMES.map(() => "lf"),
      }]],
    },
  );
});

Deno.test("a .gitattributes that is a symbolic link is not read, as git does not read it", async () => {
  await using root = await makeRoot();
  const ours = `${root.path}/r`;
  const theirs = `${root.path}/g`;
  for (const dir of [ours, theirs]) {
    await gitInit(dir);
    await write(`${dir}/real-attrs`, "*.txt text eol=lf\n");
    await Deno.symlink("real-attrs", `${dir}/.gitattributes`);
    await write(`${dir}/x.txt`, "a\r\nb\r\n");
    await write(`${dir}/sub/y.txt`, "c\r\n");
  }
  await git(theirs, "add", "-A");
  await pterm(root.path, "git add --repo r --all");
  assert.equal(await stagedBlobs(ours), await stagedBlobs(theirs));
  assert.equal(await git(ours, "cat-file", "-p", ":x.txt"), "a\r\nb\r\n");
});

Deno.test("core.safecrlf=true: an add that a checkout would not give back is refused, as git refuses it", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await git(dir, "config", "core.autocrlf", "true");
  await git(dir, "config", "core.safecrlf", "true");
  await write(`${dir}/lf.txt`, "one\ntwo\n"); // a checkout would write it back with CRLF
  assert.notEqual((await gitRaw(dir, ["add", "lf.txt"])).code, 0);
  const refused = await ptermTry(root.path, "git add --repo r --path lf.txt");
  assert.equal(refused.error_code, "InvalidArgs", refused.stderr);
  assert.match(refused.stderr, /LF would be replaced by CRLF in lf\.txt/);
  await write(`${dir}/crlf.txt`, "one\r\ntwo\r\n"); // stored LF, checked out CRLF again: fine
  assert.equal((await gitRaw(dir, ["add", "--dry-run", "crlf.txt"])).code, 0);
  await pterm(root.path, "git add --repo r --path crlf.txt");
  assert.equal(await git(dir, "cat-file", "-p", ":crlf.txt"), "one\ntwo\n");
});
