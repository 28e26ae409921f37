/**
 * A submodule (gitlink) that moved with the same commit is an exact rename for git — in diff,
 * `--stat`, `--name-status` and ort's merges — as sharkdp/bat's v0.25.0..v0.26.0 shows
 * (`assets/syntaxes/02_Extra/{Assembly (ARM) => Assembly_(ARM)}`). pterm left gitlinks out of rename
 * detection and printed a deletion and an addition. Each output is compared with the real git's on
 * the same repository; merges run in twin clones and their indexes are compared.
 */

import assert from "node:assert/strict";
import { git } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";

Deno.test("a moved submodule is an exact rename in diff, stat, name-status and merges, as git", async (t) => {
  await using root = await makeRoot();
  const w = root.path;
  await git(w, "init", "-q", "-b", "main", "sub");
  await git(`${w}/sub`, "commit", "-q", "--allow-empty", "-m", "s");
  const first = (await git(`${w}/sub`, "rev-parse", "HEAD")).trim();
  await git(`${w}/sub`, "commit", "-q", "--allow-empty", "-m", "s2");
  const second = (await git(`${w}/sub`, "rev-parse", "HEAD")).trim();
  await git(w, "init", "-q", "-b", "main", "top");
  const top = `${w}/top`;
  await Deno.writeTextFile(`${top}/a.txt`, "a\n");
  await git(top, "add", "a.txt");
  // Two submodules at one commit: the exact pairing must still follow git's (same base name first).
  await git(top, "update-index", "--add", "--cacheinfo", `160000,${first},libs/mod`);
  await git(top, "update-index", "--add", "--cacheinfo", `160000,${first},other/mod-copy`);
  await git(top, "commit", "-qm", "one");
  await git(top, "update-index", "--force-remove", "libs/mod");
  await git(top, "update-index", "--add", "--cacheinfo", `160000,${first},vendor/mod`);

  const same = async (pterm: string, real: string[]) => {
    const ours = await exec(w, pterm);
    assert.equal(ours.exit_code, 0, ours.stderr);
    assert.equal(ours.stdout, await git(top, ...real), pterm);
  };
  await t.step("staged and committed: diff, --stat, --name-status", async () => {
    await same("git diff --repo top --cached", ["diff", "--cached"]);
    await same("git diff --repo top --cached --name-status", ["diff", "--cached", "--name-status"]);
    await git(top, "commit", "-qm", "two");
    await same("git diff --repo top HEAD~1 HEAD", ["diff", "HEAD~1", "HEAD"]);
    await same("git diff --repo top HEAD~1 HEAD --stat", ["diff", "HEAD~1", "HEAD", "--stat"]);
    const ours = await exec(w, "git diff --repo top HEAD~1 HEAD");
    assert.match(ours.stdout, /rename from libs\/mod\nrename to vendor\/mod/);
  });

  for (const [branch, change] of [["adds-file", "file"], ["bumps-submodule", "bump"]] as const) {
    const what = change === "file" ? "adds a file" : "moves the submodule to another commit";
    await t.step(`merging the move into a branch that ${what}`, async () => {
      await git(top, "switch", "-q", "-c", branch, "HEAD~1");
      if (change === "file") {
        await Deno.writeTextFile(`${top}/b.txt`, "b\n");
        await git(top, "add", "b.txt");
      } else await git(top, "update-index", "--cacheinfo", `160000,${second},libs/mod`);
      await git(top, "commit", "-qm", branch);
      const twin = `${w}/${branch}-twin`;
      await git(w, "clone", "-q", "--no-checkout", "top", twin);
      await git(twin, "switch", "-q", branch);
      await git(twin, "branch", "-q", "--force", "main", "origin/main");
      const ours = await exec(w, `git merge --repo ${branch}-twin main -m merged`);
      await git(top, "merge", "-q", "main", "-m", "merged");
      assert.equal(ours.exit_code, 0, ours.stderr);
      assert.equal(await git(twin, "ls-files", "-s"), await git(top, "ls-files", "-s"));
      assert.equal(await git(twin, "rev-parse", "HEAD^{tree}"), await git(top, "rev-parse", "HEAD^{tree}"));
      await git(top, "switch", "-q", "main");
    });
  }
});
