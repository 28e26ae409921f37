/**
 * Real git's spellings of the remote subcommands: `git clone URL [dir]`,
 * `git fetch origin`, `git pull origin main`, `git push -u origin fix`, `git ls-remote URL`,
 * `git remote -v` do what real git does with them; `pull --rebase` rebases as git's does; a pull of another branch is
 * refused with the line that does it, having fetched nothing.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("remote subcommands take real git's spellings", async () => {
  await using server = await startGitHttpServer({});
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const url = server.url("app.git");

  const listed = await execOk(root.path, `git ls-remote ${url} --confirm`);
  assert.ok((listed.result as { refs: unknown[] }).refs.length > 0);

  // `git clone URL` without a folder clones into the URL's last part, as git does.
  await execOk(root.path, `git clone ${url} --confirm`);
  assert.equal(await git(`${root.path}/app`, "config", "--get", "remote.origin.url"), `${url}\n`);
  await execOk(root.path, `git clone ${url} projects/two --confirm`);
  assert.equal((await git(`${root.path}/projects/two`, "rev-parse", "HEAD")).length, 41);

  const remotes = await execOk(root.path, "git -C app remote -v");
  assert.match(remotes.stdout, new RegExp(`origin\\s+${url.replace(/[.]/g, "\\.")}`));
  await execOk(root.path, "git -C app fetch origin --confirm");
  await execOk(root.path, "git -C app pull origin main --confirm");

  // `git pull --rebase` with nothing new: git's own sentence.
  const rebase = await exec(root.path, "git -C app pull --rebase --confirm");
  assert.equal(rebase.exit_code, 0, rebase.stderr);
  assert.match(rebase.stdout, /Current branch main is up to date\.\n$/);
  // Refusals that name the line, with nothing fetched.
  const before = await git(`${root.path}/app`, "for-each-ref");
  const other = await exec(root.path, "git -C app pull origin side --confirm");
  assert.equal(other.error_code, "InvalidArgs");
  assert.match(other.stderr, /git merge origin\/side/);
  assert.equal(await git(`${root.path}/app`, "for-each-ref"), before);

  // `git push -u origin fix`: a new branch on the remote, with its upstream remembered.
  await execOk(root.path, "git -C app switch -c fix");
  await Deno.writeTextFile(`${root.path}/app/fix.txt`, "fix\n");
  await execOk(root.path, "git -C app add fix.txt");
  await execOk(root.path, 'git -C app commit -m "Fix"');
  await execOk(root.path, "git -C app push -u origin fix --confirm");
  assert.equal(await git(`${root.path}/app`, "config", "--get", "branch.fix.merge"), "refs/heads/fix\n");
  const served = await git(work.path, "ls-remote", url, "refs/heads/fix");
  assert.equal(served.slice(0, 40), (await git(`${root.path}/app`, "rev-parse", "fix")).trim());
});
