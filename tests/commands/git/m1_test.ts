/**
 * The first local workflow end to end (init → add → commit → clean status → log), the workspace
 * walls of --repo and --dir, init over an existing repository and commit's author and
 * nothing-to-commit rules, checked against the real git.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { assertFsck, git, porcelainCounts, pterm, ptermTry, result } from "./oracle.ts";

Deno.test("first workflow: init → untracked ≥ 1 → add → commit → clean → log", async () => {
  await using root = await makeRoot();
  const repo = `${root.path}/workspace/jgit-demo`;
  const init = result(await pterm(root.path, "git init --dir workspace/jgit-demo"));
  assert.equal(init.repo_path, "workspace/jgit-demo");
  assert.equal(init.git_dir, "workspace/jgit-demo/.git");
  assert.equal(init.created, true);

  await Deno.writeTextFile(`${repo}/hello.txt`, "hello\n");
  const status = result(await pterm(root.path, "git status --repo workspace/jgit-demo"));
  assert.ok(status.counts.untracked >= 1);
  assert.equal(status.is_clean, false);

  const add = result(await pterm(root.path, "git add --repo workspace/jgit-demo --all"));
  assert.deepEqual(add.added, ["hello.txt"]);
  const commit = result(await pterm(root.path, "git commit --repo workspace/jgit-demo --message init"));
  assert.match(commit.commit_id, /^[0-9a-f]{40}$/);

  const clean = result(await pterm(root.path, "git status --repo workspace/jgit-demo"));
  assert.equal(clean.is_clean, true);
  const log = result(await pterm(root.path, "git log --repo workspace/jgit-demo --max 1"));
  assert.equal(log.commits.length, 1);
  assert.equal(log.commits[0].id, commit.commit_id);
  assert.equal(log.commits[0].subject, "init");

  // The real git agrees with every step.
  assert.equal((await git(repo, "rev-parse", "HEAD")).trim(), commit.commit_id);
  assert.deepEqual((await porcelainCounts(repo)).lines, []);
  assert.equal((await git(repo, "log", "--format=%s|%an <%ae>")).trim(), "init|pterm <pterm@localhost>");
  await assertFsck(repo);
});

Deno.test("--repo and --dir may not leave the workspace root", async () => {
  await using root = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await Deno.symlink(outside.path, `${root.path}/link`);
  const cases: [string, string][] = [
    ["git init --dir ../escape", "PathEscape"],
    [`git init --dir ${outside.path}`, "PathEscape"],
    ["git init --dir link/repo", "PathEscape"],
    ["git status --repo ../x", "PathEscape"],
    ["git status --repo link", "PathEscape"],
    ["git add --repo secrets/repo --all", "SecretPathDenied"],
    ["git status --repo nowhere", "NotFound"],
  ];
  for (const [line, code] of cases) {
    const envelope = await ptermTry(root.path, line);
    assert.notEqual(envelope.exit_code, 0, line);
    assert.equal(envelope.error_code, code, `${line}: ${envelope.stderr}`);
  }
  await Deno.mkdir(`${root.path}/plain`);
  const notRepo = await ptermTry(root.path, "git status --repo plain");
  assert.equal(notRepo.error_code, "NotARepository");
  assert.match(notRepo.stderr, /git init --dir plain/);
  assert.equal([...Deno.readDirSync(outside.path)].length, 0, "nothing was written outside the root");
});

Deno.test("init reports an existing repository instead of clobbering it", async () => {
  await using root = await makeRoot();
  await pterm(root.path, "git init --dir r --initial-branch trunk");
  await Deno.writeTextFile(`${root.path}/r/a.txt`, "a\n");
  await pterm(root.path, "git add --repo r --all");
  const first = result(await pterm(root.path, "git commit --repo r -m one"));
  const again = result(await pterm(root.path, "git init --dir r"));
  assert.equal(again.created, false);
  assert.equal(again.initial_branch, "trunk");
  assert.equal((await git(`${root.path}/r`, "rev-parse", "HEAD")).trim(), first.commit_id);
  assert.equal((await git(`${root.path}/r`, "symbolic-ref", "HEAD")).trim(), "refs/heads/trunk");
});

Deno.test("commit: nothing staged is NothingToCommit; the author comes from --author or pterm.json, the committer is not --author's", async () => {
  await using root = await makeRoot();
  await pterm(root.path, "git init --dir r");
  const empty = await ptermTry(root.path, "git commit --repo r -m nothing");
  assert.equal(empty.error_code, "NothingToCommit");
  await Deno.writeTextFile(`${root.path}/r/a.txt`, "a\n");
  await pterm(root.path, "git add --repo r --path a.txt");
  await pterm(root.path, 'git commit --repo r -m "first one" --author "Ada Lovelace <ada@example.com>"');
  assert.equal(
    (await git(`${root.path}/r`, "log", "-1", "--format=%an|%ae|%cn|%s")).trim(),
    "Ada Lovelace|ada@example.com|pterm|first one",
  );
  const again = await ptermTry(root.path, "git commit --repo r -m again");
  assert.equal(again.error_code, "NothingToCommit");
  await Deno.writeTextFile(
    `${root.path}/pterm.json`,
    JSON.stringify({ git: { author: { name: "Bot", email: "bot@x.test" } } }),
  );
  await pterm(root.path, "git commit --repo r -m empty --allow-empty");
  assert.equal((await git(`${root.path}/r`, "log", "-1", "--format=%an|%ae")).trim(), "Bot|bot@x.test");
  const bad = await ptermTry(root.path, 'git commit --repo r -m x --allow-empty --author "nobody"');
  assert.equal(bad.error_code, "InvalidArgs");
  await assertFsck(`${root.path}/r`);
});
