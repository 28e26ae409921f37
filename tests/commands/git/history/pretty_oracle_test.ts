/**
 * `git log` / `git show` with git's pretty formats print what the real git prints, byte for byte:
 * `--format=%H`, `--pretty=format:…`/`tformat:…`, the built-in oneline/short/medium/full/fuller/
 * reference, `--oneline`, `--decorate`, `--date=…`, and each with `--stat`/`-p`. Before, `--format`
 * and `--oneline` were accepted and not applied: `git log -1 --format=%H` printed pterm's own line
 * (`<short id> <date> <author>: <subject>`), which a script taking it for the full id misreads.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";

Deno.test("git log and git show print git's pretty formats", async (t) => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await git(root.path, "init", "-q", "-b", "main", r);
  await Deno.writeTextFile(`${r}/a.txt`, "one\n");
  await git(r, "add", "a.txt");
  await git(r, "commit", "-q", "-m", "First: the start", "-m", "A body paragraph.\n\nAnd a second one.");
  await git(r, "tag", "v1");
  await git(r, "tag", "-a", "-m", "annotated v1", "v1-ann");
  await git(r, "switch", "-q", "-c", "side");
  await Deno.writeTextFile(`${r}/b.txt`, "side\n");
  await git(r, "add", "b.txt");
  await git(r, "commit", "-q", "-m", "side work");
  await git(r, "switch", "-q", "main");
  await Deno.writeTextFile(`${r}/a.txt`, "one\ntwo\n");
  await git(r, "commit", "-q", "-am", "second [ci skip] / with-odd chars");
  await git(r, "merge", "-q", "--no-ff", "side", "-m", "Merge side into main");
  await git(r, "update-ref", "refs/remotes/origin/main", "HEAD~1");
  await git(r, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
  await git(r, "branch", "zeta", "HEAD~1");

  const cases: [string, string[]][] = [
    ["--format=%H", ["--format=%H"]],
    ["-1 --format=%H", ["-1", "--format=%H"]],
    ['--pretty=format:"%h %s"', ["--pretty=format:%h %s"]],
    ['--format="tformat:%h|%p|%t|%T|%P"', ["--format=tformat:%h|%p|%t|%T|%P"]],
    ['--format="%an <%ae> %al|%ad|%aD|%ai|%aI|%as|%at"', ["--format=%an <%ae> %al|%ad|%aD|%ai|%aI|%as|%at"]],
    ['--format="%cn %ce|%cd|%ci|%cs|%ct"', ["--format=%cn %ce|%cd|%ci|%cs|%ct"]],
    ['--format="%s%n%b--%n%B=="', ["--format=%s%n%b--%n%B=="]],
    ['--format="%f|%d|%D|%x41%%|%Cred%e%N%Creset"', ["--format=%f|%d|%D|%x41%%|%Cred%e%N%Creset"]],
    ["--oneline", ["--oneline"]],
    ["--oneline --decorate", ["--oneline", "--decorate"]],
    ["--pretty=oneline", ["--pretty=oneline"]],
    ["--format=short", ["--format=short"]],
    ["--format=medium", ["--format=medium"]],
    ["--format=full --abbrev-commit", ["--format=full", "--abbrev-commit"]],
    ["--format=fuller --date=iso", ["--format=fuller", "--date=iso"]],
    ["--format=medium --date=rfc --decorate", ["--format=medium", "--date=rfc", "--decorate"]],
    ["--format=reference", ["--format=reference"]],
    ["--format=%ad --date=short", ["--format=%ad", "--date=short"]],
    ["--format=%ad --date=iso-strict", ["--format=%ad", "--date=iso-strict"]],
    ["--format=%ad --date=unix", ["--format=%ad", "--date=unix"]],
    ["--format=%ad --date=raw", ["--format=%ad", "--date=raw"]],
    ["--oneline --stat", ["--oneline", "--stat"]],
    ["--format=%H -p", ["--format=%H", "-p"]],
    ["--format=format:%h --stat", ["--format=format:%h", "--stat"]],
    ["--format=medium --stat", ["--format=medium", "--stat"]],
    ["--format=medium --stat -p", ["--format=medium", "--stat", "-p"]],
    ["--oneline -p", ["--oneline", "-p"]],
    ["--format=%h --all", ["--format=%h", "--all"]],
    ["--oneline --name-status", ["--oneline", "--name-status"]],
    ["--format=%h --name-only", ["--format=%h", "--name-only"]],
    ["--format=medium --name-status", ["--format=medium", "--name-status"]],
  ];
  await t.step("git log", async () => {
    for (const [flags, args] of cases) {
      const ours = await exec(root.path, `git log --repo r ${flags}`);
      assert.equal(ours.exit_code, 0, `${flags}: ${ours.stderr}`);
      // pterm lists 20 commits by default; this history has 4, so git's full log is the same list.
      assert.equal(ours.stdout, await git(r, "log", ...args), `git log ${flags}`);
    }
  });
  await t.step("git show", async () => {
    for (
      const [flags, args] of [
        ["--format=%H", ["--format=%H"]],
        ["-s --format=%H", ["-s", "--format=%H"]],
        ["--format=format:%h", ["--format=format:%h"]],
        ["--oneline", ["--oneline"]],
        ["--format=medium --stat", ["--format=medium", "--stat"]],
        ["HEAD~1 --format=fuller", ["HEAD~1", "--format=fuller"]],
        ["v1-ann --format=%s", ["v1-ann", "--format=%s"]],
        ["v1-ann --oneline", ["v1-ann", "--oneline"]],
        ["v1-ann -s --format=medium", ["v1-ann", "-s", "--format=medium"]],
        ["v1-ann -s --format=fuller --date=iso", ["v1-ann", "-s", "--format=fuller", "--date=iso"]],
        ["v1-ann -s --format=format:%h", ["v1-ann", "-s", "--format=format:%h"]],
        ["v1-ann -s --format=reference", ["v1-ann", "-s", "--format=reference"]],
        ["HEAD --format=%H%n%P", ["HEAD", "--format=%H%n%P"]],
      ] as const
    ) {
      const ours = await exec(root.path, `git show --repo r ${flags}`);
      assert.equal(ours.exit_code, 0, `${flags}: ${ours.stderr}`);
      assert.equal(ours.stdout, await git(r, "show", ...args), `git show ${flags}`);
    }
  });
  await t.step("what pterm cannot print as git would is refused", async () => {
    for (const flags of ['--format="%<(20)%s"', '--format="%w(40)%B"', "--format=raw", "--date=human --oneline"]) {
      const ours = await exec(root.path, `git log --repo r ${flags}`);
      assert.equal(ours.error_code, "InvalidArgs", flags);
    }
  });
});
