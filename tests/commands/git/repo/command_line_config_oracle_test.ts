/**
 * git's `-c key=value` and the repository's own settings change git's texts; pterm follows each one it
 * takes (byte for byte against the real git given the same words) and refuses the others by name —
 * never takes a setting and prints as if it were not there. Before, `-c log.decorate=short` and
 * `-c diff.noprefix=true` were dropped as "display settings", the repository's diff.noprefix was
 * ignored, and `statusHints =` (an empty value, false to git) read as true.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitInit, gitRaw, pterm, ptermTry, write } from "../oracle.ts";

/** A repository with a tag, a branch, a staged and an unstaged change and an untracked file. */
async function shaped(dir: string): Promise<void> {
  await gitInit(dir);
  await write(`${dir}/a.txt`, "one\ntwo\nthree\n");
  await write(`${dir}/b.txt`, "bee\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "first");
  await git(dir, "tag", "v1");
  await write(`${dir}/a.txt`, "one\n2\nthree\n");
  await git(dir, "commit", "-qam", "second");
  await git(dir, "branch", "side");
  await write(`${dir}/b.txt`, "bee\nstaged\n");
  await git(dir, "add", "b.txt");
  await write(`${dir}/a.txt`, "one\n2\nthree\nfour\n");
  await write(`${dir}/new.txt`, "untracked\n");
}

async function sameAsGit(root: string, line: string): Promise<void> {
  const words = line.split(" ");
  const theirs = await gitRaw(`${root}/r`, words);
  assert.equal(theirs.code, 0, `git ${line}: ${theirs.stderr}`);
  const ours = await pterm(root, `git -C r ${line}`);
  assert.equal(ours.stdout, theirs.stdout, `git ${line}`);
}

Deno.test("-c settings that change git's text are followed byte for byte, as the real git given the same words", async () => {
  await using root = await makeRoot("pterm-cli-config-");
  await shaped(`${root.path}/r`);
  for (
    const line of [
      "-c log.decorate=short log --oneline",
      "-c log.decorate log -2",
      "-c log.date=iso log -1",
      "-c log.abbrevCommit=true log -1",
      "-c core.abbrev=12 log --oneline",
      "-c diff.noprefix=true diff",
      "-c diff.noprefix diff --cached",
      "-c diff.noprefix=true log -p -1",
      "-c diff.noprefix=true show HEAD",
      "-c diff.noprefix=false diff",
      "-c advice.statusHints=false status",
      "-c status.showUntrackedFiles=no status",
      "-c status.showUntrackedFiles=no status --short",
      "-c color.ui=auto -c core.pager=less diff --stat",
    ]
  ) await sameAsGit(root.path, line);
});

Deno.test("the repository's own diff.noprefix is followed in every printed patch, a conflict's combined diff too", async () => {
  await using root = await makeRoot("pterm-noprefix-");
  const dir = `${root.path}/r`;
  await shaped(dir);
  await git(dir, "config", "diff.noprefix", "true");
  for (const line of ["diff", "diff --cached", "show HEAD", "log -p -2", "diff --stat"]) {
    await sameAsGit(root.path, line);
  }
  // A conflict: `git diff` prints the combined diff, its ---/+++ names without prefixes.
  await git(dir, "stash", "-u");
  await git(dir, "checkout", "-q", "side");
  await write(`${dir}/a.txt`, "one\nSIDE\nthree\n");
  await git(dir, "commit", "-qam", "side");
  await git(dir, "checkout", "-q", "main");
  await write(`${dir}/a.txt`, "one\nMAIN\nthree\n");
  await git(dir, "commit", "-qam", "main");
  assert.notEqual((await gitRaw(dir, ["merge", "side"])).code, 0);
  await sameAsGit(root.path, "diff");
  // The user's next step: resolve and commit with their own git; nothing pterm did is in the way.
  await write(`${dir}/a.txt`, "one\nBOTH\nthree\n");
  await git(dir, "commit", "-qam", "merged");
  await assertFsck(dir);
});

Deno.test("diff.mnemonicPrefix, which pterm does not print, is refused by name; -c can turn it off for the call", async () => {
  await using root = await makeRoot("pterm-mnemonic-");
  const dir = `${root.path}/r`;
  await shaped(dir);
  await git(dir, "config", "diff.mnemonicPrefix", "true");
  const refused = await ptermTry(root.path, "git -C r diff");
  assert.equal(refused.error_code, "UnsupportedFormat");
  assert.match(refused.stderr, /diff\.mnemonicPrefix/);
  // The suggested spelling runs, and prints what git prints with it.
  await sameAsGit(root.path, "-c diff.mnemonicPrefix=false diff");
  // A stat names no sides: nothing to refuse.
  await sameAsGit(root.path, "diff --stat");
});

Deno.test("git's booleans: an empty value is false, a key alone true, another word stops the call as git stops", async () => {
  await using root = await makeRoot("pterm-config-bool-");
  const dir = `${root.path}/r`;
  await shaped(dir);
  const config = await Deno.readTextFile(`${dir}/.git/config`);
  await Deno.writeTextFile(`${dir}/.git/config`, `${config}[advice]\n\tstatusHints =\n`);
  await sameAsGit(root.path, "status");
  await Deno.writeTextFile(`${dir}/.git/config`, `${config}[advice]\n\tstatusHints\n`);
  await sameAsGit(root.path, "status");
  await Deno.writeTextFile(`${dir}/.git/config`, `${config}[advice]\n\tstatusHints = 2\n`);
  await sameAsGit(root.path, "status");
  await Deno.writeTextFile(`${dir}/.git/config`, `${config}[advice]\n\tstatusHints = sometimes\n`);
  const bad = await ptermTry(root.path, "git -C r status");
  assert.equal(bad.error_code, "InvalidConfig");
  assert.match(bad.stderr, /bad boolean config value 'sometimes' for 'advice\.statushints'/);
  assert.equal((await gitRaw(dir, ["status"])).code, 128);
  // The same word on the command line is the call's mistake.
  await Deno.writeTextFile(`${dir}/.git/config`, config);
  const badWord = await ptermTry(root.path, "git -C r -c advice.statusHints=sometimes status");
  assert.equal(badWord.error_code, "InvalidArgs");
  assert.match(badWord.stderr, /-c advice\.statusHints=sometimes/);
});

Deno.test("settings pterm does not follow are refused by name, whether spelled -c or --config, and write nothing", async () => {
  await using root = await makeRoot("pterm-config-refused-");
  const dir = `${root.path}/r`;
  await shaped(dir);
  const before = await git(dir, "status", "--porcelain=v2");
  for (
    const line of [
      "git -C r -c core.hooksPath=hooks commit -m x",
      "git -C r -c remote.origin.url=http://127.0.0.1:9/x fetch",
      "git -C r -c core.worktree=/tmp status",
      "git -C r status --config core.worktree=/tmp",
      "git -C r status --config=extensions.objectFormat=sha256",
      "git -C r -c column.ui=always branch",
      "git -c core.autocrlf=true clone r copy",
    ]
  ) {
    const refused = await ptermTry(root.path, line);
    assert.equal(refused.error_code, "InvalidArgs", `${line}: ${refused.stderr}`);
    const key = /(?:-c |--config[ =])([a-zA-Z.]+)/.exec(line)![1];
    assert.ok(refused.stderr.includes(key), `${line} names ${key}: ${refused.stderr}`);
  }
  assert.equal(await git(dir, "status", "--porcelain=v2"), before);
  await assertFsck(dir);
});

Deno.test("-c user.name and user.email make the commit's author and committer, as in git", async () => {
  await using root = await makeRoot("pterm-config-identity-");
  const dir = `${root.path}/r`;
  await shaped(dir);
  await pterm(root.path, "git -C r -c user.name=Ada -c user.email=ada@example.com commit -m staged");
  assert.equal(
    await git(dir, "log", "-1", "--format=%an <%ae> / %cn <%ce>"),
    "Ada <ada@example.com> / Ada <ada@example.com>\n",
  );
  // The name alone, as git takes it: the email is the repository's own, for author and committer alike.
  await git(dir, "config", "user.email", "repo@example.com");
  await write(`${dir}/a.txt`, "again\n");
  await pterm(root.path, "git -C r -c user.name=Grace commit -am again");
  assert.equal(
    await git(dir, "log", "-1", "--format=%an <%ae> / %cn <%ce>"),
    "Grace <repo@example.com> / Grace <repo@example.com>\n",
  );
  await assertFsck(dir);
});

Deno.test("git -C <folder> init is refused with the line that runs, and that line makes the repository", async () => {
  await using root = await makeRoot("pterm-c-init-");
  await Deno.mkdir(`${root.path}/p`);
  const refused = await ptermTry(root.path, "git -C p init sub");
  assert.equal(refused.error_code, "InvalidArgs");
  const line = /`(git init [^`]+)`/.exec(refused.stderr)![1];
  assert.equal(line, "git init p/sub");
  await pterm(root.path, line);
  assert.equal((await gitRaw(`${root.path}/p/sub`, ["rev-parse", "--is-inside-work-tree"])).stdout, "true\n");
});

Deno.test("git config reads the call's own -c settings as git does (last, and not with --local)", async () => {
  await using root = await makeRoot("pterm-config-cli-read-");
  await shaped(`${root.path}/r`);
  for (
    const line of [
      "-c user.name=Ada config user.name",
      "-c user.name=Ada config --list",
      "-c user.name=Ada config --local --list",
      "-c core.quotePath=false config --get-regexp ^core",
    ]
  ) await sameAsGit(root.path, line);
});
