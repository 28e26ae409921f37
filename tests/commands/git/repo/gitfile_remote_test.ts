/**
 * Remotes from a linked worktree: fetch, pull and push run inside `git worktree add`'s folder
 * write what git keeps shared (remote-tracking refs, objects, the remote's config) in the common
 * repository and what is the worktree's own (FETCH_HEAD, HEAD, index) in its git folder, as real
 * git does; checked against a real smart-HTTP git server and `git fsck --strict`.
 */

import assert from "node:assert/strict";
import { assertFsck, git } from "../oracle.ts";
import { execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "../remote/http_server.ts";
import { allowedWorkspace, servedRepository } from "../remote/fixture.ts";

Deno.test("fetch, pull and push from a linked worktree land in the shared repository, FETCH_HEAD in the worktree's own", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  const app = `${root.path}/app`;
  // --no-track: a branch of its own (pushed under its own name, whatever push.default says of an upstream).
  await git(app, "worktree", "add", "-q", "--no-track", "-b", "wtside", "../wt", "origin/side");
  const wt = `${root.path}/wt`;

  // The remote moves on.
  await Deno.writeTextFile(`${src}/later.txt`, "later\n");
  await git(src, "add", "-A");
  await git(src, "commit", "-qm", "later on main");
  await git(src, "push", "-q", url, "main");
  const remoteMain = (await git(src, "rev-parse", "HEAD")).trim();

  await execOk(root.path, "git fetch --repo wt --confirm");
  assert.equal((await git(app, "rev-parse", "refs/remotes/origin/main")).trim(), remoteMain, "shared tracking ref");
  assert.equal((await git(wt, "rev-parse", "refs/remotes/origin/main")).trim(), remoteMain);
  const fetchHead = await Deno.readTextFile(`${app}/.git/worktrees/wt/FETCH_HEAD`);
  assert.match(fetchHead, new RegExp(remoteMain));
  // The main worktree's HEAD, index and files are untouched.
  assert.equal((await git(app, "symbolic-ref", "HEAD")).trim(), "refs/heads/main");
  assert.equal((await git(app, "status", "--porcelain")).trim(), "");

  // Work in the linked worktree, pushed as a new remote branch.
  await Deno.writeTextFile(`${wt}/from-wt.txt`, "from the worktree\n");
  await execOk(root.path, "git add --repo wt from-wt.txt");
  await execOk(root.path, "git commit --repo wt -m from-wt");
  await execOk(root.path, "git push --repo wt --branch wtside --set-upstream --confirm");
  // The upstream went into the shared config, where git (in either worktree) reads it.
  assert.equal((await git(app, "config", "branch.wtside.remote")).trim(), "origin");
  assert.equal((await git(wt, "rev-parse", "--abbrev-ref", "wtside@{upstream}")).trim(), "origin/wtside");
  const pushed = (await git(wt, "rev-parse", "HEAD")).trim();
  assert.ok((await git(work.path, "ls-remote", url)).includes(`${pushed}\trefs/heads/wtside`));

  // Someone else moves wtside on the remote; a pull in the linked worktree brings it in.
  await git(src, "fetch", "-q", url, "wtside");
  await git(src, "checkout", "-q", "-b", "w", "FETCH_HEAD");
  await Deno.writeTextFile(`${src}/side.txt`, "side moves\n");
  await git(src, "add", "-A");
  await git(src, "commit", "-qm", "side moves");
  await git(src, "push", "-q", url, "w:wtside");
  await execOk(root.path, "git pull --repo wt --confirm");
  assert.equal(await Deno.readTextFile(`${wt}/side.txt`), "side moves\n");
  assert.equal((await git(wt, "rev-parse", "HEAD")).trim(), (await git(src, "rev-parse", "HEAD")).trim());
  assert.equal((await git(wt, "status", "--porcelain")).trim(), "");
  assert.equal((await git(app, "symbolic-ref", "HEAD")).trim(), "refs/heads/main", "the main worktree stays");
  await assertFsck(app);
  await assertFsck(wt);
});
