/**
 * A project's git hooks (a `pre-commit` lint, a husky folder in core.hooksPath): pterm runs no
 * programs, so its commit is the real git's `--no-verify` — and says so, naming the hooks, instead
 * of reporting a commit the project's checks would have stopped as a plain success. Which hooks
 * count is git's rule: an executable file of the hook's name (not a `.sample`, not a file without
 * the executable bit), in core.hooksPath when set.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitInitCommitted, gitRaw } from "../oracle.ts";

async function hook(path: string, executable = true): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, "#!/bin/sh\necho checked by the hook >&2\nexit 1\n");
  await Deno.chmod(path, executable ? 0o755 : 0o644);
}

Deno.test("git hooks pterm does not run are named in the result, as git's would have run", async (t) => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInitCommitted(dir);

  await t.step("a pre-commit hook the real git runs (and that refuses) is reported, not silently skipped", async () => {
    await hook(`${dir}/.git/hooks/pre-commit`);
    await hook(`${dir}/.git/hooks/commit-msg`, false); // not executable: git does not run it
    await Deno.writeTextFile(`${dir}/.git/hooks/post-commit.sample`, "#!/bin/sh\n");
    await Deno.chmod(`${dir}/.git/hooks/post-commit.sample`, 0o755);
    await Deno.writeTextFile(`${dir}/a.txt`, "changed\n");
    await git(dir, "add", "a.txt");
    const real = await gitRaw(dir, ["commit", "-qm", "by git"]);
    assert.notEqual(real.code, 0, "the real git ran the hook and was stopped by it");
    const envelope = await exec(root.path, "git commit -m by-pterm --repo r");
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    const warnings = (envelope.result as { warnings: string[] }).warnings;
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0], /^git hooks not run: pre-commit \(in \.git\/hooks\)/);
    assert.ok(envelope.stderr.includes("[Warning] git hooks not run: pre-commit"), envelope.stderr);
  });

  await t.step("--no-verify: git skips pre-commit and commit-msg too, so nothing is reported", async () => {
    await Deno.writeTextFile(`${dir}/a.txt`, "changed again\n");
    const envelope = await exec(root.path, "git commit -a --no-verify -m quiet --repo r");
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.deepEqual((envelope.result as { warnings: string[] }).warnings, []);
  });

  await t.step("core.hooksPath (a husky folder): its hooks count, .git/hooks no longer does", async () => {
    await git(dir, "config", "core.hooksPath", ".husky");
    await hook(`${dir}/.husky/commit-msg`);
    await hook(`${dir}/.husky/post-checkout`);
    await hook(`${dir}/.husky/post-merge`);
    await Deno.writeTextFile(`${dir}/a.txt`, "third\n");
    const commit = await exec(root.path, "git commit -a -m husky --repo r");
    assert.deepEqual((commit.result as { warnings: string[] }).warnings, [
      "git hooks not run: commit-msg (in .husky); pterm runs no programs, as the real git with --no-verify. Run " +
      "what they check yourself (see the hook files) before you push.",
    ]);
    const switched = await exec(root.path, "git switch -c side --repo r");
    assert.equal(switched.exit_code, 0, switched.stderr);
    assert.ok(switched.stderr.includes("git hooks not run: post-checkout (in .husky)"), switched.stderr);
    await Deno.writeTextFile(`${dir}/side.txt`, "side\n");
    await exec(root.path, "git add side.txt --repo r");
    await exec(root.path, "git commit --no-verify -m side --repo r");
    await exec(root.path, "git switch main --repo r");
    const merged = await exec(root.path, "git merge side --repo r");
    assert.equal(merged.exit_code, 0, merged.stderr);
    assert.ok(merged.stderr.includes("git hooks not run: post-merge (in .husky)"), merged.stderr);
  });

  await t.step("a linked worktree (real git's worktree add) has the main repository's hooks", async () => {
    await git(dir, "config", "--unset", "core.hooksPath");
    await git(dir, "worktree", "add", "-q", "-b", "wt", `${root.path}/wt`);
    await Deno.writeTextFile(`${root.path}/wt/w.txt`, "w\n");
    await git(`${root.path}/wt`, "add", "w.txt");
    const envelope = await exec(root.path, "git commit -m in-worktree --repo wt");
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.match(
      (envelope.result as { warnings: string[] }).warnings[0] ?? "",
      /^git hooks not run: pre-commit \(in the hooks\/ of the repository's shared git folder\)/,
    );
  });
});
