/**
 * A cherry-pick, revert or merge that stopped on conflicts is finished or given up as with the
 * real git: `--continue` (the prepared message; a cherry-pick keeps the picked commit's author),
 * `--abort` (HEAD's files back, other local changes kept), `--quit`, `--skip`, and `git commit`
 * without -m concluding it. Before, none of these flags existed (an agent's `git cherry-pick
 * --continue` was an unknown flag, the advice was `git reset --hard`, which also drops unrelated
 * changes), status said no operation was in progress during a cherry-pick, and a commit made to
 * conclude a cherry-pick took the current user as its author where git keeps the original one.
 * Every step runs in twin repositories (pterm in p/, the real git in g/) and is compared.
 */

import assert from "node:assert/strict";
import { git, gitRaw, ptermTry } from "../oracle.ts";
import { Twin } from "../twin.ts";

const ORIGINAL = "Original Author <original@example.com>";

/** Base file, a side branch changing line 2 (by ORIGINAL), main changing it otherwise: any pick conflicts. */
async function conflicted(twin: Twin): Promise<void> {
  await twin.write("f.txt", "1\n2\n3\n");
  await twin.write("other.txt", "other\n");
  await twin.run("git add --repo R --all", ["add", "-A"]);
  await twin.run('git commit --repo R -m "base"', ["commit", "-q", "-m", "base"]);
  await twin.run("git switch --repo R -c side", ["switch", "-q", "-c", "side"]);
  await twin.write("f.txt", "1\nTWO\n3\n");
  await twin.run(`git commit --repo R -a -m "side change" --author "${ORIGINAL}"`, [
    "commit",
    "-q",
    "-a",
    "-m",
    "side change",
    `--author=${ORIGINAL}`,
  ]);
  await twin.run("git switch --repo R main", ["switch", "-q", "main"]);
  await twin.write("f.txt", "1\nzwei\n3\n");
  await twin.run('git commit --repo R -a -m "main change"', ["commit", "-q", "-a", "-m", "main change"]);
}

const last = async (dir: string) => (await git(dir, "log", "-1", "--format=%an <%ae>|%s|%b|%T")).trim();
const reflog = async (dir: string) => (await git(dir, "reflog", "-1", "--format=%gs")).trim();

