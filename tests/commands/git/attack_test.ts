/**
 * git's own objects as an attack: an agent can write any object (patch + git), so a tree may
 * carry names that real git's verify_path refuses. Such a tree must be rejected whole before
 * pterm reads, stats or removes anything on its strength.
 */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import {
  assertFsck,
  git,
  GIT_ENV,
  gitInit,
  gitInitCommitted,
  hashObjectLiterally,
  pterm,
  ptermTry,
  write,
} from "../git/oracle.ts";

/** A raw tree object of the given entries (no sorting, no checks: as an attacker writes it). */
function rawTree(entries: { mode: string; name: string; oid: string }[]): Uint8Array {
  const parts: number[] = [];
  for (const e of entries) {
    parts.push(...new TextEncoder().encode(`${e.mode} ${e.name}\0`));
    for (let i = 0; i < 40; i += 2) parts.push(parseInt(e.oid.slice(i, i + 2), 16));
  }
  return new Uint8Array(parts);
}

const CRAFTED_NAMES: [string, (blob: string, dir: string) => Promise<{ mode: string; name: string; oid: string }>][] = [
  ["a name with slashes", (blob) => Promise.resolve({ mode: "100644", name: "../other/important.txt/x", oid: blob })],
  ["..", async (blob, dir) => {
    const inner = await hashObjectLiterally(
      dir,
      "tree",
      rawTree([{ mode: "100644", name: "important.txt", oid: blob }]),
    );
    const other = await hashObjectLiterally(dir, "tree", rawTree([{ mode: "40000", name: "other", oid: inner }]));
    return { mode: "40000", name: "..", oid: other };
  }],
  [".git", async (blob, dir) => {
    const head = await hashObjectLiterally(dir, "tree", rawTree([{ mode: "100644", name: "x", oid: blob }]));
    const gitTree = await hashObjectLiterally(dir, "tree", rawTree([{ mode: "40000", name: "HEAD", oid: head }]));
    return { mode: "40000", name: ".git", oid: gitTree };
  }],
  [".GIT (case)", (blob) => Promise.resolve({ mode: "100644", name: ".GIT", oid: blob })],
  [".git. (NTFS trailing dot)", (blob) => Promise.resolve({ mode: "100644", name: ".git.", oid: blob })],
  ["GIT~1 (NTFS short name)", (blob) => Promise.resolve({ mode: "100644", name: "GIT~1", oid: blob })],
  [".g\u200cit (HFS ignorable)", (blob) => Promise.resolve({ mode: "100644", name: ".g\u200cit", oid: blob })],
  ["..\\x (Windows separator)", (blob) => Promise.resolve({ mode: "100644", name: "..\\x", oid: blob })],
  [". (the folder itself)", (blob) => Promise.resolve({ mode: "100644", name: ".", oid: blob })],
];

Deno.test("crafted tree entries (verify_path): the tree is refused whole and nothing is removed", async (t) => {
  for (const [label, entryOf] of CRAFTED_NAMES) {
    await t.step(label, async () => {
      await using root = await makeRoot();
      const dir = `${root.path}/r`;
      await gitInit(dir);
      await write(`${root.path}/other/important.txt`, "keep me\n");
      await write(`${dir}/a.txt`, "a\n");
      await write(`${dir}/important.txt/x`, "tracked\n"); // a path the crafted ones resemble
      await git(dir, "add", "-A");
      await git(dir, "commit", "-qm", "base");
      const blob = await hashObjectLiterally(dir, "blob", new TextEncoder().encode("evil\n"));
      const entry = await entryOf(blob, dir);
      const tree = await hashObjectLiterally(
        dir,
        "tree",
        rawTree([{ mode: "100644", name: "a.txt", oid: blob }, entry]),
      );
      const commit = (await git(dir, "commit-tree", tree, "-p", "HEAD", "-m", "evil")).trim();
      await git(dir, "update-ref", "refs/heads/evil", commit);
      const headBefore = await Deno.readTextFile(`${dir}/.git/HEAD`);
      const indexBefore = await Deno.readFile(`${dir}/.git/index`);

      for (
        const line of [
          "git checkout --repo r evil",
          "git reset --repo r --hard evil",
          "git merge --repo r --branch evil",
        ]
      ) {
        const envelope = await ptermTry(root.path, line);
        assert.equal(envelope.error_code, "InvalidPath", `${line}: ${envelope.stderr}`);
        assert.match(envelope.stderr, /verify_path/);
      }
      const diff = await ptermTry(root.path, "git diff --repo r main evil");
      assert.equal(diff.error_code, "InvalidPath");
      assert.equal(await Deno.readTextFile(`${root.path}/other/important.txt`), "keep me\n");
      assert.equal(await Deno.readTextFile(`${dir}/important.txt/x`), "tracked\n");
      assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "a\n");
      assert.equal(await Deno.readTextFile(`${dir}/.git/HEAD`), headBefore);
      assert.deepEqual(await Deno.readFile(`${dir}/.git/index`), indexBefore);
      // The repository itself is still fine for everything else.
      await pterm(root.path, "git status --repo r");
      await pterm(root.path, "git log --repo r --max 1");
    });
  }
});

