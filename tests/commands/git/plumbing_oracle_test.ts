/**
 * git's plumbing in pterm (rev-list, ls-tree, diff-tree, cat-file, for-each-ref, merge-base, show-ref,
 * symbolic-ref, name-rev, hash-object, var) against real git on random repositories: the same success or
 * refusal, and the same bytes on stdout. Secret paths stay withheld (their content never printed).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { git, GIT_ENV, gitRaw } from "./oracle.ts";
import { tokenize } from "../../../core/grammar.ts";

const FILES = ["a.txt", "b.txt", "dir/c.txt", "dir/sub/d.txt", "e.txt"] as const;

type Op =
  | { kind: "write"; file: string; text: string }
  | { kind: "remove"; file: string }
  | { kind: "commit"; tick: number }
  | { kind: "branch"; name: string }
  | { kind: "checkout"; name: string }
  | { kind: "merge"; name: string; tick: number }
  | { kind: "tag"; name: string; annotated: boolean; tick: number };

const names = fc.constantFrom("x", "y", "main");
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("write" as const),
      file: fc.constantFrom(...FILES),
      text: fc.constantFrom("alpha\n", "beta\n", "gamma\ndelta\n", "one\ntwo\nthree\n"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("remove" as const), file: fc.constantFrom(...FILES) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("commit" as const), tick: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("branch" as const), name: names }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("checkout" as const), name: names }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("merge" as const), name: names, tick: fc.integer({ min: 0, max: 2 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("tag" as const),
      name: fc.constantFrom("v1", "v2", "v10"),
      annotated: fc.boolean(),
      tick: fc.integer({ min: 0, max: 2 }),
    }),
  },
);

/** Builds the repository with real git; commit times move on by `tick` hours (0: the same second as before). */
async function build(repo: string, ops: readonly Op[]): Promise<void> {
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  let time = Date.UTC(2026, 0, 1) / 1000;
  const at = (tick: number) => {
    time += tick * 3600;
    return { GIT_AUTHOR_DATE: `@${time} +0000`, GIT_COMMITTER_DATE: `@${time} +0000` };
  };
  const run = async (args: string[], env: Record<string, string> = {}) => {
    await new Deno.Command("git", {
      args,
      cwd: repo,
      env: { ...GIT_ENV, ...env },
      clearEnv: true,
      stdout: "null",
      stderr: "null",
    }).output();
  };
  await Deno.writeTextFile(join(repo, "a.txt"), "start\n");
  await run(["add", "-A"]);
  await run(["commit", "-q", "-m", "start"], at(0));
  for (const o of ops) {
    if (o.kind === "write") {
      await Deno.mkdir(join(repo, o.file, ".."), { recursive: true });
      await Deno.writeTextFile(join(repo, o.file), o.text);
    } else if (o.kind === "remove") await Deno.remove(join(repo, o.file)).catch(() => {});
    else if (o.kind === "commit") {
      await run(["add", "-A"]);
      await run(["commit", "-q", "-m", `commit at ${time}\n\nbody line`], at(o.tick));
    } else if (o.kind === "branch") await run(["branch", o.name]);
    else if (o.kind === "checkout") {
      await run(["add", "-A"]);
      await run(["commit", "-q", "-m", "before switching"], at(0));
      await run(["checkout", "-q", o.name]);
    } else if (o.kind === "merge") {
      await run(["add", "-A"]);
      await run(["commit", "-q", "-m", "before merging"], at(0));
      await run(["merge", "-q", "--no-ff", "--no-edit", o.name], at(o.tick));
      await run(["merge", "--abort"]);
    } else if (o.kind === "tag") {
      await run(o.annotated ? ["tag", "-a", "-m", `tag ${o.name}`, o.name] : ["tag", o.name], at(o.tick));
    }
  }
}

