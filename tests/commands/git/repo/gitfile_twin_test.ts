/**
 * Repositories whose `.git` is a file — submodules (`git submodule add`, `git clone
 * --recurse-submodules`: the git folder in the superproject's `.git/modules/<name>`) and linked
 * worktrees (`git worktree add`: `.git/worktrees/<name>` plus `commondir`) — built by real git in
 * two identical workspaces. pterm works in one, real git does the same in the other, and after
 * each step both repositories must agree on everything observable (trees, status, files, refs,
 * HEAD, history, stash); `git fsck --strict` must stay clean. The superproject's status is checked
 * against `git status --porcelain=v2` with submodules modified, with untracked files, at another
 * commit, nested.
 */

import assert from "node:assert/strict";
import { makeRoot, type TempDir } from "../../../_support/helpers.ts";
import { assertFsck, git, gitRaw, porcelainFiles, pterm, ptermTry, result, write } from "../oracle.ts";
import { worktreeFiles } from "../twin.ts";

const FILE_PROTOCOL = ["-c", "protocol.file.allow=always"];

/** Two workspaces built by the same real-git script; commit ids agree (fixed dates). */
class Pair implements AsyncDisposable {
  constructor(readonly p: TempDir, readonly g: TempDir) {}

  static async create(build: (root: string) => Promise<void>): Promise<Pair> {
    const pair = new Pair(await makeRoot("pterm-gitfile-p-"), await makeRoot("pterm-gitfile-g-"));
    await build(pair.p.path);
    await build(pair.g.path);
    return pair;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.p[Symbol.asyncDispose]();
    await this.g[Symbol.asyncDispose]();
  }

  async write(path: string, text: string): Promise<void> {
    await write(`${this.p.path}/${path}`, text);
    await write(`${this.g.path}/${path}`, text);
  }

  /** pterm's `line` in p, real git's `args` in g at `repo`; both succeed, or both fail (pterm with `failCode`). */
  async run(repo: string, line: string, args: string[], failCode?: string) {
    const envelope = await ptermTry(this.p.path, line);
    const real = await gitRaw(`${this.g.path}/${repo}`, args);
    if (failCode) {
      assert.equal(envelope.error_code, failCode, `pterm \`${line}\`: ${envelope.stderr}`);
      assert.notEqual(real.code, 0, `git ${args.join(" ")} was expected to fail too:\n${real.stdout}`);
    } else {
      assert.equal(envelope.exit_code, 0, `pterm \`${line}\` failed: ${envelope.stderr}`);
      assert.equal(real.code, 0, `git ${args.join(" ")} failed: ${real.stderr}`);
    }
    return envelope;
  }

  /** The repository at `repo` agrees in both workspaces. */
  async compare(repo: string, note: string): Promise<void> {
    const p = `${this.p.path}/${repo}`;
    const g = `${this.g.path}/${repo}`;
    const both = async (f: (dir: string) => Promise<unknown>, what: string) =>
      assert.deepEqual(await f(p), await f(g), `${what} of ${repo} ${note}`);
    await both(async (d) => (await gitRaw(d, ["rev-parse", "HEAD^{tree}"])).stdout.trim(), "HEAD tree");
    await both(porcelainFiles, "status");
    await both(worktreeFiles, "work tree");
    await both(async (d) => (await git(d, "for-each-ref", "--format=%(refname) %(objecttype)")).trim(), "refs");
    await both(async (d) => (await gitRaw(d, ["symbolic-ref", "-q", "HEAD"])).stdout.trim(), "HEAD");
    await both(async (d) =>
      (await git(d, "log", "--format=%T %s %P", "--all")).split("\n")
        .map((l) => l.replace(/ [0-9a-f]{40}/g, " P").replace(/\b[0-9a-f]{7}\b/g, "X")).sort().join("\n"), "history");
    await both(
      async (d) => (await gitRaw(d, ["stash", "list", "--format=%gs %T"])).stdout.replace(/\b[0-9a-f]{7}\b/g, "X"),
      "stash",
    );
    await assertFsck(p);
  }
}

