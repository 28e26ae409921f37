/**
 * Staged renames in `git status`, as the real git pairs them: `git mv a b` is `R  a -> b`, not a
 * deletion and an addition; a renamed file edited afterwards `RM`; a renamed and changed file
 * paired from 50% similarity; identical copies paired by base name first; unrelated files left
 * apart; a moved submodule; `status.renames=false` / `diff.renames=false` turning it off. The
 * `--porcelain` and `--short` outputs are compared byte for byte with git's on one repository.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join("\n") + "\n";

Deno.test("git status shows staged renames as git does", async (t) => {
  await using root = await makeRoot();
  const repo = `${root.path}/r`;
  await git(root.path, "init", "-q", "-b", "main", repo);
  await git(root.path, "init", "-q", "-b", "main", `${root.path}/sub`);
  await git(`${root.path}/sub`, "commit", "-q", "--allow-empty", "-m", "s");
  const sub = (await git(`${root.path}/sub`, "rev-parse", "HEAD")).trim();
  await Deno.mkdir(`${repo}/src`);
  await Deno.mkdir(`${repo}/docs`);
  await Deno.writeTextFile(`${repo}/moved.txt`, lines(20, "moved"));
  await Deno.writeTextFile(`${repo}/edited.txt`, lines(20, "edited"));
  await Deno.writeTextFile(`${repo}/then-changed.txt`, lines(20, "then"));
  await Deno.writeTextFile(`${repo}/src/copy.txt`, "same content\n");
  await Deno.writeTextFile(`${repo}/docs/copy.txt`, "same content\n");
  await Deno.writeTextFile(`${repo}/gone.txt`, lines(20, "gone"));
  await git(repo, "add", "-A");
  await git(repo, "update-index", "--add", "--cacheinfo", `160000,${sub},libs/sub`);
  await git(repo, "commit", "-qm", "base");

  await git(repo, "mv", "moved.txt", "moved-to.txt");
  await git(repo, "mv", "edited.txt", "edited-to.txt");
  await Deno.writeTextFile(`${repo}/edited-to.txt`, lines(16, "edited") + "four new\nlines\nat\nthe end\n");
  await git(repo, "add", "edited-to.txt");
  await git(repo, "mv", "then-changed.txt", "then-changed-to.txt");
  await Deno.writeTextFile(`${repo}/then-changed-to.txt`, "changed after staging\n");
  await Deno.mkdir(`${repo}/lib`);
  await git(repo, "mv", "src/copy.txt", "lib/copy.txt");
  await git(repo, "rm", "-q", "gone.txt");
  await Deno.writeTextFile(`${repo}/unrelated-new.txt`, lines(20, "unrelated"));
  await git(repo, "add", "unrelated-new.txt");
  await git(repo, "update-index", "--force-remove", "libs/sub");
  await git(repo, "update-index", "--add", "--cacheinfo", `160000,${sub},vendor/sub`);

  const same = async (note: string) => {
    for (
      const [line, args] of [
        ["git status --repo r --porcelain", ["status", "--porcelain"]],
        ["git status --repo r --short", ["status", "--short"]],
      ] as const
    ) {
      const ours = await exec(root.path, line);
      assert.equal(ours.exit_code, 0, ours.stderr);
      assert.equal(ours.stdout, await git(repo, ...args), `${note}: ${line}`);
    }
  };
  await t.step("renames paired as git pairs them", async () => {
    await same("renames");
    const ours = await exec(root.path, "git status --repo r");
    const files = (ours.result as { files: { path: string; xy: string; orig_path?: string }[] }).files;
    assert.deepEqual(files.find((f) => f.path === "then-changed-to.txt"), {
      path: "then-changed-to.txt",
      xy: "RM",
      orig_path: "then-changed.txt",
    });
    assert.equal(files.find((f) => f.path === "moved.txt"), undefined, "the old path is not listed apart");
  });
  await t.step("status.renames=false and diff.renames=false turn it off", async () => {
    await git(repo, "config", "status.renames", "false");
    await same("status.renames=false");
    await git(repo, "config", "--unset", "status.renames");
    await git(repo, "config", "diff.renames", "false");
    await same("diff.renames=false");
  });
});
