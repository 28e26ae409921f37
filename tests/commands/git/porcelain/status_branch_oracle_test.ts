/**
 * `git status -sb` / `--porcelain -b`: git's `## main...origin/main [ahead 1, behind 2]` line,
 * compared with the real git's byte for byte: no upstream, up to date, ahead, behind, diverged,
 * gone (the remote branch pruned), a local upstream, a detached HEAD, an unborn branch; and the
 * long status's sentence and `result.upstream`. `-b` was accepted and printed nothing: an agent's
 * `git status -sb` on a clean tree came back empty, where git says where the branch stands.
 */

import assert from "node:assert/strict";
import { git, gitRaw } from "../oracle.ts";
import { exec, makeRoot } from "../../../_support/helpers.ts";

Deno.test("git status -sb and the upstream as git reports them", async (t) => {
  await using root = await makeRoot();
  const w = root.path;
  await git(w, "init", "-q", "--bare", "-b", "main", "srv.git");
  await git(w, "clone", "-q", "srv.git", "seed");
  for (let i = 0; i < 3; i++) await git(`${w}/seed`, "commit", "-q", "--allow-empty", "-m", `base ${i}`);
  await git(`${w}/seed`, "branch", "doomed");
  await git(`${w}/seed`, "push", "-q", "origin", "main", "doomed");
  await git(w, "clone", "-q", "srv.git", "r");
  const r = `${w}/r`;

  const same = async (note: string) => {
    for (
      const [line, args] of [
        ["git status --repo r -sb", ["status", "-sb"]],
        ["git status --repo r --porcelain -b", ["status", "--porcelain", "-b"]],
      ] as const
    ) {
      const ours = await exec(w, line);
      assert.equal(ours.exit_code, 0, ours.stderr);
      assert.equal(ours.stdout, await git(r, ...args), `${note}: ${line}`);
    }
    return (await exec(w, "git status --repo r")).result as { upstream: unknown };
  };
  const longSentence = async () => {
    const lines = (await exec(w, "git status --repo r")).stdout.split("\n");
    const ours = lines.slice(1, lines[1].includes("diverged") ? 3 : 2).join("\n");
    assert.ok((await git(r, "status")).includes(ours), `git's long status says: ${ours}`);
  };

  await t.step("up to date, ahead, behind, diverged", async () => {
    assert.deepEqual((await same("up to date")).upstream, { name: "origin/main", ahead: 0, behind: 0, gone: false });
    await longSentence();
    await git(r, "commit", "-q", "--allow-empty", "-m", "mine");
    assert.deepEqual((await same("ahead")).upstream, { name: "origin/main", ahead: 1, behind: 0, gone: false });
    await longSentence();
    await git(`${w}/seed`, "commit", "-q", "--allow-empty", "-m", "theirs 1");
    await git(`${w}/seed`, "commit", "-q", "--allow-empty", "-m", "theirs 2");
    await git(`${w}/seed`, "push", "-q", "origin", "main");
    await git(r, "fetch", "-q");
    assert.deepEqual((await same("diverged")).upstream, { name: "origin/main", ahead: 1, behind: 2, gone: false });
    await longSentence();
    await git(r, "reset", "-q", "--hard", "HEAD~1");
    await same("behind");
    await longSentence();
  });

  await t.step("status.aheadBehind=false: [different], no walk (--porcelain still counts, as git)", async () => {
    await git(r, "commit", "-q", "--allow-empty", "-m", "mine again");
    await git(r, "config", "status.aheadBehind", "false");
    assert.deepEqual((await same("aheadBehind=false")).upstream, {
      name: "origin/main",
      ahead: null,
      behind: null,
      gone: false,
    });
    await longSentence();
    await git(r, "config", "--unset", "status.aheadBehind");
  });

  await t.step("gone, local upstream, no upstream, files listed after the line", async () => {
    await git(r, "switch", "-q", "doomed");
    await git(`${w}/seed`, "push", "-q", "origin", "--delete", "doomed");
    await git(r, "fetch", "-q", "--prune");
    assert.deepEqual((await same("gone")).upstream, { name: "origin/doomed", ahead: 0, behind: 0, gone: true });
    await longSentence();
    await git(r, "switch", "-q", "-c", "local-up", "--track", "main");
    await Deno.writeTextFile(`${r}/new.txt`, "x\n");
    await same("local upstream, an untracked file");
    await git(r, "switch", "-q", "-c", "loner", "--no-track");
    assert.equal((await same("no upstream")).upstream, null);
  });

  await t.step("detached HEAD and an unborn branch", async () => {
    await git(r, "switch", "-q", "--detach", "HEAD~1");
    await same("detached");
    await git(r, "switch", "-q", "--orphan", "fresh");
    await same("unborn");
  });
});

Deno.test("ahead/behind on random histories with merges and same-second commits, against git", async () => {
  await using root = await makeRoot();
  let seed = 20261124;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let run = 0; run < 40; run++) {
    const r = `${root.path}/h${run}`;
    await git(root.path, "init", "-q", "-b", "main", r);
    // A random DAG through fast-import: each commit has one or two earlier parents; dates repeat.
    const marks: number[] = [];
    let stream = "";
    const count = 10 + random(40);
    for (let i = 1; i <= count; i++) {
      const parents = i === 1 ? [] : [1 + random(i - 1), ...(random(4) === 0 ? [1 + random(i - 1)] : [])];
      const date = 1_700_000_000 + random(2) * 60;
      stream += `commit refs/heads/c${i}\nmark :${i}\ncommitter T <t@x> ${date} +0000\ndata ${`c${i}`.length}\nc${i}\n`;
      if (parents.length) stream += `from :${parents[0]}\n`;
      for (const extra of parents.slice(1)) if (extra !== parents[0]) stream += `merge :${extra}\n`;
      stream += "\n";
      marks.push(i);
    }
    const imported = await gitRaw(r, ["fast-import", "--quiet"], stream);
    assert.equal(imported.code, 0, imported.stderr);
    const a = 1 + random(count);
    const b = 1 + random(count);
    await git(r, "symbolic-ref", "HEAD", `refs/heads/c${a}`);
    await git(r, "config", `branch.c${a}.remote`, ".");
    await git(r, "config", `branch.c${a}.merge`, `refs/heads/c${b}`);
    const ours = await exec(root.path, `git status --repo h${run} -sb --untracked-files=no`);
    // The index is empty (fast-import wrote no work tree): only the first line is compared.
    assert.equal(
      ours.stdout.split("\n")[0],
      (await git(r, "status", "-sb", "--untracked-files=no")).split("\n")[0],
      `run ${run}: c${a} against c${b}`,
    );
  }
});
