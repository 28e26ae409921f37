/**
 * `patch apply` in git repositories: one commit per patch (checked with the real git as the
 * oracle: log, status, fsck), git.reset / git.revert / git.tag / git.commit blocks, and all or
 * nothing — the work tree, index, HEAD, refs and reflogs are exactly as before after any failure.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { apply, block, check, fingerprint, git, patchOf, problemsOf, readTree, writeTree } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A repository with two commits (README, then app.py), made by the real git, at `<root>/r`. */
async function repo(root: string): Promise<string> {
  const path = `${root}/r`;
  await Deno.mkdir(path);
  await git(path, "init", "-q", "-b", "main");
  await writeTree(path, { "README.md": "# Demo\n", "docs/guide.md": "Note: timeout is 30 seconds.\n" });
  await git(path, "add", "-A");
  await git(path, "commit", "-q", "-m", "first");
  await writeTree(path, { "app.py": "def main():\n    return 1\n" });
  await git(path, "add", "-A");
  await git(path, "commit", "-q", "-m", "second");
  return path;
}

async function assertClean(path: string): Promise<void> {
  assert.equal(await git(path, "status", "--porcelain"), "");
  await git(path, "fsck", "--strict", "--no-progress");
}

Deno.test("the protocol's worked example applies verbatim in a repository and makes one commit", async () => {
  await using dir = await makeRoot();
  const xgit = `${dir.path}/projects/xgit`;
  await Deno.mkdir(xgit, { recursive: true });
  await git(xgit, "init", "-q", "-b", "main");
  await writeTree(dir.path, {
    "pterm.json": JSON.stringify({ patch: { repos: { xgit: "projects/xgit" }, default_repo: "xgit" } }),
    "projects/xgit/docs/login_guide.md": "Note: Login timeout is 30 seconds.\n",
  });
  await git(xgit, "add", "-A");
  await git(xgit, "commit", "-q", "-m", "docs");
  const seed = await Deno.readTextFile(new URL("./corpus/seed_example/patch.txt", import.meta.url));
  const env = await apply(dir.path, seed);
  assert.equal(env.exit_code, 0, env.stderr);
  const result = env.result as Any;
  assert.equal(result.repo_path, "projects/xgit");
  assert.match(result.commit_id, /^[0-9a-f]{40}$/);
  assert.equal(result.author, "Zhang San <zhangsan@example.com>");
  assert.equal(
    await git(xgit, "log", "-1", "--format=%H|%an|%ae|%s"),
    `${result.commit_id}|Zhang San|zhangsan@example.com|Fix login timeout bug\n`,
  );
  assert.equal(await git(xgit, "show", "HEAD:docs/login_guide.md"), "Note: Login timeout is 60 seconds.\n");
  assert.match(await git(xgit, "show", "HEAD:src/utils/auth.py"), /timeout := 60/);
  assert.equal(await git(xgit, "rev-list", "--count", "HEAD"), "2\n");
  await assertClean(xgit);
});

