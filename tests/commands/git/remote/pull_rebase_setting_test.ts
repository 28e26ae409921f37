/**
 * `git pull --rebase`, and `pull.rebase` / `branch.<name>.rebase` = true in the repository's config, rebase the
 * branch's own commits onto the fetched upstream as git's pull does (before, pterm refused them: its pull only
 * merged). The same scenario runs through pterm and through the real git, each in its own clone, and ends in the
 * same history, reflog and files. A setting pterm's pull does not run (`merges`, `interactive`) is refused by name
 * with nothing fetched; `--no-rebase` merges, as in git.
 */

import assert from "node:assert/strict";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { startGitHttpServer } from "./http_server.ts";
import { allowedWorkspace, servedRepository } from "./fixture.ts";

const shape = async (dir: string) => (await git(dir, "log", "--format=%T %s %an %ad", "main")).trim();
const moves = async (dir: string) =>
  (await git(dir, "reflog", "--format=%gs", "-4")).replace(/[0-9a-f]{40}/g, "X").trim();

Deno.test("pull rebases where --rebase or the repository's config says so, as git's pull does", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = await servedRepository(server, "app.git", work.path);
  await using root = await allowedWorkspace(server);
  const cloned = await exec(root.path, `git clone --url ${server.url("app.git")} --dir app --confirm`);
  assert.equal(cloned.exit_code, 0, cloned.stderr);
  await git(root.path, "clone", "-q", server.url("app.git"), "gapp");
  // The upstream moves on; both clones commit a change of their own.
  await Deno.writeTextFile(`${src}/upstream.txt`, "upstream\n");
  await git(src, "add", "upstream.txt");
  await git(src, "commit", "-qm", "upstream change");
  await git(src, "push", "-q", server.url("app.git"), "main");
  for (const dir of [`${root.path}/app`, `${root.path}/gapp`]) {
    await Deno.writeTextFile(`${dir}/mine.txt`, "mine\n");
    await git(dir, "add", "mine.txt");
    await git(dir, "commit", "-qm", "my change");
  }
  const set = await exec(root.path, "git -C app config pull.rebase true");
  assert.equal(set.exit_code, 0, set.stderr);
  await git(`${root.path}/gapp`, "config", "pull.rebase", "true");
  const pulled = await exec(root.path, "git pull --repo app --confirm");
  assert.equal(pulled.exit_code, 0, pulled.stderr);
  assert.match(pulled.stderr, /Successfully rebased and updated refs\/heads\/main\.\n/);
  assert.equal((pulled.result as { outcome: string }).outcome, "rebased");
  const real = await gitRaw(`${root.path}/gapp`, ["pull"]);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(await shape(`${root.path}/app`), await shape(`${root.path}/gapp`));
  assert.equal(await moves(`${root.path}/app`), await moves(`${root.path}/gapp`));
  assert.equal(
    await git(`${root.path}/app`, "status", "--porcelain"),
    await git(`${root.path}/gapp`, "status", "--porcelain"),
  );

  // Nothing new upstream: git's "Current branch main is up to date." (here through --rebase, the setting unset).
  await git(`${root.path}/app`, "config", "--unset", "pull.rebase");
  const again = await exec(root.path, "git pull --rebase --repo app --confirm");
  assert.equal(again.exit_code, 0, again.stderr);
  assert.match(again.stdout, /Current branch main is up to date\.\n$/);

  // A kind of rebase pterm's pull does not run is refused by name, before anything is fetched.
  await git(`${root.path}/app`, "config", "pull.rebase", "merges");
  const before = await git(`${root.path}/app`, "for-each-ref");
  const refused = await exec(root.path, "git pull --repo app --confirm");
  assert.equal(refused.error_code, "InvalidArgs");
  assert.match(refused.stderr, /pull\.rebase is `merges`/);
  assert.equal(await git(`${root.path}/app`, "for-each-ref"), before, "nothing was fetched");
  const merged = await exec(root.path, "git pull --repo app --no-rebase --confirm");
  assert.equal(merged.exit_code, 0, merged.stderr);
  await git(`${root.path}/app`, "config", "branch.main.rebase", "false");
  const branchWins = await exec(root.path, "git pull --repo app --confirm");
  assert.equal(branchWins.exit_code, 0, branchWins.stderr);

  // A dirty work tree is refused as git refuses it, before the fetch.
  await Deno.writeTextFile(`${root.path}/app/mine.txt`, "changed\n");
  const dirty = await exec(root.path, "git pull --rebase --repo app --confirm");
  assert.equal(dirty.error_code, "UncommittedChanges");
  assert.match(dirty.stderr, /^error: cannot pull with rebase: You have unstaged changes\.\nerror: Please commit/);
});
