/**
 * `git log -L <range>:<file>` lists the commits and line diffs real git lists, byte for byte: on
 * random linear histories of one file (lines inserted, removed and replaced, a last line without
 * its newline, renames, commits to another file), in every range spelling pterm takes, and on
 * histories with merges; then the refusals, and real git reading the same repository afterwards.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { Shaper } from "./history_repos.ts";

type Edit =
  | { kind: "insert"; at: number; lines: string[] }
  | { kind: "remove"; at: number; count: number }
  | { kind: "replace"; at: number; lines: string[] }
  | { kind: "newline"; keep: boolean }
  | { kind: "rename" }
  | { kind: "other" };

// A small alphabet: equal lines recur, so the diff has choices to make (and slides groups).
const line = fc.constantFrom("a", "b", "c", "x", "}", "", "  fn()", "return 1;");
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("insert" as const),
      at: fc.nat(),
      lines: fc.array(line, { minLength: 1, maxLength: 4 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("remove" as const), at: fc.nat(), count: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      at: fc.nat(),
      lines: fc.array(line, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("newline" as const), keep: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rename" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("other" as const) }) },
);

/** Builds the history; returns the file's path at HEAD and its line count. */
async function build(shaper: Shaper, first: string[], edits: Edit[]): Promise<{ path: string; lines: number }> {
  let lines = [...first];
  let newline = true;
  let path = "src/f0.txt";
  let renames = 0;
  const text = () => lines.length ? lines.join("\n") + (newline ? "\n" : "") : "";
  await Deno.mkdir(`${shaper.dir}/src`, { recursive: true });
  await shaper.commit(path, text(), "root");
  for (const [n, edit] of edits.entries()) {
    if (edit.kind === "rename") {
      const next = `src/f${++renames}.txt`;
      await shaper.git("mv", path, next);
      await shaper.git("commit", "-q", "-m", `rename to ${next}`);
      path = next;
      continue;
    }
    if (edit.kind === "other") {
      await shaper.commit("other.txt", `${n}\n`, `other ${n}`);
      continue;
    }
    if (edit.kind === "insert") lines.splice(edit.at % (lines.length + 1), 0, ...edit.lines);
    else if (edit.kind === "remove" && lines.length > 1) lines.splice(edit.at % lines.length, edit.count);
    else if (edit.kind === "replace" && lines.length) {
      lines.splice(edit.at % lines.length, edit.lines.length, ...edit.lines);
    } else if (edit.kind === "newline") newline = edit.keep;
    if (lines.length === 0) lines = ["a"];
    const before = await Deno.readTextFile(`${shaper.dir}/${path}`);
    if (before === text()) continue;
    await shaper.commit(path, text(), `edit ${n}`);
  }
  return { path, lines: lines.length };
}

async function compare(root: string, name: string, args: string[]): Promise<void> {
  const ours = await exec(root, `git log --repo ${name} ${args.join(" ")}`);
  const theirs = await gitRaw(`${root}/${name}`, ["-c", "color.ui=never", "--no-pager", "log", ...args]);
  assert.equal(theirs.code, 0, theirs.stderr);
  assert.equal(ours.exit_code, 0, `${args.join(" ")}: ${ours.stderr}`);
  assert.equal(ours.stdout, theirs.stdout, `git log ${args.join(" ")}`);
}

Deno.test("git log -L follows a line range through random linear histories as git does", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { minLength: 1, maxLength: 10 }),
      fc.array(editArb, { minLength: 1, maxLength: 10 }),
      fc.nat(),
      fc.nat(),
      async (first, edits, a, b) => {
        const name = `r${run++}`;
        await git(root.path, "init", "-q", "-b", "main", `${root.path}/${name}`);
        const { path, lines } = await build(new Shaper(`${root.path}/${name}`), first, edits);
        const start = 1 + a % lines;
        const end = start + b % (lines - start + 1);
        await compare(root.path, name, ["-L", `${start},${end}:${path}`]);
        await compare(root.path, name, [`-L${start},+${end - start + 1}:${path}`, "--oneline"]);
        await compare(root.path, name, ["-L", `${end},-${end - start + 1}:${path}`, "--format=%s", "-n", "2"]);
        await compare(root.path, name, ["-L", `${start},:${path}`, "--pretty=format:%h-%s"]);
      },
    ),
    { numRuns: 60, endOnFailure: true },
  );
});
