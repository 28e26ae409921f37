/**
 * Git directories by another name than `.git`: a bare repository (`server.git`) and the folder a
 * `git init --separate-git-dir` points to. They hold what `.git` holds — a config whose
 * `core.fsmonitor` and hooks a person's next git command runs — and the `.git` rule did not see
 * them: `patch` wrote `store/config`. Real git made both here; every path into them is refused
 * for reads and writes, also through a symlink, and git on the work tree that uses one still works.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../helpers.ts";
import { git } from "../git/oracle.ts";

Deno.test("bare repositories and separate git dirs are refused like .git, for reads and writes", async (t) => {
  await using root = await makeRoot();
  await git(root.path, "init", "-q", "--bare", "server.git");
  await git(root.path, "init", "-q", "-b", "main", "--separate-git-dir", "store", "work");
  await Deno.writeTextFile(`${root.path}/work/a.txt`, "a\n");
  await Deno.symlink("store", `${root.path}/innocent`);
  const configBefore = await Deno.readTextFile(`${root.path}/store/config`);
  const hook = `${root.path}/server.git/hooks/post-receive`;

  const fsmonitor = "--- a/store/config\n+++ b/store/config\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = touch pwned\n";
  const newHook = "--- /dev/null\n+++ b/server.git/hooks/post-receive\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch pwned\n";
  const viaLink = fsmonitor.replaceAll("store/config", "innocent/config");
  const cases: [string, string, string | undefined][] = [
    ["doc extract of a separate git dir's config", "doc extract store/config", undefined],
    ["doc info of a bare repository's HEAD", "doc info server.git/HEAD", undefined],
    // --repo .: the paths are the root's (without it, patch would run in `work`, the only repository).
    ["patch adding core.fsmonitor to a separate git dir's config", "patch apply --repo .", fsmonitor],
    ["patch creating a bare repository's hook", "patch apply --repo .", newHook],
    ["patch through a symlink to the git dir", "patch apply --repo .", viaLink],
    ["doc --out into a bare repository's hooks", "doc extract work/a.txt -o server.git/hooks/pre-receive", undefined],
  ];
  for (const [label, line, stdin] of cases) {
    await t.step(label, async () => {
      const envelope = await exec(root.path, line, stdin === undefined ? {} : { stdin });
      assert.equal(envelope.exit_code !== 0, true, envelope.stdout);
      assert.match(envelope.stderr, /a git directory \(a bare repository or a separate git dir/, envelope.stderr);
      assert.ok(!envelope.stderr.includes(root.path), "no host path");
    });
  }
  assert.equal(await Deno.readTextFile(`${root.path}/store/config`), configBefore);
  assert.equal(await Deno.lstat(hook).then(() => true, () => false), false);
  assert.equal(await Deno.lstat(`${root.path}/pwned`).then(() => true, () => false), false);

  await t.step("git on the work tree that uses the separate git dir still works", async () => {
    const added = await exec(root.path, "git add a.txt --repo work");
    assert.equal(added.exit_code, 0, added.stderr);
    const committed = await exec(root.path, "git commit -m first --repo work");
    assert.equal(committed.exit_code, 0, committed.stderr);
    assert.equal((await git(`${root.path}/work`, "log", "--format=%s")).trim(), "first");
  });
});
