/**
 * Names git quotes in a diff (`"caf\303\251.txt"`, `"ta\tb.txt"`, `"quo\"te.txt"`, a tab after a name
 * with a space): a patch pterm's `git diff` (or the real git) writes applies with `patch apply` to
 * the files it names (a backslash in a name stays refused, as in every path), and a quoted name
 * that is not UTF-8 is refused — decoded leniently it would name another file (its bytes as U+FFFD).
 */

import assert from "node:assert/strict";
import { exec, execOk, makeRoot } from "../../_support/helpers.ts";
import { git, gitInit } from "../git/oracle.ts";
import { readTree } from "./helpers.ts";

const NAMES = ["café.txt", "with space.txt", 'quo"te.txt', "ta\tb.txt", "日本/語.txt", "plain.txt"];

Deno.test("git diff's quoted names (pterm's and real git's) apply with patch apply to the named files", async (t) => {
  for (const writer of ["pterm", "real git"] as const) {
    await t.step(`a patch written by ${writer}`, async () => {
      await using root = await makeRoot();
      const dir = `${root.path}/r`;
      await gitInit(dir);
      await Deno.mkdir(`${dir}/日本`);
      for (const name of NAMES) await Deno.writeTextFile(`${dir}/${name}`, `one\ntwo\nthree ${name}\n`);
      await git(dir, "add", "-A");
      await git(dir, "commit", "-qm", "base");
      for (const name of NAMES.slice(0, 4)) await Deno.writeTextFile(`${dir}/${name}`, `one\nTWO\nthree ${name}\n`);
      await git(dir, "mv", "plain.txt", "plaïn two.txt");
      await git(dir, "mv", "日本/語.txt", "日本/語 2.txt");
      await git(dir, "add", "-A");
      const expected = await readTree(dir);
      const patch = writer === "pterm"
        ? (await execOk(root.path, "git diff --cached --repo r")).stdout
        : await git(dir, "diff", "--cached");
      assert.match(patch, /"a\/caf\\303\\251\.txt"/);
      assert.match(patch, /\+\+\+ b\/with space\.txt\t\n/);
      await git(dir, "reset", "-q", "--hard", "HEAD");
      const applied = await exec(root.path, "patch apply --repo r", { stdin: patch });
      assert.equal(applied.exit_code, 0, applied.stderr);
      assert.deepEqual(await readTree(dir), expected);
    });
  }
});

Deno.test("a quoted name that is not UTF-8 is refused, nothing written", async () => {
  await using root = await makeRoot();
  await Deno.writeTextFile(`${root.path}/caf\uFFFD.txt`, "one\n");
  const patch = [
    'diff --git "a/caf\\351.txt" "b/caf\\351.txt"',
    "index 5626abf..f719efd 100644",
    '--- "a/caf\\351.txt"',
    '+++ "b/caf\\351.txt"',
    "@@ -1 +1 @@",
    "-one",
    "+two",
    "",
  ].join("\n");
  const envelope = await exec(root.path, "patch apply", { stdin: patch });
  assert.equal(envelope.error_code, "PatchParseError", envelope.stderr);
  assert.match(envelope.stderr, /is not UTF-8/);
  // The file whose name the lenient decoding would have produced is untouched.
  assert.equal(await Deno.readTextFile(`${root.path}/caf\uFFFD.txt`), "one\n");
});
