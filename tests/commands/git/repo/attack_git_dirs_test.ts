/**
 * Git directories by another name than `.git`: a bare repository (`server.git`) and the folder a
 * `git init --separate-git-dir` points to. They hold what `.git` holds — a config whose
 * `core.fsmonitor` and hooks a person's next git command runs — and the `.git` rule did not see
 * them: `patch` wrote `store/config`. Real git made both here; every path into them is refused
 * for reads and writes, also through a symlink, and git on the work tree that uses one still works.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, GIT_ENV } from "../oracle.ts";
import { dirname } from "../../../../core/fs/path.ts";

Deno.test("bare repositories and separate git dirs are refused like .git, for reads and writes", async (t) => {
  await using root = await makeRoot();
  await git(root.path, "init", "-q", "--bare", "server.git");
  await git(root.path, "init", "-q", "-b", "main", "--separate-git-dir", "store", "work");
  await Deno.writeTextFile(`${root.path}/work/a.txt`, "a\n");
  await Deno.symlink("store", `${root.path}/innocent`);
  const configBefore = await Deno.readTextFile(`${root.path}/store/config`);
  const hook = `${root.path}/server.git/hooks/post-receive`;

  const fsmonitor = "--- a/store/config\n+++ b/store/config\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = touch pwned\n";
  const newHook = "--- /dev/null\n+++ b/server.git/hooks/post-receive\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch pwned\n";
  const viaLink = fsmonitor.replaceAll("store/config", "innocent/config");
  const cases: [string, string, string | undefined][] = [
    ["doc extract of a separate git dir's config", "doc extract store/config", undefined],
    ["doc info of a bare repository's HEAD", "doc info server.git/HEAD", undefined],
    // --repo .: the paths are the root's (without it, patch would run in `work`, the only repository).
    ["patch adding core.fsmonitor to a separate git dir's config", "patch apply --repo .", fsmonitor],
    ["patch creating a bare repository's hook", "patch apply --repo .", newHook],
    ["patch through a symlink to the git dir", "patch apply --repo .", viaLink],
    ["doc --out into a bare repository's hooks", "doc extract work/a.txt -o server.git/hooks/pre-receive", undefined],
  ];
  for (const [label, line, stdin] of cases) {
    await t.step(label, async () => {
      const envelope = await exec(root.path, line, stdin === undefined ? {} : { stdin });
      assert.equal(envelope.exit_code !== 0, true, envelope.stdout);
      assert.match(envelope.stderr, /a git directory \(a bare repository or a separate git dir/, envelope.stderr);
      assert.ok(!envelope.stderr.includes(root.path), "no host path");
    });
  }
  assert.equal(await Deno.readTextFile(`${root.path}/store/config`), configBefore);
  assert.equal(await Deno.lstat(hook).then(() => true, () => false), false);
  assert.equal(await Deno.lstat(`${root.path}/pwned`).then(() => true, () => false), false);

  await t.step("git on the work tree that uses the separate git dir still works", async () => {
    const added = await exec(root.path, "git add a.txt --repo work");
    assert.equal(added.exit_code, 0, added.stderr);
    const committed = await exec(root.path, "git commit -m first --repo work");
    assert.equal(committed.exit_code, 0, committed.stderr);
    assert.equal((await git(`${root.path}/work`, "log", "--format=%s")).trim(), "first");
  });
});

/** A unified diff creating `files` (path → text) under `prefix`. */
function creatingDiff(prefix: string, files: Record<string, string>): string {
  return Object.entries(files).map(([path, text]) => {
    const lines = text.split("\n").slice(0, -1);
    return `--- /dev/null\n+++ b/${prefix}${path}\n@@ -0,0 +1,${lines.length} @@\n` +
      lines.map((l) => `+${l}\n`).join("");
  }).join("");
}

/**
 * What a repository's git folder holds, with a config whose programs create `marker`: core.fsmonitor
 * (a person's `git status` where core.worktree is honoured) and core.sshCommand (their `git fetch`).
 */
