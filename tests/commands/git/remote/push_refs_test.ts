/**
 * push --tags, push of one tag, push --delete and fetch --prune against a real git server, with
 * the real git as the oracle: what pterm pushes the real git's ls-remote sees with the same
 * values (annotated tags peeled the same), a tag the remote has with another value refuses the
 * whole push, a deleted remote branch disappears from pterm's remote-tracking refs exactly as
 * from the real git's after `git fetch --prune`.
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("push --tags, push <tag>, push --delete and fetch --prune land as the real git's", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  const bare = `${server.projectRoot}/app.git`;
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;
  const remoteRefs = async () => (await git(work.path, "ls-remote", url)).trim().split("\n").sort();
  const localTag = async (name: string) => (await git(mine, "show-ref", `refs/tags/${name}`)).trim().split(" ")[0];

  await t.step("push --tags: ConfirmRequired naming the tags, then only the missing ones are sent", async () => {
    await Deno.writeTextFile(`${mine}/tagged.txt`, "tagged\n");
    await execOk(root.path, "git add --repo app --path tagged.txt");
    await execOk(root.path, 'git commit --repo app -m "to tag"');
    await execOk(root.path, 'git tag --repo app v2.0 --message "release 2"');
    await execOk(root.path, "git tag --repo app light-2");
    const refused = await exec(root.path, "git push --repo app --tags");
    assert.equal(refused.error_code, "ConfirmRequired");
    assert.match(refused.stderr, /sending tags .*light-2.*v2\.0/);
    const before = await remoteRefs();
    const pushed = await execOk(root.path, "git push --repo app --tags --confirm");
    const result = pushed.result as { refs: { ref: string; status: string }[]; commits: number };
    assert.deepEqual(
      result.refs.filter((r) => r.status === "new").map((r) => r.ref).sort(),
      ["refs/tags/light-2", "refs/tags/v2.0"],
    );
    assert.equal(result.commits, 1);
    const after = await remoteRefs();
    // The real git's view: the two new tags (v2.0 annotated, so peeled too), nothing else moved.
    assert.deepEqual(
      after.filter((line) => !before.includes(line)).map((line) => line.split("\t")[1]).sort(),
      ["refs/tags/light-2", "refs/tags/v2.0", "refs/tags/v2.0^{}"],
    );
    assert.ok(after.includes(`${await localTag("v2.0")}\trefs/tags/v2.0`));
    await assertFsck(bare);
    // A clone by the real git has the tagged commit and its file.
    await git(work.path, "clone", "--quiet", "--branch", "v2.0", url, `${work.path}/by-tag`);
    assert.equal(await Deno.readTextFile(`${work.path}/by-tag/tagged.txt`), "tagged\n");
  });

  await t.step("push origin <tag>, as the real git spells it; again: nothing to push", async () => {
    await execOk(root.path, "git tag --repo app one-more");
    await execOk(root.path, "git push --repo app origin one-more --confirm");
    assert.ok((await remoteRefs()).includes(`${await localTag("one-more")}\trefs/tags/one-more`));
    const again = await execOk(root.path, "git push --repo app origin one-more --confirm");
    assert.equal((again.result as { refs: { status: string }[] }).refs[0].status, "up-to-date");
  });

  await t.step("a tag the remote has with another value refuses the push; nothing is sent", async () => {
    await git(mine, "tag", "-f", "v0.1", "HEAD");
    await execOk(root.path, "git tag --repo app late-tag");
    const before = await remoteRefs();
    const refused = await exec(root.path, "git push --repo app --tags --confirm");
    assert.equal(refused.error_code, "Rejected");
    assert.match(refused.stderr, /v0\.1/);
    assert.deepEqual(await remoteRefs(), before);
  });

  await t.step("push --delete: ConfirmRequired, then the branch is gone there and origin/side here", async () => {
    const refused = await exec(root.path, "git push --repo app origin --delete side");
    assert.equal(refused.error_code, "ConfirmRequired");
    assert.match(refused.stderr, /deleting side/);
    assert.ok((await remoteRefs()).some((l) => l.endsWith("\trefs/heads/side")));
    const deleted = await execOk(root.path, "git push --repo app origin --delete side --confirm");
    assert.deepEqual((deleted.result as { refs: unknown[] }).refs, [
      { ref: "refs/heads/side", old: (await git(src, "rev-parse", "side")).trim(), new: null, status: "deleted" },
    ]);
    assert.ok(!(await remoteRefs()).some((l) => l.endsWith("\trefs/heads/side")));
    assert.equal((await git(mine, "for-each-ref", "refs/remotes/origin/side")).trim(), "");
    const missing = await exec(root.path, "git push --repo app origin --delete no-such --confirm");
    assert.equal(missing.error_code, "NotFound");
    await assertFsck(bare);
  });

  await t.step("fetch --prune removes what the remote deleted, as the real git's fetch --prune", async () => {
    await git(work.path, "clone", "--quiet", url, `${work.path}/real`);
    // The real git adds two branches, both clones see them; then deletes one and renames the other to a folder.
    await git(src, "push", "--quiet", url, "main:refs/heads/gone", "main:refs/heads/topic");
    await execOk(root.path, "git fetch --repo app --confirm");
    await git(`${work.path}/real`, "fetch", "--quiet");
    await git(src, "push", "--quiet", url, ":refs/heads/gone", ":refs/heads/topic", "main:refs/heads/topic/sub");
    // Without --prune the stale topic blocks topic/sub (the real git's fetch fails on it too).
    const plain = await exec(root.path, "git fetch --repo app --confirm");
    assert.equal(plain.error_code, "AlreadyExists", plain.stderr);
    assert.notEqual((await git(mine, "for-each-ref", "refs/remotes/origin/gone")).trim(), "");
    const pruned = await execOk(root.path, "git fetch --repo app --prune --confirm");
    await git(`${work.path}/real`, "fetch", "--quiet", "--prune");
    assert.equal((pruned.result as { pruned: number }).pruned, 2);
    assert.match(pruned.stdout, /\[deleted\].*origin\/gone/);
    const refs = (dir: string) => git(dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes");
    assert.equal(await refs(mine), await refs(`${work.path}/real`));
    assert.equal((await git(mine, "symbolic-ref", "refs/remotes/origin/HEAD")).trim(), "refs/remotes/origin/main");
    await assertFsck(mine);
  });

  await t.step(
    "fetch.prune and remote.origin.prune in .git/config prune a fetch and a pull as in the real git",
    async () => {
      const real = `${work.path}/real`;
      const refs = (dir: string) => git(dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes");
      const both = async (...args: string[]) => {
        await git(mine, ...args);
        await git(real, ...args);
      };
      /** The remote gains `name`, both clones fetch it, and the remote deletes it again. */
      const staleBranch = async (name: string) => {
        await git(src, "push", "--quiet", url, `main:refs/heads/${name}`);
        await execOk(root.path, "git fetch --repo app --confirm");
        await git(real, "fetch", "--quiet");
        await git(src, "push", "--quiet", url, `:refs/heads/${name}`);
      };
      await both("config", "fetch.prune", "true");
      await staleBranch("temp1");
      const fetched = await execOk(root.path, "git fetch --repo app --confirm");
      await git(real, "fetch", "--quiet");
      assert.equal((fetched.result as { pruned: number }).pruned, 1);
      assert.equal(await refs(mine), await refs(real));
      assert.doesNotMatch(await refs(mine), /temp1/);
      // remote.<name>.prune wins over fetch.prune.
      await both("config", "remote.origin.prune", "false");
      await staleBranch("temp2");
      const kept = await execOk(root.path, "git fetch --repo app --confirm");
      await git(real, "fetch", "--quiet");
      assert.equal((kept.result as { pruned: number }).pruned, 0);
      assert.equal(await refs(mine), await refs(real));
      assert.match(await refs(mine), /temp2/);
      // A pull's fetch reads them too.
      await both("config", "fetch.prune", "false");
      await both("config", "remote.origin.prune", "true");
      await execOk(root.path, "git pull --repo app --confirm");
      await git(real, "pull", "--quiet", "--no-rebase");
      assert.equal(await refs(mine), await refs(real));
      assert.doesNotMatch(await refs(mine), /temp2/);
      // --no-prune overrides the config for one fetch (and one pull's fetch); --prune overrides it the other way.
      await staleBranch("temp3");
      const noPrune = await execOk(root.path, "git fetch --repo app --no-prune --confirm");
      await git(real, "fetch", "--quiet", "--no-prune");
      assert.equal((noPrune.result as { pruned: number }).pruned, 0);
      assert.equal(await refs(mine), await refs(real));
      assert.match(await refs(mine), /temp3/);
      await execOk(root.path, "git pull --repo app --no-prune --confirm");
      await git(real, "pull", "--quiet", "--no-rebase", "--no-prune");
      assert.equal(await refs(mine), await refs(real));
      assert.match(await refs(mine), /temp3/);
      const contradicting = await exec(root.path, "git fetch --repo app --prune --no-prune --confirm");
      assert.equal(contradicting.error_code, "InvalidArgs");
      assert.match(await refs(mine), /temp3/);
      await both("config", "remote.origin.prune", "false");
      await execOk(root.path, "git pull --repo app --prune --confirm");
      await git(real, "pull", "--quiet", "--no-rebase", "--prune");
      assert.equal(await refs(mine), await refs(real));
      assert.doesNotMatch(await refs(mine), /temp3/);
      await assertFsck(mine);
    },
  );
});
