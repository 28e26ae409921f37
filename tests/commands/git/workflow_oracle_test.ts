/** branch, checkout, merge, reset, stash, revert, tag, rm, mv and log: pterm and the real git side by side. */

import assert from "node:assert/strict";
import { git, gitRaw, result } from "./oracle.ts";
import { Twin } from "./twin.ts";

async function base(twin: Twin): Promise<void> {
  await twin.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
  await twin.write("b.txt", "bee\n");
  await twin.write("dir/c.txt", "see\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m base", ["commit", "-qm", "base"]);
  await twin.compare("base");
}

Deno.test("branches, checkout and merges (fast-forward, no-ff, three-way, conflict, abort)", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.run("git branch --repo R feature", ["branch", "feature"]);
  await twin.run("git checkout --repo R feature", ["checkout", "-q", "feature"]);
  await twin.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n");
  await twin.write("dir/new.txt", "new\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m feature-change", ["commit", "-qm", "feature-change"]);
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.compare("back on main");
  await twin.run("git merge --repo R --branch feature", ["merge", "-q", "feature"]);
  await twin.compare("fast-forward");

  await twin.run("git checkout --repo R --create side HEAD~1", ["checkout", "-q", "-b", "side", "HEAD~1"]);
  await twin.write("a.txt", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
  await twin.remove("b.txt");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m side-change", ["commit", "-qm", "side-change"]);
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.run('git merge --repo R --branch side -m "merge side"', ["merge", "-q", "side", "-m", "merge side"]);
  await twin.compare("three-way merge, clean");

  await twin.run("git checkout --repo R --create other HEAD~1", ["checkout", "-q", "-b", "other", "HEAD~1"]);
  await twin.write("a.txt", "ONE\n2\n3\n4\n5\n6\n7\n8\n9\nten\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m other-change", ["commit", "-qm", "other-change"]);
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  const conflict = await twin.run("git merge --repo R --branch other", ["merge", "-q", "other"], "Conflict");
  assert.deepEqual(result(conflict).conflicts, ["a.txt"]);
  await twin.compare("conflicted merge");
  await twin.run("git merge --repo R --abort", ["merge", "--abort"]);
  await twin.compare("aborted");

  await twin.run("git merge --repo R --branch other", ["merge", "-q", "other"], "Conflict");
  await twin.write("a.txt", "resolved\n2\n3\n4\n5\n6\n7\n8\n9\nten\n");
  await twin.run("git add --repo R --path a.txt", ["add", "a.txt"]);
  await twin.run("git commit --repo R -m resolved", ["commit", "-qm", "resolved"]);
  await twin.compare("resolved merge commit");

  await twin.run("git checkout --repo R --create noff HEAD~2", ["checkout", "-q", "-b", "noff", "HEAD~2"]);
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.run("git merge --repo R --branch noff", ["merge", "-q", "noff"]);
  await twin.run("git branch --repo R --create-not-a-flag", ["branch", "--no-such-flag"], "InvalidArgs");
  await twin.compare("already up to date");
});

Deno.test("checkout refuses to overwrite local changes and untracked files; --force and path restores", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.run("git checkout --repo R --create feature", ["checkout", "-q", "-b", "feature"]);
  await twin.write("b.txt", "changed on feature\n");
  await twin.write("untracked-there.txt", "committed on feature\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m f", ["commit", "-qm", "f"]);
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.write("b.txt", "local edit\n");
  await twin.run("git checkout --repo R feature", ["checkout", "-q", "feature"], "UncommittedChanges");
  await twin.compare("refused: local change");
  await twin.write("b.txt", "bee\n");
  await twin.write("untracked-there.txt", "precious\n");
  await twin.run("git checkout --repo R feature", ["checkout", "-q", "feature"], "UncommittedChanges");
  await twin.compare("refused: untracked file in the way");
  await twin.remove("untracked-there.txt");
  await twin.write("a.txt", "carried along\n");
  await twin.run("git checkout --repo R feature", ["checkout", "-q", "feature"]);
  await twin.compare("local change to an unaffected file is carried");
  await twin.write("b.txt", "dirty\n");
  await twin.run("git checkout --repo R main --force", ["checkout", "-q", "-f", "main"]);
  await twin.compare("forced");
  await twin.write("a.txt", "scratch\n");
  await twin.write("dir/c.txt", "scratch\n");
  await twin.run("git checkout --repo R --path a.txt", ["checkout", "--", "a.txt"]);
  await twin.run("git checkout --repo R feature --path dir", ["checkout", "feature", "--", "dir"]);
  await twin.compare("paths restored");
  const detached = await twin.run("git checkout --repo R HEAD~0 --detach", ["checkout", "-q", "--detach", "HEAD"]);
  assert.equal(result(detached).branch, null);
  await twin.compare("detached");
});

