/**
 * A cherry-pick whose change is already in HEAD stops with the cherry-pick in progress, as git's sequencer stops
 * (CHERRY_PICK_HEAD and MERGE_MSG, git's "The previous cherry-pick is now empty" text), so that what the person
 * types next — `--skip`, `--abort`, `--continue`, `git commit --allow-empty` — works as in git. Before, pterm
 * refused it with no state left, and `cherry-pick --skip`/`--abort` then failed. Twin repositories, compared
 * after every step.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { Twin } from "../twin.ts";

/** main and side both change f.txt to the same text: picking side onto main is empty. */
async function alreadyApplied(twin: Twin): Promise<void> {
  await twin.write("f.txt", "a\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run('git commit --repo R -m "base"', ["commit", "-q", "-m", "base"]);
  await twin.run("git switch --repo R -c side", ["switch", "-q", "-c", "side"]);
  await twin.write("f.txt", "b\n");
  await twin.run('git commit --repo R -a -m "side b" --author "Side <side@example.com>"', [
    "commit",
    "-q",
    "-a",
    "-m",
    "side b",
    "--author=Side <side@example.com>",
  ]);
  await twin.run("git switch --repo R main", ["switch", "-q", "main"]);
  await twin.write("f.txt", "b\n");
  await twin.run('git commit --repo R -a -m "main b"', ["commit", "-q", "-a", "-m", "main b"]);
}

const inProgress = async (dir: string) => {
  const head = await Deno.readTextFile(`${dir}/.git/CHERRY_PICK_HEAD`).catch(() => null);
  const message = await Deno.readTextFile(`${dir}/.git/MERGE_MSG`).catch(() => null);
  return { head: head === null ? null : "present", message };
};

Deno.test("an empty cherry-pick stops in progress; --skip, --abort, --continue and commit --allow-empty follow", async (t) => {
  await t.step("it stops with git's state and text", async () => {
    await using twin = await Twin.create();
    await alreadyApplied(twin);
    const stopped = await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "NothingToCommit");
    assert.match(stopped.stderr, /The previous cherry-pick is now empty, possibly due to conflict resolution\./);
    assert.match(stopped.stderr, /git commit --allow-empty/);
    assert.deepEqual(await inProgress(twin.p), await inProgress(twin.g));
    await twin.compare("stopped");
    // --continue refuses again, as git's does.
    await twin.run("git cherry-pick --repo R --continue", ["cherry-pick", "--continue"], "NothingToCommit");
    await twin.run("git cherry-pick --repo R --skip", ["cherry-pick", "--skip"]);
    assert.deepEqual(await inProgress(twin.p), await inProgress(twin.g));
    assert.deepEqual(await inProgress(twin.p), { head: null, message: null });
    await twin.compare("after --skip");
  });

  await t.step("--abort", async () => {
    await using twin = await Twin.create();
    await alreadyApplied(twin);
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "NothingToCommit");
    await twin.run("git cherry-pick --repo R --abort", ["cherry-pick", "--abort"]);
    assert.deepEqual(await inProgress(twin.p), await inProgress(twin.g));
    await twin.compare("after --abort");
  });

  await t.step("git commit --allow-empty records it with the picked author and message", async () => {
    await using twin = await Twin.create();
    await alreadyApplied(twin);
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "NothingToCommit");
    await twin.run("git commit --repo R --allow-empty", ["-c", "core.editor=true", "commit", "--allow-empty"]);
    const last = async (dir: string) => (await git(dir, "log", "-1", "--format=%an|%s|%T")).trim();
    assert.equal(await last(twin.p), await last(twin.g));
    assert.deepEqual(await inProgress(twin.p), await inProgress(twin.g));
    await twin.compare("after commit --allow-empty");
  });

  await t.step("--keep-redundant-commits records it at once; --allow-empty does not", async () => {
    await using twin = await Twin.create();
    await alreadyApplied(twin);
    await twin.run(
      "git cherry-pick --repo R --allow-empty side",
      ["cherry-pick", "--allow-empty", "side"],
      "NothingToCommit",
    );
    await twin.run("git cherry-pick --repo R --abort", ["cherry-pick", "--abort"]);
    await twin.run("git cherry-pick --repo R --keep-redundant-commits side", [
      "cherry-pick",
      "--keep-redundant-commits",
      "side",
    ]);
    await twin.compare("after --keep-redundant-commits");
  });

  await t.step("an empty commit itself is picked with --allow-empty", async () => {
    await using twin = await Twin.create();
    await alreadyApplied(twin);
    await twin.run('git commit --repo R --allow-empty -m "nothing"', [
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "nothing",
    ]);
    await twin.run("git switch --repo R side", ["switch", "-q", "side"]);
    await twin.run("git cherry-pick --repo R main", ["cherry-pick", "main"], "NothingToCommit");
    await twin.run("git cherry-pick --repo R --skip", ["cherry-pick", "--skip"]);
    await twin.run("git cherry-pick --repo R --allow-empty main", ["cherry-pick", "--allow-empty", "main"]);
    await twin.compare("empty commit picked");
  });
});
