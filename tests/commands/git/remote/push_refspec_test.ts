/**
 * `git push origin HEAD`, `git push origin main:other`, `HEAD:refs/heads/x` — git's refspec
 * spellings of a branch push — land where the real git's land (the server's refs read by the real
 * git's ls-remote); a forced refspec, a deletion refspec and a tag destination are refused with
 * nothing sent. Before this, `HEAD` and `main:other` were taken as branch names and refused as
 * unknown branches.
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("push refspecs: HEAD, src:dst, HEAD:refs/heads/x as git; forced, deleting and tag ones refused", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;
  const remoteRef = async (name: string) => {
    const line = (await git(work.path, "ls-remote", url, name)).trim();
    return line ? line.split("\t")[0] : null;
  };
  const head = async () => (await git(mine, "rev-parse", "HEAD")).trim();

  await t.step("git push origin HEAD sends the current branch to its namesake", async () => {
    await execOk(root.path, 'git commit --repo app --allow-empty -m "one more"');
    await execOk(root.path, "git push --repo app origin HEAD --confirm");
    assert.equal(await remoteRef("refs/heads/main"), await head());
  });

  await t.step("main:other creates other there; HEAD:refs/heads/x2 --set-upstream tracks it", async () => {
    await execOk(root.path, "git push --repo app origin main:other --confirm");
    assert.equal(await remoteRef("refs/heads/other"), await head());
    await execOk(root.path, "git push --repo app origin HEAD:refs/heads/x2 --set-upstream --confirm");
    assert.equal(await remoteRef("refs/heads/x2"), await head());
    assert.equal((await git(mine, "config", "branch.main.merge")).trim(), "refs/heads/x2");
    assert.equal((await git(mine, "rev-parse", "refs/remotes/origin/other")).trim(), await head());
    // The real git, pushing the same way from its own clone, agrees on where a ref goes.
    await git(work.path, "clone", "-q", url, `${work.path}/theirs`);
    await git(`${work.path}/theirs`, "push", "-q", "origin", "main:theirs-other");
    assert.equal(await remoteRef("refs/heads/theirs-other"), await remoteRef("refs/heads/main"));
  });

  await t.step("a destination branch that moved on is Rejected, not overwritten", async () => {
    await git(`${work.path}/theirs`, "commit", "-q", "--allow-empty", "-m", "theirs");
    await git(`${work.path}/theirs`, "push", "-q", "origin", "HEAD:other");
    const before = await remoteRef("refs/heads/other");
    const refused = await exec(root.path, "git push --repo app origin main:other --confirm");
    assert.equal(refused.error_code, "Rejected", refused.stderr);
    assert.equal(await remoteRef("refs/heads/other"), before);
  });

  await t.step("forced, deleting and tag refspecs are refused before anything is sent", async () => {
    const before = (await git(work.path, "ls-remote", url)).trim();
    const requests = server.requests.length;
    for (
      const [spelling, message] of [
        ["+main:main", /only force is --force-with-lease/],
        [":other", /--delete other/],
        ["main:refs/tags/t", /not a branch name/],
      ] as const
    ) {
      const refused = await exec(root.path, `git push --repo app origin ${spelling} --confirm`);
      assert.equal(refused.error_code, "InvalidArgs", spelling);
      assert.match(refused.stderr, message);
    }
    assert.equal(server.requests.length, requests, "nothing reached the server");
    assert.equal((await git(work.path, "ls-remote", url)).trim(), before);
  });
  await assertFsck(`${server.projectRoot}/app.git`);
});
