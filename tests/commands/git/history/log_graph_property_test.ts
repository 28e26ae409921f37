/**
 * `git log --graph` draws the lanes real git draws, on random histories: commits, branches from
 * any commit, merges of two to four tips (octopus), unrelated roots, and equal or skewed clocks
 * (so topological order and date order disagree), compared byte for byte with git in several
 * spellings (`--oneline --all`, the medium format, a range, -n).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { gitAt } from "./history_repos.ts";

type Op =
  & { tree: number }
  & (
    | { kind: "commit"; tip: number; dt: number }
    | { kind: "branch"; from: number; dt: number }
    | { kind: "merge"; tips: number[]; dt: number; keep: boolean }
    | { kind: "root"; dt: number }
  );

const dt = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: -3000, max: -1 }));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("commit" as const), tip: fc.nat(), dt, tree: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("branch" as const), from: fc.nat(), dt, tree: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("merge" as const),
      tips: fc.array(fc.nat(), { minLength: 2, maxLength: 4 }),
      dt,
      keep: fc.boolean(),
      tree: fc.nat(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("root" as const), dt, tree: fc.nat() }) },
);

/** The trees commits take: `f` and `g` present, absent or changed, so path-limited logs simplify. */
async function makeTrees(dir: string): Promise<string[]> {
  const blobs: string[] = [];
  for (const text of ["A", "B", "C"]) {
    await Deno.writeTextFile(`${dir}/${text}.tmp`, `${text}\n`);
    blobs.push((await git(dir, "hash-object", "-w", `${text}.tmp`)).trim());
    await Deno.remove(`${dir}/${text}.tmp`);
  }
  const trees: string[] = [];
  const entries = [[], [["f", 0]], [["f", 1]], [["f", 0], ["g", 2]], [["g", 2]], [["f", 1], ["g", 0]]] as const;
  for (const list of entries) {
    const input = list.map(([name, b]) => `100644 blob ${blobs[b]}\t${name}\n`).join("");
    trees.push((await gitRaw(dir, ["mktree"], input)).stdout.trim());
  }
  return trees;
}

async function build(dir: string, ops: Op[]): Promise<string[]> {
  const trees = await makeTrees(dir);
  let time = 1_700_000_000;
  let n = 0;
  const all: string[] = [];
  const make = async (parents: string[], step: number, tree = 0) => {
    time += step;
    const args = ["commit-tree", trees[tree % trees.length], ...parents.flatMap((p) => ["-p", p]), "-m", `c${n++}`];
    const oid = (await gitAt(dir, time, "+0100", ...args)).trim();
    all.push(oid);
    return oid;
  };
  const tips = [await make([], 0, 1)];
  for (const op of ops) {
    if (op.kind === "commit") {
      const i = op.tip % tips.length;
      tips[i] = await make([tips[i]], op.dt, op.tree);
    } else if (op.kind === "branch") tips.push(await make([all[op.from % all.length]], op.dt, op.tree));
    else if (op.kind === "root") tips.push(await make([], op.dt, op.tree));
    else {
      const picked = [...new Set(op.tips.map((t) => t % tips.length))];
      if (picked.length < 2) continue;
      const merged = await make(picked.map((i) => tips[i]), op.dt, op.tree);
      if (!op.keep) {
        for (const i of picked.slice(1).sort((a, b) => b - a)) tips.splice(i, 1);
      }
      tips[picked[0] < tips.length ? picked[0] : 0] = merged;
    }
  }
  for (const [i, tip] of tips.entries()) await git(dir, "update-ref", `refs/heads/b${i}`, tip);
  await git(dir, "symbolic-ref", "HEAD", "refs/heads/b0");
  return tips;
}

Deno.test("git log --graph draws git's lanes on random histories", async () => {
  await using root = await makeRoot();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
      const name = `r${run++}`;
      const dir = `${root.path}/${name}`;
      await git(root.path, "init", "-q", "-b", "b0", dir);
      const tips = await build(dir, ops);
      const lines = [
        ["--graph", "--oneline", "--all"],
        ["--graph", "--all", "--format=%s"],
        ["--graph", "--format=medium"],
        ["--graph", "--oneline", "-3", "--all"],
        ...(tips.length > 1 ? [["--graph", "--oneline", `b1..b0`]] : []),
        ["--graph", "--oneline", "--all", "--", "f"],
        ["--graph", "--format=%s-%p", "--", "g"],
      ];
      for (const args of lines) {
        const ours = await exec(root.path, `git log --repo ${name} ${args.join(" ")}`);
        assert.equal(ours.exit_code, 0, ours.stderr);
        assert.equal(ours.stdout, await git(dir, "log", ...args), `git log ${args.join(" ")}`);
      }
    }),
    { numRuns: 40, endOnFailure: true },
  );
});
