/**
 * Commits, merges, picks, reverts, stashes and annotated tags are made with the repository's own identity, in
 * git's order: the repository's config (the local one, then the worktree's config.worktree over it), then
 * pterm.json's `git.author`, then pterm's default. Before, every one of them was authored
 * `pterm <pterm@localhost>` (or pterm.json's author) whatever the repository said. The real git reads back each
 * object pterm made.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, pterm, write } from "../oracle.ts";

const who = async (dir: string, rev: string) =>
  (await git(dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>", rev)).trim();

Deno.test("every object pterm makes carries the repository's user.name and user.email", async () => {
  await using root = await makeRoot("pterm-identity-");
  const r = root.path;
  await pterm(r, "git init --dir p --initial-branch main");
  const p = `${r}/p`;
  await git(p, "config", "user.name", "Repo Person");
  await git(p, "config", "user.email", "repo@example.com");
  const me = "Repo Person <repo@example.com>";
  await write(`${p}/f.txt`, "1\n2\n3\n");
  await pterm(r, "git add --repo p --all");
  await pterm(r, 'git commit --repo p -m "base"');
  assert.equal(await who(p, "HEAD"), `${me}|${me}`);

  await pterm(r, "git switch --repo p -c side");
  await write(`${p}/g.txt`, "side\n");
  await pterm(r, "git add --repo p --all");
  await pterm(r, 'git commit --repo p -m "side"');
  await pterm(r, "git switch --repo p main");
  await write(`${p}/f.txt`, "1\n2\n3\n4\n");
  await pterm(r, 'git commit --repo p -a -m "main"');
  await pterm(r, "git merge --repo p --no-ff side");
  assert.equal(await who(p, "HEAD"), `${me}|${me}`, "merge");
  await pterm(r, "git revert --repo p HEAD~1");
  assert.equal(await who(p, "HEAD"), `${me}|${me}`, "revert");

  await pterm(r, "git switch --repo p -c other HEAD~2");
  await pterm(r, "git cherry-pick --repo p side");
  assert.equal(await who(p, "HEAD"), `${me}|${me}`, "cherry-pick keeps the picked author, ours commits it");

  await write(`${p}/f.txt`, "changed\n");
  await pterm(r, "git stash --repo p");
  assert.equal(await who(p, "stash@{0}"), `${me}|${me}`, "stash");
  await pterm(r, 'git tag --repo p -a v1 -m "one"');
  assert.equal((await git(p, "for-each-ref", "--format=%(taggername) %(taggeremail)", "refs/tags/v1")).trim(), me);
  assert.match(await git(p, "reflog", "-1", "--format=%gn <%ge>"), /^Repo Person <repo@example\.com>/);

  // A linked-worktree-style override: extensions.worktreeConfig puts config.worktree over the local config.
  await git(p, "config", "extensions.worktreeConfig", "true");
  await git(p, "config", "--worktree", "user.name", "Worktree Person");
  await write(`${p}/h.txt`, "h\n");
  await pterm(r, "git add --repo p --all");
  await pterm(r, 'git commit --repo p -m "worktree identity"');
  const local = "Worktree Person <repo@example.com>";
  assert.equal(await who(p, "HEAD"), `${local}|${local}`);

  // --author still wins over the repository's identity, as in git.
  await write(`${p}/h.txt`, "h2\n");
  await pterm(r, 'git commit --repo p -a -m "explicit" --author "Ada <ada@example.com>"');
  assert.match(await who(p, "HEAD"), /^Ada <ada@example\.com>/);
  await assertFsck(p);
});

Deno.test("without a repository identity pterm.json's author, then pterm's default, is used", async () => {
  await using root = await makeRoot("pterm-identity-");
  const r = root.path;
  await pterm(r, "git init --dir p --initial-branch main");
  const p = `${r}/p`;
  await write(`${p}/f.txt`, "1\n");
  await pterm(r, "git add --repo p --all");
  await pterm(r, 'git commit --repo p -m "base"');
  assert.equal(await who(p, "HEAD"), "pterm <pterm@localhost>|pterm <pterm@localhost>");
  // Only user.email in the repository: the name comes from the next source, as git looks each up on its own.
  await git(p, "config", "user.email", "only-email@example.com");
  await write(`${p}/f.txt`, "2\n");
  await pterm(r, 'git commit --repo p -a -m "two"');
  assert.equal(await who(p, "HEAD"), "pterm <only-email@example.com>|pterm <only-email@example.com>");
});
