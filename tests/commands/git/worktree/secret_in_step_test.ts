/**
 * A tracked secret file (`.envrc`, `.env*`, `secrets/…`) follows the trees pterm checks out — switch, checkout,
 * reset --hard, stash — as the real git's would, without its content ever being shown: after each pterm step the
 * real git sees exactly what it sees after the same step of its own. Before, pterm updated the index only, so after
 * switching between branches whose `.envrc` differ the file kept the old content and the real git showed it
 * modified (a person's `git commit -a` would then have recorded a change nobody made). A secret the person changed
 * locally is never overwritten or deleted: pterm cannot show or save it, so it leaves it as it is.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, pterm, ptermTry, write } from "../oracle.ts";

async function setup(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await write(`${dir}/.envrc`, "export STAGE=main-secret\n");
  await write(`${dir}/app.txt`, "app\n");
  await git(dir, "add", "-A", "-f");
  await git(dir, "commit", "-q", "-m", "base");
  await git(dir, "switch", "-q", "-c", "side");
  await write(`${dir}/.envrc`, "export STAGE=side-secret\n");
  await write(`${dir}/secrets/key.pem`, "side key\n");
  await git(dir, "add", "-A", "-f");
  await git(dir, "commit", "-q", "-m", "side secrets");
  await git(dir, "switch", "-q", "main");
}

/** What the real git sees: status, and the secret files' bytes. */
async function seen(dir: string) {
  const read = (path: string) => Deno.readTextFile(`${dir}/${path}`).catch(() => null);
  return {
    status: await git(dir, "status", "--porcelain", "--untracked-files=all"),
    envrc: await read(".envrc"),
    key: await read("secrets/key.pem"),
  };
}

Deno.test("secret files follow switch, checkout, reset --hard and stash as in git, never shown", async () => {
  await using root = await makeRoot("pterm-secret-step-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  await setup(p);
  await setup(g);
  const step = async (line: string, args: string[]) => {
    const envelope = await pterm(root.path, line);
    assert.doesNotMatch(JSON.stringify(envelope), /-secret|side key/, `${line} showed a secret`);
    await git(g, ...args);
    assert.deepEqual(await seen(p), await seen(g), line);
  };
  await step("git switch --repo p side", ["switch", "-q", "side"]);
  assert.equal((await seen(p)).envrc, "export STAGE=side-secret\n");
  await step("git checkout --repo p main", ["checkout", "-q", "main"]);
  assert.equal((await seen(p)).key, null);
  await step("git reset --repo p --hard side", ["reset", "-q", "--hard", "side"]);
  await step("git reset --repo p --hard HEAD~1", ["reset", "-q", "--hard", "HEAD~1"]);
  await write(`${p}/app.txt`, "changed\n");
  await write(`${g}/app.txt`, "changed\n");
  await step("git stash --repo p", ["stash", "-q"]);
  await step("git stash pop --repo p", ["stash", "pop", "-q"]);
  await assertFsck(p);
});

Deno.test("a secret changed locally is never overwritten or deleted", async () => {
  await using root = await makeRoot("pterm-secret-step-");
  const p = `${root.path}/p`;
  await setup(p);
  await write(`${p}/.envrc`, "export STAGE=person-edit\n");
  // The switch would change it: refused as git refuses, or left as it is — never overwritten.
  await ptermTry(root.path, "git switch --repo p side");
  assert.equal(await Deno.readTextFile(`${p}/.envrc`), "export STAGE=person-edit\n");
  await ptermTry(root.path, "git reset --repo p --hard HEAD");
  assert.equal(await Deno.readTextFile(`${p}/.envrc`), "export STAGE=person-edit\n");
  await ptermTry(root.path, "git stash --repo p");
  assert.equal(await Deno.readTextFile(`${p}/.envrc`), "export STAGE=person-edit\n");
  await assertFsck(p);
});

Deno.test("a merge and a cherry-pick that change a secret cleanly write it as git's would", async () => {
  await using root = await makeRoot("pterm-secret-step-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  for (const dir of [p, g]) {
    await setup(dir);
    await write(`${dir}/main.txt`, "main only\n");
    await git(dir, "add", "main.txt");
    await git(dir, "commit", "-q", "-m", "main work");
  }
  const step = async (line: string, args: string[]) => {
    const envelope = await pterm(root.path, line);
    assert.doesNotMatch(JSON.stringify(envelope), /-secret|side key/, `${line} showed a secret`);
    await git(g, ...args);
    assert.deepEqual(await seen(p), await seen(g), line);
  };
  await step("git merge --repo p side --no-edit", ["merge", "-q", "--no-edit", "side"]);
  assert.equal((await seen(p)).envrc, "export STAGE=side-secret\n");
  await step("git reset --repo p --hard HEAD~1", ["reset", "-q", "--hard", "HEAD~1"]);
  await step("git cherry-pick --repo p side", ["cherry-pick", "side"]);
  assert.equal((await seen(p)).key, "side key\n");
  await step("git revert --repo p HEAD --no-edit", ["revert", "--no-edit", "HEAD"]);
  assert.equal((await seen(p)).key, null);
  await assertFsck(p);
});

Deno.test("checkout <rev> -- <paths> and merge --abort keep secret files in step as git's would, never shown", async () => {
  await using root = await makeRoot("pterm-secret-step-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  for (const dir of [p, g]) {
    await setup(dir);
    // The side branch also changes app.txt, which main changes too: a merge stops on it.
    await git(dir, "switch", "-q", "side");
    await write(`${dir}/app.txt`, "side app\n");
    await git(dir, "commit", "-q", "-am", "side app");
    await git(dir, "switch", "-q", "main");
    await write(`${dir}/app.txt`, "main app\n");
    await git(dir, "commit", "-q", "-am", "main app");
  }
  const step = async (line: string, args: string[], ok = true) => {
    const envelope = ok ? await pterm(root.path, line) : await ptermTry(root.path, line);
    assert.doesNotMatch(JSON.stringify(envelope), /-secret|side key/, `${line} showed a secret`);
    await git(g, ...args).catch(() => {});
    assert.deepEqual(await seen(p), await seen(g), line);
  };
  // Files from another commit, secrets among them: written, and the person's git sees them staged, not modified.
  await step("git checkout --repo p side -- .envrc secrets", ["checkout", "side", "--", ".envrc", "secrets"]);
  assert.equal((await seen(p)).envrc, "export STAGE=side-secret\n");
  await step("git reset --repo p --hard", ["reset", "-q", "--hard"]);
  // A merge that brings the secrets cleanly and stops on app.txt; aborting it takes them back out.
  await step("git merge --repo p side", ["merge", "-q", "side"], false);
  assert.equal((await seen(p)).key, "side key\n");
  await step("git merge --repo p --abort", ["merge", "--abort"]);
  assert.equal((await seen(p)).envrc, "export STAGE=main-secret\n");
  assert.equal((await seen(p)).key, null);
  assert.equal((await seen(p)).status, "");
  await assertFsck(p);
});