function gitDirectoryFiles(marker: string): Record<string, string> {
  return {
    "HEAD": "ref: refs/heads/main\n",
    "config":
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker}"\n` +
      `\tsshCommand = "touch ${marker}; false"\n[remote "origin"]\n\turl = ssh://example.invalid/x\n`,
    "objects/info/packs": "\n",
    "refs/heads/.keep": "\n",
  };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** What a person runs in `dir` with their own git: `git status`, `git fetch`; discovery stops at `ceiling`. */
async function personRunsGit(dir: string, ceiling: string): Promise<void> {
  for (const args of [["status"], ["fetch"]]) {
    await new Deno.Command("git", {
      args,
      cwd: dir,
      env: { ...GIT_ENV, GIT_CEILING_DIRECTORIES: ceiling },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  }
}

Deno.test("control: the files such a patch writes make a person's git run the agent's command", async () => {
  await using dir = await makeRoot();
  const marker = `${dir.path}/ran`;
  for (const [path, text] of Object.entries(gitDirectoryFiles(marker))) {
    await Deno.mkdir(`${dir.path}/lib/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir.path}/lib/${path}`, text);
  }
  await Deno.mkdir(`${dir.path}/lib/src`);
  await personRunsGit(`${dir.path}/lib/src`, dir.path);
  assert.equal(await exists(marker), true, "the shape is what git discovers and runs");
});

Deno.test("a patch that would build a git directory in one call is refused, at the root and in a folder", async (t) => {
  for (const [where, prefix] of [["at the workspace root", ""], ["in a folder", "vendor/lib/"]] as const) {
    await t.step(where, async () => {
      await using root = await makeRoot();
      const marker = `${root.path}/fsmonitor-ran`;
      const diff = creatingDiff(prefix, gitDirectoryFiles(marker));
      for (const line of ["patch check", "patch apply"]) {
        const envelope = await exec(root.path, line, { stdin: diff });
        assert.notEqual(envelope.exit_code, 0, envelope.stdout);
        assert.equal(envelope.error_code, "GitDirDenied", envelope.stderr);
        assert.match(envelope.stderr, /would make `(?:the workspace root|vendor\/lib)` a git directory/);
        assert.ok(!envelope.stderr.includes(root.path), "no host path");
      }
      assert.equal(await exists(`${root.path}/${prefix}HEAD`), false, "nothing written");
      assert.equal(await exists(`${root.path}/${prefix}config`), false, "nothing written");

      // The same files one by one: the last one that completes the shape is refused.
      const files = Object.entries(gitDirectoryFiles(marker));
      for (const [i, [path, text]] of files.entries()) {
        const envelope = await exec(root.path, "patch apply", { stdin: creatingDiff(prefix, { [path]: text }) });
        if (i < files.length - 1) assert.equal(envelope.exit_code, 0, envelope.stderr);
        else assert.equal(envelope.error_code, "GitDirDenied", envelope.stderr);
      }

      // A person's git in that folder finds no repository there and runs nothing.
      await Deno.mkdir(`${root.path}/${prefix}src`, { recursive: true });
      await personRunsGit(`${root.path}/${prefix}src`, dirname(root.path));
      assert.equal(await exists(marker), false, "core.fsmonitor / core.sshCommand never ran");

      // Ordinary work in the same folder is unaffected: files named like git's, but no git directory.
      const ordinary = creatingDiff(prefix, { "docs/HEAD": "ref: refs/heads/main\n", "docs/objects.md": "x\n" });
      assert.equal((await exec(root.path, "patch apply", { stdin: ordinary })).exit_code, 0);
    });
  }
});

Deno.test("a gitfile (.git holding gitdir:) written by a patch is refused by its name, in any spelling", async () => {
  await using root = await makeRoot();
  const marker = `${root.path}/fsmonitor-ran`;
  // The git directory it would point to, with its HEAD missing: writing the gitfile and HEAD together.
  const parts = gitDirectoryFiles(marker);
  for (const spelling of [".git", ".GIT", ".git.", "git~1"]) {
    const diff = creatingDiff("", { [`app/${spelling}`]: "gitdir: ../store\n" }) +
      creatingDiff("store/", parts);
    const envelope = await exec(root.path, "patch apply", { stdin: diff });
    assert.equal(envelope.error_code, "GitDirDenied", `${spelling}: ${envelope.stderr}`);
  }
  assert.equal(await exists(`${root.path}/app`), false, "nothing written");
  await Deno.mkdir(`${root.path}/app`);
  await personRunsGit(`${root.path}/app`, dirname(root.path));
  assert.equal(await exists(marker), false, "nothing ran");
});

Deno.test("a checkout, merge or cherry-pick of a tree holding a git directory's shape is refused whole", async () => {
  await using root = await makeRoot();
  const proj = `${root.path}/proj`;
  const marker = `${root.path}/fsmonitor-ran`;
  await Deno.mkdir(proj);
  await git(proj, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${proj}/a.txt`, "a\n");
  await git(proj, "add", "a.txt");
  await git(proj, "commit", "-qm", "base");
  // A branch (as a fetched one could be) whose tree is a git directory in vendor/lib: HEAD, config, objects/, refs/.
  await git(proj, "checkout", "-q", "-b", "evil");
  for (const [path, text] of Object.entries(gitDirectoryFiles(marker))) {
    await Deno.mkdir(`${proj}/vendor/lib/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${proj}/vendor/lib/${path}`, text);
  }
  await Deno.chmod(`${proj}/vendor/lib/objects/info/packs`, 0o644);
  await git(proj, "add", "-A");
  await git(proj, "commit", "-qm", "evil");
  await git(proj, "checkout", "-q", "main");
  await Deno.remove(`${proj}/vendor`, { recursive: true }).catch(() => {});
  assert.equal(await exists(`${proj}/vendor`), false);

  for (
    const line of [
      "git checkout evil",
      "git merge evil",
      "git cherry-pick evil",
      "git reset --hard evil",
      "git restore --source evil vendor",
    ]
  ) {
    const envelope = await exec(root.path, `${line} --repo proj`);
    assert.equal(envelope.error_code, "GitDirDenied", `${line}: ${envelope.stderr}`);
    assert.match(envelope.stderr, /would make `vendor\/lib` a git directory/, line);
    assert.equal(await exists(`${proj}/vendor`), false, `${line}: nothing written`);
    assert.equal((await git(proj, "rev-parse", "--abbrev-ref", "HEAD")).trim(), "main");
    assert.equal((await git(proj, "status", "--porcelain")).trim(), "", `${line}: index and work tree as they were`);
  }
  await Deno.mkdir(`${proj}/vendor/lib/src`, { recursive: true });
  await personRunsGit(`${proj}/vendor/lib/src`, dirname(root.path));
  assert.equal(await exists(marker), false, "nothing ran");
});

Deno.test("a patch deleting or moving a folder that holds a bare repository is refused, the repository intact", async () => {
  await using root = await makeRoot();
  await Deno.mkdir(`${root.path}/backups`);
  await Deno.writeTextFile(`${root.path}/backups/notes.txt`, "n\n");
  await git(root.path, "init", "-q", "--bare", "backups/server.git");
  const config = await Deno.readTextFile(`${root.path}/backups/server.git/config`);
  for (
    const patch of [
      '=== file.delete: "backups" ===\n=== end ===\n=== PATCH EOF ===\n',
      '=== file.move: "backups" ===\nto=elsewhere\n=== end ===\n=== PATCH EOF ===\n',
    ]
  ) {
    const envelope = await exec(root.path, "patch apply", { stdin: patch });
    assert.equal(envelope.error_code, "GitDirDenied", envelope.stderr);
    assert.match(envelope.stderr, /backups\/server\.git`, a git directory/);
  }
  assert.equal(await Deno.readTextFile(`${root.path}/backups/server.git/config`), config);
  assert.equal((await git(`${root.path}/backups/server.git`, "rev-parse", "--is-bare-repository")).trim(), "true");
});
