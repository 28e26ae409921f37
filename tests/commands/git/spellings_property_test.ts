/**
 * Real git's spellings mean in pterm what they mean in git: random sequences of the
 * command lines agents type (`git add .`, `git commit -am`, `git switch -c`, `git restore
 * --staged`, `git stash -u`, …) run through pterm in one workspace and through real git in a twin;
 * after every step both agree on success or refusal, and on the repository's whole state (refs,
 * HEAD, index, stash, work tree). Nothing real git rejects may be accepted with another meaning.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { exec, execOk, makeRoot, pin } from "../../_support/helpers.ts";
import { git, GIT_ENV } from "./oracle.ts";
import { repoState } from "./repo_state.ts";
import { tokenize } from "../../../core/grammar.ts";

const FILES = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt"] as const;
const BRANCHES = ["x", "y"] as const;

type Step = { kind: "write"; file: string; text: string } | { kind: "git"; line: string };

const file = fc.constantFrom(...FILES);
const branch = fc.constantFrom(...BRANCHES);
const word = fc.constantFrom("alpha", "beta", "gamma", "delta");

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("write" as const), file, text: word }) },
  {
    weight: 9,
    arbitrary: fc.oneof(
      file.map((f) => `git add ${f}`),
      fc.constant("git add ."),
      fc.constant("git add -A"),
      fc.constant("git add -u"),
      word.map((w) => `git commit -m "${w}"`),
      word.map((w) => `git commit -am "${w} all"`),
      word.map((w) => `git commit -m "${w}" -m "body of ${w}"`),
      fc.constant("git commit --amend --no-edit"),
      fc.tuple(word, file).map(([w, f]) => `git commit -m "${w} only" -- ${f}`),
      fc.tuple(word, file).map(([w, f]) => `git commit ${f} -m "${w} only"`),
      word.map((w) => `git commit --amend -m "${w} amended"`),
      branch.map((b) => `git branch ${b}`),
      branch.map((b) => `git branch -D ${b}`),
      branch.map((b) => `git checkout -b ${b}`),
      branch.map((b) => `git switch ${b}`),
      branch.map((b) => `git switch -c ${b}`),
      fc.constant("git switch main"),
      fc.constant("git checkout main"),
      file.map((f) => `git checkout -- ${f}`),
      file.map((f) => `git restore ${f}`),
      file.map((f) => `git restore --staged ${f}`),
      file.map((f) => `git reset ${f}`),
      fc.constant("git reset --hard"),
      fc.constant("git reset --soft HEAD~1"),
      fc.constant("git stash"),
      fc.constant("git stash -u"),
      fc.constant("git stash pop"),
      file.map((f) => `git rm --cached ${f}`),
      file.map((f) => `git rm -f ${f}`),
      fc.constant("git tag v1"),
      fc.constant("git tag -d v1"),
      branch.map((b) => `git merge ${b} --no-edit`),
      branch.map((b) => `git cherry-pick ${b}`),
      fc.constant("git clean -fd"),
      fc.constantFrom(
        "git cherry-pick --abort",
        "git cherry-pick --continue",
        "git merge --abort",
        "git revert --no-edit HEAD",
        "git stash apply",
        "git stash drop",
        "git checkout -",
        "git switch -",
      ),
      fc.constantFrom(
        "git apply fix.diff",
        "git apply --index fix.diff",
        "git apply -R fix.diff",
        "git apply -R --index fix.diff",
        "git apply --check fix.diff",
      ),
    ).map((line) => ({ kind: "git" as const, line })),
  },
);

/**
 * Real git with the oracle's clean environment but the current time: with the oracle's fixed dates an
 * amend of a commit made the same way gives back the very same commit, which real life never does.
 */
