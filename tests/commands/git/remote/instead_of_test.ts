/**
 * url.<base>.insteadOf and pushInsteadOf in the repository's .git/config: the remote's URL is
 * rewritten as the real git rewrites it — the same fetch lands with both, a push goes to the
 * pushInsteadOf URL — and the gate (git.remotes), --confirm's message and the network the kernel
 * grants all see the rewritten URL.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("url.*.insteadOf / pushInsteadOf rewrite remote URLs as the real git does", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;
  await git(work.path, "clone", "--quiet", url, `${work.path}/real`);
  const real = `${work.path}/real`;
  for (const dir of [mine, real]) {
    await git(dir, "config", "remote.origin.url", "srv:app.git");
    await git(dir, "config", `url.${server.origin}/.insteadOf`, "srv:");
    // A shorter prefix that would send it elsewhere: the longest match wins.
    await git(dir, "config", "url.https://elsewhere.example/.insteadOf", "s");
  }
  const tip = async () => {
    await Deno.writeTextFile(`${src}/more.txt`, `${crypto.randomUUID()}\n`);
    await git(src, "add", "-A");
    await git(src, "commit", "--quiet", "-m", "more");
    await git(src, "push", "--quiet", url, "main");
    return (await git(src, "rev-parse", "main")).trim();
  };

  await t.step("fetch goes to the rewritten URL and lands as the real git's fetch", async () => {
    const head = await tip();
    const refused = await exec(root.path, "git fetch --repo app");
    assert.equal(refused.error_code, "ConfirmRequired");
    assert.ok(refused.stderr.includes(url), refused.stderr);
    await execOk(root.path, "git fetch --repo app --confirm");
    await git(real, "fetch", "--quiet");
    assert.equal((await git(mine, "rev-parse", "refs/remotes/origin/main")).trim(), head);
    assert.equal(
      await git(mine, "rev-parse", "refs/remotes/origin/main"),
      await git(real, "rev-parse", "refs/remotes/origin/main"),
    );
    // FETCH_HEAD names the URL as the real git's does (the rewritten one).
    assert.equal(
      (await Deno.readTextFile(`${mine}/.git/FETCH_HEAD`)).split("\t").at(-1),
      (await Deno.readTextFile(`${real}/.git/FETCH_HEAD`)).split("\t").at(-1),
    );
    const listed = await execOk(root.path, "git remote --repo app");
    assert.deepEqual((listed.result as { remotes: { url: string; allowed: boolean }[] }).remotes[0].url, url);
  });

  await t.step("pushInsteadOf: fetch reads one URL, push goes to another (each gated)", async () => {
    // Through "ro:" a fetch leads to a host git.remotes does not allow, a push to the server.
    await git(mine, "config", "remote.origin.url", "ro:app.git");
    await git(mine, "config", "url.http://127.0.0.1:1/.insteadOf", "ro:");
    await git(mine, "config", `url.${server.origin}/.pushInsteadOf`, "ro:");
    const fetch = await exec(root.path, "git fetch --repo app --confirm");
    assert.equal(fetch.error_code, "NetworkDenied", fetch.stderr);
    assert.match(fetch.stderr, /127\.0\.0\.1:1\//);
    await git(mine, "merge", "--quiet", "--ff-only", "refs/remotes/origin/main");
    await Deno.writeTextFile(`${mine}/pushed.txt`, "pushed\n");
    await execOk(root.path, "git add --repo app --path pushed.txt");
    await execOk(root.path, 'git commit --repo app -m "through pushInsteadOf"');
    const unconfirmed = await exec(root.path, "git push --repo app");
    assert.equal(unconfirmed.error_code, "ConfirmRequired");
    assert.ok(unconfirmed.stderr.includes(url), unconfirmed.stderr);
    await execOk(root.path, "git push --repo app --confirm");
    assert.equal(
      (await git(src, "ls-remote", url, "refs/heads/main")).split("\t")[0],
      (await git(mine, "rev-parse", "main")).trim(),
    );
  });
});