Deno.test("cherry-pick, revert and merge --continue/--abort/--quit/--skip as the real git", async (t) => {
  await t.step("cherry-pick: status says so; --continue keeps the picked commit's author and message", async () => {
    await using twin = await Twin.create();
    await conflicted(twin);
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "Conflict");
    const status = await twin.run("git status --repo R", ["status"]);
    assert.equal((status.result as { in_progress: string }).in_progress, "cherry-pick");
    const early = await twin.run("git cherry-pick --repo R --continue", ["cherry-pick", "--continue"], "Conflict");
    assert.match(early.stderr, /still in conflict: f\.txt/);
    await twin.write("f.txt", "1\nresolved\n3\n");
    await twin.run("git add --repo R --path f.txt", ["add", "f.txt"]);
    await twin.run("git cherry-pick --repo R --continue", ["cherry-pick", "--continue", "--no-edit"]);
    assert.equal(await last(twin.p), await last(twin.g));
    assert.match(await last(twin.p), /^Original Author/);
    assert.equal(await reflog(twin.p), await reflog(twin.g));
    await twin.compare("after --continue");
  });

  await t.step("cherry-pick --abort restores the picked files and keeps an unrelated change", async () => {
    await using twin = await Twin.create();
    await conflicted(twin);
    await twin.write("other.txt", "a local change nobody staged\n");
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "Conflict");
    await twin.run("git cherry-pick --repo R --abort", ["cherry-pick", "--abort"]);
    await twin.compare("after --abort");
    assert.equal(await Deno.readTextFile(`${twin.p}/other.txt`), "a local change nobody staged\n");
    await twin.run("git cherry-pick --repo R --abort", ["cherry-pick", "--abort"], "NotFound");
  });

  for (const kind of ["cherry-pick", "revert", "merge"] as const) {
    await t.step(`${kind} --continue after git stopped it: the # Conflicts: comments are not committed`, async () => {
      await using twin = await Twin.create();
      await conflicted(twin);
      const target = kind === "revert" ? ["HEAD"] : ["side"];
      if (kind === "revert") {
        await twin.write("f.txt", "1\nthird\n3\n");
        await twin.run('git commit --repo R -a -m "third"', ["commit", "-q", "-a", "-m", "third"]);
        target[0] = "HEAD~1";
      }
      // The person's git stops the operation in both twins: its MERGE_MSG carries the `# Conflicts:` block.
      for (const dir of [twin.p, twin.g]) {
        const stopped = await gitRaw(dir, [kind, ...(kind === "merge" ? [] : ["--no-edit"]), ...target]);
        assert.notEqual(stopped.code, 0);
        assert.match(await Deno.readTextFile(`${dir}/.git/MERGE_MSG`), /\n# Conflicts:\n#\tf\.txt\n/);
      }
      await twin.write("f.txt", "1\nresolved\n3\n");
      await twin.run("git add --repo R --path f.txt", ["add", "f.txt"]);
      await twin.run(`git ${kind} --repo R --continue`, ["-c", "core.editor=true", kind, "--continue"]);
      // The twins' commits differ by committer: ids are masked.
      const message = async (dir: string) => (await git(dir, "log", "-1", "--format=%B")).replace(/[0-9a-f]{40}/g, "X");
      assert.equal(await message(twin.p), await message(twin.g));
      assert.doesNotMatch(await message(twin.p), /#/);
      assert.equal(await reflog(twin.p), await reflog(twin.g));
      await twin.compare(`after ${kind} --continue`);
    });
  }

  await t.step("each kind of stop writes git's MERGE_MSG, its # Conflicts: block included", async () => {
    const stops: [string, string[], string][] = [
      ["git merge --repo R side", ["merge", "side"], "Conflict"],
      ["git cherry-pick --repo R side", ["cherry-pick", "side"], "Conflict"],
      ["git cherry-pick --repo R --no-commit side", ["cherry-pick", "--no-commit", "side"], "Conflict"],
      ["git revert --repo R HEAD~1", ["revert", "--no-edit", "HEAD~1"], "Conflict"],
    ];
    for (const [line, args, code] of stops) {
      await using twin = await Twin.create();
      await conflicted(twin);
      // Two more conflicted files, named so that index order is not the order of plain string comparison.
      for (const [side, text] of [["side", "theirs"], ["main", "ours"]] as const) {
        await twin.run(`git switch --repo R ${side}`, ["switch", "-q", side]);
        await twin.write("a-b.txt", `${text}\n`);
        await twin.write("a/b.txt", `${text}\n`);
        await twin.run("git add --repo R --all", ["add", "-A"]);
        await twin.run(`git commit --repo R -m "${side} files"`, ["commit", "-q", "-m", `${side} files`]);
      }
      if (args[0] === "revert") {
        // The files "main files" added are changed after it: reverting it conflicts (modify/delete).
        await twin.write("a-b.txt", "later\n");
        await twin.write("a/b.txt", "later\n");
        await twin.run('git commit --repo R -a -m "later"', ["commit", "-q", "-a", "-m", "later"]);
      }
      const p = await ptermTry(twin.root.path, line.replace(/ R\b/, " p"));
      const g = await gitRaw(twin.g, args);
      assert.equal(p.error_code, code, p.stderr);
      assert.equal(g.code, 1, g.stderr);
      // git's text of the stop, byte for byte (the twins' commit ids differ): stdout, then stderr before pterm's error.
      const ids = (text: string) => text.replace(/\b[0-9a-f]{7,40}\b/g, "<id>");
      assert.equal(ids(p.stdout), ids(g.stdout), `${line}: stdout`);
      assert.match(g.stdout, /^CONFLICT \(/m);
      assert.equal(ids(p.stderr.slice(0, g.stderr.length)), ids(g.stderr), `${line}: stderr`);
      assert.match(p.stderr.slice(g.stderr.length), /^\[Error\] /, line);
      const prepared = async (dir: string) =>
        (await Deno.readTextFile(`${dir}/.git/MERGE_MSG`)).replace(/[0-9a-f]{40}/g, "X");
      assert.equal(await prepared(twin.p), await prepared(twin.g), line);
      assert.match(await prepared(twin.p), /\n# Conflicts:\n#\ta-b\.txt\n/, line);
    }
  });

  await t.step("git commit without -m concludes a cherry-pick as git commit with its editor left as is", async () => {
    await using twin = await Twin.create();
    await conflicted(twin);
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "Conflict");
    await twin.write("f.txt", "1\nboth\n3\n");
    await twin.run("git add --repo R --path f.txt", ["add", "f.txt"]);
    // pterm opens no editor: the prepared message as git's editor would save it (comments stripped).
    await twin.run("git commit --repo R", ["-c", "core.editor=true", "commit"]);
    assert.equal(await last(twin.p), await last(twin.g));
    assert.equal(await reflog(twin.p), await reflog(twin.g));
    await twin.compare("after commit");
  });

  await t.step("--skip drops the pick; --quit forgets it and keeps the conflicted files", async () => {
    await using twin = await Twin.create();
    await conflicted(twin);
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "Conflict");
    await twin.run("git cherry-pick --repo R --skip", ["cherry-pick", "--skip"]);
    await twin.compare("after --skip");
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "Conflict");
    await twin.run("git cherry-pick --repo R --quit", ["cherry-pick", "--quit"]);
    const state = async (dir: string) => (await gitRaw(dir, ["status", "--porcelain=v2"])).stdout;
    assert.equal(await state(twin.p), await state(twin.g));
    const status = await twin.run("git status --repo R", ["status"]);
    assert.equal((status.result as { in_progress: string | null }).in_progress, null);
  });

  await t.step("a pick resolved to HEAD's files is empty: --continue refuses it, --skip drops it", async () => {
    await using twin = await Twin.create();
    await conflicted(twin);
    await twin.run("git cherry-pick --repo R side", ["cherry-pick", "side"], "Conflict");
    await twin.write("f.txt", "1\nzwei\n3\n");
    await twin.run("git add --repo R --path f.txt", ["add", "f.txt"]);
    const empty = await twin.run(
      "git cherry-pick --repo R --continue",
      ["cherry-pick", "--continue", "--no-edit"],
      "NothingToCommit",
    );
    assert.match(empty.stderr, /git cherry-pick --skip/);
    await twin.run("git cherry-pick --repo R --skip", ["cherry-pick", "--skip"]);
    await twin.compare("after --skip of an empty pick");
  });

  await t.step("revert --continue: git's message, the current author", async () => {
    await using twin = await Twin.create();
    await conflicted(twin);
    await twin.run("git merge --repo R side", ["merge", "side"], "Conflict");
    await twin.run("git merge --repo R --abort", ["merge", "--abort"]);
    await twin.write("f.txt", "1\nthird\n3\n");
    await twin.run('git commit --repo R -a -m "third"', ["commit", "-q", "-a", "-m", "third"]);
    await twin.run("git revert --repo R HEAD~1", ["revert", "--no-edit", "HEAD~1"], "Conflict");
    const status = await twin.run("git status --repo R", ["status"]);
    assert.equal((status.result as { in_progress: string }).in_progress, "revert");
    await twin.write("f.txt", "1\n2\n3\n");
    await twin.run("git add --repo R --path f.txt", ["add", "f.txt"]);
    await twin.run("git revert --repo R --continue", ["revert", "--continue", "--no-edit"]);
    // The author is whoever runs it (the twins' identities differ): compare the rest.
    const body = async (dir: string) => (await last(dir)).replace(/[0-9a-f]{40}/g, "X").replace(/^[^|]*/, "");
    assert.equal(await body(twin.p), await body(twin.g));
    assert.doesNotMatch(await last(twin.p), /^Original Author/);
    assert.equal(await reflog(twin.p), await reflog(twin.g));
    await twin.compare("after revert --continue");
  });

  await t.step("merge --continue makes the merge commit with the prepared message", async () => {
    await using twin = await Twin.create();
    await conflicted(twin);
    await twin.run("git merge --repo R side", ["merge", "side"], "Conflict");
    await twin.write("f.txt", "1\nmerged\n3\n");
    await twin.run("git add --repo R --path f.txt", ["add", "f.txt"]);
    await twin.run("git merge --repo R --continue", ["-c", "core.editor=true", "merge", "--continue"]);
    const withoutAuthor = async (dir: string) => (await last(dir)).replace(/^[^|]*/, "");
    assert.equal(await withoutAuthor(twin.p), await withoutAuthor(twin.g));
    assert.equal(await reflog(twin.p), await reflog(twin.g));
    await twin.compare("after merge --continue");
  });
});

