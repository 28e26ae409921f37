/**
 * `git checkout --ours/--theirs <path>` and `git restore --ours/--theirs <path>` in a merge conflict, against
 * real git: the same work tree and index (the conflict stays until `git add`), the same refusals.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitRaw } from "../oracle.ts";
import { repoState } from "../repo_state.ts";
import { tokenize } from "../../../../core/grammar.ts";

/** main and topic both change a.txt; topic deletes gone.txt that main changed; b.txt merges cleanly. */
async function conflicted(dir: string): Promise<string> {
  const repo = join(dir, "r");
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(repo, "a.txt"), "base\n");
  await Deno.writeTextFile(join(repo, "b.txt"), "b\n");
  await Deno.writeTextFile(join(repo, "gone.txt"), "g\n");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "base");
  await git(repo, "checkout", "-q", "-b", "topic");
  await Deno.writeTextFile(join(repo, "a.txt"), "theirs\n");
  await git(repo, "rm", "-q", "gone.txt");
  await git(repo, "commit", "-q", "-am", "topic");
  await git(repo, "checkout", "-q", "main");
  await Deno.writeTextFile(join(repo, "a.txt"), "ours\n");
  await Deno.writeTextFile(join(repo, "gone.txt"), "g changed\n");
  await git(repo, "commit", "-q", "-am", "main");
  await gitRaw(repo, ["merge", "topic"]);
  await Deno.writeTextFile(join(repo, "b.txt"), "b edited\n");
  return repo;
}

for (
  const line of [
    "git checkout --ours a.txt",
    "git checkout --theirs -- a.txt",
    "git checkout --theirs -- gone.txt",
    "git checkout --ours -- gone.txt",
    "git checkout --ours .",
    "git checkout --ours -- b.txt",
    "git restore --ours a.txt",
    "git restore --theirs a.txt",
    "git restore --theirs gone.txt",
    "git restore --ours gone.txt",
    "git checkout --ours -- nothing.txt",
  ]
) {
  Deno.test(`${line}: what real git does in a merge conflict`, async () => {
    await using root = await makeRoot("pterm-side-");
    await using twin = await makeRoot("pterm-side-git-");
    const mine = await conflicted(root.path);
    const theirs = await conflicted(twin.path);
    const envelope = await exec(root.path, line);
    const real = await gitRaw(theirs, tokenize(line).slice(1));
    assert.equal(envelope.exit_code === 0, real.code === 0, `${envelope.stderr}\n${real.stderr}`);
    assert.equal(await repoState(mine), await repoState(theirs));
    assert.equal(await git(mine, "ls-files", "-s"), await git(theirs, "ls-files", "-s"));
    // What the user does next: stage the resolution and commit, with real git.
    await git(mine, "add", "-A");
    await git(theirs, "add", "-A");
    assert.equal(await git(mine, "status", "--porcelain"), await git(theirs, "status", "--porcelain"));
  });
}
