/**
 * Content is bytes: a UTF-8 BOM, Latin-1, CRLF line ends and a missing final newline go through
 * merge, revert and stash exactly as real git carries them (twin repositories, same scenario,
 * same trees), and diff shows a BOM change.
 */

import assert from "node:assert/strict";
import { Twin } from "../twin.ts";
import { git, result, write } from "../oracle.ts";

const BOM = [0xef, 0xbb, 0xbf];
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const utf8 = (text: string) => new TextEncoder().encode(text);
const join = (...parts: (Uint8Array | number[])[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

/** Ten lines in each encoding shape; line i replaced by `edit`. */
function shapes(edit: Record<number, string> = {}): Record<string, Uint8Array> {
  const lines = (i: number) => edit[i] ?? `ligne ${i} café`;
  const text = (sep: string, last: string) => Array.from({ length: 10 }, (_, i) => lines(i)).join(sep) + last;
  return {
    "bom.txt": join(BOM, utf8(text("\n", "\n"))),
    "latin1.txt": latin1(text("\n", "\n")),
    "crlf.txt": utf8(text("\r\n", "\r\n")),
    "no-final-newline.txt": utf8(text("\n", "")),
  };
}

async function writeBoth(twin: Twin, files: Record<string, Uint8Array>): Promise<void> {
  for (const [path, bytes] of Object.entries(files)) {
    await write(`${twin.p}/${path}`, bytes);
    await write(`${twin.g}/${path}`, bytes);
  }
}

async function commitBoth(twin: Twin, message: string): Promise<void> {
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run(`git commit --repo R -m ${message}`, ["commit", "-qm", message]);
}

Deno.test("merge, revert and stash keep BOM, Latin-1, CRLF and no-final-newline bytes as real git does", async () => {
  await using twin = await Twin.create();
  await writeBoth(twin, shapes());
  await commitBoth(twin, "base");
  await twin.run("git branch --repo R side", ["branch", "side"]);
  await writeBoth(twin, shapes({ 1: "main édite" }));
  await commitBoth(twin, "main-edit");
  await twin.run("git checkout --repo R side", ["checkout", "-q", "side"]);
  await writeBoth(twin, shapes({ 8: "side édite" }));
  await commitBoth(twin, "side-edit");
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.run('git merge --repo R --branch side -m "merge side"', ["merge", "-q", "side", "-m", "merge side"]);
  await twin.compare("three-way merge of every shape");
  const merged = await Deno.readFile(`${twin.p}/latin1.txt`);
  assert.ok(merged.includes(0xe9) && !merged.includes(0xef), "Latin-1 é stays one byte");
  assert.deepEqual([...(await Deno.readFile(`${twin.p}/bom.txt`)).subarray(0, 3)], BOM, "the BOM is kept");

  await twin.run("git revert --repo R --ref HEAD~1", ["revert", "--no-edit", "HEAD~1"]);
  await twin.compare("revert of main's edit");

  await writeBoth(twin, shapes({ 1: "main édite", 8: "side édite", 4: "stashed ünd kept" }));
  await twin.run("git stash push --repo R", ["stash", "-q"]);
  await twin.compare("stash push");
  await twin.run("git stash pop --repo R", ["stash", "pop", "-q"]);
  await twin.compare("stash pop");
});

Deno.test("diff and show see a BOM added or removed, and Latin-1 text as text", async () => {
  await using twin = await Twin.create();
  await writeBoth(twin, { "a.txt": utf8("one\ntwo\n"), "l.txt": latin1("caf\xe9\n") });
  await commitBoth(twin, "base");
  await writeBoth(twin, { "a.txt": join(BOM, utf8("one\ntwo\n")), "l.txt": latin1("caf\xe9 cr\xe8me\n") });
  await commitBoth(twin, "bom");
  const diff = result(await twin.run("git diff --repo R HEAD~1 HEAD", ["diff", "HEAD~1", "HEAD"]));
  const files = diff.files.map((f: { path: string; binary: boolean; additions: number; deletions: number }) =>
    `${f.path} ${f.binary} +${f.additions} -${f.deletions}`
  );
  const numstat = (await git(twin.g, "diff", "--numstat", "HEAD~1", "HEAD")).trim().split("\n")
    .map((l) => l.split("\t")).map(([a, d, path]) => `${path} false +${a} -${d}`);
  assert.deepEqual(files, numstat);
  const shown = await twin.run("git show --repo R HEAD", ["show", "HEAD"]);
  assert.match(shown.stdout, /^-one\n\+\uFEFFone$/m);
  assert.match(shown.stdout, /^\+caf\u00e9 cr\u00e8me$/m);
});

Deno.test("assume-unchanged entries are left alone and a nested repository is added as a gitlink, as git does", async () => {
  await using twin = await Twin.create();
  await writeBoth(twin, { "a.txt": utf8("a\n"), "b.txt": utf8("b\n") });
  await commitBoth(twin, "base");
  for (const dir of [twin.p, twin.g]) await git(dir, "update-index", "--assume-unchanged", "a.txt");
  await writeBoth(twin, { "a.txt": utf8("changed behind git's back\n"), "b.txt": utf8("b changed\n") });
  const status = result(await twin.run("git status --repo R", ["status", "--porcelain"]));
  assert.deepEqual(status.files.map((f: { path: string }) => f.path), ["b.txt"]);
  await twin.run("git add --repo R --all", ["add", "-A"]);
  for (const dir of [twin.p, twin.g]) {
    assert.equal((await git(dir, "diff", "--cached", "--name-only")).trim(), "b.txt", dir);
  }

  for (const dir of [twin.p, twin.g]) {
    await git(dir, "init", "-q", "-b", "main", "nested");
    await write(`${dir}/nested/n.txt`, "n\n");
    await git(`${dir}/nested`, "add", "-A");
    await git(`${dir}/nested`, "commit", "-qm", "nested");
  }
  await twin.run("git add --repo R --all", ["add", "-A"]);
  const gitlink = async (dir: string) => (await git(dir, "ls-files", "-s", "nested")).split(" ")[0];
  assert.equal(await gitlink(twin.p), "160000");
  assert.equal(await gitlink(twin.g), "160000");
});