Deno.test("git merge --squash stages the branch as one change; git commit takes git's prepared message", async (t) => {
  for (const shape of ["diverged", "fast-forward", "conflict"] as const) {
    await t.step(shape, async () => {
      await using twin = await Twin.create();
      await twin.write("f.txt", "1\n2\n3\n");
      await twin.run("git add --repo R --all", ["add", "-A"]);
      await twin.run('git commit --repo R -m "base"', ["commit", "-q", "-m", "base"]);
      await twin.run("git switch --repo R -c feature", ["switch", "-q", "-c", "feature"]);
      await twin.write("g.txt", "feature file\n");
      await twin.run("git add --repo R --path g.txt", ["add", "g.txt"]);
      await twin.run('git commit --repo R -m "feature one" -m "with a body"', [
        "commit",
        "-q",
        "-m",
        "feature one",
        "-m",
        "with a body",
      ]);
      if (shape === "conflict") await twin.write("f.txt", "1\nfeature\n3\n");
      else await twin.write("h.txt", "second\n");
      await twin.run("git add --repo R --all", ["add", "-A"]);
      await twin.run('git commit --repo R -m "feature two"', ["commit", "-q", "-m", "feature two"]);
      await twin.run("git switch --repo R main", ["switch", "-q", "main"]);
      if (shape !== "fast-forward") {
        await twin.write("f.txt", shape === "conflict" ? "1\nmain\n3\n" : "1\n2\n3\nmain\n");
        await twin.run('git commit --repo R -a -m "main work"', ["commit", "-q", "-a", "-m", "main work"]);
      }
      const head = async (dir: string) => (await git(dir, "rev-parse", "HEAD^{tree}")).trim();
      const before = await head(twin.p);
      if (shape === "conflict") {
        await twin.run("git merge --repo R --squash feature", ["merge", "--squash", "feature"], "Conflict");
        await twin.write("f.txt", "1\nresolved\n3\n");
        await twin.run("git add --repo R --path f.txt", ["add", "f.txt"]);
      } else {
        const squashed = await twin.run("git merge --repo R --squash feature", ["merge", "--squash", "feature"]);
        assert.equal((squashed.result as { outcome: string }).outcome, "squashed");
      }
      assert.equal(await head(twin.p), before, "HEAD did not move");
      const state = async (dir: string) => (await gitRaw(dir, ["status", "--porcelain"])).stdout;
      assert.equal(await state(twin.p), await state(twin.g));
      await twin.run("git commit --repo R", ["-c", "core.editor=true", "commit", "-q"]);
      const made = async (dir: string) =>
        (await git(dir, "log", "-1", "--format=%P%n%B")).replace(/[0-9a-f]{40}/g, "X").replace(/Date: .*/g, "Date")
          .replace(/Author: .*/g, "Author");
      assert.equal(await made(twin.p), await made(twin.g));
      await twin.compare(`after the squash commit (${shape})`);
    });
  }
});

