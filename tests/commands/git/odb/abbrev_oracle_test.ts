/**
 * Abbreviated object names as the real git prints them. A patch's `index` line had 7 hex digits
 * always; git's grow with the repository (8 from 2^14 packed objects: sharkdp/bat's and
 * lumeland/lume's patches differed from git's in every file) and grow further when another object
 * shares the prefix. The same names label diff3 conflict bases and cherry-pick/revert conflicts
 * (written into files) and stash messages; a detached HEAD left behind is named in full in the
 * reflog. Everything is compared byte for byte with the real git on the same repository or a twin.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";

const encoder = new TextEncoder();

/** The git blob name of `text`. */
function blobName(text: string): string {
  const body = encoder.encode(text);
  return createHash("sha1").update(`blob ${body.length}\0`).update(body).digest("hex");
}

/** Two file contents whose blob names share their first 7 hex digits (a birthday search). */
function collidingContents(): [string, string] {
  const seen = new Map<string, string>();
  for (let i = 0;; i++) {
    const text = `version ${i}\n`;
    const prefix = blobName(text).slice(0, 7);
    const other = seen.get(prefix);
    if (other !== undefined) return [other, text];
    seen.set(prefix, text);
  }
}

/** Appends `count` small distinct blobs (and a commit holding none of them) to the repository's packs. */
async function packManyObjects(dir: string, count: number): Promise<void> {
  let stream = "";
  for (let i = 0; i < count; i++) {
    const data = `filler ${i}\n`;
    stream += `blob\ndata ${encoder.encode(data).length}\n${data}\n`;
  }
  const out = await gitRaw(dir, ["fast-import", "--quiet"], stream);
  assert.equal(out.code, 0, out.stderr);
}

Deno.test("abbreviated object names grow with the repository and for uniqueness, as git's", async (t) => {
  await using root = await makeRoot();
  const w = root.path;

  await t.step("a small repository: two blobs sharing 7 digits get 8 (or more) in the patch", async () => {
    const repo = `${w}/small`;
    await git(w, "init", "-q", "-b", "main", repo);
    const [first, second] = collidingContents();
    await Deno.writeTextFile(`${repo}/f.txt`, first);
    await git(repo, "add", "f.txt");
    await git(repo, "commit", "-qm", "first");
    await Deno.writeTextFile(`${repo}/f.txt`, second);
    await git(repo, "commit", "-qam", "second");
    const ours = await exec(w, "git diff --repo small HEAD~1 HEAD");
    const theirs = await git(repo, "diff", "HEAD~1", "HEAD");
    assert.equal(ours.stdout, theirs);
    assert.match(theirs, /^index [0-9a-f]{8,}\.\.[0-9a-f]{8,} 100644$/m);
  });

  const big = `${w}/big`;
  await git(w, "init", "-q", "-b", "main", big);
  await Deno.writeTextFile(`${big}/a.txt`, "one\ntwo\nthree\n");
  await git(big, "add", "a.txt");
  await git(big, "commit", "-qm", "base");
  await packManyObjects(big, 16_500);

  await t.step("past 2^14 packed objects: 8 digits in diff, unstaged diff and show", async () => {
    await Deno.writeTextFile(`${big}/a.txt`, "one\n2\nthree\n");
    await git(big, "commit", "-qam", "change");
    await Deno.writeTextFile(`${big}/a.txt`, "one\n2\n3\n");
    for (
      const [line, args] of [
        ["git diff --repo big HEAD~1 HEAD", ["diff", "HEAD~1", "HEAD"]],
        ["git diff --repo big", ["diff"]],
      ] as const
    ) {
      const ours = await exec(w, line);
      assert.equal(ours.stdout, await git(big, ...args), line);
    }
    assert.match(await git(big, "diff"), /^index [0-9a-f]{8}\.\.[0-9a-f]{8} 100644$/m);
    const shown = await exec(w, "git show --repo big HEAD");
    assert.match(
      shown.stdout,
      new RegExp(
        `^index ${(await git(big, "diff", "HEAD~1", "HEAD")).match(/^index (\S+)/m)![1].replace(".", "\\.")}`,
        "m",
      ),
    );
    await git(big, "checkout", "--", "a.txt");
  });

  await t.step("core.abbrev=12 and core.abbrev=no", async () => {
    for (const value of ["12", "no"]) {
      await git(big, "config", "core.abbrev", value);
      const ours = await exec(w, "git diff --repo big HEAD~1 HEAD");
      assert.equal(ours.stdout, await git(big, "diff", "HEAD~1", "HEAD"), `core.abbrev=${value}`);
    }
    await git(big, "config", "--unset", "core.abbrev");
  });

  await t.step("diff3 base labels and cherry-pick labels in conflicted files", async () => {
    await git(big, "config", "merge.conflictStyle", "diff3");
    await git(big, "switch", "-q", "-c", "side", "HEAD~1");
    await Deno.writeTextFile(`${big}/a.txt`, "one\nTWO\nthree\n");
    await git(big, "commit", "-qam", "side change");
    await git(big, "switch", "-q", "main");
    // A twin: a copy of the whole repository, its 16,500 packed (unreachable) objects included.
    const copied = await new Deno.Command("cp", { args: ["-a", big, `${w}/twin`] }).output();
    assert.ok(copied.success);
    const twin = `${w}/twin`;
    const merged = await exec(w, "git merge --repo twin side");
    assert.equal(merged.error_code, "Conflict");
    await git(big, "merge", "side").catch(() => {});
    assert.equal(await Deno.readTextFile(`${twin}/a.txt`), await Deno.readTextFile(`${big}/a.txt`));
    assert.match(await Deno.readTextFile(`${big}/a.txt`), /^\|{7} [0-9a-f]{8}$/m);
    await git(big, "merge", "--abort");
    await exec(w, "git merge --repo twin --abort");
    const picked = await exec(w, "git cherry-pick --repo twin side");
    assert.equal(picked.error_code, "Conflict");
    await git(big, "cherry-pick", "side").catch(() => {});
    assert.equal(await Deno.readTextFile(`${twin}/a.txt`), await Deno.readTextFile(`${big}/a.txt`));
    await git(big, "cherry-pick", "--abort");
    await exec(w, "git cherry-pick --repo twin --abort");
  });

  await t.step("stash messages; the reflog names a detached HEAD left behind in full", async () => {
    const twin = `${w}/twin`;
    for (const dir of [big, twin]) await Deno.writeTextFile(`${dir}/a.txt`, "stashed\n");
    const stashed = await exec(w, "git stash --repo twin");
    assert.equal(stashed.exit_code, 0, stashed.stderr);
    await git(big, "stash", "-q");
    const subjects = async (dir: string) => await git(dir, "log", "-g", "--format=%gs", "refs/stash");
    assert.equal(await subjects(twin), await subjects(big));
    for (const dir of [big, twin]) await git(dir, "stash", "drop", "-q");
    await exec(w, "git switch --repo twin --detach HEAD~1");
    await exec(w, "git switch --repo twin main");
    const moved = (await git(twin, "reflog", "-1", "--format=%gs")).trim();
    assert.equal(moved, `checkout: moving from ${(await git(twin, "rev-parse", "HEAD~1")).trim()} to main`);
  });
});
