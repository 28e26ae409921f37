/**
 * Crafted `.git` files: an agent (or a tarball, or another tool) can leave a gitfile, a
 * `commondir` or a `core.worktree` naming any folder. pterm follows them only inside the workspace
 * root, on their canonical location, outside secrets and pterm's own state, and only when they lead
 * back to the work tree that holds the `.git` (so one work tree cannot borrow another repository's
 * git folder, and `.git` paths the kernel hides stay hidden). Each attack is run through status,
 * add, commit, log and checkout; each must be refused with a precise code, never reported clean,
 * and nothing outside the root — nor the borrowed repository inside it — may change.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { relative } from "node:path";
import { makeRoot, type TempDir } from "../../../_support/helpers.ts";
import { assertFsck, git, gitInitCommitted, pterm, ptermTry, result, write } from "../oracle.ts";

const LINES = ["git status", "git add -A", "git commit -m attack --allow-empty", "git log", "git checkout -b x"];

/** Every file and folder below `dir` (`.git` included) with its size, mtime and content hash. */
async function fingerprint(dir: string): Promise<string> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const entries = [];
    for await (const entry of Deno.readDir(rel ? `${dir}/${rel}` : dir)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      const info = await Deno.lstat(`${dir}/${path}`);
      if (entry.isDirectory) {
        out.push(`${path}/`);
        await walk(path);
      } else {
        const bytes = entry.isSymlink
          ? new TextEncoder().encode(await Deno.readLink(`${dir}/${path}`))
          : await Deno.readFile(`${dir}/${path}`);
        out.push(`${path} ${info.size} ${info.mtime?.getTime()} ${createHash("sha1").update(bytes).digest("hex")}`);
      }
    }
  };
  await walk("");
  return out.join("\n");
}

interface Scene extends AsyncDisposable {
  readonly root: string;
  readonly outside: string;
}

/** A workspace root beside a folder outside it holding a real repository (`outside/repo`) and a decoy work tree. */
async function scene(): Promise<Scene> {
  const root: TempDir = await makeRoot("pterm-gitfile-sec-");
  const outside: TempDir = await makeRoot("pterm-gitfile-outside-");
  await gitInitCommitted(`${outside.path}/repo`);
  await write(`${outside.path}/decoy/keep.txt`, "outside the root\n");
  return {
    root: root.path,
    outside: outside.path,
    async [Symbol.asyncDispose]() {
      await root[Symbol.asyncDispose]();
      await outside[Symbol.asyncDispose]();
    },
  };
}

/** Every line on `--repo repo` is refused with `code` (and `message`), and neither `watched` folder changes. */
async function assertRefused(
  root: string,
  repo: string,
  code: string,
  message: RegExp,
  watched: string[],
): Promise<void> {
  const before = await Promise.all(watched.map(fingerprint));
  for (const line of LINES) {
    const envelope = await ptermTry(root, line.replace(/^git (\S+)/, `git $1 --repo ${repo}`));
    assert.equal(envelope.error_code, code, `${line} on ${repo}: ${envelope.stderr}`);
    assert.match(envelope.stderr, message, line);
    assert.ok(!envelope.stderr.includes(root + "/"), `no host path in: ${envelope.stderr}`);
  }
  assert.deepEqual(await Promise.all(watched.map(fingerprint)), before, "nothing changed");
}

Deno.test("a gitfile naming a git folder outside the root (absolute, relative, through a symlink) is PathEscape; nothing outside is touched", async () => {
  await using s = await scene();
  const watched = [s.outside];
  await write(`${s.root}/abs/.git`, `gitdir: ${s.outside}/repo/.git\n`);
  await assertRefused(s.root, "abs", "PathEscape", /outside the workspace/, watched);
  const init = await ptermTry(s.root, "git init --dir abs");
  assert.equal(init.error_code, "PathEscape", `git init on it: ${init.stderr}`);
  await write(`${s.root}/rel/.git`, `gitdir: ${relative(`${s.root}/rel`, `${s.outside}/repo/.git`)}\n`);
  await assertRefused(s.root, "rel", "PathEscape", /outside the workspace/, watched);
  // A link inside the root that leads out: the canonical location decides.
  await Deno.symlink(`${s.outside}/repo/.git`, `${s.root}/inlink`);
  await write(`${s.root}/linked/.git`, "gitdir: ../inlink\n");
  await assertRefused(s.root, "linked", "PathEscape", /outside the workspace/, watched);
  // `.git` itself a link (to a repository outside, or inside): never followed.
  await Deno.mkdir(`${s.root}/dotlink`);
  await Deno.symlink(`${s.outside}/repo/.git`, `${s.root}/dotlink/.git`);
  await assertRefused(s.root, "dotlink", "PathEscape", /symbolic link/, watched);
});

