/**
 * Confinement inside repositories: a symlink in the work tree (checked out by git, or planted)
 * never lets a pterm write or read escape; secret paths are invisible; pterm's own state is
 * invisible when the repository is the workspace root.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitInit, pterm, ptermTry, result, write } from "../oracle.ts";

async function listOutside(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("a symlink to outside the root, committed by git, never redirects a checkout, reset or restore", async () => {
  await using root = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await write(`${outside.path}/victim.txt`, "untouched\n");
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/a.txt`, "a\n");
  await Deno.symlink(outside.path, `${dir}/d`);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "with link");
  await git(dir, "checkout", "-q", "-b", "payload");
  await git(dir, "rm", "-q", "d");
  await write(`${dir}/d/victim.txt`, "PWNED\n");
  await write(`${dir}/d/new.txt`, "PWNED\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "folder where the link was");
  await git(dir, "checkout", "-q", "main");
  assert.ok((await Deno.lstat(`${dir}/d`)).isSymlink, "git checked the link out");

  // The tracked link is removed before anything is written below d/.
  await pterm(root.path, "git checkout --repo r payload");
  assert.ok((await Deno.lstat(`${dir}/d`)).isDirectory);
  assert.equal(await Deno.readTextFile(`${outside.path}/victim.txt`), "untouched\n");
  assert.deepEqual(await listOutside(outside.path), ["victim.txt"]);

  // Going back writes the link as a plain file holding its target (pterm never creates links).
  await pterm(root.path, "git checkout --repo r main");
  assert.ok((await Deno.lstat(`${dir}/d`)).isFile);
  assert.equal(await Deno.readTextFile(`${dir}/d`), outside.path);
  assert.equal(
    (await git(dir, "status", "--porcelain")).trim(),
    "",
    "git agrees the tree is clean (core.symlinks=false)",
  );

  // A planted, untracked link where a folder must go: refused, nothing written outside.
  await git(dir, "checkout", "-q", "-f", "payload");
  await git(dir, "checkout", "-q", "-f", "main");
  await Deno.remove(`${dir}/d`);
  await git(dir, "rm", "-q", "--cached", "d");
  await git(dir, "commit", "-qm", "drop link");
  await Deno.symlink(outside.path, `${dir}/d`);
  const refused = await ptermTry(root.path, "git checkout --repo r payload");
  assert.notEqual(refused.exit_code, 0);
  assert.ok(["UncommittedChanges", "PathEscape"].includes(refused.error_code!), refused.stderr);
  assert.deepEqual(await listOutside(outside.path), ["victim.txt"]);
  const restore = await ptermTry(root.path, "git checkout --repo r payload --path d");
  assert.equal(restore.error_code, "PathEscape", restore.stderr);
  assert.deepEqual(await listOutside(outside.path), ["victim.txt"]);
  const forced = await ptermTry(root.path, "git checkout --repo r payload --force");
  assert.equal(forced.exit_code, 0, forced.stderr);
  assert.ok((await Deno.lstat(`${dir}/d`)).isDirectory, "--force replaced the link itself, not its target");
  assert.equal(await Deno.readTextFile(`${outside.path}/victim.txt`), "untouched\n");
  assert.deepEqual(await listOutside(outside.path), ["victim.txt"]);
  await assertFsck(dir);
});

Deno.test("add, status, mv and reset --hard never follow a symlinked folder", async () => {
  await using root = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await write(`${outside.path}/secret-ish.txt`, "outside\n");
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/a.txt`, "a\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "a");
  await Deno.symlink(outside.path, `${dir}/link`);
  const add = await ptermTry(root.path, "git add --repo r --path link/secret-ish.txt");
  assert.equal(add.error_code, "NotFound", add.stderr);
  const status = result(await pterm(root.path, "git status --repo r"));
  assert.deepEqual(
    status.files,
    [{ path: "link", xy: "??" }],
    "the link is one untracked entry; its target is not walked",
  );
  const mv = await ptermTry(root.path, "git mv --repo r a.txt link/a.txt");
  assert.notEqual(mv.exit_code, 0);
  assert.deepEqual(await listOutside(outside.path), ["secret-ish.txt"]);
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, "git commit --repo r -m link");
  assert.equal(
    (await git(dir, "cat-file", "-p", "HEAD:link")).trim(),
    outside.path,
    "a link is stored as its target text",
  );
  await pterm(root.path, "git reset --repo r --hard HEAD~1");
  assert.deepEqual(await listOutside(outside.path), ["secret-ish.txt"]);
  await assertFsck(dir);
});

Deno.test("secret paths are invisible: never staged, listed, diffed or shown; kept in step on disk", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/a.txt`, "a\n");
  await write(`${dir}/.env`, "TOKEN=committed-by-git\n");
  await write(`${dir}/secrets/key.txt`, "KEY-ONE\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "git committed secrets");
  await git(dir, "checkout", "-q", "-b", "other");
  await write(`${dir}/.env`, "TOKEN=other-branch\n");
  await write(`${dir}/a.txt`, "other\n");
  await git(dir, "commit", "-qam", "other");
  await git(dir, "checkout", "-q", "main");

  await write(`${dir}/.env`, "TOKEN=edited-locally\n");
  await write(`${dir}/.env.local`, "NEW=1\n");
  await write(`${dir}/secrets/new.txt`, "NEW-KEY\n");
  await write(`${dir}/b.txt`, "b\n");
  const status = result(await pterm(root.path, "git status --repo r"));
  assert.deepEqual(status.files, [{ path: "b.txt", xy: "??" }]);
  assert.ok(status.withheld.includes(".env"));

  const add = result(await pterm(root.path, "git add --repo r --all"));
  assert.deepEqual(add.added, ["b.txt"]);
  const staged = (await git(dir, "diff", "--cached", "--name-only")).trim().split("\n");
  assert.deepEqual(staged, ["b.txt"], "no secret was staged");
  for (const line of ["git add --repo r --path .env", "git add --repo r --path secrets/new.txt"]) {
    assert.equal((await ptermTry(root.path, line)).error_code, "SecretPathDenied", line);
  }

  for (const line of ["git diff --repo r main other", "git show --repo r other", "git diff --repo r HEAD"]) {
    const envelope = await pterm(root.path, line);
    const text = JSON.stringify(envelope);
    assert.doesNotMatch(text, /TOKEN=|KEY-ONE|NEW-KEY/, line);
  }
  const diffResult = result(await pterm(root.path, "git diff --repo r main other"));
  assert.deepEqual(diffResult.withheld, [".env"]);

  await git(dir, "checkout", "-q", "--", ".env");
  await pterm(root.path, "git commit --repo r -m b");
  const checkedOut = await pterm(root.path, "git checkout --repo r other");
  assert.doesNotMatch(JSON.stringify(checkedOut), /TOKEN=/);
  // Written as git's checkout writes it (never shown), so the real git sees nothing pterm did not do.
  assert.equal(await Deno.readTextFile(`${dir}/.env`), "TOKEN=other-branch\n", "the secret file follows the checkout");
  assert.equal(await git(dir, "status", "--porcelain", "--untracked-files=no"), "");
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "other\n");
  await assertFsck(dir);
});

Deno.test("a repository at the workspace root never stages pterm's own state", async () => {
  await using root = await makeRoot();
  await pterm(root.path, "git init --dir .");
  await write(`${root.path}/notes.txt`, "n\n");
  await write(`${root.path}/pterm.json`, "{}\n");
  const status = result(await pterm(root.path, "git status --repo ."));
  assert.deepEqual(status.files.map((f: { path: string }) => f.path), ["notes.txt"]);
  await pterm(root.path, "git add --repo . --all");
  await pterm(root.path, "git commit --repo . -m notes");
  assert.deepEqual((await git(root.path, "ls-files")).trim().split("\n"), ["notes.txt"]);
});