/** The lines compared; each runs in the repository with real git and at the workspace root with pterm. */
const LINES = [
  "git rev-list --count HEAD",
  "git rev-list HEAD",
  "git rev-list main..x",
  "git rev-list x..main",
  "git rev-list x...y",
  "git rev-list ^x y",
  "git rev-list --all",
  "git rev-list -n 2 HEAD",
  "git rev-list --max-count=3 --all",
  "git rev-list -n 1 --all",
  "git rev-list --reverse HEAD",
  "git rev-list --count main..HEAD",
  "git rev-list HEAD -- dir",
  "git ls-tree HEAD",
  "git ls-tree -r HEAD",
  "git ls-tree -r --name-only HEAD",
  "git ls-tree --name-only x",
  "git ls-tree -l HEAD",
  "git ls-tree -r -l HEAD",
  "git ls-tree -r -t HEAD",
  "git ls-tree -d HEAD",
  "git ls-tree -r -d HEAD",
  "git ls-tree HEAD dir",
  "git ls-tree HEAD dir/",
  "git ls-tree -r HEAD dir",
  "git ls-tree HEAD dir/sub/d.txt",
  "git ls-tree HEAD:dir",
  "git diff-tree --no-commit-id --name-only -r HEAD",
  "git diff-tree -r --name-status HEAD",
  "git diff-tree HEAD",
  "git diff-tree -r HEAD",
  "git diff-tree -r HEAD~1 HEAD",
  "git diff-tree main x",
  "git diff-tree -r -t main y",
  "git diff-tree --root -r --name-only main~2",
  "git cat-file -t HEAD",
  "git cat-file -s HEAD",
  "git cat-file -p HEAD",
  "git cat-file -p HEAD^{tree}",
  "git cat-file -p HEAD:dir",
  "git cat-file -p HEAD:a.txt",
  "git cat-file -t v1",
  "git cat-file -p v1",
  "git cat-file -e HEAD",
  "git cat-file -e HEAD:nope.txt",
  "git cat-file blob HEAD:a.txt",
  "git cat-file commit HEAD",
  "git for-each-ref",
  "git for-each-ref --format=%(refname:short) refs/heads",
  "git for-each-ref '--format=%(refname:short) %(subject)' --sort=-committerdate refs/heads/",
  "git for-each-ref '--format=%(objectname:short) %(objecttype) %(*objectname) %(refname)' refs/tags",
  "git for-each-ref --count=2 --sort=committerdate",
  "git for-each-ref 'refs/heads/*'",
  "git for-each-ref '--format=%(HEAD) %(refname:short) %(authorname) %(authoremail) %(authordate:short)'",
  "git for-each-ref --sort=version:refname --format=%(refname:lstrip=2) refs/tags",
  "git for-each-ref '--format=%(refname) %(taggername) %(creatordate:iso) %(contents:subject)' refs/tags",
  "git merge-base main x",
  "git merge-base --all x y",
  "git merge-base --is-ancestor main x",
  "git merge-base --is-ancestor x main",
  "git show-ref",
  "git show-ref --heads",
  "git show-ref --tags",
  "git show-ref -d",
  "git show-ref --verify refs/heads/main",
  "git show-ref --verify refs/heads/nope",
  "git show-ref main",
  "git show-ref --hash --heads",
  "git show-ref -q x",
  "git symbolic-ref HEAD",
  "git symbolic-ref --short HEAD",
  "git symbolic-ref -q HEAD",
  "git name-rev HEAD",
  "git name-rev --name-only HEAD~1",
  "git name-rev --name-only main~2",
  "git name-rev --tags --name-only HEAD",
  "git name-rev x y",
  "git hash-object a.txt",
  "git hash-object dir/c.txt e.txt",
] as const;

function compare(line: string, envelope: { exit_code: number; stdout: string; stderr: string }, real: {
  code: number;
  stdout: string;
  stderr: string;
}, context: string): void {
  assert.equal(
    envelope.exit_code === 0,
    real.code === 0,
    `${line}\n${context}\npterm: ${envelope.exit_code} ${envelope.stderr}\ngit: ${real.code} ${real.stderr}`,
  );
  if (real.code === 0) assert.equal(envelope.stdout, real.stdout, `${line}\n${context}`);
}

