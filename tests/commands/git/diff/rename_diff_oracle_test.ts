/**
 * Rename detection in diff/show against the real git: commits made by real git move files with
 * edits of every size (so similarity falls on both sides of git's 50%), with CRLF text, exact
 * copies under other names, deletions and additions; pterm's renames and similarity indexes must
 * be git's (`git show -M --name-status`), `--find-renames`/`--no-renames` must act as git's
 * `-M<n>`/`--no-renames`, and the patch must apply with `git apply --check`.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { git, gitInit, gitRaw, pterm, result, write } from "../oracle.ts";

interface Shown {
  status: string;
  path: string;
  old_path?: string;
  similarity?: number;
}

/** pterm's files as git's name-status lines: `R087\told\tnew`, `M\tpath`, … */
function nameStatus(files: Shown[]): string[] {
  return files.map((f) => {
    if (f.status === "renamed") return `R${String(f.similarity).padStart(3, "0")}\t${f.old_path}\t${f.path}`;
    const letter = { added: "A", deleted: "D", modified: "M", typechange: "T" }[f.status];
    return `${letter}\t${f.path}`;
  }).sort();
}

async function gitNameStatus(dir: string, ...args: string[]): Promise<string[]> {
  return (await git(dir, "show", "--format=", "--name-status", ...args)).trim().split("\n").filter(Boolean).sort();
}

const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"];

const fileText = (seed: number, lines: number, crlf: boolean) =>
  Array.from(
    { length: lines },
    (_, i) => `${words[(seed + i) % words.length]} ${seed}-${i} ${"x".repeat((seed * 7 + i) % 30)}`,
  )
    .join(crlf ? "\r\n" : "\n") + (crlf ? "\r\n" : "\n");

const scenario = fc.record({
  files: fc.array(
    fc.record({
      lines: fc.integer({ min: 1, max: 40 }),
      crlf: fc.boolean(),
      fate: fc.constantFrom("keep", "modify", "rename", "delete", "copy-away"),
      /** Lines changed when renamed or modified. */
      edits: fc.integer({ min: 0, max: 40 }),
      newDir: fc.constantFrom("", "moved/", "deep/er/"),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  additions: fc.integer({ min: 0, max: 2 }),
});

Deno.test("property: renames and similarity in show/diff equal git's", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      run++;
      const dir = `${root.path}/r${run}`;
      await gitInit(dir);
      for (const [i, f] of s.files.entries()) {
        await write(`${dir}/src/file${i}.txt`, fileText(i * 13 + 1, f.lines, f.crlf));
      }
      await git(dir, "add", "-A");
      await git(dir, "commit", "-qm", "base");
      for (const [i, f] of s.files.entries()) {
        const path = `${dir}/src/file${i}.txt`;
        const lines = (await Deno.readTextFile(path)).split(f.crlf ? "\r\n" : "\n").slice(0, -1);
        for (let k = 0; k < f.edits && k < lines.length; k++) lines[(k * 3) % lines.length] = `edited ${k} ${run}`;
        const edited = lines.join(f.crlf ? "\r\n" : "\n") + (f.crlf ? "\r\n" : "\n");
        if (f.fate === "modify") await Deno.writeTextFile(path, edited);
        if (f.fate === "delete") await Deno.remove(path);
        if (f.fate === "rename") {
          await Deno.remove(path);
          await write(`${dir}/${f.newDir}renamed${i}.txt`, edited);
        }
        if (f.fate === "copy-away") {
          // Deleted here, and two exact copies elsewhere: only one of them is the rename.
          const original = await Deno.readTextFile(path);
          await Deno.remove(path);
          await write(`${dir}/${f.newDir}a-copy${i}.txt`, original);
          await write(`${dir}/${f.newDir}b-copy${i}.txt`, original);
        }
      }
      for (let k = 0; k < s.additions; k++) await write(`${dir}/new${k}.txt`, fileText(900 + k, 5, false));
      await git(dir, "add", "-A");
      await git(dir, "commit", "-qm", "moves", "--allow-empty");
      const note = JSON.stringify(s);
      const shown = result(await pterm(root.path, `git show --repo r${run}`));
      assert.deepEqual(nameStatus(shown.files), await gitNameStatus(dir, "-M"), `show ${note}`);
      const strict = result(await pterm(root.path, `git show --repo r${run} --find-renames 90`));
      assert.deepEqual(nameStatus(strict.files), await gitNameStatus(dir, "-M90%"), `-M90 ${note}`);
      const none = result(await pterm(root.path, `git show --repo r${run} --no-renames`));
      assert.deepEqual(nameStatus(none.files), await gitNameStatus(dir, "--no-renames"), `--no-renames ${note}`);
      // The patch with renames applies to the parent, as git's would.
      const patch = (await pterm(root.path, `git diff --repo r${run} HEAD~1 HEAD`)).stdout;
      if (patch === "") return;
      await git(dir, "checkout", "-q", "HEAD~1");
      const check = await gitRaw(dir, ["apply", "--check", "-"], patch);
      assert.equal(check.code, 0, `git apply --check: ${check.stderr}\n${patch}`);
    }),
    { numRuns: Number(Deno.env.get("RENAME_RUNS") ?? 25) },
  );
});

Deno.test("diff --stat names a rename as git does", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  await write(`${dir}/lib/util/strings.txt`, fileText(3, 12, false));
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await Deno.mkdir(`${dir}/lib/text`);
  await git(dir, "mv", "lib/util/strings.txt", "lib/text/strings.txt");
  await git(dir, "commit", "-qm", "move");
  const stat = (await pterm(root.path, "git show --repo r --stat")).stdout;
  assert.match(stat, / lib\/\{util => text\}\/strings\.txt \| +0\n/);
  assert.match(await git(dir, "show", "--stat", "--format="), / lib\/\{util => text\}\/strings\.txt \| 0\n/);
});

Deno.test("a new file whose four best sources are renamed elsewhere stays an addition, as git keeps 4 candidates per file", async () => {
  // s1..s5 share twelve lines; d1..d4 are s1..s4 with one line changed (95%); x shares the twelve
  // lines and one line of each of s1..s4 (65% to those, 60% to s5). git's matrix keeps x's four best
  // sources (s1..s4), which d1..d4 take first: x is added and s5 deleted, though s5 → x scores 60%.
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInit(dir);
  const common = Array.from({ length: 12 }, (_, k) => `common line ${k + 1} here\n`).join("");
  const unique = (i: number, k: number) => `unique ${i} line ${k} xx\n`;
  const source = (i: number) => common + Array.from({ length: 8 }, (_, k) => unique(i, k + 1)).join("");
  for (let i = 1; i <= 5; i++) await write(`${dir}/s${i}.txt`, source(i));
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  for (let i = 1; i <= 5; i++) await Deno.remove(`${dir}/s${i}.txt`);
  for (let i = 1; i <= 4; i++) {
    await write(`${dir}/d${i}.txt`, source(i).replace(unique(i, 1), `changed ${i} line 1 x\n`));
  }
  await write(`${dir}/x.txt`, common + [1, 2, 3, 4].map((i) => unique(i, 2)).join(""));
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "next");
  const expected = await gitNameStatus(dir, "HEAD");
  assert.ok(expected.includes("A\tx.txt") && expected.includes("D\ts5.txt"), expected.join("\n"));
  const shown = result(await pterm(root.path, "git show --repo r HEAD"));
  assert.deepEqual(nameStatus(shown.files), expected);
});
