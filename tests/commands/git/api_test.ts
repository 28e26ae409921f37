/** commands/git/api.ts, the library the patch command builds on, tested directly. */

import assert from "node:assert/strict";
import * as api from "../../../commands/git/api.ts";
import { PtermError } from "../../../core/errors.ts";
import { makeRoot } from "../../_support/helpers.ts";
import { assertFsck, git, gitInit, gitRaw, write } from "./oracle.ts";

const AUTHOR = { name: "XGit Bot", email: "bot@xgit.local" };

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PtermError) return error.code;
    throw error;
  }
  return "ok";
}

async function repoWithBase(): Promise<{ root: Awaited<ReturnType<typeof makeRoot>>; dir: string }> {
  const root = await makeRoot();
  const dir = `${root.path}/proj`;
  await gitInit(dir);
  await write(`${dir}/a.txt`, "a\n");
  await write(`${dir}/b.txt`, "b\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  return { root, dir };
}

Deno.test("authors, repository detection, ref resolution", async () => {
  const { root, dir } = await repoWithBase();
  await using _ = root;
  assert.deepEqual(api.parseAuthor("XGit Bot <bot@xgit.local>"), AUTHOR);
  assert.throws(() => api.parseAuthor("no email"), (e: unknown) => e instanceof PtermError && e.code === "InvalidArgs");
  assert.deepEqual(api.authorFromConfig(undefined), { name: "pterm", email: "pterm@localhost" });
  assert.deepEqual(api.authorFromConfig({ author: AUTHOR }), AUTHOR);
  assert.equal(await api.isRepository(dir), true);
  assert.equal(await api.isRepository(root.path), false);
  assert.equal(await api.resolveRef(dir, "HEAD"), (await git(dir, "rev-parse", "HEAD")).trim());
  assert.equal(await api.resolveRef(dir, "main"), (await git(dir, "rev-parse", "main")).trim());
  assert.equal(await codeOf(api.resolveRef(dir, "nope")), "NotFound");
});

Deno.test("stagePaths + commitIndex inside withRepoLock; the lock is exclusive and required", async () => {
  const { root, dir } = await repoWithBase();
  await using _ = root;
  await write(`${dir}/a.txt`, "changed\n");
  await Deno.remove(`${dir}/b.txt`);
  await write(`${dir}/new/c.txt`, "c\n");
  await write(`${dir}/untouched.txt`, "not staged\n");
  assert.equal(await codeOf(api.stagePaths(dir, ["a.txt"], { locked: true })), "Internal");
  const id = await api.withRepoLock(dir, async () => {
    assert.equal(await codeOf(api.withRepoLock(dir, () => Promise.resolve(1))), "RepoLocked");
    await api.stagePaths(dir, ["a.txt", "b.txt", "new"], { locked: true });
    return await api.commitIndex(dir, { message: "chore: apply file ops patch", author: AUTHOR, locked: true });
  });
  assert.equal((await git(dir, "rev-parse", "HEAD")).trim(), id);
  assert.equal(
    (await git(dir, "log", "-1", "--format=%an <%ae>|%s")).trim(),
    "XGit Bot <bot@xgit.local>|chore: apply file ops patch",
  );
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "?? untouched.txt");
  assert.equal(
    await codeOf(api.withRepoLock(dir, () => api.commitIndex(dir, { message: "x", author: AUTHOR, locked: true }))),
    "NothingToCommit",
  );
  await assertFsck(dir);
});

Deno.test("a failure inside withRepoLock discards index changes; restoreGitState puts refs back", async () => {
  const { root, dir } = await repoWithBase();
  await using _ = root;
  const before = (await git(dir, "rev-parse", "HEAD")).trim();
  await write(`${dir}/a.txt`, "patched\n");
  const snapshot = await api.snapshotGitState(dir);
  const failed = api.withRepoLock(dir, async () => {
    await api.stagePaths(dir, ["a.txt"], { locked: true });
    await api.commitIndex(dir, { message: "will be undone", author: AUTHOR, locked: true });
    await api.tag(dir, "v-undo", { author: AUTHOR, message: "undo me", locked: true });
    await api.restoreGitState(dir, snapshot);
    throw new PtermError("PatchApplyError", "a later block failed");
  });
  assert.equal(await codeOf(failed), "PatchApplyError");
  assert.equal((await git(dir, "rev-parse", "HEAD")).trim(), before);
  assert.equal((await gitRaw(dir, ["rev-parse", "--verify", "-q", "v-undo"])).code, 1, "the tag is gone");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "M a.txt", "index as before, work tree kept");
  assert.equal((await git(dir, "reflog", "--format=%gs")).trim().split("\n").length, 1, "reflog restored");
  await assertFsck(dir);
});

