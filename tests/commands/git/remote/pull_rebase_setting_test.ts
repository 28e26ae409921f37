/**
 * `pull.rebase` (or `branch.<name>.rebase`) set in the repository's config makes git's pull rebase; pterm's pull only
 * merges, so it refuses by name, before fetching anything, instead of merging where the person's settings say rebase.
 * `--no-rebase` overrides it, as in git. Before, the setting was silently ignored (a merge commit where git would
 * have rebased). pterm's own `git config pull.rebase true` is the way an agent sets it.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

Deno.test("pull refuses where the repository's config says rebase; --no-rebase merges", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const cloned = await exec(root.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
  assert.equal(cloned.exit_code, 0, cloned.stderr);
  const set = await exec(root.path, "git -C app config pull.rebase true");
  assert.equal(set.exit_code, 0, set.stderr);
  const before = await git(`${root.path}/app`, "for-each-ref");
  const refused = await exec(root.path, "git pull --repo app --confirm");
  assert.equal(refused.error_code, "InvalidArgs");
  assert.match(refused.stderr, /pull\.rebase is `true`/);
  assert.equal(await git(`${root.path}/app`, "for-each-ref"), before, "nothing was fetched");
  const merged = await exec(root.path, "git pull --repo app --no-rebase --confirm");
  assert.equal(merged.exit_code, 0, merged.stderr);
  await git(`${root.path}/app`, "config", "branch.main.rebase", "false");
  const branchWins = await exec(root.path, "git pull --repo app --confirm");
  assert.equal(branchWins.exit_code, 0, branchWins.stderr);
});
