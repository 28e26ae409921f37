/**
 * `git shortlog` and `git describe` print what real git prints, byte for byte, on the history
 * shapes of the log oracle (several authors, merges, an octopus, annotated and lightweight tags).
 * They were unavailable before. git shortlog reads stdin when it is not a terminal and no revision
 * is given, so real git is asked with HEAD spelled out: what a person at a terminal gets.
 */

import assert from "node:assert/strict";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { buildShape, type Shape } from "./history_repos.ts";

const SHORTLOG_LINES = ["", "-s", "-sn", "-sne", "-e", "-n", "--no-merges -s", "v1.0..HEAD -s", "--all -sn"];
const DESCRIBE_LINES = [
  "",
  "--tags",
  "--always",
  "--long",
  "--abbrev=0",
  "--abbrev=12",
  "--tags --long",
  "HEAD~1",
  "v1.0",
  "--tags v0.1",
  "--tags --abbrev=0 HEAD~2",
  "HEAD~3",
  "--always HEAD~3",
  "--dirty",
];

async function compareShape(t: Deno.TestContext, shape: Shape) {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await buildShape(r, shape);
  await t.step(`${shape}: git shortlog`, async () => {
    for (const line of SHORTLOG_LINES) {
      const args = line.split(" ").filter(Boolean);
      const ours = await exec(root.path, `git shortlog --repo r ${line}`);
      assert.equal(ours.exit_code, 0, `git shortlog ${line}: ${ours.stderr}`);
      const revGiven = args.some((a) => a.includes("..") || a === "--all");
      assert.equal(ours.stdout, await git(r, "shortlog", ...args, ...(revGiven ? [] : ["HEAD"])), `shortlog ${line}`);
    }
  });
  await t.step(`${shape}: git describe`, async () => {
    const compare = async () => {
      for (const line of DESCRIBE_LINES) {
        const args = line.split(" ").filter(Boolean);
        const ours = await exec(root.path, `git describe --repo r ${line}`);
        const theirs = await gitRaw(r, ["describe", ...args]);
        assert.equal(ours.exit_code === 0, theirs.code === 0, `describe ${line}: ${ours.stderr} / ${theirs.stderr}`);
        if (theirs.code === 0) assert.equal(ours.stdout, theirs.stdout, `describe ${line}`);
      }
    };
    await compare();
    // What the person does next: edit a tracked file, then ask again (--dirty now marks it).
    await Deno.writeTextFile(`${r}/b.txt`, "edited\n");
    await compare();
  });
}

Deno.test("git shortlog and git describe as git: linear history", (t) => compareShape(t, "linear"));
Deno.test("git shortlog and git describe as git: a merge and a stash", (t) => compareShape(t, "merge"));
Deno.test("git shortlog and git describe as git: an octopus and branches", (t) => compareShape(t, "branches"));