Deno.test("reset, revert, tag and pathsChangedBy", async () => {
  const { root, dir } = await repoWithBase();
  await using _ = root;
  await write(`${dir}/a.txt`, "second\n");
  await write(`${dir}/c.txt`, "c\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "second");
  const second = (await git(dir, "rev-parse", "HEAD")).trim();

  const predictedRevert = await api.pathsChangedBy(dir, { kind: "revert", ref: "HEAD" });
  assert.deepEqual(predictedRevert, ["a.txt", "c.txt"]);
  const reverted = await api.withRepoLock(
    dir,
    () => api.revert(dir, "HEAD", { noCommit: false, author: AUTHOR, locked: true }),
  );
  assert.deepEqual(reverted.changed_paths, predictedRevert);
  assert.deepEqual(reverted.conflicts, []);
  assert.equal((await git(dir, "log", "-1", "--format=%s")).trim(), 'Revert "second"');
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "a\n");

  const tagged = await api.withRepoLock(
    dir,
    () => api.tag(dir, "v1", { ref: second, message: "release", author: AUTHOR, locked: true }),
  );
  assert.deepEqual(tagged, { name: "v1", target: second });
  assert.equal((await git(dir, "cat-file", "-t", "v1")).trim(), "tag");
  assert.equal(
    await codeOf(api.withRepoLock(dir, () => api.tag(dir, "v1", { author: AUTHOR, locked: true }))),
    "AlreadyExists",
  );

  await write(`${dir}/b.txt`, "local edit\n");
  const predicted = await api.pathsChangedBy(dir, { kind: "reset", ref: second, mode: "hard" });
  assert.deepEqual(predicted, ["a.txt", "b.txt", "c.txt"]);
  assert.deepEqual(await api.pathsChangedBy(dir, { kind: "reset", ref: second, mode: "mixed" }), []);
  const reset = await api.withRepoLock(dir, () => api.reset(dir, second, "hard", { locked: true }));
  assert.equal(reset.head, second);
  assert.deepEqual(reset.changed_paths, predicted);
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  const soft = await api.withRepoLock(dir, () => api.reset(dir, "HEAD~1", "soft", { locked: true }));
  assert.deepEqual(soft.changed_paths, []);
  assert.equal((await git(dir, "status", "--porcelain")).trim().split("\n").sort().join(","), "A  c.txt,M  a.txt");
  await assertFsck(dir);
});

Deno.test("indexEntry: a file matches its entry as git apply --index decides, line endings converted for a racy one", async () => {
  await using dir = await makeRoot();
  const repo = dir.path;
  await gitInit(repo);
  await git(repo, "config", "core.autocrlf", "true");
  await Deno.writeFile(`${repo}/w.txt`, new TextEncoder().encode("a\r\nb\r\n"));
  await git(repo, "add", "w.txt");
  await git(repo, "commit", "-qm", "crlf");
  // The blob holds LF lines; the file CRLF ones. Real git's own check accepts it.
  const check = await gitRaw(
    repo,
    ["apply", "--index", "--check", "-"],
    "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n",
  );
  assert.equal(check.code, 0, check.stderr);
  assert.equal((await api.indexEntry(repo, "w.txt"))?.matches, true);
  // Racy (the entry not older than the index file): read, in git's form, and still a match.
  const index = `${repo}/.git/index`;
  const mtime = Deno.lstatSync(`${repo}/w.txt`).mtime!;
  Deno.utimeSync(index, mtime, mtime);
  assert.equal((await api.indexEntry(repo, "w.txt"))?.matches, true);
  // Rewritten with other content: its stat data no longer matches, as git says ("does not match index").
  await Deno.writeFile(`${repo}/w.txt`, new TextEncoder().encode("a\r\nbb\r\n"));
  assert.equal((await api.indexEntry(repo, "w.txt"))?.matches, false);
});