Deno.test({
  name: "git plumbing in pterm prints what real git prints, on random repositories",
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 16 }), fc.boolean(), async (ops, detach) => {
      await using root = await makeRoot("pterm-plumbing-");
      const repo = join(root.path, "r");
      await build(repo, ops);
      if (detach) await git(repo, "checkout", "-q", "--detach");
      const context = (await git(repo, "log", "--all", "--graph", "--format=%h %ct %d %s")).trim();
      for (const line of LINES) {
        const envelope = await exec(root.path, line);
        const real = await gitRaw(repo, tokenize(line).slice(1));
        compare(line, envelope, real, context);
      }
      // Names as scripts send them: a missing one, a line with spaces (a name as it stands unless
      // the format has %(rest)), an empty line, a path in a commit.
      const stdinLines = "HEAD\nv1\nnope\nHEAD:a.txt\nHEAD^{tree}\nHEAD trailing words\n\nHEAD~1:dir/c.txt\n";
      for (
        const line of [
          "git cat-file --batch-check",
          "git cat-file '--batch-check=%(objectname) %(objecttype) %(objectsize)'",
          "git cat-file '--batch-check=%(objecttype) %(rest) 100%% %x'",
          "git cat-file --batch-check=%(objectsize)",
        ]
      ) {
        const envelope = await exec(root.path, line, { stdin: stdinLines });
        compare(line, envelope, await gitRaw(repo, tokenize(line).slice(1), stdinLines), context);
      }
      // --batch prints each object's content after its line (text objects: commits, tags, text blobs).
      const textNames = "HEAD\nnope\nHEAD:a.txt\nv1\n";
      for (const line of ["git cat-file --batch", "git cat-file '--batch=%(objectname) %(rest)'"]) {
        const envelope = await exec(root.path, line, { stdin: textNames });
        compare(line, envelope, await gitRaw(repo, tokenize(line).slice(1), textNames), context);
      }
    }),
    { numRuns: 5 },
  );
});

Deno.test("git plumbing keeps secret paths withheld: never listed, never printed, never hashed", async () => {
  await using root = await makeRoot("pterm-plumbing-secret-");
  const repo = join(root.path, "r");
  await Deno.mkdir(join(repo, "secrets"), { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(repo, "app.txt"), "app\n");
  await Deno.writeTextFile(join(repo, ".env"), "TOKEN=do-not-print\n");
  await Deno.writeTextFile(join(repo, "secrets/key.txt"), "KEY=do-not-print\n");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "with secrets");
  const blob = (await git(repo, "rev-parse", "HEAD:.env")).trim();
  for (
    const line of [
      "git ls-tree -r HEAD",
      "git ls-tree HEAD",
      "git cat-file -p HEAD^{tree}",
      "git diff-tree --root -r HEAD",
    ]
  ) {
    const envelope = await exec(root.path, line);
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    assert.match(envelope.stdout, /app\.txt/);
    assert.doesNotMatch(JSON.stringify(envelope), /\.env|secrets|do-not-print/, line);
  }
  for (
    const line of [`git cat-file -p HEAD:.env`, `git cat-file -p ${blob}`, "git cat-file blob HEAD:secrets/key.txt"]
  ) {
    const envelope = await exec(root.path, line);
    assert.equal(envelope.error_code, "SecretPathDenied", line);
    assert.doesNotMatch(JSON.stringify(envelope), /do-not-print/, line);
  }
  const batch = await exec(root.path, "git cat-file --batch", { stdin: `HEAD:app.txt\n${blob}\n` });
  assert.equal(batch.error_code, "SecretPathDenied");
  assert.doesNotMatch(JSON.stringify(batch), /do-not-print/);
  const batchPath = await exec(root.path, "git cat-file --batch-check", { stdin: "HEAD:secrets/key.txt\n" });
  assert.equal(batchPath.error_code, "SecretPathDenied");
  const hashed = await exec(root.path, "git hash-object .env");
  assert.equal(hashed.error_code, "SecretPathDenied");
  // What the user runs next: real git still sees its repository exactly as before.
  assert.equal((await git(repo, "status", "--porcelain")).trim(), "");
});
