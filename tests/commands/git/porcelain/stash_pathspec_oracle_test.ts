/**
 * `git stash push [-m msg] [--] <pathspec>` against real git: only the named paths are saved and reset,
 * the rest of the work stays; `git stash pop` brings them back; `-p` is refused by name.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitRaw } from "../oracle.ts";
import { repoState } from "../repo_state.ts";
import { tokenize } from "../../../../core/grammar.ts";

async function setUp(dir: string): Promise<string> {
  const repo = join(dir, "r");
  await Deno.mkdir(join(repo, "dir"), { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  for (const [path, text] of [["a.txt", "a\n"], ["b.txt", "b\n"], ["dir/c.txt", "c\n"], ["dir/d.txt", "d\n"]]) {
    await Deno.writeTextFile(join(repo, path), text);
  }
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "start");
  await Deno.writeTextFile(join(repo, "a.txt"), "a edited\n");
  await Deno.writeTextFile(join(repo, "b.txt"), "b edited\n");
  await Deno.writeTextFile(join(repo, "dir/c.txt"), "c staged\n");
  await git(repo, "add", "dir/c.txt");
  await Deno.writeTextFile(join(repo, "dir/c.txt"), "c staged then edited\n");
  await Deno.writeTextFile(join(repo, "dir/new.txt"), "new\n");
  await git(repo, "add", "dir/new.txt");
  await Deno.writeTextFile(join(repo, "untracked.txt"), "u\n");
  return repo;
}

for (
  const line of [
    'git stash push -m "only a" -- a.txt',
    "git stash push dir",
    "git stash push -- dir/new.txt",
    "git stash push -m both a.txt dir/c.txt",
    "git stash push -- nothing.txt",
    "git stash push -- untracked.txt",
  ]
) {
  Deno.test(`${line}: the same stash, index and work tree as real git's`, async () => {
    await using root = await makeRoot("pterm-stash-spec-");
    await using twin = await makeRoot("pterm-stash-spec-git-");
    const mine = await setUp(root.path);
    const theirs = await setUp(twin.path);
    const envelope = await exec(root.path, line);
    const real = await gitRaw(theirs, tokenize(line).slice(1));
    assert.equal(envelope.exit_code === 0, real.code === 0, `${envelope.stderr}\n${real.stderr}`);
    // Stash commits carry the time of the call: compare what they hold, not their ids.
    const holds = async (repo: string) =>
      (await gitRaw(repo, ["stash", "show", "-p", "--include-untracked"])).stdout +
      (await gitRaw(repo, ["diff", "stash@{0}^1", "stash@{0}^2"])).stdout;
    assert.equal(await holds(mine), await holds(theirs));
    assert.equal(await repoState(mine), await repoState(theirs));
    if (real.code !== 0) return;
    // What the user does next: pop it back, with real git, and find the work as it was.
    await git(mine, "stash", "pop", "-q");
    await git(theirs, "stash", "pop", "-q");
    assert.equal(await git(mine, "status", "--porcelain"), await git(theirs, "status", "--porcelain"));
    assert.equal(await Deno.readTextFile(join(mine, "dir/c.txt")), await Deno.readTextFile(join(theirs, "dir/c.txt")));
  });
}

Deno.test("git stash push -p is refused by name, changing nothing", async () => {
  await using root = await makeRoot("pterm-stash-p-");
  const repo = await setUp(root.path);
  const before = await git(repo, "status", "--porcelain");
  const envelope = await exec(root.path, "git stash push -p");
  assert.equal(envelope.error_code, "InvalidArgs");
  assert.match(envelope.stderr, /interactive hunk selection/);
  assert.equal(await git(repo, "status", "--porcelain"), before);
});
