/**
 * End to end: the same merge, cherry-pick, revert or stash apply run by pterm and by the real git
 * in twin repositories, on real files nobody here wrote (the shell scripts Debian's git package
 * installs in /usr/lib/git-core: many identical lines — `fi`, `}`, `;;`, blank lines — where
 * histogram and Myers alignments differ), edited at random on two sides (lines changed, deleted,
 * inserted, blocks duplicated), LF or CRLF, with or without a final newline, under each
 * `merge.conflictStyle`. Both must succeed or both stop on conflicts, with the same work-tree
 * bytes (conflict markers included; abbreviated commit ids in marker labels, which differ between
 * the twins' commits, are masked), the same index stages, the same conflicted paths and, when
 * clean, the same tree; `git fsck --strict` stays clean.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRoot } from "../../../_support/helpers.ts";
import { assertFsck, git, gitRaw, ptermTry, write } from "../oracle.ts";

const SOURCES = ["git-sh-setup", "git-mergetool--lib", "git-submodule", "git-filter-branch", "git-bisect"]
  .map((name) => `/usr/lib/git-core/${name}`)
  .filter((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });

type Edit =
  | { kind: "change"; at: number; text: string }
  | { kind: "delete"; at: number; count: number }
  | { kind: "insert"; at: number; text: string }
  | { kind: "duplicate"; at: number; from: number; count: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constant("change" as const),
    at: fc.nat(10_000),
    text: fc.constantFrom("\tfi", "}", "", "x=1"),
  }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(10_000), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(10_000),
    text: fc.constantFrom("}", "", "\tfi", "y=2"),
  }),
  fc.record({
    kind: fc.constant("duplicate" as const),
    at: fc.nat(10_000),
    from: fc.nat(10_000),
    count: fc.integer({ min: 2, max: 8 }),
  }),
);

function applyEdits(lines: readonly string[], edits: readonly Edit[]): string[] {
  const out = [...lines];
  for (const edit of edits) {
    const at = edit.at % (out.length + 1);
    if (edit.kind === "change" && at < out.length) out[at] = `${out[at]} ${edit.text}`.trimEnd();
    else if (edit.kind === "delete") out.splice(at, edit.count);
    else if (edit.kind === "insert") out.splice(at, 0, edit.text);
    else if (edit.kind === "duplicate") {
      const from = edit.from % Math.max(1, out.length);
      out.splice(at, 0, ...out.slice(from, from + edit.count));
    }
  }
  return out;
}

const caseArb = fc.record({
  source: fc.nat(SOURCES.length - 1),
  window: fc.nat(10_000),
  ours: fc.array(editArb, { minLength: 1, maxLength: 5 }),
  theirs: fc.array(editArb, { minLength: 1, maxLength: 5 }),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
  style: fc.constantFrom("merge", "diff3", "zdiff3"),
  operation: fc.constantFrom("merge", "cherry-pick", "revert", "stash apply"),
});

/** Masks abbreviated commit ids in conflict-marker labels (the twins' commits differ). */
function masked(bytes: Uint8Array): string {
  return new TextDecoder("latin1").decode(bytes).replace(
    /^([<|>]{7} .*)$/gm,
    (line) => line.replace(/\b[0-9a-f]{7}\b/g, "X"),
  );
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const text = async (args: string[]) => (await gitRaw(dir, args)).stdout;
  return {
    file: masked(await Deno.readFile(`${dir}/f.sh`)),
    stages: await text(["ls-files", "--stage"]),
    unmerged: await text(["diff", "--name-only", "--diff-filter=U"]),
    status: await text(["status", "--porcelain=v1"]),
    head: await text(["rev-parse", "HEAD^{tree}"]),
  };
}

