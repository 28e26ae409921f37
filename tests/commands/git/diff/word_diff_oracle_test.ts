/**
 * `git diff --word-diff` against real git on random edits: the same bytes (git's plain word diff,
 * `[-old-]{+new+}` inside the new text).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitRaw } from "../oracle.ts";

const word = fc.constantFrom("alpha", "beta", "gamma", "x", "42", "(a)", "b;", "");
const space = fc.constantFrom(" ", "  ", "\t", " ");
const line = fc.array(fc.tuple(word, space), { maxLength: 5 }).map((parts) =>
  parts.map(([w, s]) => w + s).join("").trimEnd()
);
const text = fc.tuple(fc.array(line, { minLength: 1, maxLength: 8 }), fc.boolean()).map(([lines, newline]) =>
  lines.join("\n") + (newline ? "\n" : "")
);

Deno.test({
  name: "git diff --word-diff prints what real git prints",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using root = await makeRoot("pterm-word-diff-");
  const repo = join(root.path, "r");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  await fc.assert(
    fc.asyncProperty(text, text, async (before, after) => {
      await Deno.writeTextFile(join(repo, "f.txt"), before);
      await git(repo, "add", "f.txt");
      await Deno.writeTextFile(join(repo, "f.txt"), after);
      const envelope = await exec(root.path, "git diff --word-diff");
      assert.equal(envelope.exit_code, 0, envelope.stderr);
      const real = await gitRaw(repo, ["diff", "--word-diff"]);
      assert.equal(envelope.stdout, real.stdout, JSON.stringify({ before, after }));
    }),
    { numRuns: 150 },
  );
  // What the user does next: the file and the index are as they were (a diff changes nothing).
  // The property's last pair may be equal, so the state checked here is set up on its own.
  await Deno.writeTextFile(join(repo, "f.txt"), "alpha beta\n");
  await git(repo, "add", "f.txt");
  await Deno.writeTextFile(join(repo, "f.txt"), "alpha gamma\n");
  const envelope = await exec(root.path, "git diff --word-diff");
  assert.equal(envelope.stdout, (await gitRaw(repo, ["diff", "--word-diff"])).stdout);
  assert.equal((await git(repo, "status", "--porcelain")).trim(), "AM f.txt");
  assert.equal(await git(repo, "show", ":f.txt"), "alpha beta\n");
  assert.equal(await Deno.readTextFile(join(repo, "f.txt")), "alpha gamma\n");
});
