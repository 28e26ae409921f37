/**
 * Renames in merges and reverts, against the real git (twin repositories): a change to a file the
 * other side moved lands at the new path, as git's ort puts it — exact renames, renames with
 * edits (above git's 50% similarity), renames on either side, a revert of a change to a file
 * moved since, and the conflicts (content at the new path, rename/delete).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { git, gitRaw, ptermTry, result } from "../oracle.ts";
import { Twin, worktreeFiles } from "../twin.ts";

const body = (n: number, edit?: [number, string]) =>
  Array.from({ length: n }, (_, i) => (edit && edit[0] === i ? edit[1] : `line ${i + 1} of the text`)).join("\n") +
  "\n";

async function setUp(twin: Twin): Promise<void> {
  await twin.write("doc/guide.txt", body(20));
  await twin.write("src/main.txt", body(12));
  await twin.write("keep.txt", "k\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run("git commit --repo R -m base", ["commit", "-qm", "base"]);
}

async function commitAll(twin: Twin, message: string): Promise<void> {
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run(`git commit --repo R -m ${message} --allow-empty`, ["commit", "-qm", message, "--allow-empty"]);
}

Deno.test("merge: a change to a file the other side renamed applies at its new path (either side)", async () => {
  await using twin = await Twin.create();
  await setUp(twin);
  await twin.run("git checkout --repo R --create other", ["checkout", "-qb", "other"]);
  await twin.write("doc/guide.txt", body(20, [3, "edited on other"]));
  await twin.remove("src/main.txt");
  await twin.write("lib/main.txt", body(12, [10, "moved and edited on other"])); // rename with an edit
  await commitAll(twin, "other");
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.remove("doc/guide.txt");
  await twin.write("manual/guide.txt", body(20)); // exact rename
  await twin.write("src/main.txt", body(12, [1, "edited on main"]));
  await commitAll(twin, "main");
  const merged = await twin.run("git merge --repo R --branch other -m merged", [
    "merge",
    "-q",
    "-m",
    "merged",
    "other",
  ]);
  assert.equal(result(merged).outcome, "merge");
  await twin.compare("renames on both sides");
});

Deno.test("revert: undoing a change to a file that was moved since undoes it at the new path", async () => {
  await using twin = await Twin.create();
  await setUp(twin);
  await twin.write("doc/guide.txt", body(20, [5, "a change to revert later"]));
  await commitAll(twin, "change");
  await twin.remove("doc/guide.txt");
  await twin.write("guide.txt", body(20, [5, "a change to revert later"]).replace("line 19", "line nineteen"));
  await commitAll(twin, "move");
  await twin.run("git revert --repo R --ref HEAD~1", ["revert", "--no-edit", "HEAD~1"]);
  await twin.compare("revert through a rename");
});

Deno.test("merge: conflicting edits to a renamed file conflict at the new path; rename against delete conflicts", async () => {
  await using twin = await Twin.create();
  await setUp(twin);
  await twin.run("git checkout --repo R --create other", ["checkout", "-qb", "other"]);
  await twin.write("doc/guide.txt", body(20, [7, "theirs says this"]));
  await twin.remove("src/main.txt");
  await commitAll(twin, "other");
  await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
  await twin.remove("doc/guide.txt");
  await twin.write("guide.txt", body(20, [7, "ours says that"]));
  await twin.remove("src/main.txt");
  await twin.write("main.txt", body(12));
  await commitAll(twin, "main");
  const conflict = await twin.run("git merge --repo R --branch other", ["merge", "-q", "other"], "Conflict");
  assert.deepEqual(result(conflict).conflicts, ["guide.txt", "main.txt"]);
  assert.equal(await git(twin.p, "ls-files", "-s"), await git(twin.g, "ls-files", "-s"));
  assert.match(
    await Deno.readTextFile(`${twin.p}/guide.txt`),
    /<<<<<<< HEAD:guide.txt\n[^]*>>>>>>> other:doc\/guide.txt/,
  );
  await twin.compare("rename conflicts");
});

const fileNames = ["a.txt", "b.txt", "docs/c.txt"];

/** Twenty lines that belong to file `i` alone (so no two files are near-identical), one maybe edited. */
const distinctBody = (i: number, edit?: [number, string]) =>
  Array.from({ length: 20 }, (_, k) => (edit && edit[0] === k ? edit[1] : `file ${i} says line ${k + 1}`)).join("\n") +
  "\n";