async function realGit(cwd: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const env = { ...GIT_ENV };
  delete env.GIT_AUTHOR_DATE;
  delete env.GIT_COMMITTER_DATE;
  const out = await new Deno.Command("git", { args, cwd, env, clearEnv: true, stdout: "null", stderr: "piped" })
    .output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

async function setUp(root: string, twin: string): Promise<void> {
  for (const dir of [root, twin]) {
    const repo = join(dir, "r");
    await Deno.mkdir(repo, { recursive: true });
    await git(repo, "init", "-q", "-b", "main");
    await Deno.writeTextFile(join(repo, "a.txt"), "start\n");
    await git(repo, "add", "a.txt");
    await git(repo, "commit", "-q", "-m", "start");
  }
  // A diff of a.txt's first state for `git apply` (untracked until a step adds it, on both sides).
  await Deno.writeTextFile(join(root, "r", "fix.diff"), "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-start\n+started\n");
  // The same first commit on both sides: copy the pterm side's repository over the twin.
  await Deno.remove(join(twin, "r"), { recursive: true });
  const copied = await new Deno.Command("cp", { args: ["-a", join(root, "r"), join(twin, "r")] }).output();
  assert.equal(copied.code, 0);
  // The copy has new inodes: refresh its index's stat data, as the original's matches its files
  // (`git apply --index` trusts a file only while they match).
  await git(join(twin, "r"), "update-index", "-q", "--refresh");
}

/** A fixed example run: git lines, and `write <file> <text>` for a file written on both sides (as the log prints it). */
const sequence = (...lines: string[]): [Step[]] => [lines.map((line): Step => {
  const written = /^write (\S+) (\S+)$/.exec(line);
  return written ? { kind: "write", file: written[1], text: written[2] } : { kind: "git", line };
})];

Deno.test({
  name: "git spellings in pterm do what real git does with them, step by step",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 10 }), async (steps) => {
      await using root = await makeRoot("pterm-spell-");
      await using twin = await makeRoot("pterm-spell-git-");
      await setUp(root.path, twin.path);
      const known = new Set((await git(join(root.path, "r"), "rev-list", "--all")).split("\n").filter(Boolean));
      const log: string[] = [];
      for (const s of steps) {
        if (s.kind === "write") {
          for (const dir of [root.path, twin.path]) {
            const path = join(dir, "r", s.file);
            await Deno.mkdir(join(path, ".."), { recursive: true });
            await Deno.writeTextFile(path, `${s.text}\n`);
          }
          log.push(`write ${s.file} ${s.text}`);
          continue;
        }
        const stashApply = /^git stash (pop|apply)/.test(s.line);
        const before = stashApply ? await repoState(join(root.path, "r"), known) : null;
        const envelope = await exec(root.path, s.line);
        const real = await realGit(join(twin.path, "r"), tokenize(s.line).slice(1));
        log.push(`${s.line} → pterm ${envelope.error_code ?? "ok"}, git ${real.code}`);
        assert.equal(
          envelope.exit_code === 0,
          real.code === 0,
          `${log.join("\n")}\npterm: ${envelope.stderr}\ngit: ${real.stderr}`,
        );
        if (
          stashApply && envelope.error_code === "UncommittedChanges" && /holds untracked files/.test(envelope.stderr)
        ) {
          // Where a stashed untracked file is in the way, real git applies the rest and restores the other
          // untracked files before it fails (`could not restore untracked files from stash`, the stash kept);
          // pterm refuses the whole apply first (docs/commands/git.md). Both refuse; pterm changed nothing,
          // and the twins part here.
          assert.match(real.stderr, /could not restore untracked files from stash/, log.join("\n"));
          assert.equal(await repoState(join(root.path, "r"), known), before, log.join("\n"));
          return;
        }
        assert.equal(
          await repoState(join(root.path, "r"), known),
          await repoState(join(twin.path, "r"), known),
          log.join("\n"),
        );
      }
    }),
    {
      numRuns: 25,
      examples: [
        // Seed -7986216 of a full run: git stash resets with `reset --hard`, which ends the cherry-pick an
        // empty pick left in progress, so an amend after it is no longer refused.
        sequence("git switch -c x", "git cherry-pick x", "git stash -u", "git commit --amend --no-edit"),
        // Seed of a longer run: a revert's message names the reverted commit by its id, which differs
        // between the two makers after an amend; repoState names it by content.
        sequence("git commit --amend --no-edit", "git revert --no-edit HEAD", "git cherry-pick x", "write a.txt alpha"),
        // Seed -34259477: a stashed untracked file made again before the pop, another one (fix.diff) free.
        sequence("write dir/c.txt alpha", "git stash -u", "write dir/c.txt alpha", "git stash pop", "git add -A"),
        // Seed 1078539393: the entry `reset <path>` takes from HEAD gets the file's stat data (git's
        // refresh after a mixed reset), so `apply --index` finds the file matching the index.
        sequence(
          "git rm --cached a.txt",
          "git reset a.txt",
          "git apply --index fix.diff",
          "write a.txt alpha",
          "git add .",
          "git reset --soft HEAD~1",
        ),
        // An empty cherry-pick stops in progress; an amend then is refused, as git refuses it, instead of
        // rewriting HEAD and ending the pick.
        sequence("git checkout -b x", "git stash pop", "git cherry-pick x", "git commit --amend --no-edit"),
        // The entry `apply --index` stages for the file it wrote keeps that file's stat data whole, so the
        // next `apply --index` (pterm's or git's) finds the file matching the index.
        sequence(
          "git apply --index fix.diff",
          "git reset --soft HEAD~1",
          "git apply -R --index fix.diff",
          "write a.txt alpha",
        ),
        // git switch refuses while a cherry-pick is in progress; git checkout switches and ends it.
        sequence(
          "git checkout -b y",
          "git cherry-pick y",
          "git switch main",
          "git checkout main",
          "git commit --amend --no-edit",
        ),
      ],
    },
  );
});

