/**
 * Lines agents type that pterm refused although git has them, now done as git does, each compared
 * with the real git: `git stash show [-p] [-u] [stash@{N}]`, `git remote get-url <name>` (after
 * url.<base>.insteadOf), and `git cherry-pick -x` (the origin line after a blank line, or straight
 * after a trailer block).
 */

import assert from "node:assert/strict";
import { git } from "./oracle.ts";
import { exec, makeRoot } from "../../_support/helpers.ts";

Deno.test("git stash show, remote get-url and cherry-pick -x as the real git", async (t) => {
  await using root = await makeRoot();
  const w = root.path;
  const mine = `${w}/mine`;
  await git(w, "init", "-q", "-b", "main", mine);
  await Deno.writeTextFile(`${mine}/a.txt`, "one\ntwo\n");
  await Deno.writeTextFile(`${mine}/gone.txt`, "bye\n");
  await git(mine, "add", "-A");
  await git(mine, "commit", "-q", "-m", "base");
  await git(w, "clone", "-q", mine, "theirs");
  const theirs = `${w}/theirs`;

  await t.step("git stash show: stat by default, -p, -u, --name-status, an older entry", async () => {
    for (const dir of [mine, theirs]) {
      await Deno.writeTextFile(`${dir}/a.txt`, "one\n2\n");
      await git(dir, "stash", "-q");
      await Deno.writeTextFile(`${dir}/a.txt`, "ONE\ntwo\nthree\n");
      await Deno.remove(`${dir}/gone.txt`);
      await Deno.writeTextFile(`${dir}/new.txt`, "untracked\n");
      await git(dir, "stash", "-q", "-u");
    }
    for (
      const [line, args] of [
        ["git stash show --repo mine", ["stash", "show"]],
        ["git stash show --repo mine -p", ["stash", "show", "-p"]],
        ["git stash show --repo mine -u --name-status", ["stash", "show", "-u", "--name-status"]],
        ["git stash show --repo mine -p -u", ["stash", "show", "-p", "-u"]],
        ["git stash show --repo mine stash@{1}", ["stash", "show", "stash@{1}"]],
        ["git stash show --repo mine -p 1", ["stash", "show", "-p", "1"]],
      ] as const
    ) {
      const ours = await exec(w, line);
      assert.equal(ours.exit_code, 0, `${line}: ${ours.stderr}`);
      assert.equal(ours.stdout, await git(theirs, ...args), line);
    }
    const missing = await exec(w, "git stash show --repo mine stash@{5}");
    assert.equal(missing.error_code, "NotFound");
  });

  await t.step("git remote get-url, with url.<base>.insteadOf", async () => {
    for (const dir of [mine, theirs]) {
      await git(dir, "remote", "add", "up", "gh:org/app.git");
      await git(dir, "config", "url.https://git.example.com/.insteadOf", "gh:");
    }
    const ours = await exec(w, "git remote --repo mine get-url up");
    assert.equal(ours.exit_code, 0, ours.stderr);
    assert.equal(ours.stdout, await git(theirs, "remote", "get-url", "up"));
    assert.equal((await exec(w, "git remote --repo mine get-url nowhere")).error_code, "NotFound");
  });

  await t.step("git cherry-pick -x: the origin line as git writes it", async () => {
    for (
      const [name, message] of [["plain", "plain change"], ["trailers", "with trailers\n\nSigned-off-by: A <a@x>"]]
    ) {
      for (const dir of [mine, theirs]) {
        await git(dir, "stash", "clear");
        await git(dir, "switch", "-q", "-c", name, "main");
        await Deno.writeTextFile(`${dir}/${name}.txt`, `${name}\n`);
        await git(dir, "add", `${name}.txt`);
        await git(dir, "commit", "-q", "-m", message);
        await git(dir, "switch", "-q", "main");
      }
      const ours = await exec(w, `git cherry-pick --repo mine -x ${name}`);
      assert.equal(ours.exit_code, 0, ours.stderr);
      await git(theirs, "cherry-pick", "-x", name);
      const body = async (dir: string) => await git(dir, "log", "-1", "--format=%B");
      // Each names its own picked commit (the twins' ids may differ); the rest is the same.
      const named = async (dir: string) =>
        (await body(dir)).replace((await git(dir, "rev-parse", name)).trim(), "<picked>");
      assert.equal(await named(mine), await named(theirs), name);
      assert.match(await body(mine), /\(cherry picked from commit [0-9a-f]{40}\)\n/);
    }
  });
});

