/**
 * `git branch` (plain, -v, -vv, -a, --format), `git tag` (plain, -n, -n<N>) and `git stash list`
 * print what real git prints, byte for byte, on a generated repository: upstreams ahead, behind,
 * diverged, in sync, gone and local; annotated (multi-line) and lightweight tags; stashes; a
 * branch checked out in another work tree; a detached linked work tree.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git } from "../oracle.ts";

async function commitFile(repo: string, file: string, text: string, message: string) {
  await Deno.writeTextFile(join(repo, file), text);
  await git(repo, "add", file);
  await git(repo, "commit", "-q", "-m", message);
}

/** Compares each line's text with real git's in the same repository. */
async function assertSameText(root: string, repoRel: string, lines: readonly string[]) {
  for (const line of lines) {
    const args = line.split(" ").slice(1).map((w) => w.replace(/^'(.*)'$/, "$1"));
    const real = await git(join(root, repoRel), "-c", "color.ui=never", "--no-pager", ...args);
    const words = line.split(" ");
    const command = words[1] === "stash" ? 3 : 2;
    const envelope = await exec(
      root,
      [...words.slice(0, command), "--repo", repoRel, ...words.slice(command)].join(" "),
    );
    assert.equal(envelope.exit_code, 0, `${line}: ${envelope.stderr}`);
    assert.equal(envelope.stdout, real, line);
  }
}

async function buildRepository(root: string) {
  const origin = join(root, "origin");
  const seed = join(root, "seed");
  await Deno.mkdir(seed);
  await git(seed, "init", "-q", "-b", "main");
  await commitFile(seed, "a.txt", "one\n", "first commit");
  await commitFile(seed, "a.txt", "two\n", "second commit\n\nwith a body");
  for (const b of ["feature", "sync", "doomed", "diverged"]) await git(seed, "branch", b);
  await git(root, "clone", "-q", "--bare", seed, origin);
  const repo = join(root, "r");
  await git(root, "clone", "-q", origin, repo);
  for (const b of ["feature", "sync", "doomed", "diverged"]) await git(repo, "branch", "--track", b, `origin/${b}`);
  await commitFile(repo, "b.txt", "ahead\n", "ahead of origin");
  // feature: behind its upstream.
  await git(repo, "branch", "-f", "feature", "HEAD~2");
  // diverged: ahead and behind.
  await git(repo, "checkout", "-q", "diverged");
  await git(repo, "reset", "-q", "--hard", "HEAD~1");
  await commitFile(repo, "c.txt", "mine\n", "diverging work");
  await git(repo, "checkout", "-q", "main");
  // doomed: its upstream deleted on the remote and pruned here.
  await git(origin, "branch", "-D", "doomed");
  await git(repo, "fetch", "-q", "--prune");
  // A local upstream, a branch without one, and a long name that widens the column.
  await git(repo, "branch", "--track", "local-follower", "main");
  await git(repo, "branch", "a-rather-long-branch-name", "HEAD~1");
  // Tags: lightweight, annotated with several lines, a long name.
  await git(repo, "tag", "v0.1", "HEAD~2");
  await git(repo, "tag", "-a", "v1.0", "-m", "Release 1.0\n\nThe first release.\nWith notes.");
  await git(repo, "tag", "-a", "a-very-long-tag-name-here", "HEAD~1", "-m", "long one");
  await git(repo, "tag", "light-on-head");
  // Stashes.
  await Deno.writeTextFile(join(repo, "a.txt"), "stashed once\n");
  await git(repo, "stash", "push", "-q");
  await Deno.writeTextFile(join(repo, "a.txt"), "stashed twice\n");
  await git(repo, "stash", "push", "-q", "-m", "a named stash");
  // A branch checked out in another work tree, and a detached linked work tree.
  await git(repo, "worktree", "add", "-q", join(root, "wt-sync"), "sync");
  await git(repo, "worktree", "add", "-q", "--detach", join(root, "wt-detached"), "v0.1");
  return repo;
}

Deno.test({
  name: "git branch, tag and stash list print real git's text byte for byte",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using root = await makeRoot("pterm-branch-text-");
  await buildRepository(root.path);
  await assertSameText(root.path, "r", [
    "git branch",
    "git branch -v",
    "git branch -vv",
    "git branch -a",
    "git branch -a -vv",
    "git branch --list 'f*'",
    "git branch '--format=%(refname)'",
    "git branch '--format=%(refname:short)|%(objectname)|%(objectname:short)|%(upstream)|%(upstream:short)|%(HEAD)|%(subject)'",
    "git branch '--format=%(refname:short):%(upstream:track):%(upstream:trackshort)'",
    "git tag",
    "git tag -n",
    "git tag -n3",
    "git tag -n1 'v*'",
    "git stash list",
  ]);
  await assertSameText(root.path, "wt-detached", ["git branch", "git branch -a", "git branch -vv"]);
  await assertSameText(root.path, "wt-sync", ["git branch", "git branch -vv"]);
  // Moved on from the detached start: git says "detached from".
  await commitFile(join(root.path, "wt-detached"), "d.txt", "d\n", "on a detached head");
  await assertSameText(root.path, "wt-detached", ["git branch", "git branch -v"]);
  // An empty stash lists nothing, as git's does; the next push is listed as git lists it.
  await git(join(root.path, "r"), "stash", "clear");
  await assertSameText(root.path, "r", ["git stash list"]);
});
