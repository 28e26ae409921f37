/**
 * Entries marked with `git update-index --skip-worktree` (by real git), honoured as git honours
 * them: status does not look at them, `add --all` leaves them out, a path naming only them is
 * refused as git refuses it, `reset --hard` leaves their files alone and keeps the mark; what
 * would change such an entry is refused before anything is touched. A sparse checkout stays refused.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitInit, gitRaw, porcelainFiles, pterm, ptermTry, result, write } from "../oracle.ts";

async function ptermStatus(root: string, repo: string): Promise<string[]> {
  const r = result(await pterm(root, `git status --repo ${repo}`));
  return r.files.map((f: { xy: string; path: string }) => `${f.xy} ${f.path}`).sort();
}

Deno.test("skip-worktree entries: status, add, commit, reset --hard and checkout as git has them", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/d/a.txt`, "a\n");
  await write(`${dir}/b.txt`, "b\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "one");
  await write(`${dir}/d/a.txt`, "a2\n");
  await git(dir, "commit", "-qam", "two");
  await git(dir, "update-index", "--skip-worktree", "d/a.txt");
  const marked = await git(dir, "ls-files", "-s", "d/a.txt");
  await write(`${dir}/d/a.txt`, "local edit\n");
  await write(`${dir}/b.txt`, "b changed\n");

  assert.deepEqual(await ptermStatus(root.path, "r"), [".M b.txt"]);
  assert.deepEqual(await porcelainFiles(dir), [".M b.txt"]);

  const refused = await ptermTry(root.path, "git add --repo r --path d");
  assert.equal(refused.error_code, "InvalidArgs", refused.stderr);
  assert.match(refused.stderr, /skip-worktree/);
  assert.notEqual((await gitRaw(dir, ["add", "d"])).code, 0, "git refuses `git add d` too");

  await pterm(root.path, "git add --repo r --all");
  assert.equal(await git(dir, "ls-files", "-s", "d/a.txt"), marked);
  assert.equal(await git(dir, "ls-files", "-t", "d/a.txt"), "S d/a.txt\n");
  assert.deepEqual(await porcelainFiles(dir), ["M. b.txt"]);
  await pterm(root.path, "git commit --repo r -m b");
  assert.equal(await git(dir, "ls-tree", "HEAD", "d/a.txt"), marked.replace(/^100644 (\w+) 0\t/, "100644 blob $1\t"));
  await assertFsck(dir);

  await write(`${dir}/b.txt`, "again\n");
  await pterm(root.path, "git reset --repo r --hard");
  assert.equal(await Deno.readTextFile(`${dir}/d/a.txt`), "local edit\n");
  assert.equal(await Deno.readTextFile(`${dir}/b.txt`), "b changed\n");
  assert.equal(await git(dir, "ls-files", "-t", "d/a.txt"), "S d/a.txt\n");

  const checkout = await ptermTry(root.path, "git checkout --repo r HEAD~2");
  assert.equal(checkout.error_code, "UnsupportedFormat", checkout.stderr);
  assert.match(checkout.stderr, /d\/a\.txt, marked skip-worktree/);
  assert.equal(await git(dir, "rev-parse", "--abbrev-ref", "HEAD"), "main\n");

  await Deno.remove(`${dir}/d/a.txt`);
  assert.deepEqual(await ptermStatus(root.path, "r"), []);
  assert.deepEqual(await porcelainFiles(dir), []);
  await assertFsck(dir);
});
