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
import { assertFsck, git, gitRaw, ptermTry, write } from "../oracle.ts";

/** Every abbreviated or whole commit id of `dir`'s history (reflogs included) in `text`, as `<subject>`. */
async function byName(dir: string, text: string): Promise<string> {
  const lines = (await git(dir, "log", "--all", "--reflog", "--format=%H%x09%s")).split("\n").filter(Boolean);
  let out = text;
  for (const line of lines) {
    const [id, subject] = line.split("\t");
    out = out.replace(new RegExp(`\\b${id.slice(0, 7)}[0-9a-f]{0,33}\\b`, "g"), `<${subject}>`);
  }
  return out;
}

const NOW_DATE = /^ Date: (Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} \d{1,2} \d\d:\d\d:\d\d \d{4} [+-]\d{4}$/m;

class Twins {
  constructor(readonly root: string) {}
  get p() {
    return `${this.root}/p`;
  }
  get g() {
    return `${this.root}/g`;
  }

  /** The same step through pterm (in p) and the real git (in g): the same exit, the same text. */
  async step(line: string, gitArgs: string[], options: { nowDate?: boolean; fails?: boolean } = {}): Promise<void> {
    const ours = await ptermTry(this.root, `git -C p ${line}`);
    const theirs = await gitRaw(this.g, gitArgs);
    if (options.fails) {
      assert.notEqual(ours.exit_code, 0, `pterm ${line} succeeded where git failed`);
      assert.notEqual(theirs.code, 0);
    } else {
      assert.equal(ours.exit_code, 0, `pterm ${line}: ${ours.stderr}`);
      assert.equal(theirs.code, 0, `git ${gitArgs.join(" ")}: ${theirs.stderr}`);
    }
    let mine = await byName(this.p, ours.stdout);
    let real = await byName(this.g, theirs.stdout);
    if (options.nowDate) {
      assert.match(mine, NOW_DATE, `pterm ${line}: its Date line`);
      mine = mine.replace(NOW_DATE, " Date: <now>");
      real = real.replace(NOW_DATE, " Date: <now>");
    }
    assert.equal(mine, real, `git ${line}: stdout`);
  }

  async write(path: string, text: string): Promise<void> {
    await write(`${this.p}/${path}`, text);
    await write(`${this.g}/${path}`, text);
  }

  async both(...args: string[]): Promise<void> {
    await git(this.p, ...args);
    await git(this.g, ...args);
  }
}

/** A history made by the real git, copied to p and g so that both start from the same commits. */
async function twins(root: string): Promise<Twins> {
  const base = `${root}/base`;
  await Deno.mkdir(base);
  await git(base, "init", "-q", "-b", "main");
  await git(base, "config", "user.name", "Oracle");
  await git(base, "config", "user.email", "oracle@example.com");
  await write(`${base}/a.txt`, "one\ntwo\nthree\nfour\nfive\n");
  await write(`${base}/b.sh`, "echo b\n");
  await write(`${base}/dir/x.txt`, "x\n".repeat(20));
  await git(base, "add", "-A");
  await git(base, "commit", "-qm", "root");
  await git(base, "checkout", "-qb", "side");
  await write(`${base}/a.txt`, "ONE\ntwo\nthree\nfour\nfive\n");
  await write(`${base}/new.txt`, "new\n");
  await git(base, "add", "-A");
  await git(base, "commit", "-qm", "side change");
  await git(base, "checkout", "-qb", "topick", "main");
  await write(`${base}/p.txt`, "picked\n");
  await git(base, "update-index", "--chmod=+x", "b.sh");
  await git(base, "mv", "dir/x.txt", "dir/y.txt");
  await git(base, "add", "-A");
  await git(base, "commit", "-qm", "to pick");
  await git(base, "checkout", "-q", "main");
  await write(`${base}/a.txt`, "one\ntwo\nthree\nfour\nFIVE\n");
  await git(base, "commit", "-qam", "main change");
  await git(base, "branch", "behind", "main~1");
  await git(root, "clone", "-q", "base", "p");
  await git(root, "clone", "-q", "base", "g");
  const t = new Twins(root);
  for (const branch of ["side", "topick", "behind"]) await t.both("branch", "-q", branch, `origin/${branch}`);
  await t.both("config", "user.name", "Oracle");
  await t.both("config", "user.email", "oracle@example.com");
  return t;
}

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
