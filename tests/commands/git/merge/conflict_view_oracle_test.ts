/**
 * A conflict as the agent sees it: during a merge, cherry-pick or revert stopped on conflicts,
 * pterm's `git diff` (default, `--cc`, `-c`, a path, `--staged`, against HEAD) and `git status`
 * (long, `--short`, `--porcelain`) print what real git prints in the same repository, byte for
 * byte; then the conflict is resolved through pterm and real git's log shows the commit with git's
 * prepared message.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, GIT_ENV, gitRaw, pterm, ptermTry, result, write } from "../oracle.ts";

/** The text lines to compare, each run through pterm (`--repo r`) and real git in the same repository. */
const VIEWS: readonly string[][] = [
  ["diff"],
  ["diff", "--cc"],
  ["diff", "-c"],
  ["diff", "-U1"],
  ["diff", "--name-only"],
  ["diff", "--name-status"],
  ["diff", "--staged"],
  ["diff", "HEAD"],
  ["status"],
  ["status", "--short"],
  ["status", "--porcelain"],
];

async function assertSameViews(root: string, repo: string, extra: string[][] = []): Promise<void> {
  for (const args of [...VIEWS, ...extra]) {
    const theirs = await gitRaw(`${root}/${repo}`, args);
    const ours = await ptermTry(root, `git ${args.join(" ")} --repo ${repo}`);
    assert.equal(ours.exit_code, 0, `pterm git ${args.join(" ")}: ${ours.stderr}`);
    // An empty diff is pterm's one sentence where git prints nothing (the result's files are empty).
    const text = ours.stdout;
    assert.equal(text, theirs.stdout, `git ${args.join(" ")} differs from real git`);
  }
}

/**
 * A repository `r` with main and other diverged on f.txt (both modified), aa.txt (both added),
 * dm.txt (deleted on main, modified on other), md.txt (modified on main, deleted on other), and
 * an unrelated change z.txt left unstaged.
 */