Deno.test("git reflog [show] [<ref>] [-n N] prints git's lines", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await git(root.path, "init", "-q", "-b", "main", r);
  for (let i = 0; i < 3; i++) await git(r, "commit", "-q", "--allow-empty", "-m", `c${i}`);
  await git(r, "switch", "-q", "-c", "side");
  await git(r, "commit", "-q", "--allow-empty", "-m", "on side");
  await git(r, "switch", "-q", "--detach", "main~1");
  await git(r, "switch", "-q", "main");
  await git(r, "reset", "-q", "--hard", "HEAD~1");
  for (
    const [line, args] of [
      ["git reflog --repo r", ["reflog"]],
      ["git reflog --repo r show main", ["reflog", "show", "main"]],
      ["git reflog --repo r side -n 1", ["reflog", "side", "-n", "1"]],
      ["git reflog --repo r -2", ["reflog", "-2"]],
    ] as const
  ) {
    const ours = await exec(root.path, line);
    assert.equal(ours.exit_code, 0, `${line}: ${ours.stderr}`);
    assert.equal(ours.stdout, await git(r, ...args), line);
  }
  // A selector it prints names that commit, as git's does.
  const listed = await exec(root.path, "git reflog --repo r");
  const third = (listed.result as { entries: { selector: string; commit_id: string }[] }).entries[2];
  assert.equal((await git(r, "rev-parse", third.selector)).trim(), third.commit_id);
  assert.equal((await exec(root.path, "git reflog --repo r nowhere")).error_code, "NotFound");
});

Deno.test("git log -S / -G / --pickaxe-regex list the commits git lists", async () => {
  await using root = await makeRoot();
  const r = `${root.path}/r`;
  await git(root.path, "init", "-q", "-b", "main", r);
  const commit = async (message: string, files: Record<string, string | null>) => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) await git(r, "rm", "-q", path);
      else {
        await Deno.mkdir(`${r}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
        await Deno.writeTextFile(`${r}/${path}`, content);
        await git(r, "add", path);
      }
    }
    await git(r, "commit", "-q", "-m", message);
  };
  await commit("add foo", { "a.py": "def foo():\n    return 1\n" });
  await commit("call foo twice", { "b.py": "foo()\nfoo()\n" });
  await commit("reword a line", { "a.py": "def foo():\n    return 2\n" });
  await commit("move a file", { "a.py": null, "src/a.py": "def foo():\n    return 2\n" });
  await commit("Remove one FOO call", { "b.py": "foo()\n" });
  await commit("binary with foo", { "bin.dat": "foo\u0000foo\n" });
  await git(r, "switch", "-q", "-c", "side", "HEAD~2");
  await commit("side adds foo", { "c.py": "foo = 3\n" });
  await git(r, "switch", "-q", "main");
  await git(r, "merge", "-q", "--no-ff", "side", "-m", "merge side");
  for (
    const [flags, args] of [
      ["-S foo", ["-S", "foo"]],
      ["-S foo -i", ["-S", "foo", "-i"]],
      ['-S "return 2"', ["-S", "return 2"]],
      ['-S "fo+" --pickaxe-regex', ["-S", "fo+", "--pickaxe-regex"]],
      ['-G "^def "', ["-G", "^def "]],
      ["-G return", ["-G", "return"]],
      ["-S foo -- b.py", ["-S", "foo", "--", "b.py"]],
    ] as const
  ) {
    const ours = await exec(root.path, `git log --repo r --format=%s ${flags}`);
    assert.equal(ours.exit_code, 0, `${flags}: ${ours.stderr}`);
    assert.equal(ours.stdout, await git(r, "log", "--format=%s", ...args), `git log ${flags}`);
  }
});
