/**
 * git's history texts byte for byte: `git log` in git's default medium format (no decorations, as
 * git prints none when its output is not a terminal), the whole history without -n (it stopped at
 * 20 commits in silence before), `--oneline`/`--format`, `--graph` lanes after merges and an
 * octopus, `--all` with the stash, and `git show` of commits and annotated tags — on several
 * repository shapes, compared with the real git's output.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { buildShape, type Shape, Shaper } from "./history_repos.ts";

const LOG_LINES = [
  "",
  "-3",
  "--stat -2",
  "-p -2",
  "--stat",
  "-p",
  "--graph -p",
  "--name-status --graph --all",
  "--oneline",
  "--oneline --all",
  "--oneline --decorate --all",
  "--graph --oneline --decorate --all",
  "--format=fuller",
  "--format=%h%x09%an%x09%s",
  "--pretty=format:%h-%s",
  "--graph --oneline",
  "--graph --oneline --all",
  "--graph --all",
  "--graph",
  "--graph --format=%h%n%s",
  "--graph --pretty=format:%h",
  "--graph --oneline --stat",
  "--graph --stat -3",
  "--graph --oneline -4 --all",
  "--all",
  "main~1..main",
  "--graph --oneline side..main",
  "--graph --oneline --all -- a.txt",
  "--graph -- b.txt",
];

const SHOW_LINES = ["", "HEAD~1", "v1.0", "v0.1", "--stat", "v1.0 --stat", "-s", "HEAD --oneline"];

async function compareShape(t: Deno.TestContext, shape: Shape) {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await buildShape(r, shape);
  const hasSide = shape !== "linear";
  await t.step(`${shape}: git log`, async () => {
    for (const line of LOG_LINES) {
      if (!hasSide && line.includes("side")) continue;
      const args = line.split(" ").filter(Boolean);
      const ours = await exec(root.path, `git log --repo r ${line}`);
      assert.equal(ours.exit_code, 0, `git log ${line}: ${ours.stderr}`);
      const theirs = await git(r, "-c", "color.ui=never", "--no-pager", "log", ...args.map((a) => a));
      assert.equal(ours.stdout, theirs, `git log ${line}`);
    }
  });
  await t.step(`${shape}: git show`, async () => {
    for (const line of SHOW_LINES) {
      const args = line.split(" ").filter(Boolean);
      const ours = await exec(root.path, `git show --repo r ${line}`);
      assert.equal(ours.exit_code, 0, `git show ${line}: ${ours.stderr}`);
      assert.equal(
        ours.stdout,
        await git(r, "-c", "color.ui=never", "--no-pager", "show", ...args),
        `git show ${line}`,
      );
    }
  });
}

Deno.test("git log and git show print git's texts on a linear history", (t) => compareShape(t, "linear"));
Deno.test("git log and git show print git's texts after a merge, with a stash", (t) => compareShape(t, "merge"));
Deno.test("git log and git show print git's texts with an octopus and several branches", (t) =>
  compareShape(t, "branches"));

Deno.test("git log and git show follow log.date, log.decorate, log.abbrevCommit and format.pretty, as git", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await buildShape(r, "merge");
  const settings: [string, string][][] = [
    [["log.date", "iso"]],
    [["log.decorate", "short"]],
    [["log.abbrevCommit", "true"], ["log.date", "relative"]],
    [["format.pretty", "fuller"]],
    [["format.pretty", "%h %s%d"], ["log.decorate", "true"]],
  ];
  for (const pairs of settings) {
    for (const [key, value] of pairs) await git(r, "config", key, value);
    for (const line of ["log -3", "log --oneline -3", "show -s", "show v1.0 -s"]) {
      const ours = await exec(root.path, `git ${line.replace(/^(\w+)/, "$1 --repo r")}`);
      assert.equal(ours.exit_code, 0, `${line}: ${ours.stderr}`);
      assert.equal(ours.stdout, await git(r, ...line.split(" ")), `${JSON.stringify(pairs)} git ${line}`);
    }
    for (const [key] of pairs) await git(r, "config", "--unset", key);
  }
  // full ref names are not printed by pterm: refused by name, not printed short.
  await git(r, "config", "log.decorate", "full");
  const full = await exec(root.path, "git log --repo r -1");
  assert.equal(full.error_code, "UnsupportedFormat");
  assert.match(full.stderr, /log\.decorate=full/);
});

Deno.test("git log without -n lists the whole history, as git", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await Deno.mkdir(r);
  const s = new Shaper(r);
  await s.git("init", "-q", "-b", "main");
  for (let i = 0; i < 45; i++) await s.commit("n.txt", `${i}\n`, `Commit number ${i}`);
  const ours = await exec(root.path, "git log --repo r --oneline");
  assert.equal(ours.exit_code, 0, ours.stderr);
  assert.equal(ours.stdout.trimEnd().split("\n").length, 45);
  assert.equal(ours.stdout, await git(r, "log", "--oneline"));
  assert.equal((ours.result as { commits: unknown[] }).commits.length, 45);
  // What the agent does next: the same list, bounded as git's -n bounds it.
  const five = await exec(root.path, "git log --repo r -5 --format=%s");
  assert.equal(five.stdout, await git(r, "log", "-5", "--format=%s"));
});

Deno.test("git reflog without -n lists every entry, as git", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await Deno.mkdir(r);
  const s = new Shaper(r);
  await s.git("init", "-q", "-b", "main");
  for (let i = 0; i < 25; i++) await s.commit("n.txt", `${i}\n`, `Commit number ${i}`);
  const ours = await exec(root.path, "git reflog --repo r");
  assert.equal(ours.exit_code, 0, ours.stderr);
  assert.equal(ours.stdout, await git(r, "reflog"));
  assert.equal(ours.stdout.trimEnd().split("\n").length, 25);
  const three = await exec(root.path, "git reflog --repo r -n 3");
  assert.equal(three.stdout, await git(r, "reflog", "-n", "3"));
});