Deno.test("a patch commits every change it made, deletions and moves included, with the default author and message", async () => {
  await using dir = await makeRoot();
  const r = await repo(dir.path);
  const env = await apply(
    dir.path,
    patchOf(
      block("file.write", "src/new.py", ["x = 1"]),
      block("file.delete", "README.md"),
      block("file.move", "app.py", ["to=src/app.py"]),
      block("file.chmod", "src/app.py", ["mode=755"]),
    ),
    "--repo r",
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal(
    await git(r, "log", "-1", "--format=%an <%ae>|%s"),
    "XGit Bot <bot@xgit.local>|chore: apply file ops patch\n",
  );
  assert.equal(
    await git(r, "show", "--name-status", "--format=", "HEAD"),
    "D\tREADME.md\nR100\tapp.py\tsrc/app.py\nA\tsrc/new.py\n",
  );
  assert.match(await git(r, "ls-files", "-s", "src/app.py"), /^100755 /);
  await assertClean(r);
});

Deno.test("--no-commit writes the files and leaves HEAD and the index alone", async () => {
  await using dir = await makeRoot();
  const r = await repo(dir.path);
  const head = await git(r, "rev-parse", "HEAD");
  const env = await apply(
    dir.path,
    patchOf(block("line.replace", "app.py", ["keys=return 1", "    return 2"])),
    "--no-commit --repo r",
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal((env.result as Any).commit_id, null);
  assert.equal(await git(r, "rev-parse", "HEAD"), head);
  assert.equal(await git(r, "status", "--porcelain"), " M app.py\n");
});

Deno.test("git.reset first, then edits on the reset tree, one commit on top", async () => {
  await using dir = await makeRoot();
  const r = await repo(dir.path);
  const first = (await git(r, "rev-parse", "HEAD~1")).trim();
  const env = await apply(
    dir.path,
    "commitmsg: redo the app\n" + patchOf(
      block("git.reset", ".", ["ref=HEAD~1", "mode=hard"]),
      block("file.write", "app.py", ["def main():", "    return 42"]),
    ),
    "--repo r",
  );
  assert.equal(env.exit_code, 0, env.stderr);
  const result = env.result as Any;
  assert.equal(result.blocks[0].status, "reset");
  assert.equal(result.blocks[0].git.head, first);
  assert.equal((await git(r, "rev-parse", "HEAD~1")).trim(), first);
  assert.equal(await git(r, "log", "-1", "--format=%s"), "redo the app\n");
  assert.equal(await git(r, "show", "HEAD:app.py"), "def main():\n    return 42\n");
  await assertClean(r);
});

Deno.test("git.revert makes its own commit; with no_commit the patch's commit carries it", async () => {
  await using dir = await makeRoot();
  const r = await repo(dir.path);
  const env = await apply(dir.path, patchOf(block("git.revert", ".", ["ref=HEAD"])), "--repo r");
  assert.equal(env.exit_code, 0, env.stderr);
  assert.match(await git(r, "log", "-1", "--format=%s"), /^Revert "second"/);
  assert.deepEqual(Object.keys(await readTree(r)), ["README.md", "docs/guide.md"]);
  await assertClean(r);

  const again = await apply(
    dir.path,
    "commitmsg: undo and note\n" + patchOf(
      block("git.revert", ".", ["ref=HEAD", "no_commit=true"]),
      block("file.append", "README.md", ["reverted the revert"]),
    ),
    "--repo r",
  );
  assert.equal(again.exit_code, 0, again.stderr);
  assert.equal(await git(r, "log", "-1", "--format=%s"), "undo and note\n");
  assert.equal(await git(r, "show", "HEAD:app.py"), "def main():\n    return 1\n");
  assert.equal(await git(r, "show", "HEAD:README.md"), "# Demo\nreverted the revert\n");
  await assertClean(r);
});

Deno.test("git.tag tags the patch's commit; git.commit alone commits the work tree", async () => {
  await using dir = await makeRoot();
  const r = await repo(dir.path);
  const env = await apply(
    dir.path,
    patchOf(
      block("git.tag", "v1.0", ["message=first release"]),
      block("file.write", "VERSION", ["1.0"]),
    ),
    "--repo r",
  );
  assert.equal(env.exit_code, 0, env.stderr);
  const result = env.result as Any;
  assert.deepEqual(result.blocks.map((b: Any) => [b.index, b.status]), [[1, "tagged"], [2, "created"]]);
  assert.equal((await git(r, "rev-parse", "v1.0^{commit}")).trim(), result.commit_id);
  assert.equal(await git(r, "cat-file", "-t", "v1.0"), "tag\n");

  await Deno.writeTextFile(`${r}/README.md`, "# Changed outside the patch\n");
  await Deno.remove(`${r}/app.py`);
  const commit = await apply(
    dir.path,
    "commitmsg: snapshot\n" + patchOf("=== git.commit ===\n=== end ===\n"),
    "--repo r",
  );
  assert.equal(commit.exit_code, 0, commit.stderr);
  assert.equal(await git(r, "show", "--name-status", "--format=%s", "HEAD"), "snapshot\n\nM\tREADME.md\nD\tapp.py\n");
  await assertClean(r);
  const nothing = await apply(dir.path, patchOf("=== git.commit ===\n=== end ===\n"), "--repo r");
  assert.equal(nothing.error_code, "NothingToCommit");
});

Deno.test("git block rules: git.commit alone, reset/revert before edits, refs must exist", async () => {
  await using dir = await makeRoot();
  const r = await repo(dir.path);
  const before = await fingerprint(dir.path);
  const mixed = await check(
    dir.path,
    patchOf(block("file.write", "a", ["x"]), "=== git.commit ===\n=== end ===\n"),
    "--repo r",
  );
  assert.match(mixed.stderr, /git.commit must be the only block/);
  const late = await check(
    dir.path,
    patchOf(block("file.write", "a", ["x"]), block("git.reset", ".", ["ref=HEAD~1"])),
    "--repo r",
  );
  assert.match(late.stderr, /must come before them; move it above block 1/);
  const ref = await check(dir.path, patchOf(block("git.reset", ".", ["ref=nope"])), "--repo r");
  assert.equal(ref.error_code, "NotFound");
  assert.match(ref.stderr, /ref `nope` does not name a commit/);
  const author = await apply(dir.path, "author: nobody\n" + patchOf(block("file.write", "a", ["x"])), "--repo r");
  assert.equal(author.error_code, "PatchParseError");
  assert.match(author.stderr, /author `nobody` is not `Name <email>`/);
  const tag = await check(dir.path, patchOf(block("git.tag", "bad..name", [])), "--repo r");
  assert.equal(tag.error_code, "PatchParseError");
  assert.equal(await git(r, "rev-list", "--count", "HEAD"), "2\n");
  assert.deepEqual(await fingerprint(dir.path), before);
});

const FAILING_AFTER_GIT: Record<string, string> = {
  NoMatch: block("line.replace", "app.py", ["keys=return 99", "x"]),
  AmbiguousMatch: block("line.delete", "docs/guide.md", ["keys=e"]),
  NotFound: block("file.delete", "nothing.txt"),
  "AlreadyExists (tag after the commit)": block("git.tag", "v0", []),
  SecretPathDenied: block("file.write", "secrets/x", ["x"]),
};

for (const [kind, failing] of Object.entries(FAILING_AFTER_GIT)) {
  Deno.test(`in a repository, a ${kind} after reset, revert and edits restores tree, index and refs`, async () => {
    await using dir = await makeRoot();
    const r = await repo(dir.path);
    await git(r, "tag", "v0");
    await writeTree(r, { "untracked.txt": "mine\n" });
    const before = await fingerprint(dir.path);
    const env = await apply(
      dir.path,
      patchOf(
        block("git.reset", ".", ["ref=HEAD~1", "mode=hard"]),
        block("git.revert", ".", ["ref=HEAD"]),
        block("file.write", "app.py", ["def main():", "    return 7"]),
        block("file.write", "docs/guide.md", ["one", "e1", "e2"]),
        failing,
      ),
      "--repo r",
    );
    assert.equal(env.error_code, kind.replace(/ \(.*\)$/, ""), env.stderr);
    assert.equal(problemsOf(env)[0].block_index, 5);
    assert.deepEqual(await fingerprint(dir.path), before);
    await assertClean(r).catch(() => {}); // untracked.txt makes status non-empty; fsck must pass
    await git(r, "fsck", "--strict", "--no-progress");
    await assert.rejects(Deno.stat(`${r}/.git/index.lock`), Deno.errors.NotFound);
  });
}

Deno.test("a .gitignore'd file the patch writes stays uncommitted, with a warning; the rest is committed", async () => {
  await using dir = await makeRoot();
  const r = await repo(dir.path);
  await writeTree(r, { ".gitignore": "*.log\n" });
  await git(r, "add", ".gitignore");
  await git(r, "commit", "-q", "-m", "ignore logs");
  const env = await apply(
    dir.path,
    patchOf(block("file.write", "debug.log", ["x"]), block("file.write", "notes.txt", ["y"])),
    "--repo r",
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.match((env.result as Any).warnings.join("\n"), /`debug.log` was written but not committed/);
  assert.equal(await git(r, "show", "--name-only", "--format=", "HEAD"), "notes.txt\n");
  assert.equal(await Deno.readTextFile(`${r}/debug.log`), "x\n");
  assert.equal(await git(r, "status", "--porcelain"), "");
});

Deno.test("the workspace root as the repository: pterm's own state is never committed", async () => {
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  const first = await apply(dir.path, patchOf(block("file.write", "app.txt", ["v1"])));
  assert.equal(first.exit_code, 0, first.stderr);
  await Deno.writeTextFile(`${dir.path}/app.txt`, "v2\n");
  const commit = await apply(dir.path, patchOf("=== git.commit ===\n=== end ===\n"));
  assert.equal(commit.exit_code, 0, commit.stderr);
  assert.equal(await git(dir.path, "ls-files"), "app.txt\n");
  assert.equal(await git(dir.path, "show", "HEAD:app.txt"), "v2\n");
});

Deno.test("messages: a tag that exists is named in quotes; NoMatch echoes keys as given; data errors hint at the fix", async () => {
  await using dir = await makeRoot();
  const r = dir.path;
  await writeTree(r, { "a.py": "def Main():\n    return 0\n" });
  await git(r, "init", "-q", "-b", "main");
  await git(r, "add", "-A");
  await git(r, "commit", "-qm", "base");
  await git(r, "tag", "exists");
  const tag = await apply(r, patchOf(block("file.write", "b.txt", ["b"]), block("git.tag", ".", ["name=exists"])));
  assert.equal(tag.error_code, "AlreadyExists", tag.stderr);
  assert.match(tag.stderr, /the tag `exists` already exists; pick another name, or add force=true/);

  const noMatch = await apply(r, patchOf(block("line.replace", "a.py", ["keys=def MAIN_Loop(|Return 1", "x"])));
  assert.equal(noMatch.error_code, "NoMatch", noMatch.stderr);
  assert.match(noMatch.stderr, /contains `def MAIN_Loop\(` or `Return 1`/);
  assert.match(noMatch.stderr, /\n\nHint: The text the patch looks for is not in the file as it is now/);
  assert.doesNotMatch(noMatch.stderr, /--help/);

  const twice = await apply(r, patchOf(block("file.append", "a.py", ["def other():", "    return 0"])));
  assert.equal(twice.exit_code, 0, twice.stderr);
  const again = await apply(r, patchOf(block("git.diff", "a.py", ["@@ @@", "-    return 0", "+    return 1"])));
  assert.equal(again.error_code, "AmbiguousMatch", again.stderr);
  assert.match(again.stderr, /\n\nHint: Each place that fits is listed above/);
});