Deno.test("a repository at the workspace root keeps pterm's own files out of real git's view too", async () => {
  await using root = await makeRoot("pterm-rootrepo-");
  await git(root.path, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(root.path, "app.txt"), "app\n");
  // The first pterm call writes the audit log (and, with stdin, an artifact) into the root.
  const envelope = await exec(root.path, "git status");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  await exec(root.path, "git commit -F -", { stdin: "not yet\n" });
  await Deno.writeTextFile(join(root.path, "pterm.json"), "{}\n");
  // What a pterm killed while writing leaves in the root (core/fs/safe_fs.ts makes its temporary files there).
  await Deno.writeTextFile(join(root.path, ".pterm-write.lmn0p1234567.tmp"), "half an audit record");
  const untracked = (await git(root.path, "status", "--porcelain", "-uall")).split("\n").filter(Boolean);
  assert.deepEqual(untracked, ["?? app.txt"], "real git sees only the user's file");
  // pterm itself neither shows nor stages it either.
  const status = await exec(root.path, "git status");
  assert.doesNotMatch(JSON.stringify(status.result), /pterm-write/);
  await execOk(root.path, "git add --all");
  assert.equal((await git(root.path, "ls-files")).trim(), "app.txt");
  await git(root.path, "rm", "-q", "--cached", "app.txt");
  const exclude = await Deno.readTextFile(join(root.path, ".git/info/exclude"));
  for (const line of ["/audit/", "/artifacts/", "/sessions/", "/cache/", "/pterm.json", "/.pterm-write.*.tmp"]) {
    assert.ok(exclude.includes(line));
  }
  // Written once: a second call does not repeat the lines.
  await exec(root.path, "git status");
  assert.equal(await Deno.readTextFile(join(root.path, ".git/info/exclude")), exclude);
  // A repository in a folder of its own is left alone.
  await Deno.mkdir(join(root.path, "sub"));
  await git(join(root.path, "sub"), "init", "-q");
  await exec(root.path, "git status --repo sub");
  assert.ok(!(await Deno.readTextFile(join(root.path, "sub/.git/info/exclude")).catch(() => "")).includes("/audit/"));
});

Deno.test("git clean -f, -fd and -n delete (or list) what real git's do, and skip a repository of its own", async () => {
  for (const flags of [["-f"], ["-fd"], ["-n"], ["-nd"], ["-fd", "--", "dir"]]) {
    await using root = await makeRoot("pterm-clean-");
    await using twin = await makeRoot("pterm-clean-git-");
    for (const dir of [root.path, twin.path]) {
      const repo = join(dir, "r");
      await Deno.mkdir(join(repo, "dir/sub"), { recursive: true });
      await git(repo, "init", "-q", "-b", "main");
      await Deno.writeTextFile(join(repo, "tracked.txt"), "t\n");
      await Deno.writeTextFile(join(repo, "dir/kept.txt"), "k\n");
      await Deno.writeTextFile(join(repo, ".gitignore"), "*.log\n");
      await git(repo, "add", "-A");
      await git(repo, "commit", "-q", "-m", "c");
      await Deno.writeTextFile(join(repo, "new.txt"), "n\n");
      await Deno.writeTextFile(join(repo, "dir/new.txt"), "n\n");
      await Deno.writeTextFile(join(repo, "dir/sub/deep.txt"), "d\n");
      await Deno.writeTextFile(join(repo, "debug.log"), "ignored\n");
      await Deno.mkdir(join(repo, "untracked-folder/inner"), { recursive: true });
      await Deno.writeTextFile(join(repo, "untracked-folder/inner/x.txt"), "x\n");
      await Deno.mkdir(join(repo, "nested"));
      await git(join(repo, "nested"), "init", "-q");
      await Deno.writeTextFile(join(repo, "nested/file.txt"), "in a repository of its own\n");
    }
    const envelope = await exec(root.path, `git clean ${flags.join(" ")}`);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    const real = await realGit(join(twin.path, "r"), ["clean", ...flags]);
    assert.equal(real.code, 0, real.stderr);
    assert.equal(
      await repoState(join(root.path, "r")),
      await repoState(join(twin.path, "r")),
      `git clean ${flags.join(" ")}`,
    );
  }
});