/**
 * Twenty lines shared by all files but for line i+1 (`file i`), one maybe edited: the files are
 * near-identical, so a renamed file is often equally similar to several deleted ones, and which
 * one git's ort pairs it with depends on the order it lists them (merge.ts, ortOrder).
 */
const nearBody = (i: number, edit?: [number, string]) =>
  body(20, edit ?? [i, `file ${i}`]).replace(`line ${i + 1} of`, `file ${i}`);
const mergeSide = fc.record({
  /** Per file: keep, edit a line, rename (with an edit or not) or delete. */
  fates: fc.array(
    fc.record({
      fate: fc.constantFrom("keep", "edit", "rename", "rename-edit", "delete"),
      line: fc.nat(19),
      to: fc.constantFrom("moved/", "other/", ""),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  /** Adds a file in docs/ (where the other side may have moved docs/c.txt away). */
  addInDocs: fc.boolean(),
});

Deno.test("property: merges over renames agree with git's ort (trees, conflicts, index stages, files)", async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(mergeSide, mergeSide, fc.boolean(), async (left, right, near) => {
      run++;
      await using twin = await Twin.create();
      // Files of their own, or near-identical ones (equally similar candidates: ort's order decides).
      const textOf = near ? nearBody : distinctBody;
      for (const [i, name] of fileNames.entries()) await twin.write(name, textOf(i));
      await commitAll(twin, "base");
      const apply = async (side: typeof left, tag: string) => {
        for (const [i, { fate, line, to }] of side.fates.entries()) {
          const name = fileNames[i];
          const edited = textOf(i, [line, `${tag} edit of file ${i}`]);
          if (fate === "edit") await twin.write(name, edited);
          if (fate === "delete") await twin.remove(name);
          if (fate === "rename" || fate === "rename-edit") {
            const content = fate === "rename" ? await Deno.readTextFile(`${twin.p}/${name}`) : edited;
            await twin.remove(name);
            await twin.write(`${to}${tag}-${name.replace("/", "-")}`, content);
          }
        }
        if (side.addInDocs) await twin.write(`docs/added-by-${tag}.txt`, `${tag} adds a page\n`);
      };
      await twin.run("git checkout --repo R --create other", ["checkout", "-qb", "other"]);
      await apply(right, "theirs");
      await commitAll(twin, "other");
      await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
      await apply(left, "ours");
      await commitAll(twin, "main");
      const ours = await ptermTry(twin.root.path, "git merge --repo p --branch other -m merged");
      const real = await gitRaw(twin.g, ["merge", "-q", "-m", "merged", "other"]);
      const note = `run ${run}: ${JSON.stringify({ left, right, near })}\n${real.stdout}${real.stderr}`;
      if (real.code === 0) {
        assert.equal(ours.exit_code, 0, `git merged cleanly, pterm: ${ours.stderr}\n${note}`);
        await twin.compare(note);
        return;
      }
      assert.equal(ours.error_code, "Conflict", `git had conflicts, pterm: ${ours.stderr}\n${note}`);
      assert.equal(await git(twin.p, "ls-files", "-s"), await git(twin.g, "ls-files", "-s"), `stages ${note}`);
      assert.deepEqual(await worktreeFiles(twin.p), await worktreeFiles(twin.g), `files ${note}`);
    }),
    { numRuns: Number(Deno.env.get("RENAME_MERGE_RUNS") ?? 15) },
  );
});

Deno.test("merge: a file added in a folder the other side moved goes to the new folder, as a conflict (git's directory renames)", async () => {
  for (const mover of ["main", "other"]) {
    await using twin = await Twin.create();
    await setUp(twin);
    await twin.write("doc/extra.txt", body(8));
    await commitAll(twin, "more");
    await twin.run("git checkout --repo R --create other", ["checkout", "-qb", "other"]);
    const moveFolder = async () => {
      for (const name of ["guide.txt", "extra.txt"]) {
        const text = await Deno.readTextFile(`${twin.p}/doc/${name}`);
        await twin.remove(`doc/${name}`);
        await twin.write(`manual/${name}`, text);
      }
    };
    const addFile = async () => await twin.write("doc/new-page.txt", "a page added beside the others\n");
    if (mover === "other") await moveFolder();
    else await addFile();
    await commitAll(twin, "other");
    await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
    if (mover === "main") await moveFolder();
    else await addFile();
    await commitAll(twin, "main");
    const conflict = await twin.run("git merge --repo R --branch other -m merged", [
      "merge",
      "-q",
      "-m",
      "merged",
      "other",
    ], "Conflict");
    assert.deepEqual(result(conflict).conflicts, ["manual/new-page.txt"]);
    assert.equal(await git(twin.p, "ls-files", "-s"), await git(twin.g, "ls-files", "-s"), mover);
    await twin.compare(`folder moved on ${mover}`);
  }
});

Deno.test("merge: a renamed file equally similar to two deleted ones pairs as git's ort pairs it (its order: folders only one side changed come last, in git's hash-map order)", async () => {
  // b.txt is renamed with an edit on both sides; on ours docs/c.txt is renamed with an edit too,
  // and both of our new files are exactly as similar to b.txt. Plain `git diff -M` takes the first
  // in path order; ort takes the first in its own order, which these folder names move around.
  const cases: [string, string][] = [
    ["moved/ours-docs-c.txt", "ours-b.txt"], // a folder new on ours comes after a file at the top
    ["aaa-c.txt", "ours-b.txt"], // two files at the top: path order
    ["mmm/c2.txt", "zz/b2.txt"], // two new folders: hash order puts zz first
    ["aaa/c2.txt", "zz/b2.txt"], // ... and aaa before zz
    ["docs/c2.txt", "zz/b2.txt"], // docs/ only ours changed: deferred too, after zz
  ];
  for (const [cTo, bTo] of cases) {
    await using twin = await Twin.create();
    for (const [i, name] of fileNames.entries()) await twin.write(name, nearBody(i));
    await commitAll(twin, "base");
    await twin.run("git checkout --repo R --create other", ["checkout", "-qb", "other"]);
    await twin.remove("b.txt");
    await twin.write("other/theirs-b.txt", nearBody(1, [0, "theirs edit of file 1"]));
    await commitAll(twin, "other");
    await twin.run("git checkout --repo R main", ["checkout", "-q", "main"]);
    await twin.remove("b.txt");
    await twin.remove("docs/c.txt");
    await twin.write(bTo, nearBody(1, [0, "ours edit of file 1"]));
    await twin.write(cTo, nearBody(2, [1, "ours edit of file 2"]));
    await commitAll(twin, "main");
    const ours = await ptermTry(twin.root.path, "git merge --repo p --branch other -m merged");
    const real = await gitRaw(twin.g, ["merge", "-q", "-m", "merged", "other"]);
    assert.notEqual(real.code, 0, "git: rename/rename conflict");
    assert.equal(ours.error_code, "Conflict", ours.stderr);
    const note = `${cTo} / ${bTo}`;
    assert.equal(await git(twin.p, "ls-files", "-s"), await git(twin.g, "ls-files", "-s"), note);
    assert.deepEqual(await worktreeFiles(twin.p), await worktreeFiles(twin.g), note);
  }
});
