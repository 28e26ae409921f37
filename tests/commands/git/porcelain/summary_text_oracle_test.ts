/**
 * What git prints after it makes a commit or moves HEAD — `commit`, `cherry-pick`, `revert`, `merge` (a merge
 * made, a fast-forward, up to date, a squash), `pull` — byte for byte against the real git doing the same step
 * in a twin repository. Commit ids differ between the twins (pterm stamps its own time), so each abbreviated id
 * is read as the subject of the commit it names in its own repository; a Date line of a commit made now is
 * compared by its form. Before, pterm printed its own sentences (`Merge made: 3183fa6 (2 files changed).`,
 * `Picked … as ….`) and `git commit` only the first line of git's summary.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitRaw, ptermTry } from "../oracle.ts";
import { byName, twins } from "./text_twins.ts";

Deno.test("merge, cherry-pick, revert and commit print git's own text, byte for byte", async () => {
  await using root = await makeRoot("pterm-summary-text-");
  const t = await twins(root.path);
  // A merge made: merge-ort's Auto-merging line, its sentence, the diffstat of HEAD's move and its summary.
  await t.step("merge side -m 'Merge side'", ["merge", "side", "-m", "Merge side"]);
  await t.step("merge side", ["merge", "side"]);
  // The sequencer's summary: the picked commit's author date, a rename, a mode change, a created file.
  await t.step("cherry-pick topick", ["cherry-pick", "topick"]);
  await t.step("revert HEAD", ["revert", "--no-edit", "HEAD"], { nowDate: true });
  await t.step("commit --allow-empty -m empty", ["commit", "--allow-empty", "-m", "empty"]);
  await t.write("a.txt", "changed by another\n");
  await t.step(
    "commit -am 'by another' --author 'Another <another@example.com>'",
    ["commit", "-am", "by another", "--author", "Another <another@example.com>"],
  );
  await t.step("commit --amend -m amended", ["commit", "--amend", "-m", "amended"], { nowDate: true });
  // A fast-forward, then a squash of a branch that is not one, then a squash that fast-forwards.
  await t.both("checkout", "-q", "behind");
  await t.step("merge main", ["merge", "main"]);
  await t.both("checkout", "-q", "-b", "merged", "main~3");
  await t.step("merge --squash side", ["merge", "--squash", "side"]);
  await t.both("checkout", "-q", "-b", "sq", "side~1");
  await t.write("a.txt", "one\ntwo\nthree\nfour\nfive\nsix\n");
  await t.both("commit", "-qam", "sq change");
  await t.step("merge --squash side", ["merge", "--squash", "side"]);
  await t.both("reset", "-q", "--hard");
  await t.both("checkout", "-q", "-b", "sq2", "side~1");
  await t.step("merge --squash side", ["merge", "--squash", "side"]);
  // The next step as a person takes it: commit the squash with their own git; the history is whole.
  await git(t.p, "commit", "-qm", "squashed");
  await assertFsck(t.p);
});

Deno.test("a merge that stops prints merge-ort's lines and git's sentence; a branch's first commit says (root-commit)", async () => {
  await using root = await makeRoot("pterm-summary-conflict-");
  const t = await twins(root.path);
  await t.both("checkout", "-q", "-b", "other", "side~1");
  await t.write("a.txt", "one\ntwo\nthree\nfour\nfive, other\n");
  await t.both("commit", "-qam", "other change");
  await t.step("merge main", ["merge", "main"], { fails: true });
  await t.both("merge", "--abort");
  await t.step("merge --squash main", ["merge", "--squash", "main"], { fails: true });
  await t.both("reset", "-q", "--hard");
  // A file both sides changed where ours already holds theirs' change: merge-ort merges it and says
  // `Auto-merging` though the result is ours; the merge stops on another file. A pick says the same.
  await t.both("checkout", "-q", "-b", "both-base", "side");
  await t.write("a.txt", "one\ntwo\nthree\nfour\nfive\n");
  await t.write("m.txt", "m\n");
  await t.both("add", "a.txt", "m.txt");
  await t.both("commit", "-qm", "both base");
  await t.both("checkout", "-q", "-b", "their-side");
  await t.write("a.txt", "one\ntwo\nthree\nfour\nFIVE\n");
  await t.write("m.txt", "theirs\n");
  await t.both("commit", "-qam", "theirs");
  await t.both("checkout", "-q", "-b", "our-side", "both-base");
  await t.write("a.txt", "ONE\ntwo\nthree\nfour\nFIVE\n");
  await t.write("m.txt", "ours\n");
  await t.both("commit", "-qam", "ours");
  await t.step("merge their-side", ["merge", "their-side"], { fails: true });
  await t.both("merge", "--abort");
  await t.step("cherry-pick their-side", ["cherry-pick", "their-side"], { fails: true });
  await t.both("cherry-pick", "--abort");
  // A new repository: its first commit.
  await ptermTry(root.path, "git init --dir p/fresh --initial-branch main");
  await git(t.g, "init", "-q", "-b", "main", "fresh");
  await t.write("fresh/first.txt", "first\n");
  const ours = await ptermTry(root.path, "git -C p/fresh add first.txt");
  assert.equal(ours.exit_code, 0, ours.stderr);
  await git(`${t.g}/fresh`, "add", "first.txt");
  const mine = await ptermTry(
    root.path,
    "git -C p/fresh -c user.name=Oracle -c user.email=oracle@example.com commit -m first",
  );
  const real = await gitRaw(`${t.g}/fresh`, ["commit", "-m", "first"]);
  assert.equal(await byName(`${t.p}/fresh`, mine.stdout), await byName(`${t.g}/fresh`, real.stdout));
  assert.match(
    mine.stdout,
    /^\[main \(root-commit\) [0-9a-f]{7}\] first\n 1 file changed, 1 insertion\(\+\)\n create mode 100644 first.txt\n$/,
  );
});
