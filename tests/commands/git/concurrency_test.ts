/** git's lock protocol: parallel pterm runs and a real git never corrupt a repository. */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { assertFsck, git, gitRaw, pterm, ptermTry, result, write } from "./oracle.ts";

Deno.test("20 parallel add+commit runs (and real git commits alongside) end in a clean repository", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await pterm(root.path, "git init --dir r");
  await write(`${dir}/seed.txt`, "seed\n");
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, "git commit --repo r -m seed");
  for (let i = 0; i < 20; i++) await write(`${dir}/f${i}.txt`, `file ${i}\n`);

  const made: string[] = [];
  const refusals: string[] = [];
  const ours = Array.from({ length: 20 }, async (_, i) => {
    const add = await ptermTry(root.path, `git add --repo r --path f${i}.txt`);
    if (add.exit_code !== 0) {
      assert.equal(add.error_code, "RepoLocked", add.stderr);
      assert.match(add.stderr, /index\.lock/);
      refusals.push(`add ${i}`);
      return;
    }
    const commit = await ptermTry(root.path, `git commit --repo r -m c${i}`);
    if (commit.exit_code === 0) made.push(result(commit).commit_id);
    else {
      assert.ok(["RepoLocked", "NothingToCommit"].includes(commit.error_code!), commit.stderr);
      refusals.push(`commit ${i}: ${commit.error_code}`);
    }
  });
  const theirs = Array.from({ length: 5 }, async (_, i) => {
    const out = await gitRaw(dir, ["commit", "-q", "--allow-empty", "-m", `real ${i}`]);
    if (out.code === 0) made.push("real");
    // Real git refuses when it loses a lock; or, racing another real `git commit` (not pterm, which
    // never writes it), it reads back a COMMIT_EDITMSG the other one just truncated.
    else assert.match(out.stderr, /index\.lock|cannot lock ref|empty commit message/, out.stderr);
  });
  await Promise.all([...ours, ...theirs]);

  await assertFsck(dir);
  const count = Number((await git(dir, "rev-list", "--count", "HEAD")).trim());
  assert.equal(count, 1 + made.length, `every successful commit is in the history (refusals: ${refusals.join(", ")})`);
  for (const id of made.filter((m) => m !== "real")) {
    assert.equal((await gitRaw(dir, ["merge-base", "--is-ancestor", id, "HEAD"])).code, 0, `${id} reachable`);
  }
  assert.ok(made.length >= 1);
  // Whatever was refused is still there to commit: nothing was lost.
  await pterm(root.path, "git add --repo r --all");
  await ptermTry(root.path, "git commit --repo r -m rest");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  const tracked = (await git(dir, "ls-files")).trim().split("\n");
  for (let i = 0; i < 20; i++) assert.ok(tracked.includes(`f${i}.txt`));
});

Deno.test("a held index.lock gives RepoLocked with a hint; read-only commands still work", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await pterm(root.path, "git init --dir r");
  await write(`${dir}/a.txt`, "a\n");
  await Deno.writeTextFile(`${dir}/.git/index.lock`, "");
  for (
    const line of [
      "git add --repo r --all",
      "git commit --repo r -m x --allow-empty",
      "git checkout --repo r --create b",
    ]
  ) {
    const envelope = await ptermTry(root.path, line);
    assert.equal(envelope.error_code, "RepoLocked", line);
    assert.match(envelope.stderr, /another git process/);
    assert.match(envelope.stderr, /index\.lock/);
  }
  const status = result(await pterm(root.path, "git status --repo r"));
  assert.equal(status.counts.untracked, 1);
  assert.equal(await Deno.readTextFile(`${dir}/.git/index.lock`), "", "someone else's lock is left alone");
  await Deno.remove(`${dir}/.git/index.lock`);
  await pterm(root.path, "git add --repo r --all");
  const gitLocked = await gitRaw(dir, ["status"]);
  assert.equal(gitLocked.code, 0);
  await assertFsck(dir);
});

Deno.test("while pterm holds the lock, the real git is refused (and the reverse)", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await pterm(root.path, "git init --dir r");
  await write(`${dir}/a.txt`, "a\n");
  const { withRepoLock } = await import("../../../commands/git/api.ts");
  await withRepoLock(dir, async () => {
    const out = await gitRaw(dir, ["add", "a.txt"]);
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, /index\.lock/);
  });
  await git(dir, "add", "a.txt");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "A  a.txt");
});

Deno.test("a pterm process killed at any moment of add/commit leaves a repository git can use", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await pterm(root.path, "git init --dir r");
  for (let i = 0; i < 600; i++) await write(`${dir}/d${i % 20}/f${i}.txt`, `content ${i}\n`.repeat(20));
  const { ptermArgs } = await import("../../_support/helpers.ts");
  for (const [step, delay] of [40, 80, 120, 160, 220, 300, 400].entries()) {
    for (let i = 0; i < 600; i += 7) await write(`${dir}/d${i % 20}/f${i}.txt`, `round ${step} ${i}\n`);
    const line = step % 2 ? `git commit --repo r -m round${step} --allow-empty` : "git add --repo r --all";
    const child = new Deno.Command(Deno.execPath(), {
      args: ptermArgs(["exec", "--root", root.path, line]),
      stdout: "null",
      stderr: "null",
      stdin: "null",
    }).spawn();
    await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      child.kill("SIGKILL");
    } catch { /* already finished */ }
    await child.status;
    // A leftover lock is acceptable (git leaves them too); remove it as a user would.
    await Deno.remove(`${dir}/.git/index.lock`).catch(() => {});
    await Deno.remove(`${dir}/.git/refs/heads/main.lock`).catch(() => {});
    const status = await gitRaw(dir, ["status", "--porcelain"]);
    assert.equal(status.code, 0, `after a kill at ${delay} ms: ${status.stderr}`);
    await assertFsck(dir);
  }
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, "git commit --repo r -m final --allow-empty");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  await assertFsck(dir);
});
