/**
 * What git prints when an everyday command succeeds — add, reset, branch, tag, mv, switch and checkout, stash
 * apply/pop/drop — byte for byte (stdout and stderr) against the real git doing the same step in a twin repository.
 * Before, pterm printed its own sentences (`Staged 0 new files, 1 changed file, 0 deletions.`, `HEAD is now at
 * 05766bc (hard; 2 paths changed).`, `Switched to branch 'b2' (0 files updated).`, `Applied stash@{0} (1 file) and
 * dropped it.`) where git prints nothing or something else.
 */

import assert from "node:assert/strict";
import { assertFsck, git, ptermTry } from "../oracle.ts";
import { makeRoot } from "../../../_support/helpers.ts";
import { twins } from "./text_twins.ts";

Deno.test("add, reset, branch, tag and mv print what git prints (mostly nothing)", async () => {
  await using root = await makeRoot("pterm-success-text-");
  const t = await twins(root.path);
  const both = { stderr: true };
  await t.write("a.txt", "changed\n");
  await t.write("fresh.txt", "fresh\n");
  await t.step("add a.txt", ["add", "a.txt"], both);
  await t.step("reset", ["reset"], both);
  await t.step("add -v -A", ["add", "-v", "-A"], both);
  await t.step("reset -- fresh.txt", ["reset", "--", "fresh.txt"], both);
  await t.step("reset --soft HEAD~1", ["reset", "--soft", "HEAD~1"], both);
  await t.step("reset --hard HEAD@{1}", ["reset", "--hard", "HEAD@{1}"], both);
  await t.step("branch b2", ["branch", "b2"], both);
  await t.step("branch -m b2 b3", ["branch", "-m", "b2", "b3"], both);
  await t.step("branch -d b3", ["branch", "-d", "b3"], both);
  await t.step("tag v1", ["tag", "v1"], both);
  await t.step("tag -a v2 -m release", ["tag", "-a", "v2", "-m", "release"], both);
  await t.step("tag -d v1", ["tag", "-d", "v1"], both);
  // An annotated tag's object differs between the twins (each stamps its own time): pterm names its own.
  const tagObject = (await git(t.p, "rev-parse", "--short", "v2")).trim();
  await t.both("tag", "-d", "v2");
  assert.equal((await ptermTry(root.path, "git -C p tag -d v2")).error_code, "NotFound");
  await git(t.p, "tag", "-a", "v2", "-m", "release");
  const again = (await git(t.p, "rev-parse", "--short", "v2")).trim();
  const deleted = await ptermTry(root.path, "git -C p tag -d v2");
  assert.equal(deleted.stdout, `Deleted tag 'v2' (was ${again})\n`);
  assert.notEqual(tagObject, "");
  await t.step("mv b.sh c.sh", ["mv", "b.sh", "c.sh"], both);
  await t.step("reset --hard", ["reset", "--hard"], both);
  await assertFsck(t.p);
});

Deno.test("switch and checkout print git's lines: local changes, the upstream, detached HEAD's advice and warnings", async () => {
  await using root = await makeRoot("pterm-switch-text-");
  const t = await twins(root.path);
  const both = { stderr: true };
  await t.write("a.txt", "one\ntwo\nthree\nfour\nFIVE\nlocal\n");
  await t.step("switch -c feat", ["switch", "-c", "feat"], both);
  await t.step("switch main", ["switch", "main"], both);
  await t.step("switch main", ["switch", "main"], both);
  await t.step("checkout -b tracked origin/main", ["checkout", "-b", "tracked", "origin/main"], both);
  await t.step("checkout -B main", ["checkout", "-B", "main"], both);
  await t.step("checkout side", ["checkout", "side"], { fails: true });
  await t.step("checkout main", ["checkout", "main"], both);
  await git(t.p, "checkout", "-q", "--", "a.txt");
  await git(t.g, "checkout", "-q", "--", "a.txt");
  // Ahead of the upstream: git's sentence and its hint.
  await t.write("a.txt", "ahead\n");
  await t.both("commit", "-qam", "ahead");
  await t.step("switch side", ["switch", "side"], both);
  await t.step("switch -", ["switch", "-"], both);
  // Into a detached HEAD from a branch (the advice), with --detach (none), and out of it (where it was).
  await t.step("checkout side~1", ["checkout", "side~1"], both);
  await t.step("checkout main", ["checkout", "main"], both);
  await t.step("switch --detach side", ["switch", "--detach", "side"], both);
  // A commit made while detached and left behind: git's warning names it.
  await t.write("lost.txt", "lost\n");
  await t.both("add", "lost.txt");
  await t.both("commit", "-qm", "made while detached");
  await t.step("switch main", ["switch", "main"], both);
  await t.step(
    "-c advice.detachedHead=false checkout side",
    ["-c", "advice.detachedHead=false", "checkout", "side"],
    both,
  );
  await t.step("checkout -f main", ["checkout", "-f", "main"], both);
  await assertFsck(t.p);
});