Deno.test("an index entry git's verify_path refuses is refused before anything is touched", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInitCommitted(dir);
  const blob = (await git(dir, "hash-object", "-w", "a.txt")).trim();
  // `git update-index --index-info` refuses such a path, so patch the name into the index bytes:
  // stage `zz/aa.txt` and rewrite it to `../aa.txt` (same length), fixing the checksum.
  await git(dir, "update-index", "--add", "--cacheinfo", `100644,${blob},zz/aa.txt`);
  const index = await Deno.readFile(`${dir}/.git/index`);
  const at = new TextDecoder("latin1").decode(index).indexOf("zz/aa.txt");
  index.set(new TextEncoder().encode("../aa.txt"), at);
  const body = index.subarray(0, index.length - 20);
  index.set(new Uint8Array(await crypto.subtle.digest("SHA-1", body)), index.length - 20);
  await Deno.writeFile(`${dir}/.git/index`, index);
  const status = await ptermTry(root.path, "git status --repo r");
  assert.equal(status.error_code, "InvalidPath", status.stderr);
  const reset = await ptermTry(root.path, "git reset --repo r --hard");
  assert.equal(reset.error_code, "InvalidPath");
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "a\n");
  await git(dir, "read-tree", "HEAD"); // the fix the message names
  await pterm(root.path, "git status --repo r");
  await assertFsck(dir);
});

Deno.test("a ref name is never read as a path: a secret beside the repository stays unread and unechoed", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInitCommitted(dir);
  const token = "0123456789abcdef0123456789abcdef01234567"; // looks like an object id, as tokens do
  await write(`${root.path}/secrets/github_token`, `${token}\n`);
  await write(`${dir}/.git/logs/evil`, `${token} ${token} x <x> 0 +0000\tsecret\n`);
  const lines = [
    "git log --repo r --ref refs/../../../secrets/github_token",
    "git log --repo r --ref ../../secrets/github_token",
    "git show --repo r refs/../../../secrets/github_token",
    "git diff --repo r refs/../../../secrets/github_token HEAD",
    "git checkout --repo r refs/heads/../../../../secrets/github_token",
    "git log --repo r --ref evil@{0}",
  ];
  for (const line of lines) {
    const envelope = await ptermTry(root.path, line);
    assert.notEqual(envelope.exit_code, 0, line);
    assert.ok(!JSON.stringify(envelope).includes(token), `${line} echoed the secret: ${envelope.stderr}`);
  }
  for await (const day of Deno.readDir(`${root.path}/audit`)) {
    for await (const file of Deno.readDir(`${root.path}/audit/${day.name}`)) {
      const text = await Deno.readTextFile(`${root.path}/audit/${day.name}/${file.name}`);
      assert.ok(!text.includes(token), `the audit record ${file.name} holds the secret`);
    }
  }
});

/** Runs a tiny program that takes the index lock as a pterm git command does, then waits. */
function holdLock(gitdir: string, owner: "git" | "patch"): Deno.ChildProcess {
  const lockModule = new URL("../../../commands/git/repo/lock.ts", import.meta.url).href;
  const program = `import { acquireLockFile } from ${JSON.stringify(lockModule)};\n` +
    `await acquireLockFile(${JSON.stringify(`${gitdir}/index.lock`)}, "the repository", ${JSON.stringify(owner)});\n` +
    `console.log("held");\nsetInterval(() => {}, 1000);\n`;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", program],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

async function waitForLine(child: Deno.ChildProcess): Promise<void> {
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /held/);
  reader.releaseLock();
}