/** `git status --porcelain=v2` as "XY sub path" (untracked as "?? path"), sorted. */
async function porcelainV2(dir: string, untracked = "all"): Promise<string[]> {
  const text = await git(dir, "status", "--porcelain=v2", `--untracked-files=${untracked}`, "--no-renames");
  return text.split("\n").filter((l) => l).map((line) => {
    if (line.startsWith("? ")) return `?? ${line.slice(2)}`;
    const parts = line.split(" ");
    return `${parts[1]} ${parts[2]} ${parts.slice(8).join(" ")}`;
  }).sort();
}

/** pterm's status result in the same form. */
async function ptermV2(root: string, repo: string, extra = ""): Promise<string[]> {
  const files = result(await pterm(root, `git status --repo ${repo} ${extra}`)).files as {
    path: string;
    xy: string;
    submodule?: string;
  }[];
  return files.map((f) => f.xy === "??" ? `?? ${f.path}` : `${f.xy} ${f.submodule ?? "N..."} ${f.path}`).sort();
}

/** A library repository with two files, and a superproject that adds it as the submodule `lib`. */
async function buildSuperproject(root: string): Promise<void> {
  await git(root, "init", "-q", "-b", "main", "libsrc");
  await write(`${root}/libsrc/a.txt`, "a\n");
  await write(`${root}/libsrc/b.txt`, "one\ntwo\nthree\n");
  await git(`${root}/libsrc`, "add", "-A");
  await git(`${root}/libsrc`, "commit", "-qm", "lib base");
  await git(root, "init", "-q", "-b", "main", "super");
  await write(`${root}/super/s.txt`, "s\n");
  await git(`${root}/super`, "add", "-A");
  await git(`${root}/super`, "commit", "-qm", "super base");
  await git(`${root}/super`, ...FILE_PROTOCOL, "submodule", "add", "-q", "../libsrc", "lib");
  await git(`${root}/super`, "commit", "-qm", "add lib");
}

Deno.test("submodule (git submodule add): pterm works inside it as git does — status, add, commit, log, diff, branch, checkout, merge, stash", async () => {
  await using pair = await Pair.create(buildSuperproject);
  const lib = "super/lib";
  // The shape real git made: a gitfile, the git folder in the superproject, core.worktree back.
  assert.equal((await Deno.readTextFile(`${pair.p.path}/${lib}/.git`)).trim(), "gitdir: ../.git/modules/lib");
  await pair.compare(lib, "at the start");
  // git init there: already a repository (its gitfile is followed, nothing is written into it).
  const init = result(await pterm(pair.p.path, `git init --dir ${lib}`));
  assert.equal(init.created, false);
  assert.equal(init.initial_branch, "main");
  // rev-parse --git-dir names the git folder the gitfile leads to (from the root; git prints it absolute).
  const gitDir = (await pterm(pair.p.path, `git rev-parse --repo ${lib} --git-dir`)).stdout.trim();
  assert.equal(
    `${pair.g.path}/${gitDir}`,
    (await git(`${pair.g.path}/${lib}`, "rev-parse", "--absolute-git-dir")).trim(),
  );

  await pair.write(`${lib}/a.txt`, "a changed\n");
  await pair.write(`${lib}/new.txt`, "new\n");
  assert.deepEqual(await ptermV2(pair.p.path, lib), await porcelainV2(`${pair.g.path}/${lib}`));
  const diff = await pair.run(lib, `git diff --repo ${lib}`, ["diff"]);
  assert.equal(diff.stdout, await git(`${pair.g.path}/${lib}`, "diff"), "the same patch");

  await pair.run(lib, `git add --repo ${lib} -A`, ["add", "-A"]);
  await pair.compare(lib, "after add -A");
  await pair.run(lib, `git commit --repo ${lib} -m change`, ["commit", "-qm", "change"]);
  await pair.compare(lib, "after commit");
  const log = result(await pterm(pair.p.path, `git log --repo ${lib}`)).commits.map((c: { subject: string }) =>
    c.subject
  );
  assert.deepEqual(log, (await git(`${pair.g.path}/${lib}`, "log", "--format=%s")).trim().split("\n"));

  await pair.run(lib, `git checkout --repo ${lib} -b topic`, ["checkout", "-q", "-b", "topic"]);
  await pair.write(`${lib}/b.txt`, "one\ntwo\nthree\nfour\n");
  await pair.run(lib, `git commit --repo ${lib} -am topic-work`, ["commit", "-qam", "topic-work"]);
  await pair.run(lib, `git checkout --repo ${lib} main`, ["checkout", "-q", "main"]);
  await pair.write(`${lib}/a.txt`, "a on main\n");
  await pair.run(lib, `git commit --repo ${lib} -am main-work`, ["commit", "-qam", "main-work"]);
  await pair.run(lib, `git merge --repo ${lib} topic -m merge-topic`, ["merge", "-q", "topic", "-m", "merge-topic"]);
  await pair.compare(lib, "after merge");
  await pair.run(lib, `git branch --repo ${lib} -d topic`, ["branch", "-q", "-d", "topic"]);

  await pair.write(`${lib}/a.txt`, "stashed edit\n");
  await pair.run(lib, `git stash --repo ${lib}`, ["stash", "-q"]);
  await pair.compare(lib, "after stash");
  await pair.run(lib, `git stash pop --repo ${lib}`, ["stash", "pop", "-q"]);
  await pair.compare(lib, "after stash pop");

  // The superproject sees the submodule at another commit and with modified content, as git does.
  assert.deepEqual(await ptermV2(pair.p.path, "super"), await porcelainV2(`${pair.g.path}/super`));
  await pair.compare("super", "the superproject, after all that");
  // Nothing of the submodule's state went into the superproject's own git files.
  assert.equal(
    await git(`${pair.p.path}/super`, "rev-parse", "HEAD"),
    await git(`${pair.g.path}/super`, "rev-parse", "HEAD"),
  );
});

