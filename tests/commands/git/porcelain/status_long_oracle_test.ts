/**
 * `git status` in git's long form, and `--short`/`--porcelain`/`-sb`, byte for byte as real git
 * prints them in the same repository, state after state: before the first commit, with an
 * upstream up to date, ahead, behind, diverged and gone, with staged, unstaged, deleted, renamed
 * and untracked files (folders collapsed as git's default shows them), `-uno`, a detached HEAD at
 * and from a branch, a remote branch and a tag, and with git's hints turned off.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, gitRaw, ptermTry, write } from "../oracle.ts";

async function assertStatusAsGit(root: string, repo: string, note: string): Promise<void> {
  for (const args of [["status"], ["status", "-s"], ["status", "--porcelain"], ["status", "-sb"], ["status", "-uno"]]) {
    const theirs = await gitRaw(`${root}/${repo}`, args);
    const ours = await ptermTry(root, `git ${args.join(" ")} --repo ${repo}`);
    assert.equal(ours.exit_code, 0, `${note}: pterm git ${args.join(" ")}: ${ours.stderr}`);
    assert.equal(ours.stdout, theirs.stdout, `${note}: git ${args.join(" ")}`);
  }
}

Deno.test("git status prints real git's long and short forms in every everyday state", async () => {
  await using root = await makeRoot();
  const up = `${root.path}/up`;
  const dir = `${root.path}/r`;

  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await assertStatusAsGit(root.path, "r", "an empty repository");
  await write(`${dir}/f.txt`, "f\n");
  await assertStatusAsGit(root.path, "r", "no commits, an untracked file");
  await git(dir, "add", "f.txt");
  await assertStatusAsGit(root.path, "r", "no commits, a staged file");
  await Deno.remove(dir, { recursive: true });

  await Deno.mkdir(up, { recursive: true });
  await git(up, "init", "-q", "-b", "main");
  await write(`${up}/a.txt`, "a\n");
  await write(`${up}/b.txt`, "b\n");
  await write(`${up}/d/c.txt`, "c\n");
  await git(up, "add", "-A");
  await git(up, "commit", "-qm", "base");
  await git(root.path, "clone", "-q", "up", "r");
  await assertStatusAsGit(root.path, "r", "a clone, up to date");

  await write(`${dir}/a.txt`, "a\na2\n");
  await git(dir, "commit", "-qam", "ahead");
  await write(`${dir}/a.txt`, "a\na2\na3\n");
  await write(`${dir}/n.txt`, "new\n");
  await git(dir, "add", "n.txt");
  await Deno.remove(`${dir}/b.txt`);
  await write(`${dir}/u/v/w.txt`, "untracked deep\n");
  await write(`${dir}/d/x.txt`, "untracked beside a tracked file\n");
  await write(`${dir}/with space.txt`, "s\n");
  await git(dir, "mv", "d/c.txt", "d/c2.txt");
  await assertStatusAsGit(root.path, "r", "ahead, staged, unstaged, deleted, renamed, untracked");
  await git(dir, "config", "advice.statusHints", "false");
  await assertStatusAsGit(root.path, "r", "the same without hints");
  await git(dir, "config", "--unset", "advice.statusHints");
  for (const mode of ["no", "all"]) {
    await git(dir, "config", "status.showUntrackedFiles", mode);
    await assertStatusAsGit(root.path, "r", `status.showUntrackedFiles=${mode}`);
  }
  await git(dir, "config", "--unset", "status.showUntrackedFiles");

  await git(dir, "stash", "-q", "-u");
  await write(`${up}/a.txt`, "a\nup\n");
  await git(up, "commit", "-qam", "upstream");
  await git(dir, "fetch", "-q");
  await assertStatusAsGit(root.path, "r", "diverged");
  await git(dir, "reset", "-q", "--hard", "origin/main");
  await write(`${up}/b.txt`, "b\nup\n");
  await git(up, "commit", "-qam", "upstream again");
  await git(dir, "fetch", "-q");
  await assertStatusAsGit(root.path, "r", "behind");

  await git(dir, "checkout", "-q", "--detach", "main");
  await assertStatusAsGit(root.path, "r", "detached at a branch");
  await git(dir, "checkout", "-q", "origin/main");
  await assertStatusAsGit(root.path, "r", "detached at a remote branch");
  await git(dir, "tag", "v1", "HEAD~1");
  await git(dir, "checkout", "-q", "v1");
  await assertStatusAsGit(root.path, "r", "detached at a tag");
  await write(`${dir}/a.txt`, "detached work\n");
  await git(dir, "commit", "-qam", "on a detached HEAD");
  await assertStatusAsGit(root.path, "r", "detached from a tag");
  // The next step as pterm takes it: back to the branch, as real git's reflog and status see it.
  const back = await ptermTry(root.path, "git switch main --repo r");
  assert.equal(back.exit_code, 0, back.stderr);
  await assertStatusAsGit(root.path, "r", "back on main");

  await git(up, "branch", "-q", "-m", "main", "trunk");
  await git(dir, "fetch", "-q", "--prune");
  await assertStatusAsGit(root.path, "r", "upstream gone");
});