Deno.test("index.lock: a killed pterm command's lock is recovered; a live one's or real git's is never touched", async () => {
  await using root = await makeRoot();
  const dir = `${root.path}/r`;
  await gitInitCommitted(dir);
  const lock = `${dir}/.git/index.lock`;

  // A live holder: refused, and its lock stays.
  const live = holdLock(`${dir}/.git`, "git");
  await waitForLine(live);
  const busy = await ptermTry(root.path, "git add --repo r --all");
  assert.equal(busy.error_code, "RepoLocked");
  assert.match(busy.stderr, /\.git\/index\.lock/);
  assert.ok(!busy.stderr.includes(root.path), "no host path in the message");
  assert.ok(await Deno.lstat(lock));

  // Killed (a timeout, kill -9): the next command recovers the dead lock itself.
  live.kill("SIGKILL");
  await live.status;
  await live.stdout.cancel().catch(() => {});
  await write(`${dir}/a.txt`, "after the kill\n");
  await pterm(root.path, "git add --repo r --all");
  await pterm(root.path, "git commit --repo r -m after");
  assert.equal((await git(dir, "status", "--porcelain")).trim(), "");
  await assert.rejects(Deno.lstat(lock), Deno.errors.NotFound);

  // A killed patch run's lock is left to patch recovery, and the message says so.
  const patchHolder = holdLock(`${dir}/.git`, "patch");
  await waitForLine(patchHolder);
  patchHolder.kill("SIGKILL");
  await patchHolder.status;
  await patchHolder.stdout.cancel().catch(() => {});
  const byPatch = await ptermTry(root.path, "git status --repo r");
  assert.equal(byPatch.exit_code, 0, "status reads without the lock");
  const refused = await ptermTry(root.path, "git add --repo r --all");
  assert.equal(refused.error_code, "RepoLocked");
  assert.match(refused.stderr, /patch recover/);
  await Deno.remove(lock);

  // Real git's lock (no marker): never removed by pterm.
  await Deno.writeTextFile(lock, "");
  const gitLock = await ptermTry(root.path, "git add --repo r --all");
  assert.equal(gitLock.error_code, "RepoLocked");
  assert.ok(await Deno.lstat(lock), "real git's lock is untouched");
  await Deno.remove(lock);
  await assertFsck(dir);
});

Deno.test("git's own files behind symlinks (.git/objects, .git/logs/HEAD, a fan-out folder) are refused, nothing written outside", async () => {
  await using root = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  const setup = async (name: string) => {
    const dir = `${root.path}/${name}`;
    await gitInitCommitted(dir);
    return dir;
  };
  // The reflog line (with an agent-chosen author) must not be appended to a file outside.
  const logs = await setup("logs");
  await Deno.writeTextFile(`${outside.path}/target`, "precious\n");
  await Deno.remove(`${logs}/.git/logs/HEAD`);
  await Deno.symlink(`${outside.path}/target`, `${logs}/.git/logs/HEAD`);
  await write(`${logs}/a.txt`, "changed\n");
  for (const line of ["git status --repo logs", "git commit --repo logs -m x --allow-empty"]) {
    const refused = await ptermTry(root.path, line);
    assert.equal(refused.error_code, "PathEscape", `${line}: ${refused.stderr}`);
    assert.match(refused.stderr, /symbolic link/);
    assert.ok(!refused.stderr.includes(outside.path));
  }
  assert.equal(await Deno.readTextFile(`${outside.path}/target`), "precious\n");

  // Objects read and written in another repository's store.
  const objects = await setup("objects");
  const other = `${outside.path}/other`;
  await gitInit(other);
  await Deno.rename(`${objects}/.git/objects`, `${other}/moved-objects`);
  await Deno.symlink(`${other}/moved-objects`, `${objects}/.git/objects`);
  const viaLink = await ptermTry(root.path, "git log --repo objects");
  assert.equal(viaLink.error_code, "PathEscape", viaLink.stderr);

  // A loose-object fan-out folder that leads outside: no object is written there.
  const fanout = await setup("fanout");
  await write(`${fanout}/b.txt`, "new content for a new blob\n");
  const blob = (await git(fanout, "hash-object", "b.txt")).trim();
  await Deno.mkdir(`${outside.path}/fan`);
  await Deno.remove(`${fanout}/.git/objects/${blob.slice(0, 2)}`, { recursive: true }).catch(() => {});
  await Deno.symlink(`${outside.path}/fan`, `${fanout}/.git/objects/${blob.slice(0, 2)}`);
  const add = await ptermTry(root.path, "git add --repo fanout --path b.txt");
  assert.equal(add.error_code, "PathEscape", add.stderr);
  assert.deepEqual([...Deno.readDirSync(`${outside.path}/fan`)], [], "nothing was written outside");
});

