/**
 * A patch sets no permission a git checkout would not: 644, 755 or fewer bits. Never a file
 * that group or others may write (a script or hook anyone could change), whatever the patch asks.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../helpers.ts";
import { apply, block, patchOf, writeTree } from "../patch/helpers.ts";

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o7777;

Deno.test("file.chmod: modes beyond 755 are refused; 755, 644 and fewer bits apply", async () => {
  await using root = await makeRoot();
  await writeTree(root.path, { "run.sh": "echo hi\n" });
  const before = await modeOf(`${root.path}/run.sh`);
  for (const mode of ["777", "666", "775", "757", "0777", "677"]) {
    const envelope = await apply(root.path, patchOf(`=== file.chmod: "run.sh" ===\nmode=${mode}\n=== end ===\n`));
    assert.equal(envelope.error_code, "PatchApplyError", `mode=${mode}: ${envelope.stderr}`);
    assert.match(envelope.stderr, /644 or 755/);
    assert.equal(await modeOf(`${root.path}/run.sh`), before, `mode=${mode} changed nothing`);
  }
  for (const mode of ["755", "700", "600", "644"]) {
    const envelope = await apply(root.path, patchOf(`=== file.chmod: "run.sh" ===\nmode=${mode}\n=== end ===\n`));
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.equal(await modeOf(`${root.path}/run.sh`), parseInt(mode, 8));
  }
});

Deno.test("a diff's new mode is taken as git takes it: executable means 755, anything else 644", async () => {
  await using root = await makeRoot();
  await writeTree(root.path, { "a.sh": "one\n", "b.txt": "two\n" });
  const diff = (path: string, mode: string) =>
    block("git.diff", path, [
      `diff --git a/${path} b/${path}`,
      "old mode 100644",
      `new mode ${mode}`,
    ]);
  const envelope = await apply(root.path, patchOf(diff("a.sh", "100777"), diff("b.txt", "100666")));
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal(await modeOf(`${root.path}/a.sh`), 0o755);
  assert.equal(await modeOf(`${root.path}/b.txt`), 0o644);
});
