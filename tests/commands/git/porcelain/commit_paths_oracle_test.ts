/**
 * `git commit <paths>` takes, from the work tree, the files git knows that the paths match — the
 * index's and HEAD's — and nothing else. pterm staged a named folder whole, so an untracked file in
 * it was committed, and it committed the deletion of a file that `git rm --cached` had taken out of
 * the index while real git, finding the file in the work tree, has nothing to commit (found by the
 * spellings property test). Each case runs in twin repositories, pterm in one and the real git in
 * the other; the outcome, the commit's files and the whole state afterwards must agree.
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitInit, gitRaw } from "../oracle.ts";
import { repoState, worktreeFingerprint } from "../repo_state.ts";

interface Case {
  name: string;
  /** Shell-free set-up run in both repositories after the base commit (a.txt, src/b.txt, src/c.txt). */
  setup: (dir: string) => Promise<void>;
  paths: string[];
}

const CASES: Case[] = [
  {
    name: "a folder holding an untracked file: only the tracked files are committed",
    setup: async (dir) => {
      await Deno.writeTextFile(`${dir}/src/b.txt`, "b changed\n");
      await Deno.writeTextFile(`${dir}/src/new.txt`, "untracked\n");
    },
    paths: ["src"],
  },
  {
    name: "a file taken out of the index with rm --cached, still in the work tree: nothing to commit",
    setup: async (dir) => void await git(dir, "rm", "-q", "--cached", "a.txt"),
    paths: ["a.txt"],
  },
  {
    name: "a file taken out of the index and changed in the work tree: committed as it is there",
    setup: async (dir) => {
      await git(dir, "rm", "-q", "--cached", "a.txt");
      await Deno.writeTextFile(`${dir}/a.txt`, "a changed\n");
    },
    paths: ["a.txt"],
  },
  {
    name: "a file deleted with git rm: the deletion is committed",
    setup: async (dir) => void await git(dir, "rm", "-q", "src/c.txt"),
    paths: ["src/c.txt"],
  },
  {
    name: "a file deleted from the work tree only: the deletion is committed",
    setup: async (dir) => await Deno.remove(`${dir}/src/c.txt`),
    paths: ["src"],
  },
  {
    name: "an untracked file named alone: refused by both",
    setup: async (dir) => await Deno.writeTextFile(`${dir}/loose.txt`, "loose\n"),
    paths: ["loose.txt"],
  },
];

Deno.test("git commit <paths> commits what the real git commits", async (t) => {
  for (const c of CASES) {
    await t.step(c.name, async () => {
      await using root = await makeRoot();
      const dirs = { pterm: `${root.path}/p`, git: `${root.path}/g` };
      for (const dir of Object.values(dirs)) {
        await gitInit(dir);
        await Deno.mkdir(`${dir}/src`);
        await Deno.writeTextFile(`${dir}/a.txt`, "a\n");
        await Deno.writeTextFile(`${dir}/src/b.txt`, "b\n");
        await Deno.writeTextFile(`${dir}/src/c.txt`, "c\n");
        await git(dir, "add", "-A");
        await git(dir, "commit", "-qm", "base");
        await c.setup(dir);
      }
      const real = await gitRaw(dirs.git, ["commit", "-qm", "partial", "--", ...c.paths]);
      const ours = await exec(root.path, `git commit -m partial --repo p -- ${c.paths.join(" ")}`);
      assert.equal(ours.exit_code === 0, real.code === 0, `pterm: ${ours.stderr}\ngit: ${real.stderr}${real.stdout}`);
      assert.equal(await repoState(dirs.pterm), await repoState(dirs.git));
      assert.equal(await worktreeFingerprint(dirs.pterm), await worktreeFingerprint(dirs.git));
    });
  }
});
