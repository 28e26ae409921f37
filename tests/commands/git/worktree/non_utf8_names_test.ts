/**
 * Tracked files whose names are not UTF-8 (a Latin-1 `café.txt`, as old projects have them, made
 * here by the real git). Deno names files in UTF-8 only, so the name it would use is another
 * file's (the byte as U+FFFD): a checkout wrote `caf\uFFFD.txt`, reported "1 file updated", and
 * left real git seeing the file deleted and a stranger untracked. Every operation that would have
 * to write, read or remove such a file is refused before anything changes; reading history
 * (log, show, diff between commits) keeps working, with the name quoted as git quotes it. A name
 * longer than a file system holds (a tree can carry one) is refused the same way, where it was an
 * internal error printing the host path.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitInit, porcelainFiles } from "../oracle.ts";
import { startGitHttpServer } from "../remote/http_server.ts";
import { allowedWorkspace } from "../remote/fixture.ts";

const LATIN1_NAME = "caf\\351.txt"; // for printf
const QUOTED = '"caf\\351.txt"';

async function sh(cwd: string, script: string): Promise<void> {
  const out = await new Deno.Command("sh", { args: ["-c", script], cwd, stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

/** `main` with a.txt; `side` adding the Latin-1 named file; main checked out. */
async function repoWithLatin1Side(dir: string): Promise<void> {
  await gitInit(dir);
  await Deno.writeTextFile(`${dir}/a.txt`, "a\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await git(dir, "checkout", "-qb", "side");
  await sh(dir, `printf 'x\\n' > "$(printf '${LATIN1_NAME}')"`);
  await Deno.writeTextFile(`${dir}/a.txt`, "a\nside\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "latin-1 name");
  await git(dir, "checkout", "-q", "main");
}

async function namesIn(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).filter((n) => n !== ".git").sort();
}

Deno.test("a name that is not UTF-8: checkout, merge, cherry-pick and reset are refused, nothing changed", async (t) => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await repoWithLatin1Side(dir);
  const head = await git(dir, "rev-parse", "HEAD");
  const index = await Deno.readFile(`${dir}/.git/index`);
  for (const line of ["git checkout side", "git merge side", "git cherry-pick side", "git reset --hard side"]) {
    await t.step(line, async () => {
      const envelope = await exec(root.path, `${line} --repo r`);
      assert.equal(envelope.error_code, "InvalidPath", `${line}: ${envelope.stderr}`);
      assert.ok(envelope.stderr.includes(`${QUOTED} in the work tree: the name is not UTF-8`), envelope.stderr);
      assert.equal(await git(dir, "rev-parse", "HEAD"), head);
      assert.deepEqual(await Deno.readFile(`${dir}/.git/index`), index);
      assert.deepEqual(await namesIn(dir), ["a.txt"], "no file named with U+FFFD");
      assert.deepEqual(await porcelainFiles(dir), []);
    });
  }
  await t.step("history is read, the name quoted as git quotes it", async () => {
    const view = ["--stat", "--name-status"];
    for (const flag of view) {
      const envelope = await exec(root.path, `git show ${flag} side --repo r`);
      assert.equal(envelope.exit_code, 0, envelope.stderr);
      const real = await git(dir, "show", flag, "--format=", "side");
      assert.ok(envelope.stdout.includes(real.trim()), `${flag}:\n${envelope.stdout}\n--- git:\n${real}`);
    }
    const diff = await exec(root.path, "git diff main side --repo r");
    assert.equal(diff.stdout, await git(dir, "diff", "main", "side"));
  });
  await assertFsck(dir);
});

Deno.test("a name that is not UTF-8 checked out by the real git: status names it, other work goes on", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await repoWithLatin1Side(dir);
  await git(dir, "checkout", "-q", "side");
  const status = await exec(root.path, "git status --repo r");
  assert.equal(status.exit_code, 0, status.stderr);
  assert.ok(status.stderr.includes(`names that are not UTF-8 (${QUOTED})`), status.stderr);
  // A commit of another file, and a switch that does not touch the Latin-1 file.
  await Deno.writeTextFile(`${dir}/a.txt`, "a\nside\nmore\n");
  const commit = await exec(root.path, "git commit -a -m more --repo r");
  assert.equal(commit.exit_code, 0, commit.stderr);
  assert.deepEqual(await porcelainFiles(dir), []);
  assert.equal(await git(dir, "log", "-1", "--format=%s"), "more\n");
  await assertFsck(dir);
});

Deno.test("a clone whose checkout holds a name that is not UTF-8 is refused and leaves nothing behind", async () => {
  await using server = await startGitHttpServer();
  await using work = await makeRoot();
  const src = `${work.path}/src`;
  await repoWithLatin1Side(src);
  await git(src, "checkout", "-q", "side");
  await server.createBare("latin.git");
  await git(src, "push", "-q", server.url("latin.git"), "side:main");
  await using root = await allowedWorkspace(server);
  const envelope = await exec(root.path, `git clone --url ${server.url("latin.git")} --dir app --confirm`);
  assert.equal(envelope.error_code, "InvalidPath", envelope.stderr);
  assert.ok(envelope.stderr.includes(QUOTED), envelope.stderr);
  const left = (await Array.fromAsync(Deno.readDir(root.path))).map((e) => e.name);
  assert.ok(!left.includes("app"), `left: ${left}`);
  assert.ok(!left.some((name) => name.startsWith(".app") || name.includes("clone")), `left: ${left}`);
});

Deno.test("a name longer than a file system holds (made with git mktree): checkout and reset refused, nothing changed", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await Deno.writeTextFile(`${dir}/a.txt`, "a\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  const blob = (await git(dir, "hash-object", "-w", "a.txt")).trim();
  const long = "L".repeat(300);
  // Sorted as git sorts tree entries; b.txt and z.txt stand on both sides of the long name.
  await sh(
    dir,
    `printf '100644 blob ${blob}\\ta.txt\\n100644 blob ${blob}\\tb.txt\\n100644 blob ${blob}\\t${long}\\n` +
      `100644 blob ${blob}\\tz.txt\\n' | git mktree > .git/long-tree`,
  );
  const tree = (await Deno.readTextFile(`${dir}/.git/long-tree`)).trim();
  const commit = (await git(dir, "commit-tree", tree, "-p", "HEAD", "-m", "long")).trim();
  await git(dir, "branch", "long", commit);
  const head = await git(dir, "rev-parse", "HEAD");
  for (const line of ["git checkout long", "git reset --hard long", "git merge long"]) {
    const envelope = await exec(root.path, `${line} --repo r`);
    assert.equal(envelope.error_code, "InvalidPath", `${line}: ${envelope.stderr}`);
    assert.ok(envelope.stderr.includes("longer than the 255 bytes"), envelope.stderr);
    assert.ok(!envelope.stderr.includes(root.path), "no host path");
    assert.equal(await git(dir, "rev-parse", "HEAD"), head);
    assert.deepEqual(await namesIn(dir), ["a.txt"]);
  }
});
