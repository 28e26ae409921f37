/**
 * `git fetch origin <branch>` — the spelling agents use to bring in one branch — fetches only that
 * branch into its remote-tracking ref (git's opportunistic update through the fetch refspecs),
 * with FETCH_HEAD naming it, as the real git does from the same server; a branch the remote does
 * not have is NotFound with nothing written (it was refused as an unexpected argument).
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("git fetch origin <branch> updates that branch only, as git", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");
  await execOk(root.path, `git clone --url ${url} --dir app --confirm`);
  await git(work.path, "clone", "-q", url, `${work.path}/theirs`);
  const mine = `${root.path}/app`;
  const theirs = `${work.path}/theirs`;
  // Both branches move on the server.
  for (const branch of ["main", "side"]) {
    await git(src, "switch", "-q", branch);
    await git(src, "commit", "-q", "--allow-empty", "-m", `more on ${branch}`);
  }
  await git(src, "push", "-q", url, "main", "side");

  const fetched = await execOk(root.path, "git fetch --repo app origin side --confirm");
  await git(theirs, "fetch", "-q", "origin", "side");
  const refs = async (dir: string) =>
    await git(dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes");
  assert.equal(await refs(mine), await refs(theirs), "only origin/side moved, in both");
  const fetchHead = async (dir: string) => await Deno.readTextFile(`${dir}/.git/FETCH_HEAD`);
  assert.equal(await fetchHead(mine), await fetchHead(theirs));
  const updated = (fetched.result as { refs: { local: string; status: string }[] }).refs
    .filter((r) => r.status !== "up-to-date").map((r) => r.local);
  assert.deepEqual(updated, ["refs/remotes/origin/side"]);

  const before = await refs(mine);
  const missing = await exec(root.path, "git fetch --repo app origin nope --confirm");
  assert.equal(missing.error_code, "NotFound", missing.stderr);
  assert.equal(await refs(mine), before);
  const refspec = await exec(root.path, "git fetch --repo app origin main:refs/heads/x --confirm");
  assert.equal(refspec.error_code, "InvalidArgs");
  const tag = await exec(root.path, "git fetch --repo app origin refs/tags/v1.0 --confirm");
  assert.equal(tag.error_code, "InvalidArgs");
  assert.match(tag.stderr, /tags come with every fetch/);
  assert.equal(await refs(mine), before);
});
