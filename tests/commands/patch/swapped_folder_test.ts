/**
 * A folder the patch found plain while computing, swapped for a symlink before the write: nothing
 * lands where the link leads, nothing in the tree changes, and the next patch (after the link is
 * gone) applies. The swap is made from the progress report the engine gives after the last block
 * is computed — between the confinement checks and the transaction's writes.
 */

import assert from "node:assert/strict";
import { createWorkspace } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { runPatch } from "../../../commands/patch/engine.ts";
import { makeRoot } from "../../_support/helpers.ts";
import { block, fingerprint, patchOf, readTree, writeTree } from "./helpers.ts";

let runs = 0;

function run(root: string, text: string, afterComputing?: () => void) {
  return runPatch({
    mode: "apply",
    command: "patch apply",
    text,
    workspace: createWorkspace(root),
    noCommit: false,
    config: {},
    session: { id: "swap", dir: `${root}/sessions/swap` },
    runId: `swap-${runs++}`,
    signal: new AbortController().signal,
    progress: ({ progress, total }) => {
      if (progress === total) afterComputing?.();
    },
    git: null,
    durable: false,
  });
}

const EDITS = patchOf(
  block("line.replace", "src/a.txt", ["keys=alpha", "ALPHA"]),
  block("line.replace", "src/b.txt", ["keys=beta", "BETA"]),
  block("file.write", "src/new/c.txt", ["new"]),
);

for (const kind of ["outside the root", "inside the root"] as const) {
  Deno.test(`a folder swapped for a symlink ${kind} after the patch was computed: nothing is written through it`, async () => {
    await using dir = await makeRoot();
    await using elsewhere = await makeRoot("pterm-elsewhere-");
    const root = `${dir.path}/root`;
    await writeTree(root, { "src/a.txt": "alpha\n", "src/b.txt": "beta\n" });
    const target = kind === "outside the root" ? elsewhere.path : `${root}/decoy`;
    // What the link leads to holds files of the same names, which the patch must not touch.
    await writeTree(target, { "a.txt": "alpha\n", "b.txt": "beta\n" });
    const targetBefore = await fingerprint(target);
    let swapped = false;
    await assert.rejects(
      run(root, EDITS, () => {
        Deno.renameSync(`${root}/src`, `${root}/src-real`);
        Deno.symlinkSync(target, `${root}/src`);
        swapped = true;
      }),
      (error) => error instanceof PtermError && error.code === "PathEscape" && /symlink/.test(error.message),
    );
    assert.ok(swapped, "the swap ran between computing and writing");
    assert.deepEqual(await fingerprint(target), targetBefore);
    assert.deepEqual(await readTree(`${root}/src-real`), { "a.txt": "alpha\n", "b.txt": "beta\n" });

    // What the user does next: put the folder back and apply the same patch.
    Deno.removeSync(`${root}/src`);
    Deno.renameSync(`${root}/src-real`, `${root}/src`);
    await run(root, EDITS);
    assert.deepEqual(await readTree(`${root}/src`), { "a.txt": "ALPHA\n", "b.txt": "BETA\n", "new/c.txt": "new\n" });
    assert.deepEqual(await fingerprint(target), targetBefore);
  });
}
