/**
 * `holdingPackFiles` (commands/git/odb/pack.ts), which the first checkout of a clone runs in: every
 * object read inside it goes through one handle per pack file instead of an open per read, and
 * those handles are closed when it ends — none outlives it, as none outlives a read outside it.
 * Counted from the process's own open descriptors (/proc/self/fd); the bytes read are compared
 * with the real git's `cat-file --batch` on a repository real git packed with deep delta chains.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../../_support/helpers.ts";
import { ObjectStore } from "../../../../commands/git/odb/objects.ts";
import { holdingPackFiles } from "../../../../commands/git/odb/pack.ts";
import { git, gitBytes, gitInit, write } from "../oracle.ts";
import { concatBytes } from "../../../../core/bytes.ts";

/** How many of this process's descriptors are open on a `.pack` file. */
function openPackDescriptors(): number {
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`).endsWith(".pack")) count++;
    } catch { /* closed meanwhile */ }
  }
  return count;
}

Deno.test({
  name: "holdingPackFiles: one handle per pack while it runs, none after; the bytes are git's",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using root = await makeRoot();
    const dir = `${root.path}/repo`;
    await gitInit(dir);
    for (let c = 0; c < 30; c++) {
      for (let f = 0; f < 5; f++) {
        const lines = Array.from({ length: 60 }, (_, l) => `file ${f} line ${l}${l === c % 60 ? ` changed ${c}` : ""}`);
        await write(`${dir}/f${f}.txt`, lines.join("\n") + "\n");
      }
      await git(dir, "add", "-A");
      await git(dir, "commit", "-q", "-m", `commit ${c}`);
      // Two packs: offsets repeat across them.
      if (c === 14) await git(dir, "repack", "-a", "-d", "-q");
    }
    await git(dir, "repack", "-d", "-q");
    const oids = (await git(dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")).trim().split("\n");
    const expected = await gitBytes(dir, ["cat-file", "--batch"], new TextEncoder().encode(oids.join("\n") + "\n"));
    const packs = [...Deno.readDirSync(`${dir}/.git/objects/pack`)].filter((e) => e.name.endsWith(".pack")).length;
    assert.equal(packs, 2);

    const before = openPackDescriptors();
    const readAll = async (store: ObjectStore) => {
      const parts: Uint8Array[] = [];
      for (const oid of oids) {
        const object = await store.read(oid);
        parts.push(
          new TextEncoder().encode(`${oid} ${object.type} ${object.content.length}\n`),
          object.content,
          Uint8Array.of(10),
        );
      }
      const out = concatBytes(parts);
      return out;
    };
    let during = -1;
    const held = await holdingPackFiles(async () => {
      const bytes = await readAll(new ObjectStore(`${dir}/.git`));
      during = openPackDescriptors() - before;
      return bytes;
    });
    assert.deepEqual(held, expected);
    assert.equal(during, packs, "one handle per pack file while held");
    assert.equal(openPackDescriptors() - before, 0, "every held handle is closed at the end");

    // Outside it: the same bytes, and no handle stays open.
    assert.deepEqual(await readAll(new ObjectStore(`${dir}/.git`)), expected);
    assert.equal(openPackDescriptors() - before, 0);

    // A failure inside still closes the handles.
    await assert.rejects(
      holdingPackFiles(async () => {
        await new ObjectStore(`${dir}/.git`).read(oids[0]);
        throw new Error("stop");
      }),
      /stop/,
    );
    assert.equal(openPackDescriptors() - before, 0);
  },
});