Deno.test("reset --soft, --mixed, --hard and path unstaging", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.write("a.txt", "changed\n");
  await twin.write("new.txt", "new\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m second", ["commit", "-qm", "second"]);
  await twin.run("git reset --repo R --soft HEAD~1", ["reset", "-q", "--soft", "HEAD~1"]);
  await twin.compare("soft");
  await twin.run("git reset --repo R --path new.txt", ["reset", "-q", "--", "new.txt"]);
  await twin.compare("path unstaged");
  await twin.run("git reset --repo R --mixed", ["reset", "-q", "--mixed"]);
  await twin.compare("mixed");
  await twin.write("b.txt", "dirty\n");
  await twin.run("git add --repo R --path b.txt", ["add", "b.txt"]);
  await twin.run("git reset --repo R --hard", ["reset", "-q", "--hard"]);
  await twin.compare("hard");
  await twin.run("git reset --repo R --hard HEAD~5", ["reset", "-q", "--hard", "HEAD~5"], "NotFound");
  const orig = (await git(twin.p, "rev-parse", "ORIG_HEAD")).trim();
  assert.match(orig, /^[0-9a-f]{40}$/);
});

Deno.test("stash push, list, apply, pop, drop, clear — and conflicts keep the entry", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.write("a.txt", "stashed\n");
  await twin.write("staged.txt", "staged\n");
  await twin.run("git add --repo R --path staged.txt", ["add", "staged.txt"]);
  await twin.run("git stash push --repo R", ["stash", "push", "-q"]);
  await twin.compare("pushed");
  await twin.write("b.txt", "second stash\n");
  await twin.run('git stash push --repo R -m "second one"', ["stash", "push", "-q", "-m", "second one"]);
  await twin.compare("two entries");
  await twin.run("git stash apply --repo R stash@{1}", ["stash", "apply", "-q", "stash@{1}"]);
  await twin.compare("applied the older entry");
  await twin.run("git reset --repo R --hard", ["reset", "-q", "--hard"]);
  await twin.run("git stash drop --repo R 1", ["stash", "drop", "-q", "stash@{1}"]);
  await twin.compare("dropped");
  await twin.write("b.txt", "conflicting\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m conflicting", ["commit", "-qm", "conflicting"]);
  await twin.run("git stash pop --repo R", ["stash", "pop", "-q"], "Conflict");
  await twin.compare("conflicted pop keeps the entry");
  await twin.run("git reset --repo R --hard", ["reset", "-q", "--hard"]);
  await twin.run("git stash clear --repo R", ["stash", "clear"]);
  await twin.compare("cleared");
  const empty = await twin.run("git stash push --repo R", ["stash", "push", "-q"]);
  assert.equal(result(empty).stash, null);
});

Deno.test("a stash made by pterm pops in git, and one made by git pops in pterm", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.write("a.txt", "by pterm\n");
  await twin.run("git stash push --repo R", ["stash", "push", "-q"]);
  const popGit = await gitRaw(twin.p, ["stash", "pop"]);
  assert.equal(popGit.code, 0, popGit.stderr);
  assert.equal(await Deno.readTextFile(`${twin.p}/a.txt`), "by pterm\n");
  await git(twin.p, "stash", "push", "-q");
  const { ptermTry } = await import("./oracle.ts");
  const pop = await ptermTry(twin.root.path, "git stash pop --repo p");
  assert.equal(pop.exit_code, 0, pop.stderr);
  assert.equal(await Deno.readTextFile(`${twin.p}/a.txt`), "by pterm\n");
});

Deno.test("revert: clean, --no-commit, conflicting", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m ten", ["commit", "-qm", "ten"]);
  await twin.write("b.txt", "bee two\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m bee", ["commit", "-qm", "bee"]);
  await twin.run("git revert --repo R --ref HEAD~1", ["revert", "--no-edit", "HEAD~1"]);
  await twin.compare("clean revert");
  await twin.run("git revert --repo R --ref HEAD~1 --no-commit", ["revert", "--no-commit", "HEAD~1"]);
  await twin.compare("revert --no-commit");
  await twin.run("git reset --repo R --hard", ["reset", "-q", "--hard"]);
  await twin.write("b.txt", "bee three\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m bee3", ["commit", "-qm", "bee3"]);
  const conflict = await twin.run("git revert --repo R --ref HEAD~2", ["revert", "--no-edit", "HEAD~2"], "Conflict");
  assert.deepEqual(result(conflict).conflicts, ["b.txt"]);
  await twin.compare("conflicting revert");
});