/** Whether something is at `path`. */
async function present(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("a separate git dir inside its work tree is invisible to pterm's git and never written through it", async (t) => {
  await using root = await makeRoot();
  const proj = `${root.path}/proj`;
  const marker = `${root.path}/fsmonitor-ran`;
  await Deno.mkdir(proj);
  await git(proj, "init", "-q", "-b", "main", "--separate-git-dir=proj.git");
  await git(proj, "remote", "add", "origin", "https://agent:s3cr3t-token@example.com/x.git");
  await write(`${proj}/a.txt`, "a\n");
  await git(proj, "add", "a.txt");
  await git(proj, "commit", "-qm", "base");
  const config = await Deno.readTextFile(`${proj}/proj.git/config`);
  // What an agent stages to replace the config: core.fsmonitor runs on the person's next git status.
  await write(`${proj}/stage/config`, `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch ${marker}"\n`);
  await pterm(root.path, "git add stage/config --repo proj");
  // A branch (made with real git, as a fetched one could be) whose tree puts a config in the git dir.
  const blob = (await git(proj, "hash-object", "-w", "stage/config")).trim();

  const refusals: [string, string][] = [
    ["git add of the git dir's config", "git add proj.git/config --repo proj"],
    ["git mv -f onto the git dir's config", "git mv -f stage/config proj.git/config --repo proj"],
    ["git rm of the git dir's HEAD", "git rm --cached proj.git/HEAD --repo proj"],
    ["git blame of the git dir's config", "git blame proj.git/config --repo proj"],
  ];
  for (const [label, line] of refusals) {
    await t.step(label, async () => {
      const envelope = await ptermTry(root.path, line);
      assert.notEqual(envelope.exit_code, 0, envelope.stdout);
      assert.equal(envelope.error_code, "GitDirDenied", envelope.stderr);
      assert.match(envelope.stderr, /inside a git directory/);
      assert.ok(!envelope.stderr.includes("s3cr3t"), "no token");
    });
  }

  await t.step("add -A, status, diff --cached, ls-files and grep never show it", async () => {
    await pterm(root.path, "git add -A --repo proj");
    for (const line of ["git status --repo proj", "git diff --cached --repo proj", "git ls-files --repo proj"]) {
      const envelope = await pterm(root.path, line);
      const shown = envelope.stdout + JSON.stringify(envelope.result);
      assert.ok(!shown.includes("proj.git"), `${line}: ${shown}`);
      assert.ok(!shown.includes("s3cr3t"), `${line}: no token`);
    }
    const grep = await ptermTry(root.path, "git grep s3cr3t --repo proj");
    assert.ok(!(grep.stdout + JSON.stringify(grep.result)).includes("s3cr3t-token@"), "grep never reads it");
  });

  await t.step("a checkout of a tree that writes into the git dir leaves it alone", async () => {
    const index = `${root.path}/evil.index`;
    const env = { GIT_INDEX_FILE: index };
    const run = async (...args: string[]) => {
      const out = await new Deno.Command("git", {
        args,
        cwd: proj,
        env: { ...GIT_ENV, ...env },
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return new TextDecoder().decode(out.stdout).trim();
    };
    await pterm(root.path, "git commit -m staged --author 'A <a@example.com>' --repo proj");
    await run("read-tree", "HEAD");
    await run("update-index", "--add", "--cacheinfo", `100644,${blob},proj.git/config`);
    const tree = await run("write-tree");
    const commit = await run("commit-tree", tree, "-p", "HEAD", "-m", "evil");
    await run("update-ref", "refs/heads/evil", commit);
    for (
      const line of [
        "git checkout evil --repo proj",
        "git restore --source evil proj.git/config --repo proj",
        "git cherry-pick evil --repo proj",
        "git reset --hard evil --repo proj",
      ]
    ) {
      const envelope = await ptermTry(root.path, line);
      assert.equal(envelope.error_code, "GitDirDenied", `${line}: ${envelope.stderr}`);
    }
    assert.equal(await Deno.readTextFile(`${proj}/proj.git/config`), config);
  });

  assert.equal(await Deno.readTextFile(`${proj}/proj.git/config`), config, "the git dir's config is unchanged");
  // The person's own git in that folder: status (core.fsmonitor) and commit run nothing of the agent's.
  assert.equal((await git(proj, "rev-parse", "--abbrev-ref", "HEAD")).trim(), "main");
  await git(proj, "status");
  await git(proj, "commit", "-qm", "person", "--allow-empty");
  assert.equal(await present(marker), false, "core.fsmonitor never ran");
  assert.ok(!(await git(proj, "ls-files")).includes("proj.git"), "nothing of the git dir was staged");
});