async function divergedRepo(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await write(`${dir}/f.txt`, "int main(void)\n{\n  a();\n  b();\n  c();\n  d();\n  e();\n  f();\n  g();\n}\n");
  await write(`${dir}/z.txt`, "x\n");
  await write(`${dir}/dm.txt`, "del\n");
  await write(`${dir}/md.txt`, "del2\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await git(dir, "checkout", "-qb", "other");
  await write(`${dir}/f.txt`, "int main(void)\n{\n  a();\n  THEIRS();\n  c();\n  d();\n  e();\n  f();\n  g2();\n}\n");
  await write(`${dir}/dm.txt`, "changed\n");
  await write(`${dir}/aa.txt`, "both\n");
  await git(dir, "rm", "-q", "md.txt");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "other");
  await git(dir, "checkout", "-q", "main");
  await write(`${dir}/f.txt`, "int main(void)\n{\n  a();\n  OURS();\n  c();\n  d();\n  e();\n  f();\n  g();\n}\n");
  await git(dir, "rm", "-q", "dm.txt");
  await write(`${dir}/md.txt`, "changed2\n");
  await write(`${dir}/aa.txt`, "both2\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "ours");
}

for (const by of ["real git", "pterm"] as const) {
  Deno.test(`a merge stopped on conflicts (made by ${by}): diff and status are real git's, then the resolution commits git's merge`, async () => {
    await using root = await makeRoot();
    const dir = `${root.path}/r`;
    await divergedRepo(dir);
    if (by === "real git") {
      assert.notEqual((await gitRaw(dir, ["merge", "other"])).code, 0);
    } else {
      const merged = await ptermTry(root.path, "git merge other --repo r");
      assert.equal(merged.error_code, "Conflict", merged.stderr);
    }
    await write(`${dir}/z.txt`, "x\nzz\n");
    await assertSameViews(root.path, "r", [["diff", "f.txt"], ["diff", "--", "dm.txt"], ["diff", "md.txt"]]);
    // The combined diff is what the agent reads of the conflict.
    const diff = await pterm(root.path, "git diff --repo r");
    assert.match(diff.stdout, /^diff --cc aa\.txt\n/);
    assert.match(diff.stdout, /\n\+\+<<<<<<< HEAD\n/);
    assert.deepEqual(result(diff).unmerged, ["aa.txt", "dm.txt", "f.txt", "md.txt"]);
    const status = await pterm(root.path, "git status --short --repo r");
    assert.deepEqual(result(status).files.map((f: { xy: string; path: string }) => `${f.xy} ${f.path}`), [
      "AA aa.txt",
      "DU dm.txt",
      "UU f.txt",
      "UD md.txt",
      ".M z.txt",
    ]);

    // The user resolves: edits f.txt and aa.txt, keeps dm.txt, drops md.txt; each step compared.
    await write(`${dir}/f.txt`, "int main(void)\n{\n  a();\n  BOTH();\n  c();\n  d();\n  e();\n  f();\n  g2();\n}\n");
    await assertSameViews(root.path, "r");
    await pterm(root.path, "git add f.txt --repo r");
    await write(`${dir}/aa.txt`, "both2\nboth\n");
    await pterm(root.path, "git add aa.txt dm.txt --repo r");
    await assertSameViews(root.path, "r");
    await pterm(root.path, "git rm md.txt --repo r");
    await assertSameViews(root.path, "r");
    await pterm(root.path, "git commit --repo r");
    const log = await git(dir, "log", "-1", "--format=%P%n%B");
    const [parents, ...message] = log.split("\n");
    assert.equal(parents.split(" ").length, 2, log);
    assert.equal(message.join("\n").trim().split("\n")[0], "Merge branch 'other'");
    assert.equal(await git(dir, "show", "HEAD:f.txt"), await Deno.readTextFile(`${dir}/f.txt`));
    await assertSameViews(root.path, "r");
    await assertFsck(dir);
  });
}

Deno.test("a cherry-pick and a revert stopped on conflicts: diff and status are real git's in each state", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await write(`${dir}/f.txt`, "a\nb\nc\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await write(`${dir}/f.txt`, "a\nB\nc\n");
  await git(dir, "commit", "-qam", "X");
  await write(`${dir}/f.txt`, "a\nB2\nc\n");
  await write(`${dir}/s.txt`, "s\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "Y");
  await git(dir, "branch", "side", "HEAD~2");

  // revert of X, which Y changed again: a conflict (revert's status has git's "unstage" hint).
  const reverted = await ptermTry(root.path, "git revert HEAD~1 --repo r");
  assert.equal(reverted.error_code, "Conflict", reverted.stderr);
  await assertSameViews(root.path, "r");
  await write(`${dir}/f.txt`, "a\nb\nc\n");
  await pterm(root.path, "git add f.txt --repo r");
  await assertSameViews(root.path, "r");
  await pterm(root.path, "git revert --abort --repo r");

  // cherry-pick of Y onto side (which lacks X): a conflict, through real git this time.
  await git(dir, "checkout", "-q", "side");
  await write(`${dir}/f.txt`, "a\nb-side\nc\n");
  await git(dir, "commit", "-qam", "side");
  assert.notEqual((await gitRaw(dir, ["cherry-pick", "main"])).code, 0);
  await assertSameViews(root.path, "r");
  await write(`${dir}/f.txt`, "a\nB2-side\nc\n");
  await pterm(root.path, "git add f.txt --repo r");
  await assertSameViews(root.path, "r");
  await pterm(root.path, "git cherry-pick --continue --repo r");
  assert.equal((await git(dir, "log", "-1", "--format=%s")).trim(), "Y");
  await assertSameViews(root.path, "r");
  await assertFsck(dir);
});

Deno.test("a conflict in a Latin-1 file: the combined diff's bytes are git's, in the patch artifact", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  const latin1 = (text: string) => Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
  await Deno.mkdir(dir, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  await write(`${dir}/l.txt`, latin1("caf\xe9\nna\xefve\n"));
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await git(dir, "checkout", "-qb", "other");
  await write(`${dir}/l.txt`, latin1("caf\xe9 cr\xe8me\nna\xefve\n"));
  await git(dir, "commit", "-qam", "other");
  await git(dir, "checkout", "-q", "main");
  await write(`${dir}/l.txt`, latin1("caf\xe9 br\xfbl\xe9\nna\xefve\n"));
  await git(dir, "commit", "-qam", "ours");
  assert.notEqual((await gitRaw(dir, ["merge", "other"])).code, 0);
  const theirs = await new Deno.Command("git", {
    args: ["diff"],
    cwd: dir,
    env: GIT_ENV,
    clearEnv: true,
    stdout: "piped",
  })
    .output();
  const ours = await pterm(root.path, "git diff --repo r");
  assert.deepEqual(result(ours).not_utf8, ["l.txt"]);
  const artifact = result(ours).patch_artifact as string;
  assert.deepEqual(await Deno.readFile(`${root.path}/${artifact}`), theirs.stdout);
});

/** Lines both sides draw from, so that edits collide, repeat, and leave function-like lines around. */
const POOL = ["a\n", "b\n", "c\n", "int f(void)\n", "{\n", "}\n", "  x = 1;\n", "  y = 2;\n", "$v\n", "_u\n", "\n"];
const fileArb = fc.array(fc.constantFrom(...POOL), { minLength: 0, maxLength: 24 });
const editsArb = fc.array(
  fc.tuple(fc.nat(30), fc.nat(3), fc.array(fc.constantFrom(...POOL), { maxLength: 4 })),
  { minLength: 1, maxLength: 4 },
);

function edit(lines: string[], edits: [number, number, string[]][]): string[] {
  const out = [...lines];
  for (const [at, remove, insert] of edits) out.splice(Math.min(at, out.length), remove, ...insert);
  return out;
}

Deno.test("property: the combined diff of any two-sided conflict is real git's (--cc, -c, -U0, -U1)", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  let round = 0;
  await fc.assert(
    fc.asyncProperty(
      fileArb,
      editsArb,
      editsArb,
      fc.boolean(),
      fc.boolean(),
      async (base, ours, theirs, eol, touch) => {
        round++;
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        await Deno.mkdir(dir, { recursive: true });
        await git(dir, "init", "-q", "-b", "main");
        const text = (lines: string[]) => {
          const joined = lines.join("");
          return eol || joined === "" ? joined : joined.slice(0, -1);
        };
        await write(`${dir}/f.txt`, text(base));
        await git(dir, "add", "-A");
        await git(dir, "commit", "-qm", "base");
        await git(dir, "checkout", "-qb", "other");
        await write(`${dir}/f.txt`, text(edit(base, theirs)));
        await git(dir, "commit", "-qam", "theirs", "--allow-empty");
        await git(dir, "checkout", "-q", "main");
        await write(`${dir}/f.txt`, text(edit(base, ours)));
        await git(dir, "commit", "-qam", "ours", "--allow-empty");
        if ((await gitRaw(dir, ["merge", "other"])).code === 0) return;
        // Sometimes the user has started resolving: a hunk's markers replaced by one side.
        if (touch) {
          const current = await Deno.readTextFile(`${dir}/f.txt`);
          await write(`${dir}/f.txt`, current.replace(/<<<<<<< HEAD\n([^]*?)=======\n[^]*?>>>>>>> other\n/, "$1"));
        }
        for (const args of [["diff"], ["diff", "-c"], ["diff", "-U0"], ["diff", "-U1"]]) {
          const theirsOut = await gitRaw(dir, args);
          const oursOut = await ptermTry(root.path, `git ${args.join(" ")} --repo r`);
          assert.equal(oursOut.stdout, theirsOut.stdout, `round ${round}: git ${args.join(" ")}`);
        }
      },
    ),
    { numRuns: 40, seed: 28 },
  );
});