Deno.test("a merge, cherry-pick or revert with files in its way prints git's lines first and changes nothing", async (t) => {
  const runs: [string, string[], string][] = [
    ["git cherry-pick --repo p side", ["cherry-pick", "side"], "fatal: cherry-pick failed\n"],
    ["git merge --repo p side", ["merge", "side"], "Merge with strategy ort failed.\n"],
    ["git revert --repo p HEAD", ["revert", "--no-edit", "HEAD"], "fatal: revert failed\n"],
  ];
  for (const [line, args, closing] of runs) {
    await t.step(line, async () => {
      await using twin = await Twin.create();
      await twin.write("f.txt", "1\n2\n3\n");
      await twin.write("g.txt", "g\n");
      await twin.run("git add --repo R --all", ["add", "-A"]);
      await twin.run('git commit --repo R -m "base"', ["commit", "-q", "-m", "base"]);
      await twin.run("git switch --repo R -c side", ["switch", "-q", "-c", "side"]);
      await twin.write("f.txt", "1\nside\n3\n");
      await twin.write("new.txt", "side's new file\n");
      await twin.write("z/new.txt", "side's other new file\n");
      await twin.run("git add --repo R --all", ["add", "-A"]);
      await twin.run('git commit --repo R -m "side"', ["commit", "-q", "-m", "side"]);
      await twin.run("git switch --repo R main", ["switch", "-q", "main"]);
      await twin.write("g.txt", "main\n");
      await twin.run('git commit --repo R -a -m "main"', ["commit", "-q", "-a", "-m", "main"]);
      if (args[0] === "revert") {
        // Reverting side (merged here) puts back what the person's files now differ from.
        await twin.run("git merge --repo R side", ["merge", "-q", "--no-edit", "side"]);
        await twin.run("git switch --repo R side", ["switch", "-q", "side"]);
        await twin.write("f.txt", "1\nlocal edit\n3\n");
      } else {
        // A local edit to a file the change touches, untracked files where it adds its own.
        await twin.write("f.txt", "1\nlocal edit\n3\n");
        await twin.write("new.txt", "the person's own file\n");
        await twin.write("z/new.txt", "the person's other file\n");
      }
      const before = await worktreeState(twin);
      const p = await ptermTry(twin.root.path, line);
      const g = await gitRaw(twin.g, args);
      assert.notEqual(g.code, 0);
      assert.equal(p.error_code, "UncommittedChanges", p.stderr);
      assert.match(g.stderr, /^error: /);
      assert.ok(g.stderr.endsWith(`Aborting\n${closing}`), g.stderr);
      assert.equal(p.stderr.slice(0, g.stderr.length), g.stderr, line);
      assert.match(p.stderr.slice(g.stderr.length), /^\[Error\] /);
      assert.equal(p.stdout, g.stdout);
      assert.deepEqual(await worktreeState(twin), before, "nothing changed");
      await twin.compare(`after ${line}`);
    });
  }
});

/** The work tree files and status of both twins. */
async function worktreeState(twin: Twin): Promise<string[]> {
  const out: string[] = [];
  for (const dir of [twin.p, twin.g]) {
    out.push((await gitRaw(dir, ["status", "--porcelain=v2", "-uall"])).stdout);
    for (const path of ["f.txt", "new.txt", "z/new.txt"]) {
      out.push(await Deno.readTextFile(`${dir}/${path}`).catch(() => "(absent)"));
    }
  }
  return out;
}
