/**
 * push and pull against a real git server, with the real git pushing concurrently: pterm's pushes
 * are seen by the real git's clone; a push behind the server is Rejected, and pull + push then
 * works; a pull that conflicts is a Conflict listing the files; --set-upstream and
 * --force-with-lease behave as git's.
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("push and pull: the real git sees pterm's commits, a concurrent push makes pterm's Rejected until it pulls", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  const bare = `${server.projectRoot}/app.git`;
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;
  const commit = async (file: string, text: string, message: string) => {
    await Deno.writeTextFile(`${mine}/${file}`, text);
    await execOk(root.path, `git add --repo app --path ${file}`);
    await execOk(root.path, `git commit --repo app -m "${message}"`);
  };
  const realPush = async (file: string, text: string, message: string) => {
    await git(src, "pull", "--quiet", "--no-rebase", url, "main");
    await Deno.writeTextFile(`${src}/${file}`, text);
    await git(src, "add", "-A");
    await git(src, "commit", "--quiet", "-m", message);
    await git(src, "push", "--quiet", url, "main");
  };

  await t.step("without --confirm: ConfirmRequired counting the commits", async () => {
    await commit("from-pterm.txt", "one\n", "pterm one");
    await commit("from-pterm-2.txt", "two\n", "pterm two");
    const envelope = await exec(root.path, "git push --repo app");
    assert.equal(envelope.error_code, "ConfirmRequired");
    assert.match(envelope.stderr, /push: sending 2 commits of main to main at http:\/\/127\.0\.0\.1:\d+\/app\.git/);
  });

  await t.step("push: the real git clones the server back and sees the commits", async () => {
    const envelope = await execOk(root.path, "git push --repo app --confirm");
    const result = envelope.result as { status: string; commits: number; objects: number };
    assert.equal(result.status, "fast-forward");
    assert.equal(result.commits, 2);
    // Exactly what git's own pack-objects would send for that range.
    const expected = await git(mine, "rev-list", "--objects", "HEAD", "^HEAD~2");
    assert.equal(result.objects, expected.trim().split("\n").length);
    assert.equal(await git(bare, "rev-parse", "main"), await git(mine, "rev-parse", "HEAD"));
    assert.equal(await git(mine, "rev-parse", "refs/remotes/origin/main"), await git(mine, "rev-parse", "HEAD"));
    await git(work.path, "clone", "--quiet", url, `${work.path}/back`);
    assert.equal(await Deno.readTextFile(`${work.path}/back/from-pterm-2.txt`), "two\n");
    await assertFsck(bare);
    const again = await execOk(root.path, "git push --repo app --confirm");
    assert.equal((again.result as { status: string }).status, "up-to-date");
  });

  await t.step("the real git pushes meanwhile: pterm's push is Rejected, pull merges, push works", async () => {
    await realPush("from-real.txt", "real\n", "real one");
    await commit("from-pterm-3.txt", "three\n", "pterm three");
    const before = await git(bare, "rev-parse", "main");
    const rejected = await exec(root.path, "git push --repo app --confirm");
    assert.equal(rejected.error_code, "Rejected", rejected.stderr);
    assert.match(rejected.stderr, /git pull --repo app --confirm/);
    assert.equal(await git(bare, "rev-parse", "main"), before);
    const pulled = await execOk(root.path, "git pull --repo app --confirm");
    assert.equal((pulled.result as { outcome: string }).outcome, "merge");
    assert.equal(await Deno.readTextFile(`${mine}/from-real.txt`), "real\n");
    await execOk(root.path, "git push --repo app --confirm");
    await git(src, "pull", "--quiet", "--no-rebase", url, "main");
    assert.equal(await Deno.readTextFile(`${src}/from-pterm-3.txt`), "three\n");
    assert.equal((await git(src, "log", "-1", "--format=%P")).trim().split(" ").length, 2);
    await assertFsck(bare);
    await assertFsck(mine);
  });

  await t.step("pull with a conflict: Conflict with result.conflicts", async () => {
    await realPush("shared.txt", "the real git's line\n", "real edit");
    await commit("shared.txt", "pterm's line\n", "pterm edit");
    const envelope = await exec(root.path, "git pull --repo app --confirm");
    assert.equal(envelope.error_code, "Conflict", envelope.stderr);
    assert.deepEqual((envelope.result as { conflicts: string[] }).conflicts, ["shared.txt"]);
    assert.match(await Deno.readTextFile(`${mine}/shared.txt`), /<<<<<<< /);
    // The real git sees the same merge in progress.
    assert.match(await git(mine, "status", "--porcelain"), /^AA shared\.txt/m); // both added it
    await Deno.writeTextFile(`${mine}/shared.txt`, "both lines\n");
    await execOk(root.path, "git add --repo app --path shared.txt");
    await execOk(root.path, 'git commit --repo app -m "merge the remote"');
    await execOk(root.path, "git push --repo app --confirm");
    assert.equal(await git(bare, "show", "main:shared.txt"), "both lines\n");
  });

  await t.step("--set-upstream creates the branch there and remembers it", async () => {
    await execOk(root.path, "git checkout --repo app --create fix");
    await commit("fix.txt", "fix\n", "a fix");
    const refused = await exec(root.path, "git push --repo app --confirm");
    assert.equal(refused.error_code, "InvalidArgs");
    assert.match(refused.stderr, /--set-upstream/);
    const envelope = await execOk(root.path, "git push --repo app --branch fix --set-upstream --confirm");
    assert.equal((envelope.result as { status: string }).status, "new");
    assert.equal(await git(mine, "config", "branch.fix.remote"), "origin\n");
    assert.equal(await git(mine, "config", "branch.fix.merge"), "refs/heads/fix\n");
    assert.equal((await git(mine, "status", "-sb")).split("\n")[0], "## fix...origin/fix");
    assert.equal(await git(bare, "rev-parse", "fix"), await git(mine, "rev-parse", "fix"));
  });

  await t.step("a rewritten branch needs --force-with-lease, which holds only against what was fetched", async () => {
    await execOk(root.path, "git reset --repo app --hard HEAD~1");
    await commit("fix.txt", "a better fix\n", "a better fix");
    const refused = await exec(root.path, "git push --repo app --confirm");
    assert.equal(refused.error_code, "Rejected");
    assert.match(refused.stderr, /non-fast-forward/);
    const forced = await execOk(root.path, "git push --repo app --force-with-lease --confirm");
    assert.equal((forced.result as { status: string }).status, "forced");
    assert.equal(await git(bare, "rev-parse", "fix"), await git(mine, "rev-parse", "fix"));
    // Someone else moves fix; the lease (our origin/fix) no longer matches: refused even with the flag.
    await git(src, "fetch", "--quiet", url, "fix");
    await git(src, "checkout", "--quiet", "-b", "their-fix", "FETCH_HEAD");
    await Deno.writeTextFile(`${src}/theirs.txt`, "theirs\n");
    await git(src, "add", "-A");
    await git(src, "commit", "--quiet", "-m", "their fix");
    await git(src, "push", "--quiet", url, "their-fix:refs/heads/fix");
    await git(src, "checkout", "--quiet", "main");
    await execOk(root.path, "git reset --repo app --hard HEAD~1");
    await commit("fix.txt", "the best fix\n", "the best fix");
    const stale = await exec(root.path, "git push --repo app --force-with-lease --confirm");
    assert.equal(stale.error_code, "Rejected");
    assert.match(stale.stderr, /since your last fetch/);
    assert.equal(await git(bare, "rev-parse", "fix"), await git(src, "rev-parse", "their-fix"));
    await assertFsck(bare);
  });
});

Deno.test("a repository made with pterm, pushed to an empty remote: the real git clones it whole", async () => {
  await using server = await startGitHttpServer();
  await server.createBare("empty.git");
  await using root = await allowedWorkspace(server);
  const url = server.url("empty.git");
  await execOk(root.path, "git init --dir fresh");
  await Deno.mkdir(`${root.path}/fresh/src`);
  for (let i = 0; i < 3; i++) {
    await Deno.writeTextFile(`${root.path}/fresh/src/file-${i}.txt`, `version ${i}\n`.repeat(i + 1));
    await execOk(root.path, "git add --repo fresh --all");
    await execOk(root.path, `git commit --repo fresh -m "commit ${i}"`);
  }
  await execOk(root.path, `git remote --repo fresh add origin ${url}`);
  const listed = await execOk(root.path, `git ls-remote --url ${url} --confirm`);
  assert.deepEqual((listed.result as { refs: unknown[] }).refs, []);
  const envelope = await execOk(root.path, "git push --repo fresh --set-upstream --confirm");
  const result = envelope.result as { status: string; commits: number; objects: number };
  assert.equal(result.status, "new");
  assert.equal(result.commits, 3);
  const expected = await git(`${root.path}/fresh`, "rev-list", "--objects", "HEAD");
  assert.equal(result.objects, expected.trim().split("\n").length);
  await using work = await makeRoot();
  await git(work.path, "clone", "--quiet", url, "back");
  assert.equal(
    await git(`${work.path}/back`, "rev-parse", "HEAD"),
    await git(`${root.path}/fresh`, "rev-parse", "HEAD"),
  );
  assert.equal(await Deno.readTextFile(`${work.path}/back/src/file-2.txt`), "version 2\n".repeat(3));
  await assertFsck(`${server.projectRoot}/empty.git`);
  await assertFsck(`${root.path}/fresh`);
});

Deno.test("the server refuses the update (a pre-receive hook): Rejected with its reason; nothing moves", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  const bare = `${server.projectRoot}/app.git`;
  await using root = await allowedWorkspace(server);
  await execOk(root.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
  await Deno.writeTextFile(
    `${bare}/hooks/pre-receive`,
    "#!/bin/sh\necho 'main is frozen for the release' >&2\nexit 1\n",
  );
  await Deno.chmod(`${bare}/hooks/pre-receive`, 0o755);
  await execOk(root.path, 'git commit --repo app --allow-empty -m "not welcome"');
  const before = await git(bare, "rev-parse", "main");
  const tracking = await git(`${root.path}/app`, "rev-parse", "refs/remotes/origin/main");
  const envelope = await exec(root.path, "git push --repo app --confirm");
  assert.equal(envelope.error_code, "Rejected", envelope.stderr);
  assert.match(envelope.stderr, /pre-receive hook declined/);
  assert.equal(await git(bare, "rev-parse", "main"), before);
  assert.equal(await git(`${root.path}/app`, "rev-parse", "refs/remotes/origin/main"), tracking);
  await assertFsck(bare);
});