Deno.test("superproject status, diff, add and commit -a with a submodule modified, with untracked files, at another commit, nested (git clone --recurse-submodules)", async () => {
  const build = async (root: string) => {
    // inner ← lib ← super, each a submodule of the next; then a recursive clone of super.
    for (const name of ["innersrc", "libsrc", "supersrc"]) await git(root, "init", "-q", "-b", "main", name);
    await write(`${root}/innersrc/i.txt`, "inner\n");
    await git(`${root}/innersrc`, "add", "-A");
    await git(`${root}/innersrc`, "commit", "-qm", "inner base");
    await write(`${root}/libsrc/a.txt`, "a\n");
    await git(`${root}/libsrc`, "add", "-A");
    await git(`${root}/libsrc`, ...FILE_PROTOCOL, "submodule", "add", "-q", "../innersrc", "inner");
    await git(`${root}/libsrc`, "commit", "-qm", "lib base");
    await write(`${root}/supersrc/s.txt`, "s\n");
    await git(`${root}/supersrc`, "add", "-A");
    await git(`${root}/supersrc`, ...FILE_PROTOCOL, "submodule", "add", "-q", "../libsrc", "lib");
    await git(`${root}/supersrc`, "commit", "-qm", "super base");
    await git(root, ...FILE_PROTOCOL, "clone", "-q", "--recurse-submodules", "supersrc", "super");
  };
  await using pair = await Pair.create(build);
  const g = `${pair.g.path}/super`;
  assert.equal((await Deno.readTextFile(`${g}/lib/inner/.git`)).trim(), "gitdir: ../../.git/modules/lib/modules/inner");

  const check = async (note: string) => {
    for (const untracked of ["all", "no"]) {
      const extra = untracked === "no" ? "--untracked-files no" : "";
      assert.deepEqual(
        await ptermV2(pair.p.path, "super", extra),
        await porcelainV2(g, untracked),
        `${note} (-u${untracked})`,
      );
    }
    // git diff of the submodule path: `Subproject commit X-dirty` for modified content only.
    const diff = await pterm(pair.p.path, "git diff --repo super");
    assert.equal(diff.stdout, await git(g, "diff"), `diff ${note}`);
    const stat = await pterm(pair.p.path, "git diff --repo super --stat");
    assert.equal(stat.stdout, await git(g, "diff", "--stat"), `diff --stat ${note}`);
  };
  await check("clean");
  assert.equal(result(await pterm(pair.p.path, "git status --repo super")).is_clean, true);

  await pair.write("super/lib/u.txt", "untracked in lib\n");
  await check("untracked content");
  const short = await pterm(pair.p.path, "git status --repo super -s");
  assert.equal(short.stdout, await git(g, "status", "--short"), "--short: ` ? lib`");
  assert.equal(result(short).is_clean, false, "not clean: git says ` M lib` / ` ? lib`");

  await pair.write("super/lib/a.txt", "a modified\n");
  await check("modified and untracked content");
  assert.equal((await pterm(pair.p.path, "git status --repo super -s")).stdout, await git(g, "status", "--short"));
  assert.equal(
    (await pterm(pair.p.path, "git status --repo super --porcelain")).stdout,
    await git(g, "status", "--porcelain"),
  );

  // What git's settings tell status and diff to overlook: submodule.<name>.ignore in .git/config, then
  // in .gitmodules, then diff.ignoreSubmodules.
  const both = async (...args: string[]) => {
    for (const root of [pair.p.path, pair.g.path]) await git(`${root}/super`, ...args);
  };
  for (const value of ["untracked", "dirty", "all", "none"]) {
    await both("config", "submodule.lib.ignore", value);
    await check(`submodule.lib.ignore=${value} in .git/config`);
  }
  await both("config", "--unset", "submodule.lib.ignore");
  await both("config", "--file", ".gitmodules", "submodule.lib.ignore", "dirty");
  await check("submodule.lib.ignore=dirty in .gitmodules");
  await both("config", "diff.ignoreSubmodules", "all");
  await check(".gitmodules's dirty over diff.ignoreSubmodules=all");
  await both("config", "--file", ".gitmodules", "--unset", "submodule.lib.ignore");
  await check("diff.ignoreSubmodules=all");
  await both("config", "--unset", "diff.ignoreSubmodules");
  await both("checkout", "-q", ".gitmodules");

  // add -A and commit -a stage nothing for a submodule that is only dirty (both refuse to commit).
  await pair.run("super", "git add --repo super -A", ["add", "-A"]);
  await pair.run("super", "git commit --repo super -am nothing", ["commit", "-qam", "nothing"], "NothingToCommit");
  await pair.compare("super", "after add -A of a dirty submodule");

  await Deno.remove(`${pair.p.path}/super/lib/u.txt`);
  await Deno.remove(`${pair.g.path}/super/lib/u.txt`);
  await pair.write("super/lib/inner/i.txt", "inner modified\n");
  await check("nested: inner modified");
  await git(`${pair.p.path}/super/lib/inner`, "checkout", "-q", "i.txt");
  await git(`${pair.g.path}/super/lib/inner`, "checkout", "-q", "i.txt");
  await pair.write("super/lib/inner/untracked.txt", "x\n");
  await check("nested: inner untracked only");

  // The submodule moves to another commit (committed inside it by real git, in both).
  for (const root of [pair.p.path, pair.g.path]) {
    await git(`${root}/super/lib`, "add", "a.txt");
    await git(`${root}/super/lib`, "commit", "-qm", "lib moves on");
  }
  await check("new commits");
  await pair.run("super", "git commit --repo super -am record-lib", ["commit", "-qam", "record-lib"]);
  await pair.compare("super", "after commit -a recording the submodule's new commit");
  await check("after recording");
  // Staged only (index differs from HEAD, checkout as staged): `M. S...` in both.
  for (const root of [pair.p.path, pair.g.path]) {
    await git(`${root}/super/lib`, "commit", "-q", "--allow-empty", "-m", "again");
  }
  await pair.run("super", "git add --repo super lib", ["add", "lib"]);
  await check("staged submodule commit");
  await pair.run("super", "git commit --repo super -m record-again", ["commit", "-qm", "record-again"]);

  // git stash leaves a submodule's checkout alone: only the superproject's own change is stashed.
  await pair.write("super/s.txt", "s changed\n");
  await pair.write("super/lib/a.txt", "dirty again\n");
  await pair.run("super", "git stash --repo super", ["stash", "-q"]);
  await pair.compare("super", "after stash with a dirty submodule");
  await pair.run("super", "git stash pop --repo super", ["stash", "pop", "-q"]);
  await pair.compare("super", "after stash pop");
  await pair.run("super", "git commit --repo super -am s-change", ["commit", "-qam", "s-change"]);

  // The submodule's folder removed altogether: ` D lib`; add -A stages the removal, as git does.
  await Deno.remove(`${pair.p.path}/super/lib`, { recursive: true });
  await Deno.remove(`${g}/lib`, { recursive: true });
  await check("submodule folder deleted");
  // An empty folder in its place: a submodule not checked out (as after a clone without --recurse-submodules).
  await Deno.mkdir(`${pair.p.path}/super/lib`);
  await Deno.mkdir(`${g}/lib`);
  await check("submodule not checked out");
  await Deno.remove(`${pair.p.path}/super/lib`);
  await Deno.remove(`${g}/lib`);
  await pair.run("super", "git add --repo super -A", ["add", "-A"]);
  await pair.compare("super", "after staging the submodule's removal");
});