Deno.test("tags: lightweight, annotated, list, delete, --force", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.run("git tag --repo R v1", ["tag", "v1"]);
  await twin.run('git tag --repo R v2 HEAD --message "release two"', ["tag", "-a", "v2", "-m", "release two", "HEAD"]);
  await twin.run("git tag --repo R v1", ["tag", "v1"], "AlreadyExists");
  await twin.write("a.txt", "moved on\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m next", ["commit", "-qm", "next"]);
  await twin.run("git tag --repo R v1 --force", ["tag", "-f", "v1"]);
  await twin.compare("tags");
  const list = result(await twin.run("git tag --repo R", ["tag"]));
  assert.deepEqual(list.tags.map((t: { name: string; type: string }) => `${t.name}:${t.type}`), [
    "v1:lightweight",
    "v2:annotated",
  ]);
  assert.equal(list.tags[1].message, "release two");
  const tagText = await git(twin.p, "cat-file", "-p", "v2");
  assert.match(
    tagText,
    /^object [0-9a-f]{40}\ntype commit\ntag v2\ntagger pterm <pterm@localhost> \d+ \+0000\n\nrelease two\n$/,
  );
  await twin.run("git tag --repo R --delete v2", ["tag", "-d", "v2"]);
  await twin.run("git tag --repo R --delete v2", ["tag", "-d", "v2"], "NotFound");
  await twin.compare("deleted");
});

Deno.test("branch: create at a start point, delete (unmerged refused), rename the current branch", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.run("git branch --repo R topic", ["branch", "topic"]);
  await twin.run("git checkout --repo R topic", ["checkout", "-q", "topic"]);
  await twin.write("t.txt", "topic\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m topic", ["commit", "-qm", "topic"]);
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.run("git branch --repo R --delete topic", ["branch", "-d", "topic"], "BranchNotMerged");
  await twin.run("git branch --repo R old topic~1", ["branch", "old", "topic~1"]);
  await twin.run("git branch --repo R --delete old", ["branch", "-d", "old"]);
  await twin.run("git branch --repo R --delete main", ["branch", "-d", "main"], "InvalidArgs");
  await twin.run("git branch --repo R --move main trunk", ["branch", "-m", "main", "trunk"]);
  await twin.run("git branch --repo R topic", ["branch", "topic"], "AlreadyExists");
  await twin.run("git branch --repo R --delete topic --force", ["branch", "-D", "topic"]);
  await twin.compare("branches");
  const listed = result(await twin.run("git branch --repo R", ["branch"]));
  assert.deepEqual(listed.branches.map((b: { name: string; current: boolean }) => [b.name, b.current]), [[
    "trunk",
    true,
  ]]);
});

Deno.test("rm and mv", async () => {
  await using twin = await Twin.create();
  await base(twin);
  await twin.run("git mv --repo R b.txt dir", ["mv", "b.txt", "dir"]);
  await twin.run("git mv --repo R dir moved", ["mv", "dir", "moved"]);
  await twin.compare("moved");
  await twin.run("git commit --repo R -m moved", ["commit", "-qm", "moved"]);
  await twin.write("a.txt", "modified\n");
  await twin.run("git rm --repo R --path a.txt", ["rm", "-q", "a.txt"], "UncommittedChanges");
  await twin.run("git rm --repo R --path moved", ["rm", "-q", "moved"], "InvalidArgs");
  await twin.run("git rm --repo R --path a.txt --cached", ["rm", "-q", "--cached", "a.txt"]);
  await twin.run("git rm --repo R --path moved --recursive", ["rm", "-q", "-r", "moved"]);
  await twin.run("git rm --repo R --path nothing-here", ["rm", "-q", "nothing-here"], "NotFound");
  await twin.compare("removed");
});

Deno.test("log: order, --max, --ref and --path match git log", async () => {
  await using twin = await Twin.create();
  await base(twin);
  for (let i = 0; i < 4; i++) {
    await twin.write(i % 2 ? "dir/c.txt" : "a.txt", `v${i}\n`);
    await twin.run("git add --repo R --all", ["add", "-A"]);
    await twin.run(`git commit --repo R -m c${i}`, ["commit", "-qm", `c${i}`]);
  }
  const subjects = (envelope: { result: unknown }) =>
    (envelope.result as { commits: { subject: string }[] }).commits.map((c) => c.subject).join(",");
  const gitSubjects = async (...args: string[]) =>
    (await git(twin.g, "log", "--format=%s", ...args)).trim().split("\n").join(",");
  assert.equal(subjects(await twin.run("git log --repo R --max 3", ["log", "-3"])), await gitSubjects("-3"));
  assert.equal(
    subjects(await twin.run("git log --repo R --path dir", ["log", "--", "dir"])),
    await gitSubjects("--", "dir"),
  );
  assert.equal(
    subjects(await twin.run("git log --repo R --ref HEAD~2 --max 10", ["log", "HEAD~2"])),
    await gitSubjects("HEAD~2"),
  );
  const log = result(await twin.run("git log --repo R --max 1", ["log", "-1"]));
  const full = log.commits[0];
  assert.equal(full.id, (await git(twin.p, "rev-parse", "HEAD")).trim());
  assert.equal(full.parents[0], (await git(twin.p, "rev-parse", "HEAD~1")).trim());
  assert.match(full.author.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
});