Deno.test("twin: merges, cherry-picks, reverts and stash applies of real files agree with git", async () => {
  assert.ok(SOURCES.length > 0, "git's shell scripts in /usr/lib/git-core");
  await fc.assert(
    fc.asyncProperty(caseArb, async (c) => {
      const all = (await Deno.readTextFile(SOURCES[c.source])).split("\n");
      const start = c.window % Math.max(1, all.length - 50);
      const base = all.slice(start, start + 50);
      const render = (lines: string[]) => {
        const eol = c.crlf ? "\r\n" : "\n";
        return lines.join(eol) + (c.finalNewline ? eol : "");
      };
      const ours = applyEdits(base, c.ours);
      const theirs = applyEdits(base, c.theirs);
      await using root = await makeRoot("pterm-xmerge-twin-");
      const p = `${root.path}/p`;
      const g = `${root.path}/g`;
      const init = await ptermTry(root.path, "git init --dir p --initial-branch main");
      assert.equal(init.exit_code, 0, init.stderr);
      await Deno.mkdir(g);
      await git(g, "init", "-q", "-b", "main");
      for (const dir of [p, g]) {
        await git(dir, "config", "merge.conflictStyle", c.style);
        await git(dir, "config", "core.autocrlf", "false");
      }
      /** Runs the step in both repositories; `pterm` is the pterm command line, `real` git's arguments. */
      const both = async (line: string, real: string[]) => {
        const mine = await ptermTry(root.path, line);
        const theirsRun = await gitRaw(g, real);
        return { mine, real: theirsRun };
      };
      const commit = async (text: string, message: string) => {
        await write(`${p}/f.sh`, text);
        await write(`${g}/f.sh`, text);
        for (
          const [line, args] of [
            ["git add --repo p --all", ["add", "-A"]],
            [`git commit --repo p -m ${message} --allow-empty`, ["commit", "-qm", message, "--allow-empty"]],
          ] as const
        ) {
          const step = await both(line, [...args]);
          assert.equal(step.mine.exit_code, 0, step.mine.stderr);
          assert.equal(step.real.code, 0, step.real.stderr);
        }
      };
      const ok = async (line: string, args: string[]) => {
        const step = await both(line, args);
        assert.equal(step.mine.exit_code, 0, step.mine.stderr);
        assert.equal(step.real.code, 0, step.real.stderr);
      };
      let result: Awaited<ReturnType<typeof both>>;
      await commit(render(base), "base");
      if (c.operation === "merge" || c.operation === "cherry-pick") {
        await ok("git branch --repo p other", ["branch", "other"]);
        await commit(render(ours), "ours");
        await ok("git checkout --repo p other", ["checkout", "-q", "other"]);
        await commit(render(theirs), "theirs");
        await ok("git checkout --repo p main", ["checkout", "-q", "main"]);
        result = c.operation === "merge"
          ? await both("git merge --repo p --branch other --no-ff -m merged", [
            "merge",
            "--no-ff",
            "-m",
            "merged",
            "other",
          ])
          : await both("git cherry-pick --repo p other", ["cherry-pick", "other"]);
      } else if (c.operation === "revert") {
        // Revert the commit that made "theirs" under a later commit that made "ours" on top of it.
        await commit(render(theirs), "theirs");
        await commit(render(applyEdits(theirs, c.ours)), "ours");
        result = await both("git revert --repo p --ref HEAD~1", ["revert", "--no-edit", "HEAD~1"]);
      } else {
        await write(`${p}/f.sh`, render(theirs));
        await write(`${g}/f.sh`, render(theirs));
        await ok("git stash push --repo p", ["stash", "push", "-q"]);
        await commit(render(ours), "ours");
        result = await both("git stash apply --repo p", ["stash", "apply"]);
      }
      const note = JSON.stringify({ ...c, pterm: result.mine.stderr, git: result.real.stdout + result.real.stderr });
      assert.equal(result.mine.exit_code === 0, result.real.code === 0, `same outcome: ${note}`);
      const [mine, real] = [await snapshot(p), await snapshot(g)];
      // Both stopped: on conflicts (then pterm says Conflict), or both refused (a stash of no change).
      if (result.mine.exit_code !== 0) {
        assert.equal(result.mine.error_code === "Conflict", real.unmerged.length > 0, note);
      }
      assert.deepEqual(mine, real, note);
      await assertFsck(p);
    }),
    { numRuns: Number(Deno.env.get("XMERGE_TWIN_RUNS") ?? 40) },
  );
});