Deno.test("a gitfile lending another work tree's git folder inside the root is refused; that repository stays as it was", async () => {
  await using s = await scene();
  await gitInitCommitted(`${s.root}/proj`);
  await git(`${s.root}/proj`, "worktree", "add", "-q", "-b", "wtb", "../wt");
  await git(`${s.root}/proj`, "branch", "other");
  const watched = [`${s.root}/proj`, `${s.root}/wt`, s.outside];
  // The main repository's own .git: it has no core.worktree naming this folder.
  await write(`${s.root}/borrow/.git`, "gitdir: ../proj/.git\n");
  await assertRefused(s.root, "borrow", "PathEscape", /another work tree/, watched);
  // A linked worktree's git folder, from a folder it does not record.
  await write(`${s.root}/steal/.git`, `gitdir: ${s.root}/proj/.git/worktrees/wt\n`);
  await assertRefused(s.root, "steal", "UnsupportedFormat", /records another folder/, watched);
  // The real worktree still works, and its git folder is unharmed.
  assert.equal(result(await pterm(s.root, "git status --repo wt")).branch, "wtb");
  await assertFsck(`${s.root}/proj`);
});

Deno.test("a submodule's git folder is followed only from its own folder (core.worktree); a core.worktree outside the root is refused", async () => {
  await using s = await scene();
  await gitInitCommitted(`${s.root}/libsrc`);
  await gitInitCommitted(`${s.root}/super`);
  await git(`${s.root}/super`, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../libsrc", "lib");
  await git(`${s.root}/super`, "commit", "-qm", "add lib");
  const watched = [`${s.root}/super`, s.outside];
  await write(`${s.root}/other/.git`, "gitdir: ../super/.git/modules/lib\n");
  await assertRefused(s.root, "other", "UnsupportedFormat", /core\.worktree names another folder/, watched);
  // The submodule itself is fine…
  assert.equal(result(await pterm(s.root, "git status --repo super/lib")).is_clean, true);
  // …until its core.worktree is pointed at a work tree outside the root.
  await git(`${s.root}/super/lib`, "config", "core.worktree", `${s.outside}/decoy`);
  await assertRefused(s.root, "super/lib", "UnsupportedFormat", /core\.worktree names another folder/, watched);
  // The superproject's status does not call that submodule clean: it is refused too.
  const before = await fingerprint(s.outside);
  const status = await ptermTry(s.root, "git status --repo super");
  assert.equal(status.error_code, "UnsupportedFormat", status.stderr);
  assert.equal(await fingerprint(s.outside), before);
});

Deno.test("a superproject whose submodule's gitfile leads outside the root: status is PathEscape, never 'clean'", async () => {
  await using s = await scene();
  await gitInitCommitted(`${s.root}/libsrc`);
  await gitInitCommitted(`${s.root}/super`);
  await git(`${s.root}/super`, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../libsrc", "lib");
  await git(`${s.root}/super`, "commit", "-qm", "add lib");
  await write(`${s.root}/super/lib/.git`, `gitdir: ${s.outside}/repo/.git\n`);
  const before = await fingerprint(s.outside);
  for (
    const line of [
      "git status --repo super",
      "git diff --repo super",
      "git add --repo super -A",
      "git commit --repo super -am x",
    ]
  ) {
    const envelope = await ptermTry(s.root, line);
    assert.equal(envelope.error_code, "PathEscape", `${line}: ${envelope.stderr}`);
  }
  assert.equal(await fingerprint(s.outside), before);
});

Deno.test("gitfiles and commondirs into secrets, pterm's state, or a crafted worktree folder leading outside are refused", async () => {
  await using s = await scene();
  await gitInitCommitted(`${s.root}/secrets/repo`);
  const watched = [`${s.root}/secrets`, s.outside];
  await write(`${s.root}/sec/.git`, "gitdir: ../secrets/repo/.git\n");
  await assertRefused(s.root, "sec", "PathEscape", /secret folder or pterm's own state/, watched);
  // A separate git folder (not inside .git) in pterm's state.
  await Deno.mkdir(`${s.root}/cache`);
  await git(s.root, "init", "-q", "--separate-git-dir", `${s.root}/cache/store`, "st");
  await assertRefused(s.root, "st", "PathEscape", /secret folder or pterm's own state/, [s.outside]);
  // A worktree-shaped folder the agent made, whose commondir leads outside (directly, or through a link).
  for (const [name, common] of [["fake1", `${s.outside}/repo/.git`], ["fake2", "../../../outlink"]]) {
    await write(`${s.root}/${name}/worktrees/w/HEAD`, "ref: refs/heads/main\n");
    await write(`${s.root}/${name}/worktrees/w/commondir`, `${common}\n`);
    await write(`${s.root}/${name}/worktrees/w/gitdir`, `${s.root}/${name}-wt/.git\n`);
    await write(`${s.root}/${name}-wt/.git`, `gitdir: ../${name}/worktrees/w\n`);
  }
  await Deno.symlink(`${s.outside}/repo/.git`, `${s.root}/outlink`);
  await assertRefused(s.root, "fake1-wt", "PathEscape", /commondir\) outside the workspace/, watched);
  await assertRefused(s.root, "fake2-wt", "PathEscape", /commondir\) outside the workspace/, watched);
  // Not git's format at all.
  await write(`${s.root}/junk/.git`, "this is not a gitfile\n");
  await assertRefused(s.root, "junk", "UnsupportedFormat", /not in git's format/, watched);
});

Deno.test("a separate git folder inside the root (git init --separate-git-dir) works; a .git folder whose core.worktree is elsewhere is refused", async () => {
  await using s = await scene();
  await git(s.root, "init", "-q", "-b", "main", "--separate-git-dir", `${s.root}/store`, "wt");
  await write(`${s.root}/wt/a.txt`, "a\n");
  await pterm(s.root, "git add --repo wt -A");
  await pterm(s.root, "git commit --repo wt -m first");
  assert.equal((await git(`${s.root}/wt`, "log", "--format=%s")).trim(), "first");
  assert.equal((await git(`${s.root}/wt`, "status", "--porcelain")).trim(), "");
  await assertFsck(`${s.root}/wt`);

  await gitInitCommitted(`${s.root}/moved`);
  await git(`${s.root}/moved`, "config", "core.worktree", s.outside + "/decoy");
  await assertRefused(s.root, "moved", "UnsupportedFormat", /core\.worktree names another folder/, [s.outside]);
});

Deno.test("secret paths inside a submodule are withheld from the superproject's status as in the submodule itself, never read", async () => {
  await using s = await scene();
  await gitInitCommitted(`${s.root}/libsrc`);
  await write(`${s.root}/libsrc/.env`, "TOKEN=one\n");
  await git(`${s.root}/libsrc`, "add", "-f", ".env");
  await git(`${s.root}/libsrc`, "commit", "-qm", "env");
  await gitInitCommitted(`${s.root}/super`);
  await git(`${s.root}/super`, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../libsrc", "lib");
  await git(`${s.root}/super`, "commit", "-qm", "add lib");
  await write(`${s.root}/super/lib/.env`, "TOKEN=two\n");
  const status = result(await pterm(s.root, "git status --repo super"));
  assert.deepEqual(status.withheld, ["lib/.env"]);
  assert.deepEqual(result(await pterm(s.root, "git status --repo super/lib")).withheld, [".env"]);
});

Deno.test("submodules nested deeper than 8 levels: the superproject's status is refused by name, never cut short as clean", async () => {
  await using s = await scene();
  // r0 ⊃ r1 ⊃ … ⊃ r9, each a repository recorded in its parent as a gitlink (git add of an embedded repository).
  const dirs = Array.from(
    { length: 10 },
    (_, i) => `${s.root}/${Array.from({ length: i + 1 }, (_, k) => `r${k}`).join("/")}`,
  );
  for (let i = dirs.length - 1; i >= 0; i--) {
    await git(s.root, "init", "-q", "-b", "main", dirs[i]);
    await write(`${dirs[i]}/f.txt`, `level ${i}\n`);
    await git(dirs[i], "add", "f.txt");
    if (i + 1 < dirs.length) await git(dirs[i], "add", `r${i + 1}`);
    await git(dirs[i], "commit", "-qm", `level ${i}`);
  }
  await write(`${dirs[9]}/f.txt`, "deepest, modified\n");
  const refused = await ptermTry(s.root, "git status --repo r0");
  assert.equal(refused.error_code, "UnsupportedFormat", refused.stderr);
  assert.match(refused.stderr, /nested more than 8 levels/);
  // Eight levels below r1: looked at all the way down, and the change at the bottom shows at the top.
  const files = result(await pterm(s.root, "git status --repo r0/r1")).files;
  assert.deepEqual(files, [{ path: "r2", xy: ".M", submodule: "S.M." }]);
  assert.equal((await git(dirs[1], "status", "--porcelain")).trim(), "M r2");
});
