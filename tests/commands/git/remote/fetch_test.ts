/** git fetch after the real git pushed to the server, against the real git's fetch of the same clone. */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

const refsOf = (dir: string) => git(dir, "for-each-ref", "--format=%(refname) %(objectname)");

for (const mode of ["v2", "v0"] as const) {
  Deno.test(`fetch (protocol ${mode}): new commits, a new branch, a forced update and new tags land as the real git's fetch lands them`, async (t) => {
    await using server = await startGitHttpServer({ v0Only: mode === "v0" });
    await using work = await makeRoot();
    const src = await servedRepository(server, "app.git", work.path);
    await using root = await allowedWorkspace(server);
    const url = server.url("app.git");
    await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
    await git(work.path, "clone", "--quiet", url, `${work.path}/real`);
    const mine = `${root.path}/app`;
    const real = `${work.path}/real`;

    await t.step("nothing new: no pack, no ref moves", async () => {
      const envelope = await execOk(root.path, "git fetch --repo app --confirm");
      const result = envelope.result as { updated: number; transfer: { objects: number } };
      assert.equal(result.updated, 0);
      assert.equal(result.transfer.objects, 0);
      assert.match(envelope.stdout, /origin had nothing new/);
    });

    // The real git moves the server on: two commits on main, a new branch, side rewritten, two tags.
    for (let i = 0; i < 2; i++) {
      await Deno.writeTextFile(`${src}/later-${i}.txt`, `later ${i}\n`);
      await git(src, "add", "-A");
      await git(src, "commit", "--quiet", "-m", `later ${i}`);
    }
    await git(src, "tag", "-a", "-m", "release 2", "v2.0");
    await git(src, "tag", "v0.2", "HEAD~1");
    await git(src, "branch", "feature");
    await git(src, "checkout", "--quiet", "side");
    await git(src, "commit", "--quiet", "--amend", "-m", "side rewritten");
    await git(src, "checkout", "--quiet", "main");
    await git(src, "push", "--quiet", "--force", url, "main", "side", "feature", "--tags");

    await t.step("fetch brings all of it; refs and FETCH_HEAD as the real git's", async () => {
      const envelope = await execOk(root.path, "git fetch --repo app --confirm");
      await git(real, "fetch", "--quiet");
      assert.equal(await refsOf(mine), await refsOf(real));
      assert.equal(
        await Deno.readTextFile(`${mine}/.git/FETCH_HEAD`),
        await Deno.readTextFile(`${real}/.git/FETCH_HEAD`),
      );
      const refs = (envelope.result as { refs: { local: string; status: string }[] }).refs;
      const status = Object.fromEntries(refs.map((r) => [r.local, r.status]));
      assert.equal(status["refs/remotes/origin/main"], "fast-forward");
      assert.equal(status["refs/remotes/origin/side"], "forced");
      assert.equal(status["refs/remotes/origin/feature"], "new");
      assert.equal(status["refs/tags/v2.0"], "new");
      assert.equal(status["refs/tags/v0.2"], "new");
      // Reflogs as git writes them for remote-tracking branches.
      const log = await git(mine, "reflog", "show", "--format=%gs", "refs/remotes/origin/side");
      assert.equal(log.split("\n")[0], "fetch: forced-update");
      await assertFsck(mine);
      // The real git agrees there is nothing left to fetch, and pterm reads the new history.
      assert.equal((await git(mine, "fetch", "--dry-run")).trim(), "");
      const logged = await execOk(root.path, "git log --repo app --ref origin/main --max 1");
      assert.match(logged.stdout, /later 1/);
    });

    await t.step("a fetch cut mid-pack changes no ref and leaves no pack; the next one succeeds", async () => {
      // Incompressible, so the pack is far longer than the cut.
      const noise = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(60_000))));
      await Deno.writeTextFile(`${src}/big.txt`, noise);
      await git(src, "add", "-A");
      await git(src, "commit", "--quiet", "-m", "big");
      await git(src, "push", "--quiet", url, "main");
      const before = await refsOf(mine);
      const packs = [...Deno.readDirSync(`${mine}/.git/objects/pack`)].map((e) => e.name).sort();
      const fetchHead = await Deno.readTextFile(`${mine}/.git/FETCH_HEAD`);
      server.cutNextFetchAfter = 5000;
      const cut = await exec(root.path, "git fetch --repo app --confirm");
      assert.equal(cut.error_code, "RemoteError", cut.stderr);
      assert.equal(await refsOf(mine), before);
      assert.deepEqual([...Deno.readDirSync(`${mine}/.git/objects/pack`)].map((e) => e.name).sort(), packs);
      assert.equal(await Deno.readTextFile(`${mine}/.git/FETCH_HEAD`), fetchHead);
      await assertFsck(mine);
      await execOk(root.path, "git fetch --repo app --confirm");
      assert.equal(
        await git(mine, "rev-parse", "refs/remotes/origin/main"),
        await git(src, "rev-parse", "main"),
      );
      await assertFsck(mine);
    });

    await t.step("a remote that is not configured: NotFound naming `git remote`", async () => {
      const envelope = await exec(root.path, "git fetch --repo app --remote upstream --confirm");
      assert.equal(envelope.error_code, "NotFound");
      assert.match(envelope.stderr, /git remote --repo app/);
    });
  });
}