Deno.test("twin: a merge.conflictStyle git does not know stops the merge in both, nothing changed", async () => {
  await using root = await makeRoot("pterm-xmerge-style-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  assert.equal((await ptermTry(root.path, "git init --dir p --initial-branch main")).exit_code, 0);
  await Deno.mkdir(g);
  await git(g, "init", "-q", "-b", "main");
  for (const dir of [p, g]) {
    await write(`${dir}/f.sh`, "a\nb\nc\n");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "branch", "other");
    await write(`${dir}/f.sh`, "a\nB\nc\n");
    await git(dir, "commit", "-qam", "ours");
    await git(dir, "checkout", "-q", "other");
    await write(`${dir}/f.sh`, "a\nb!\nc\n");
    await git(dir, "commit", "-qam", "theirs");
    await git(dir, "checkout", "-q", "main");
    await git(dir, "config", "merge.conflictStyle", "Diff3");
  }
  const before = await snapshot(p);
  const mine = await ptermTry(root.path, "git merge --repo p --branch other -m merged");
  const real = await gitRaw(g, ["merge", "-m", "merged", "other"]);
  assert.notEqual(real.code, 0);
  assert.match(real.stderr, /unknown style 'Diff3'/);
  assert.equal(mine.error_code, "InvalidConfig", mine.stderr);
  assert.match(mine.stderr, /merge\.conflictStyle/);
  assert.deepEqual(await snapshot(p), before);
  assert.deepEqual(await snapshot(g), before);
});

Deno.test("twin: a real merge from git's history (tests/fixtures/merge) merges cleanly in both, same bytes", async () => {
  const fixture = new URL("../../../fixtures/merge/git-environment-c/", import.meta.url);
  const [base, ours, theirs] = await Promise.all(
    ["base", "ours", "theirs"].map((name) => Deno.readFile(new URL(name, fixture))),
  );
  await using root = await makeRoot("pterm-xmerge-real-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  assert.equal((await ptermTry(root.path, "git init --dir p --initial-branch main")).exit_code, 0);
  await Deno.mkdir(g);
  await git(g, "init", "-q", "-b", "main");
  for (const dir of [p, g]) {
    await write(`${dir}/f.sh`, base);
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "branch", "other");
    await write(`${dir}/f.sh`, ours);
    await git(dir, "commit", "-qam", "ours");
    await git(dir, "checkout", "-q", "other");
    await write(`${dir}/f.sh`, theirs);
    await git(dir, "commit", "-qam", "theirs");
    await git(dir, "checkout", "-q", "main");
  }
  const mine = await ptermTry(root.path, "git merge --repo p --branch other -m merged");
  const real = await gitRaw(g, ["merge", "-q", "-m", "merged", "other"]);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(mine.exit_code, 0, mine.stderr);
  assert.deepEqual(await snapshot(p), await snapshot(g));
  await assertFsck(p);
});

Deno.test("twin: conflict-marker-size from .gitattributes sets the markers' length, as in git", async () => {
  await using root = await makeRoot("pterm-xmerge-size-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  assert.equal((await ptermTry(root.path, "git init --dir p --initial-branch main")).exit_code, 0);
  await Deno.mkdir(g);
  await git(g, "init", "-q", "-b", "main");
  for (const dir of [p, g]) {
    // git's own .gitattributes gives its test scripts 32-character markers.
    await write(`${dir}/.gitattributes`, "*.sh conflict-marker-size=32\n*.txt conflict-marker-size=0\n");
    await write(`${dir}/f.sh`, "a\nb\nc\n");
    await write(`${dir}/g.txt`, "a\nb\nc\n");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "branch", "other");
    await write(`${dir}/f.sh`, "a\nB\nc\n");
    await write(`${dir}/g.txt`, "a\nB\nc\n");
    await git(dir, "commit", "-qam", "ours");
    await git(dir, "checkout", "-q", "other");
    await write(`${dir}/f.sh`, "a\nb!\nc\n");
    await write(`${dir}/g.txt`, "a\nb!\nc\n");
    await git(dir, "commit", "-qam", "theirs");
    await git(dir, "checkout", "-q", "main");
    await git(dir, "config", "merge.conflictStyle", "diff3");
  }
  const mine = await ptermTry(root.path, "git merge --repo p --branch other -m merged");
  const real = await gitRaw(g, ["merge", "-m", "merged", "other"]);
  assert.equal(real.code, 1);
  assert.equal(mine.error_code, "Conflict", mine.stderr);
  assert.deepEqual(await snapshot(p), await snapshot(g));
  assert.match(await Deno.readTextFile(`${p}/f.sh`), /^<{32} HEAD$/m);
  assert.equal(await Deno.readTextFile(`${p}/g.txt`), await Deno.readTextFile(`${g}/g.txt`));
  assert.match(await Deno.readTextFile(`${p}/g.txt`), /^<{7} HEAD$/m);
});