Deno.test("show <rev>:<folder> keeps secret entries out; branch and tag --list match as git's wildmatch", async () => {
  await using root = await makeRoot("pterm-show-tree-");
  const repo = join(root.path, "r");
  await Deno.mkdir(join(repo, "cfg"), { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(repo, "cfg/app.toml"), "a\n");
  await Deno.writeTextFile(join(repo, "cfg/.env"), "TOKEN=do-not-print\n");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "c");
  for (const name of ["feat/a", "feat/b/c", "fix"]) await git(repo, "branch", name);
  await git(repo, "tag", "v1.0");
  await git(repo, "tag", "v1.10");
  const listing = await exec(root.path, "git show HEAD:cfg");
  assert.equal(listing.exit_code, 0, listing.stderr);
  assert.equal(listing.stdout, "app.toml\n");
  assert.ok(!JSON.stringify(listing).includes(".env"));
  for (const pattern of ["feat*", "feat/*", "f?x", "*b*"]) {
    const mine = await exec(root.path, `git branch --list '${pattern}'`);
    // deno-lint-ignore no-explicit-any
    const names = (mine.result as any).branches.map((b: { name: string }) => b.name).sort();
    const real = (await git(repo, "branch", "--list", pattern, "--format=%(refname:short)")).split("\n").filter(
      Boolean,
    );
    assert.deepEqual(names, real.sort(), pattern);
  }
  const tags = await exec(root.path, "git tag -l 'v1.?'");
  // deno-lint-ignore no-explicit-any
  assert.deepEqual((tags.result as any).tags.map((t: { name: string }) => t.name), ["v1.0"]);
});

Deno.test("stash -u and clean -f that cannot delete a file: WriteFailed naming it, nothing lost", async (t) => {
  await using root = await makeRoot("pterm-stuck-");
  const repo = join(root.path, "r");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(repo, "a.txt"), "a\n");
  await git(repo, "add", "a.txt");
  await git(repo, "commit", "-q", "-m", "c");
  await Deno.mkdir(join(repo, "new"));
  await Deno.writeTextFile(join(repo, "new/stuck.txt"), "untracked work\n");
  await Deno.writeTextFile(join(repo, "a.txt"), "edited\n");
  const undo = await pin(join(repo, "new/stuck.txt"));
  if (!undo) return void t.step({ name: "no way to make a file undeletable here", ignore: true, fn: () => {} });
  try {
    const cleaned = await exec(root.path, "git clean -f -d");
    assert.equal(cleaned.error_code, "WriteFailed", cleaned.stderr);
    assert.match(cleaned.stderr, /new\/stuck\.txt/);
    assert.ok(!cleaned.stderr.includes(root.path), "no host path");
    const stashed = await exec(root.path, "git stash -u");
    assert.equal(stashed.error_code, "WriteFailed", stashed.stderr);
    assert.match(stashed.stderr, /stash@\{0\} holds the changes[^]*new\/stuck\.txt/);
    // Nothing lost: the entry holds the edit and the untracked file, which is still in the work tree too.
    assert.equal(await git(repo, "show", "stash@{0}:a.txt"), "edited\n");
    assert.equal(await git(repo, "show", "stash@{0}^3:new/stuck.txt"), "untracked work\n");
    assert.equal(await Deno.readTextFile(join(repo, "new/stuck.txt")), "untracked work\n");
  } finally {
    await undo();
  }
});

Deno.test("git grep never reads through a symlinked folder, even one the index names a file under", async () => {
  await using root = await makeRoot("pterm-grep-link-");
  await using outside = await makeRoot("pterm-grep-outside-");
  await Deno.writeTextFile(join(outside.path, "secret.txt"), "TOPSECRET outside the root\n");
  const repo = join(root.path, "r");
  await Deno.mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  await Deno.symlink(outside.path, join(repo, "docs"));
  await Deno.writeTextFile(join(repo, "a.txt"), "TOPSECRET is only named here\n");
  await git(repo, "add", "a.txt");
  // An index that names a file behind the link (real git's add refuses to make one; update-index does not).
  const blob = (await git(repo, "hash-object", "-w", join(outside.path, "secret.txt"))).trim();
  await git(repo, "update-index", "--add", "--cacheinfo", `100644,${blob},docs/secret.txt`);
  const envelope = await exec(root.path, "git grep -n TOPSECRET");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal(envelope.stdout, "a.txt:1:TOPSECRET is only named here\n");
});
