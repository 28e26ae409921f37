/** git remote (list, add, set-url, remove) and git branch --all, read back by the real git. */

import assert from "node:assert/strict";
import { assertFsck, git, gitRaw } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("git remote and branch --all: what pterm writes in .git/config the real git reads the same", async (t) => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const mine = `${root.path}/app`;

  await t.step("branch --all lists the remote-tracking branches as git branch -a does", async () => {
    const envelope = await execOk(root.path, "git branch --repo app --all");
    const listed = (envelope.result as { remote_branches: { name: string; commit: string; points_to?: string }[] })
      .remote_branches;
    const real = await git(
      mine,
      "for-each-ref",
      "--format=%(refname:lstrip=2) %(objectname) %(symref:lstrip=2)",
      "refs/remotes",
    );
    assert.deepEqual(
      listed.map((b) => `${b.name} ${b.commit} ${b.points_to ?? ""}`.trimEnd()),
      real.trim().split("\n").map((l) => l.trimEnd()),
    );
    assert.match(envelope.stdout, /remotes\/origin\/HEAD -> origin\/main/);
    const plain = await execOk(root.path, "git branch --repo app");
    assert.equal((plain.result as { remote_branches?: unknown }).remote_branches, undefined);
  });

  await t.step("list says which remotes git.remotes allows", async () => {
    const envelope = await execOk(root.path, "git remote --repo app");
    assert.deepEqual((envelope.result as { remotes: unknown[] }).remotes, [
      { name: "origin", url, fetch: ["+refs/heads/*:refs/remotes/origin/*"], allowed: true },
    ]);
  });

  await t.step("add, then fetch it; set-url; the real git reads the same config", async () => {
    await execOk(root.path, `git remote --repo app add mirror ${url}`);
    assert.equal(await git(mine, "config", "remote.mirror.url"), `${url}\n`);
    assert.equal(await git(mine, "config", "remote.mirror.fetch"), "+refs/heads/*:refs/remotes/mirror/*\n");
    await execOk(root.path, "git fetch --repo app --remote mirror --confirm");
    assert.equal(
      await git(mine, "rev-parse", "refs/remotes/mirror/main"),
      await git(mine, "rev-parse", "refs/remotes/origin/main"),
    );
    const twice = await exec(root.path, `git remote --repo app add mirror ${url}`);
    assert.equal(twice.error_code, "AlreadyExists");
    await execOk(root.path, "git remote --repo app set-url mirror https://git.example.com/org/other.git");
    assert.equal(await git(mine, "config", "remote.mirror.url"), "https://git.example.com/org/other.git\n");
    // git's own text, names alone or with -v each URL; which remotes pterm may reach is said apart.
    const listed = await execOk(root.path, "git remote --repo app");
    assert.equal(listed.stdout, await git(mine, "remote"));
    const verbose = await execOk(root.path, "git -C app remote -v");
    assert.equal(verbose.stdout, await git(mine, "remote", "-v"));
    assert.match(verbose.stderr, /none of mirror: not in git\.remotes\.allow/);
  });

  await t.step("a URL with a token or another scheme is refused by add and set-url", async () => {
    const withToken = await exec(
      root.path,
      "git remote --repo app add leak https://user:tok3n-value@example.com/x.git",
    );
    assert.equal(withToken.error_code, "InvalidArgs");
    assert.ok(!withToken.stderr.includes("tok3n-value"));
    const ssh = await exec(root.path, "git remote --repo app set-url mirror git@example.com:org/x.git");
    assert.equal(ssh.error_code, "NetworkDenied");
    assert.equal(await git(mine, "config", "remote.mirror.url"), "https://git.example.com/org/other.git\n");
  });

  await t.step("remove: its section, its remote-tracking refs, the branches' tracking of it", async () => {
    await git(mine, "config", "branch.main.remote", "mirror");
    const envelope = await execOk(root.path, "git remote --repo app remove mirror");
    assert.ok((envelope.result as { removed_refs: number }).removed_refs >= 2);
    assert.equal((await git(mine, "for-each-ref", "refs/remotes/mirror")).trim(), "");
    assert.equal((await git(mine, "remote")).trim(), "origin");
    const left = await gitRaw(mine, ["config", "--get-regexp", "^branch\\."]);
    assert.deepEqual([left.code, left.stdout], [1, ""]); // nothing matches
    await assertFsck(mine);
  });
});