Deno.test("twin: where git's histogram diff gives up (64 lines in one hash chain) both merges fail, nothing changed", async () => {
  // 8,320 different lines, then 66 of them again whose line numbers xhistogram.c hashes to one
  // bucket of a 128-slot table ((n + (n >> 7)) & 127 equal): the 65th new line overflows the chain.
  const lines = Array.from({ length: 8320 }, (_, i) => `D${i}\n`);
  const chain = Array.from({ length: 66 }, (_, q) => `D${128 * q + ((128 - q) % 128)}\n`);
  const base = [...lines, "SEP\n", ...chain].join("");
  const ours = [...lines, "SEP\n", "ours\n", ...chain.slice(0, -1), "tail\n"].join("");
  const theirs = [...lines, "SEP\n", ...chain, "theirs\n"].join("");
  await using root = await makeRoot("pterm-xmerge-limit-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  assert.equal((await ptermTry(root.path, "git init --dir p --initial-branch main")).exit_code, 0);
  await Deno.mkdir(g);
  await git(g, "init", "-q", "-b", "main");
  for (const dir of [p, g]) {
    await write(`${dir}/f.sh`, base);
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "branch", "other");
    await write(`${dir}/f.sh`, ours);
    await git(dir, "commit", "-qam", "ours");
    await git(dir, "checkout", "-q", "other");
    await write(`${dir}/f.sh`, theirs);
    await git(dir, "commit", "-qam", "theirs");
    await git(dir, "checkout", "-q", "main");
  }
  const before = await snapshot(p);
  const mine = await ptermTry(root.path, "git merge --repo p --branch other -m merged");
  const real = await gitRaw(g, ["merge", "-m", "merged", "other"]);
  assert.equal(real.code, 2, real.stderr);
  assert.match(real.stderr, /Failed to execute internal merge/);
  assert.equal(mine.error_code, "UnsupportedFormat", mine.stderr);
  assert.match(mine.stderr, /f\.sh: git's own merge fails/);
  assert.deepEqual(await snapshot(p), before);
  assert.deepEqual(await snapshot(g), before);
});

Deno.test("twin: reverting a commit whose change is not on HEAD commits nothing in both (found by the property above)", async () => {
  await using root = await makeRoot("pterm-xmerge-revert-");
  const p = `${root.path}/p`;
  const g = `${root.path}/g`;
  assert.equal((await ptermTry(root.path, "git init --dir p --initial-branch main")).exit_code, 0);
  await Deno.mkdir(g);
  await git(g, "init", "-q", "-b", "main");
  for (const dir of [p, g]) {
    await write(`${dir}/f.sh`, "a\nb\n");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "commit", "-q", "--allow-empty", "-m", "empty");
    await write(`${dir}/f.sh`, "b\n");
    await git(dir, "commit", "-qam", "ours");
  }
  const before = await snapshot(p);
  const mine = await ptermTry(root.path, "git revert --repo p --ref HEAD~1");
  const real = await gitRaw(g, ["revert", "--no-edit", "HEAD~1"]);
  assert.equal(real.code, 1);
  assert.equal(mine.error_code, "NothingToCommit", mine.stderr);
  for (const dir of [p, g]) {
    assert.deepEqual(await snapshot(dir), before);
    assert.equal((await git(dir, "rev-list", "--count", "HEAD")).trim(), "3");
    assert.match(await Deno.readTextFile(`${dir}/.git/MERGE_MSG`), /^Revert "empty"/);
  }
});