Deno.test("linked worktree (git worktree add): status, add, commit, log, diff, branch, checkout, merge, stash inside it, as git does", async () => {
  const build = async (root: string) => {
    await git(root, "init", "-q", "-b", "main", "proj");
    await write(`${root}/proj/a.txt`, "a\n");
    await write(`${root}/proj/b.txt`, "one\ntwo\n");
    await git(`${root}/proj`, "add", "-A");
    await git(`${root}/proj`, "commit", "-qm", "base");
    await git(`${root}/proj`, "branch", "side");
    await git(`${root}/proj`, "worktree", "add", "-q", "-b", "feat", "../wt");
  };
  await using pair = await Pair.create(build);
  const wt = "wt";
  assert.match(await Deno.readTextFile(`${pair.p.path}/wt/.git`), /^gitdir: .*\/proj\/\.git\/worktrees\/wt\n$/);
  await pair.compare(wt, "at the start");
  const gitDir = (await pterm(pair.p.path, "git rev-parse --repo wt --git-dir")).stdout.trim();
  assert.equal(`${pair.g.path}/${gitDir}`, (await git(`${pair.g.path}/wt`, "rev-parse", "--absolute-git-dir")).trim());

  await pair.write("wt/a.txt", "a in wt\n");
  await pair.write("wt/c.txt", "c\n");
  assert.deepEqual(await ptermV2(pair.p.path, wt), await porcelainV2(`${pair.g.path}/wt`));
  const diff = await pair.run(wt, "git diff --repo wt", ["diff"]);
  assert.equal(diff.stdout, await git(`${pair.g.path}/wt`, "diff"));
  await pair.run(wt, "git add --repo wt -A", ["add", "-A"]);
  await pair.run(wt, "git commit --repo wt -m wt-work", ["commit", "-qm", "wt-work"]);
  await pair.compare(wt, "after commit");
  await pair.compare("proj", "the main worktree, after a commit in the linked one");
  const log = result(await pterm(pair.p.path, "git log --repo wt")).commits.map((c: { subject: string }) => c.subject);
  assert.deepEqual(log, (await git(`${pair.g.path}/wt`, "log", "--format=%s")).trim().split("\n"));

  // A branch the main worktree has checked out is refused here, and this one's from there.
  await pair.run(wt, "git checkout --repo wt main", ["checkout", "-q", "main"], "InvalidArgs");
  await pair.run("proj", "git checkout --repo proj feat", ["checkout", "-q", "feat"], "InvalidArgs");
  await pair.run("proj", "git branch --repo proj -D feat", ["branch", "-D", "feat"], "InvalidArgs");
  const refused = await ptermTry(pair.p.path, "git checkout --repo wt main");
  assert.match(refused.stderr, /worktree proj/);

  // Branches, checkout and merge inside the linked worktree.
  await pair.run(wt, "git checkout --repo wt side", ["checkout", "-q", "side"]);
  await pair.write("wt/b.txt", "one\ntwo\nthree\n");
  await pair.run(wt, "git commit --repo wt -am side-work", ["commit", "-qam", "side-work"]);
  await pair.run(wt, "git checkout --repo wt feat", ["checkout", "-q", "feat"]);
  await pair.run(wt, "git merge --repo wt side -m merge-side", ["merge", "-q", "side", "-m", "merge-side"]);
  await pair.compare(wt, "after merge");
  await pair.run(wt, "git branch --repo wt extra", ["branch", "extra"]);

  // The stash is shared (refs/stash in the common folder), as git shares it.
  await pair.write("wt/a.txt", "to stash\n");
  await pair.run(wt, "git stash --repo wt", ["stash", "-q"]);
  await pair.compare(wt, "after stash");
  await pair.compare("proj", "the main worktree sees the stash");
  await pair.run(wt, "git stash pop --repo wt", ["stash", "pop", "-q"]);
  await pair.compare(wt, "after stash pop");
  // Per-worktree state stayed per worktree: the main worktree's HEAD and index are untouched.
  await pair.compare("proj", "at the end");
  assert.equal((await git(`${pair.p.path}/proj`, "status", "--porcelain")).trim(), "");
});
