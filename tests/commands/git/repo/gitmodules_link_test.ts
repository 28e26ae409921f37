/**
 * A `.gitmodules` that is a symbolic link in a tree (git's fsck: gitmodulesSymlink) is refused as
 * git refuses it, in any spelling a Windows or macOS checkout resolves to `.gitmodules`; the same
 * names as plain files, and a link under another name, are fine. Trees written with real git's
 * mktree and commit-tree, as a hostile repository would carry them.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, gitInitCommitted, gitRaw, pterm, ptermTry } from "../oracle.ts";

async function commitWithEntry(dir: string, mode: string, name: string): Promise<string> {
  const blob = (await gitRaw(dir, ["hash-object", "-w", "--stdin"], "../../outside/config\n")).stdout.trim();
  const readme = (await gitRaw(dir, ["hash-object", "-w", "--stdin"], "readme\n")).stdout.trim();
  const tree = (await gitRaw(dir, ["mktree"], `${mode} blob ${blob}\t${name}\n100644 blob ${readme}\treadme.txt\n`))
    .stdout.trim();
  return (await git(dir, "commit-tree", tree, "-p", "HEAD", "-m", `entry ${name}`)).trim();
}

Deno.test(".gitmodules as a symbolic link in a tree is refused (any spelling); as a file it is fine", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInitCommitted(dir);
  for (const name of [".gitmodules", ".GitModules", "gitmod~1", ".gitmodules.", ".gitmodules\u200c"]) {
    const commit = await commitWithEntry(dir, "120000", name);
    const fsck = await gitRaw(dir, ["fsck", "--strict", "--no-dangling"]);
    if (name === ".gitmodules") assert.match(fsck.stderr + fsck.stdout, /gitmodulesSymlink/);
    const refused = await ptermTry(root.path, `git checkout --repo r ${commit}`);
    assert.equal(refused.error_code, "InvalidPath", `${JSON.stringify(name)}: ${refused.stderr}`);
    assert.match(refused.stderr, /symbolic link named \.gitmodules/);
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "a\n", "nothing touched");
  }
  for (const [mode, name] of [["100644", ".gitmodules"], ["120000", "gitmodules-notes"]]) {
    const commit = await commitWithEntry(dir, mode, name);
    await pterm(root.path, `git show --repo r ${commit}`);
  }
});