Deno.test("stash apply and pop print git's status after them, and drop its line with the full commit id", async () => {
  await using root = await makeRoot("pterm-stash-text-");
  const t = await twins(root.path);
  const both = { stderr: true };
  await t.write("a.txt", "stashed\n");
  await t.write("untracked.txt", "u\n");
  await t.step("stash", ["stash"], both);
  await t.step("stash apply", ["stash", "apply"], both);
  await t.step("reset --hard", ["reset", "--hard"], both);
  const stashOf = async (dir: string, n: number) => (await git(dir, "rev-parse", `stash@{${n}}`)).trim();
  const gone = async (n: number) => ({ p: await stashOf(t.p, n), g: await stashOf(t.g, n), name: "<stash>" });
  await t.step("stash pop", ["stash", "pop"], { ...both, gone: await gone(0) });
  await t.step("stash", ["stash"], both);
  await t.write("b.sh", "echo changed\n");
  await t.step("stash", ["stash"], both);
  await t.step("stash drop 1", ["stash", "drop", "1"], { ...both, gone: await gone(1) });
  await t.step("stash drop stash@{0}", ["stash", "drop", "stash@{0}"], { ...both, gone: await gone(0) });
  await assertFsck(t.p);
});

Deno.test("stash apply and pop that merge print merge-ort's lines: Auto-merging, CONFLICT, and pop's kept entry", async () => {
  await using root = await makeRoot("pterm-stash-merge-text-");
  const t = await twins(root.path);
  const both = { stderr: true };
  // Merged cleanly: both sides changed a.txt, in different lines.
  await t.write("a.txt", "one\ntwo\nthree\nfour\nFIVE\nsix\n");
  await t.step("stash", ["stash"], both);
  await t.write("a.txt", "zero\none\ntwo\nthree\nfour\nFIVE\n");
  await t.both("commit", "-qam", "head change");
  await t.step("stash apply", ["stash", "apply"], both);
  await t.step("reset --hard", ["reset", "--hard"], both);
  // A content conflict beside a staged change: apply, then pop, both stop; the entry stays.
  await t.write("a.txt", "zero\none\ntwo\nthree\nfour\nstashed\n");
  await t.write("b.sh", "echo stashed\n");
  await t.step("stash", ["stash"], both);
  await t.write("a.txt", "zero\none\ntwo\nthree\nfour\nhead\n");
  await t.both("commit", "-qam", "conflicting head change");
  await t.step("stash apply", ["stash", "apply"], { fails: true });
  await t.step("reset --hard", ["reset", "--hard"], both);
  await t.step("stash pop", ["stash", "pop"], { fails: true });
  assert.equal(await git(t.p, "stash", "list"), await git(t.g, "stash", "list"));
  // The person resolves it as git says, and both histories go on alike.
  await t.write("a.txt", "zero\none\ntwo\nthree\nfour\nresolved\n");
  await t.step("add a.txt", ["add", "a.txt"], both);
  await t.step("stash drop", ["stash", "drop"], {
    ...both,
    gone: {
      p: (await git(t.p, "rev-parse", "stash@{0}")).trim(),
      g: (await git(t.g, "rev-parse", "stash@{0}")).trim(),
      name: "<stash>",
    },
  });
  // A file the stash changed and HEAD deleted: modify/delete, in the names git's stash gives its sides.
  await t.step("reset --hard", ["reset", "--hard"], both);
  await t.write("dir/x.txt", "changed\n");
  await t.step("stash", ["stash"], both);
  await t.both("rm", "-q", "dir/x.txt");
  await t.both("commit", "-qm", "delete x");
  await t.step("stash apply", ["stash", "apply"], { fails: true });
  await assertFsck(t.p);
});
