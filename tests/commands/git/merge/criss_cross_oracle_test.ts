/**
 * Criss-cross merges (two or more merge bases) against the real git: histories are built by real
 * git (branches that each merge the other's earlier tip, conflicts resolved with -X ours/theirs,
 * optionally twice so the merge bases themselves have several bases), then the same final merge
 * runs through git and through pterm. A clean git merge must be a clean pterm merge with the same
 * tree; a conflicted one must leave the same conflicts and index stages (stage 1 is the virtual
 * base's blob, markers and all).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, GIT_ENV, ptermTry, result } from "../oracle.ts";
import { worktreeFiles } from "../twin.ts";

let clock = 1_700_000_000;

/** Real git with its own, increasing commit time (merge bases are ordered by it). */
async function gitTimed(dir: string, ...args: string[]): Promise<{ code: number; out: string }> {
  clock += 60;
  const out = await new Deno.Command("git", {
    args,
    cwd: dir,
    clearEnv: true,
    env: { ...GIT_ENV, GIT_AUTHOR_DATE: `@${clock} +0000`, GIT_COMMITTER_DATE: `@${clock} +0000` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, out: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
}

const FILES = ["f1.txt", "f2.txt", "dir/f3.txt"];
const baseLines = (file: string) => Array.from({ length: 10 }, (_, i) => `${file} line ${i + 1}`);

type Edit = { file: number; line: number; token: string } | { file: number; remove: true };

/** Whether this run's edits write bare tokens (lines repeat) or tokens with their line number. */
let repeatedLines = false;

async function applyEdits(dir: string, edits: readonly Edit[]): Promise<void> {
  for (const edit of edits) {
    const path = `${dir}/${FILES[edit.file]}`;
    if ("remove" in edit) {
      await Deno.remove(path).catch(() => {});
      continue;
    }
    let lines: string[];
    try {
      lines = (await Deno.readTextFile(path)).split("\n").slice(0, -1);
    } catch {
      lines = baseLines(FILES[edit.file]);
    }
    // Half the runs give each token its line number (no two lines alike unless one edit made them);
    // the others repeat bare tokens, where only git's own alignment (histogram) gives git's answer.
    lines[edit.line] = repeatedLines ? edit.token : `${edit.token}-${edit.line + 1}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, lines.join("\n") + "\n");
  }
}

async function commitAll(dir: string, message: string): Promise<void> {
  await git(dir, "add", "-A");
  await gitTimed(dir, "commit", "-q", "--allow-empty", "-m", message);
}

async function head(dir: string): Promise<string> {
  return (await git(dir, "rev-parse", "HEAD")).trim();
}

const edit: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({ file: fc.nat(2), line: fc.nat(9), token: fc.constantFrom("x", "y", "z", "w") }),
  },
  { weight: 1, arbitrary: fc.record({ file: fc.nat(2), remove: fc.constant(true as const) }) },
);
const edits = fc.array(edit, { minLength: 1, maxLength: 3 });
const round = fc.record({
  left: edits,
  right: edits,
  leftSide: fc.constantFrom("ours", "theirs"),
  rightSide: fc.constantFrom("ours", "theirs"),
  afterLeft: fc.array(edit, { maxLength: 2 }),
  afterRight: fc.array(edit, { maxLength: 2 }),
});

Deno.test("property: criss-cross merges agree with git's ort (virtual merge base)", async () => {
  await using root = await makeRoot();
  let run = 0;
  let cleanRuns = 0;
  let crissCross = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(round, { minLength: 1, maxLength: 2 }),
      edits,
      edits,
      fc.constantFrom("merge", "diff3", "zdiff3"),
      fc.boolean(),
      async (rounds, lastL, lastR, style, repeated) => {
        repeatedLines = repeated;
        run++;
        const g = `${root.path}/g${run}`;
        const p = `${root.path}/p${run}`;
        await Deno.mkdir(g, { recursive: true });
        await git(g, "init", "-q", "-b", "L");
        for (const file of FILES) {
          await applyEdits(g, [{ file: FILES.indexOf(file), line: 0, token: baseLines(file)[0] }]);
        }
        await commitAll(g, "root");
        await git(g, "branch", "M");
        for (const [k, r] of rounds.entries()) {
          await git(g, "checkout", "-q", "L");
          await applyEdits(g, r.left);
          await commitAll(g, `L${k}`);
          const leftTip = await head(g);
          await git(g, "checkout", "-q", "M");
          await applyEdits(g, r.right);
          await commitAll(g, `M${k}`);
          const rightTip = await head(g);
          // The criss-cross: each side merges the other's tip from before its own merge.
          for (
            const [branch, other, side, after] of [
              ["M", leftTip, r.rightSide, r.afterRight],
              ["L", rightTip, r.leftSide, r.afterLeft],
            ] as const
          ) {
            await git(g, "checkout", "-q", branch);
            const merged = await gitTimed(g, "merge", "-q", "--no-ff", "-X", side, "-m", `merge into ${branch}`, other);
            if (merged.code !== 0) {
              // A conflict -X cannot settle (modify/delete): take this side's view of every path.
              await git(g, "checkout", "--ours", "--", ".").catch(() => "");
              await git(g, "add", "-A");
              await gitTimed(g, "commit", "-q", "--no-edit");
            }
            await applyEdits(g, after);
            await commitAll(g, `after ${branch}${k}`);
          }
        }
        await git(g, "checkout", "-q", "M");
        await applyEdits(g, lastR);
        await commitAll(g, "M last");
        await git(g, "checkout", "-q", "L");
        await applyEdits(g, lastL);
        await commitAll(g, "L last");
        const bases = (await git(g, "merge-base", "--all", "L", "M")).trim().split("\n");
        if (bases.length > 1) crissCross++;
        // The diff3 styles show the virtual base, and its conflicts, under git's labels.
        await git(g, "config", "merge.conflictStyle", style);
        await new Deno.Command("cp", { args: ["-a", g, p] }).output();

        const real = await gitTimed(g, "merge", "-q", "--no-edit", "M");
        const ours = await ptermTry(root.path, `git merge --repo p${run} --branch M`);
        const note = `bases ${bases.length}: ${JSON.stringify({ rounds, lastL, lastR, style, repeated })}\n${real.out}`;
        if (real.code === 0) {
          cleanRuns++;
          assert.equal(ours.exit_code, 0, `git merged cleanly, pterm did not: ${ours.stderr}\n${note}`);
          assert.equal(await git(p, "rev-parse", "HEAD^{tree}"), await git(g, "rev-parse", "HEAD^{tree}"), note);
        } else {
          assert.equal(ours.error_code, "Conflict", `git had conflicts, pterm: ${ours.stderr}\n${note}`);
          assert.deepEqual(
            result(ours).conflicts,
            (await git(g, "diff", "--name-only", "--diff-filter=U")).trim().split("\n"),
          );
          const keep = Deno.env.get("CRISS_KEEP");
          if (keep && (await git(p, "ls-files", "-s")) !== (await git(g, "ls-files", "-s"))) {
            await new Deno.Command("cp", { args: ["-a", g, `${keep}/g`] }).output();
            await new Deno.Command("cp", { args: ["-a", p, `${keep}/p`] }).output();
          }
          assert.equal(await git(p, "ls-files", "-s"), await git(g, "ls-files", "-s"), `index stages ${note}`);
          assert.deepEqual(await worktreeFiles(p), await worktreeFiles(g), `work tree ${note}`);
        }
        await assertFsck(p);
      },
    ),
    // 30: with repeated lines and random styles a run is often a conflict; fewer runs could see no clean one.
    { numRuns: Number(Deno.env.get("CRISS_RUNS") ?? 30) },
  );
  assert.ok(cleanRuns > 0, "some merges must be clean in git");
  assert.ok(crissCross > run / 2, `most histories must have several merge bases (${crissCross} of ${run})`);
});
