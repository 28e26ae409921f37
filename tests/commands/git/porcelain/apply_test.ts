/**
 * `git apply` as a user runs it and what they run next: real git reads what it staged, a refused
 * diff leaves `git status` clean, -R undoes, --stat and --numstat print git's bytes, and pterm's path
 * rules (secrets, git directories) hold as everywhere.
 */

import assert from "node:assert/strict";
import { exec, execOk, makeRoot } from "../../../_support/helpers.ts";
import { gitRaw } from "../oracle.ts";

const ENV = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
};

function git(dir: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const out = new Deno.Command("git", { args, cwd: dir, env: ENV, clearEnv: true, stdout: "piped", stderr: "piped" })
    .outputSync();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** A repository at the root with app.py and README.md committed, and a diff (by real git) that edits and adds. */
async function setUp(root: string): Promise<string> {
  git(root, "init", "-q", "-b", "main");
  await Deno.writeTextFile(
    `${root}/app.py`,
    "def main():\n    print('hi')\n\nif __name__ == '__main__':\n    main()\n",
  );
  await Deno.writeTextFile(`${root}/README.md`, "# App\n\nRun it.\n");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "base");
  await Deno.writeTextFile(
    `${root}/app.py`,
    "def main():\n    print('hello')\n\nif __name__ == '__main__':\n    main()\n",
  );
  await Deno.writeTextFile(`${root}/NOTES.md`, "notes\n");
  git(root, "add", "-N", "NOTES.md");
  const diff = git(root, "diff").stdout;
  git(root, "reset", "-q");
  git(root, "checkout", "-q", "app.py");
  await Deno.remove(`${root}/NOTES.md`);
  return diff;
}

Deno.test("git apply --index: real git's diff --cached shows exactly the diff, and the work tree matches", async () => {
  await using root = await makeRoot();
  const diff = await setUp(root.path);
  const envelope = await execOk(root.path, "git apply --index", { stdin: diff });
  assert.equal(envelope.stdout, "");
  assert.equal(git(root.path, "diff", "--cached").stdout, diff);
  assert.equal(git(root.path, "diff").stdout, "");
  assert.equal(git(root.path, "status", "--porcelain").stdout, "A  NOTES.md\nM  app.py\n");
});

Deno.test("git apply: the work tree only, as git (the index stays at HEAD); -R with the file undoes it", async () => {
  await using root = await makeRoot();
  const diff = await setUp(root.path);
  await Deno.mkdir(`${root.path}/patches`);
  await Deno.writeTextFile(`${root.path}/patches/fix.diff`, diff);
  git(root.path, "add", "-A");
  git(root.path, "commit", "-qm", "the diff file");
  await execOk(root.path, "git apply patches/fix.diff");
  assert.equal(git(root.path, "diff", "--cached").stdout, "");
  assert.equal(git(root.path, "status", "--porcelain").stdout, " M app.py\n?? NOTES.md\n");
  await execOk(root.path, "git apply -R patches/fix.diff");
  assert.equal(git(root.path, "status", "--porcelain").stdout, "");
});

Deno.test("git -C <repo> apply ../x.diff: refused with the line that works, and that line (the diff on stdin) applies it", async () => {
  await using root = await makeRoot();
  await Deno.mkdir(`${root.path}/proj`);
  const diff = await setUp(`${root.path}/proj`);
  await Deno.writeTextFile(`${root.path}/fix.diff`, diff);
  const refused = await exec(root.path, "git -C proj apply ../fix.diff");
  assert.equal(refused.error_code, "PathEscape");
  assert.match(refused.stderr, /read in the repository proj/);
  assert.match(refused.stderr, /`git apply --repo proj` with the diff's text as the call's stdin/);
  assert.equal(git(`${root.path}/proj`, "status", "--porcelain").stdout, "");
  // What the message says to run.
  await execOk(root.path, "git apply --repo proj", { stdin: await Deno.readTextFile(`${root.path}/fix.diff`) });
  assert.equal(git(`${root.path}/proj`, "status", "--porcelain").stdout, " M app.py\n?? NOTES.md\n");
});

Deno.test("git apply refused: git's error lines, exit 1, nothing written; real git status stays clean and a retry still fails the same", async () => {
  await using root = await makeRoot();
  const diff = await setUp(root.path);
  const changed = diff.replace(" def main():", " def main(argv):");
  const real = new Deno.Command("git", {
    args: ["apply", "--index"],
    cwd: root.path,
    env: ENV,
    clearEnv: true,
    stdin: "piped",
    stderr: "piped",
    stdout: "null",
  }).spawn();
  const writer = real.stdin.getWriter();
  await writer.write(new TextEncoder().encode(changed));
  await writer.close();
  const theirs = await real.output();
  assert.equal(theirs.code, 1);
  const gitLines = new TextDecoder().decode(theirs.stderr);
  assert.equal(gitLines, "error: patch failed: app.py:1\nerror: app.py: patch does not apply\n");
  for (let attempt = 0; attempt < 2; attempt++) {
    const envelope = await exec(root.path, "git apply --index -", { stdin: changed });
    assert.equal(envelope.exit_code, 1);
    assert.ok(envelope.stderr.startsWith(gitLines), envelope.stderr);
    // The data is wrong, not the flags: the hint says what to do about it, not `--help`.
    assert.match(
      envelope.stderr,
      /\nHint: The files are not what the diff was made from: [^\n]*`git apply --check`, with the diff on stdin,[^\n]*`git apply --help`/,
    );
    assert.equal(git(root.path, "status", "--porcelain").stdout, "");
  }
  // A file the diff creates that is there already: git's words for it.
  await Deno.writeTextFile(`${root.path}/NOTES.md`, "mine\n");
  const exists = await exec(root.path, "git apply", { stdin: diff });
  assert.equal(exists.exit_code, 1);
  assert.ok(exists.stderr.startsWith("error: NOTES.md: already exists in working directory\n"), exists.stderr);
  assert.equal(await Deno.readTextFile(`${root.path}/NOTES.md`), "mine\n");
  assert.equal(git(root.path, "status", "--porcelain").stdout, "?? NOTES.md\n");
});

Deno.test("git apply --check, --stat and --numstat print what real git apply prints and write nothing", async () => {
  await using root = await makeRoot();
  const diff = await setUp(root.path);
  for (const flag of ["--stat", "--numstat", "--check"]) {
    const theirs = await gitRaw(root.path, ["apply", flag], diff);
    const envelope = await execOk(root.path, `git apply ${flag}`, { stdin: diff });
    assert.equal(envelope.stdout, theirs.stdout, flag);
    assert.equal(git(root.path, "status", "--porcelain").stdout, "", flag);
  }
});

Deno.test("git apply keeps pterm's path rules: a diff into .git/ or a secret is refused by pterm, nothing written", async () => {
  await using root = await makeRoot();
  await setUp(root.path);
  const intoGit = "diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout\nnew file mode 100755\n" +
    "--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+echo owned\n";
  const hook = await exec(root.path, "git apply", { stdin: intoGit });
  assert.notEqual(hook.exit_code, 0);
  assert.equal(hook.error_code, "GitDirDenied");
  // The person wrote a diff, not patch blocks: the refusal names the diff's path, not an engine block.
  assert.match(hook.stderr, /^\[Error\] git apply: /);
  assert.doesNotMatch(hook.stderr, /block 1|git\.diff/);
  await assert.rejects(Deno.stat(`${root.path}/.git/hooks/post-checkout`));
  const secret = "diff --git a/.env b/.env\nnew file mode 100644\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1 @@\n+TOKEN=x\n";
  const env = await exec(root.path, "git apply --index", { stdin: secret });
  assert.equal(env.error_code, "SecretPathDenied");
  await assert.rejects(Deno.stat(`${root.path}/.env`));
  // Into the index alone, too: no secret and no .git path is staged.
  for (const diff of [secret, intoGit]) {
    const cached = await exec(root.path, "git apply --cached", { stdin: diff });
    assert.notEqual(cached.exit_code, 0);
    assert.ok(["SecretPathDenied", "GitDirDenied"].includes(cached.error_code ?? ""), cached.stderr);
  }
  assert.equal(git(root.path, "ls-files", "--stage").stdout.includes(".env"), false);
  assert.equal(git(root.path, "status", "--porcelain").stdout, "");
});

Deno.test("git apply -p0 takes a `git diff --no-prefix` diff; --unidiff-zero a `git diff -U0` one", async () => {
  await using root = await makeRoot();
  await setUp(root.path);
  await Deno.writeTextFile(`${root.path}/README.md`, "# App\n\nRun it.\nTest it.\n");
  const noPrefix = git(root.path, "diff", "--no-prefix").stdout;
  const zero = git(root.path, "diff", "-U0").stdout;
  git(root.path, "checkout", "-q", "README.md");
  await execOk(root.path, "git apply -p0", { stdin: noPrefix });
  assert.equal(await Deno.readTextFile(`${root.path}/README.md`), "# App\n\nRun it.\nTest it.\n");
  git(root.path, "checkout", "-q", "README.md");
  await execOk(root.path, "git apply --unidiff-zero", { stdin: zero });
  assert.equal(await Deno.readTextFile(`${root.path}/README.md`), "# App\n\nRun it.\nTest it.\n");
});

Deno.test("git apply --cached changes the index only, as real git's; a file not in the index is refused in git's words", async () => {
  await using root = await makeRoot();
  const diff = await setUp(root.path);
  await execOk(root.path, "git apply --cached", { stdin: diff });
  assert.equal(git(root.path, "diff", "--cached").stdout, diff);
  // The work tree is as it was: its files differ from the index by exactly the diff, reversed.
  assert.equal(git(root.path, "status", "--porcelain").stdout, "AD NOTES.md\nMM app.py\n");
  git(root.path, "reset", "-q");
  git(root.path, "rm", "-q", "--cached", "app.py");
  const envelope = await exec(root.path, "git apply --cached", { stdin: diff });
  assert.equal(envelope.exit_code, 1);
  assert.ok(envelope.stderr.startsWith("error: app.py: does not exist in index\n"), envelope.stderr);
});

/** Real `git apply <args>` in `dir`: its exit code and stderr. */
function realApply(dir: string, ...args: string[]): { code: number; stderr: string } {
  const out = git(dir, "apply", ...args);
  return { code: out.code, stderr: out.stderr };
}

/**
 * A repository whose app.py moved on since fix.patch was made from it (its `index` line names the
 * old app.py, which the repository still has), and a real-git twin of it outside the workspace.
 */
async function movedOn(root: string, twin: string): Promise<void> {
  await setUp(root);
  await Deno.writeTextFile(
    `${root}/app.py`,
    "def main():\n    print('hello')\n\nif __name__ == '__main__':\n    main()\n",
  );
  await Deno.writeTextFile(`${root}/fix.patch`, git(root, "diff").stdout);
  git(root, "checkout", "-q", "app.py");
  await Deno.writeTextFile(
    `${root}/app.py`,
    "def main():\n    print('hey')\n\nif __name__ == '__main__':\n    main()\n",
  );
  git(root, "commit", "-qam", "meanwhile");
  git(twin, "clone", "-q", root, ".");
  await Deno.copyFile(`${root}/fix.patch`, `${twin}/fix.patch`);
}

Deno.test("git apply --3way: a conflict as real git leaves it (markers, stages, `U app.py`, exit 1); resolved with an editor and `git add`, real git sees what it would", async () => {
  await using root = await makeRoot();
  await using twin = await makeRoot("pterm-apply-twin-");
  await movedOn(root.path, twin.path);
  const theirs = realApply(twin.path, "--3way", "fix.patch");
  assert.equal(theirs.code, 1);
  assert.equal(theirs.stderr, "Applied patch to 'app.py' with conflicts.\nU app.py\n");
  const envelope = await exec(root.path, "git apply --3way fix.patch");
  assert.equal(envelope.exit_code, 1);
  assert.equal(envelope.error_code, "Conflict");
  assert.ok(envelope.stderr.startsWith(theirs.stderr), envelope.stderr);
  assert.deepEqual(envelope.result?.conflicts, ["app.py"]);
  assert.match(envelope.stderr, /\nHint: [^\n]*`git checkout --theirs <file>`[^\n]*`git apply --help`/);
  const markers = await Deno.readTextFile(`${root.path}/app.py`);
  assert.equal(markers, await Deno.readTextFile(`${twin.path}/app.py`));
  assert.ok(markers.includes("<<<<<<< ours\n    print('hey')\n=======\n    print('hello')\n>>>>>>> theirs\n"), markers);
  for (const args of [["ls-files", "-s"], ["status", "--porcelain"], ["diff"]]) {
    assert.equal(git(root.path, ...args).stdout, git(twin.path, ...args).stdout, args.join(" "));
  }
  // The person edits the markers away and stages the file: pterm's `git add` in one, real git's in the other.
  const resolved = "def main():\n    print('hello, hey')\n\nif __name__ == '__main__':\n    main()\n";
  await Deno.writeTextFile(`${root.path}/app.py`, resolved);
  await Deno.writeTextFile(`${twin.path}/app.py`, resolved);
  await execOk(root.path, "git add app.py");
  git(twin.path, "add", "app.py");
  for (const args of [["ls-files", "-s"], ["status", "--porcelain"], ["diff", "--cached"], ["diff"]]) {
    assert.equal(git(root.path, ...args).stdout, git(twin.path, ...args).stdout, args.join(" "));
  }
  assert.equal(git(root.path, "status", "--porcelain").stdout, "M  app.py\n?? fix.patch\n");
});

Deno.test("git apply --3way: a clean merge is staged; --check says it would conflict and writes nothing; a missing preimage falls back in git's words", async () => {
  await using root = await makeRoot();
  await using twin = await makeRoot("pterm-apply-twin-");
  await movedOn(root.path, twin.path);
  // --check: git's line, exit 0, nothing written.
  const checked = realApply(twin.path, "--3way", "--check", "fix.patch");
  const ours = await exec(root.path, "git apply -3 --check fix.patch");
  assert.equal(ours.exit_code, checked.code);
  assert.equal(ours.stderr, checked.stderr);
  assert.equal(git(root.path, "status", "--porcelain").stdout, "?? fix.patch\n");
  // The diff's `index` line names a blob the repository lacks: git's error, then the direct application fails.
  const patch = (await Deno.readTextFile(`${root.path}/fix.patch`)).replace(/^index [0-9a-f]+\.\./m, "index 1234567..");
  await Deno.writeTextFile(`${root.path}/lacking.patch`, patch);
  await Deno.writeTextFile(`${twin.path}/lacking.patch`, patch);
  const lacking = realApply(twin.path, "--3way", "lacking.patch");
  assert.equal(lacking.code, 1);
  const refused = await exec(root.path, "git apply --3way lacking.patch");
  assert.equal(refused.exit_code, 1);
  assert.ok(refused.stderr.startsWith(lacking.stderr), refused.stderr);
  assert.ok(lacking.stderr.startsWith("error: repository lacks the necessary blob to perform 3-way merge.\n"));
  assert.equal(git(root.path, "diff", "HEAD").stdout, "");
  // A change elsewhere in the file merges cleanly and is staged, as with real git.
  for (const dir of [root.path, twin.path]) {
    await Deno.writeTextFile(
      `${dir}/app.py`,
      "def main():\n    print('hi')\n\nif __name__ == '__main__':\n    main(1)\n",
    );
    git(dir, "commit", "-qam", "elsewhere");
  }
  const clean = realApply(twin.path, "--3way", "fix.patch");
  assert.equal(clean.code, 0);
  const merged = await execOk(root.path, "git apply --3way fix.patch");
  assert.equal(merged.stderr, clean.stderr);
  assert.equal(merged.stderr, "Applied patch to 'app.py' cleanly.\n");
  for (const args of [["ls-files", "-s"], ["diff", "--cached"], ["diff"]]) {
    assert.equal(git(root.path, ...args).stdout, git(twin.path, ...args).stdout, args.join(" "));
  }
});

Deno.test("git apply --unidiff-zero: a last removed line without its newline matches a CRLF line as git's memcmp does", async () => {
  // git compares the preimage's bytes from the place on, after a line hash that skips whitespace: `{` (no
  // newline) matches `{\r\n`. A retry of such a diff is accepted by git, and pterm's git apply says the same.
  await using root = await makeRoot();
  git(root.path, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${root.path}/main.c`, "a\r\nb\r\n{");
  git(root.path, "add", "-A");
  git(root.path, "commit", "-qm", "base");
  await Deno.writeTextFile(`${root.path}/main.c`, "a\r\nb\r\n{\r\n=== end ===\r\nlast");
  const diff = git(root.path, "diff", "-U0").stdout;
  git(root.path, "checkout", "-q", "main.c");
  await execOk(root.path, "git apply --index --unidiff-zero", { stdin: diff });
  const once = await Deno.readFile(`${root.path}/main.c`);
  // The retry: git accepts it, and so does pterm, with git's result bytes.
  git(root.path, "clone", "-q", ".", "twin");
  await Deno.writeFile(`${root.path}/twin/main.c`, once);
  git(`${root.path}/twin`, "add", "main.c");
  const ours = await exec(root.path, "git apply --check --unidiff-zero", { stdin: diff });
  assert.equal(
    (await gitRaw(`${root.path}/twin`, ["apply", "--check", "--unidiff-zero", "-"], diff)).code,
    0,
    "git accepts the retry",
  );
  assert.equal(ours.exit_code, 0, ours.stderr);
});

Deno.test("git apply under core.autocrlf=true: git diff's LF diff applies to the CRLF work tree, with and without --index, as real git; -R takes it back", async () => {
  await using root = await makeRoot();
  git(root.path, "init", "-q", "-b", "main");
  git(root.path, "config", "core.autocrlf", "true");
  await Deno.writeTextFile(`${root.path}/w.txt`, "one\r\ntwo\r\nthree\r\n");
  git(root.path, "add", "-A");
  git(root.path, "commit", "-qm", "base");
  await Deno.writeTextFile(`${root.path}/w.txt`, "one\r\nTWO\r\nthree\r\n");
  const diff = git(root.path, "diff").stdout;
  assert.doesNotMatch(diff, /\r/, "git diff shows the file in git's form, LF");
  git(root.path, "checkout", "-q", "--", "w.txt");

  await execOk(root.path, "git apply", { stdin: diff });
  assert.equal(await Deno.readTextFile(`${root.path}/w.txt`), "one\r\nTWO\r\nthree\r\n", "written back with CRLF");
  assert.equal(git(root.path, "diff").stdout, diff, "real git sees exactly the diff");
  const again = await exec(root.path, "git apply", { stdin: diff });
  assert.equal(again.exit_code, 1);
  assert.match(again.stderr, /^error: patch failed: w\.txt:1\nerror: w\.txt: patch does not apply\n/);
  await execOk(root.path, "git apply -R", { stdin: diff });
  assert.equal(await Deno.readTextFile(`${root.path}/w.txt`), "one\r\ntwo\r\nthree\r\n");
  assert.equal(git(root.path, "diff").stdout, "");

  git(root.path, "update-index", "-q", "--refresh");
  await execOk(root.path, "git apply --index", { stdin: diff });
  assert.equal(await Deno.readTextFile(`${root.path}/w.txt`), "one\r\nTWO\r\nthree\r\n");
  assert.equal(git(root.path, "diff", "--cached").stdout, diff, "staged in git's form");
  assert.equal(
    git(root.path, "status", "--porcelain").stdout,
    "M  w.txt\n",
    "nothing unstaged: the stat data is the file's",
  );
});

Deno.test("git apply --index under eol=crlf stages its result as git does, a line added with CRLF kept in the blob; real git status sees the file differ from it", async () => {
  await using root = await makeRoot();
  const repo = `${root.path}/r`;
  await Deno.mkdir(repo);
  git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${repo}/.gitattributes`, "*.txt eol=crlf\n");
  await Deno.writeTextFile(`${repo}/w.txt`, "one\r\ntwo\r\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  // A hand-made diff whose added line carries its own CR: git stages it so, and writes the file
  // with CRLF everywhere, so the file read back in git's form is not the blob.
  const diff = "diff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three\r\n";
  const twin = `${root.path}/twin`;
  git(root.path, "clone", "-q", repo, twin);
  assert.equal((await gitRaw(twin, ["apply", "--index"], diff)).code, 0);

  await execOk(root.path, "git -C r apply --index", { stdin: diff });
  assert.equal(git(repo, "ls-files", "-s", "w.txt").stdout, git(twin, "ls-files", "-s", "w.txt").stdout);
  assert.equal(await Deno.readTextFile(`${repo}/w.txt`), await Deno.readTextFile(`${twin}/w.txt`));
  // A moment later (the index file newer than every file it records: stat data alone decides), a
  // retry is refused — the file in git's form is not the blob — and a person's git sees the same
  // difference: the entry was recorded so that readers compare content. (Real git's own retry says so
  // too when its index write smudged the entry, which depends on its clock.)
  await new Promise((resolve) => setTimeout(resolve, 20));
  Deno.utimeSync(`${repo}/.git/index`, new Date(), new Date());
  const retry = await exec(root.path, "git -C r apply --index", { stdin: diff });
  assert.equal(retry.exit_code, 1);
  assert.match(
    retry.stderr,
    /^<stdin>:7: trailing whitespace\.\nthree\r\nerror: w\.txt: does not match index\n\[Error\]/,
  );
  assert.equal(git(repo, "diff", "--name-only").stdout, "w.txt\n");
  assert.equal(git(repo, "status", "--porcelain").stdout, "MM w.txt\n");
});

Deno.test("git apply -R takes a diff's files last to first, as git does: its refusals come in that order", async () => {
  await using root = await makeRoot();
  const diff = await setUp(root.path);
  // Neither file is as the diff's new side says, so -R refuses both.
  const theirs = (await gitRaw(root.path, ["apply", "-R", "--check"], diff)).stderr;
  assert.match(theirs, /app\.py[\s\S]*NOTES\.md/, "git names the last file (app.py) first");
  const ours = await exec(root.path, "git apply -R --check", { stdin: diff });
  assert.equal(ours.exit_code, 1);
  assert.equal(ours.stderr.replace(/\[Error\][\s\S]*$/, ""), theirs);
  const stat = await execOk(root.path, "git apply -R --stat", { stdin: diff });
  assert.match(stat.stdout, /^ app\.py +\|[^\n]*\n NOTES\.md \|/);
});

Deno.test("git apply refuses a path whose .gitattributes names a filter pterm cannot run, in git apply's terms; nothing written", async () => {
  await using root = await makeRoot();
  const diff = await setUp(root.path);
  await Deno.writeTextFile(`${root.path}/.gitattributes`, "*.py filter=crypt\n");
  const before = await Deno.readTextFile(`${root.path}/app.py`);
  const envelope = await exec(root.path, "git apply", { stdin: diff });
  assert.equal(envelope.error_code, "UnsupportedFilter");
  assert.match(envelope.stderr, /^\[Error\] git apply: app\.py has filter=crypt in \.gitattributes/);
  assert.equal(await Deno.readTextFile(`${root.path}/app.py`), before);
  assert.equal(git(root.path, "status", "--porcelain").stdout, "?? .gitattributes\n");
});

Deno.test("git apply refused: git's blank-line-at-EOF warning for a file that did apply comes among the errors, as git says it", async () => {
  await using root = await makeRoot();
  const repo = `${root.path}/r`;
  await Deno.mkdir(repo);
  git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${repo}/a.txt`, "one\ntwo\n");
  await Deno.writeTextFile(`${repo}/b.txt`, "x\ny\n");
  await Deno.writeTextFile(`${repo}/c.txt`, "three\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  git(root.path, "clone", "-q", repo, `${root.path}/twin`);
  // a.txt's context is not there; b.txt's hunk ends the file with a blank line; c.txt's context is not there either.
  const diff = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-TWO\n+2\n" +
    "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,3 @@\n x\n y\n+\n" +
    "diff --git a/c.txt b/c.txt\n--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-THREE\n+3\n";
  const theirs = await gitRaw(`${root.path}/twin`, ["apply"], diff);
  assert.equal(theirs.code, 1);
  assert.match(
    theirs.stderr,
    /a\.txt: patch does not apply\n[\s\S]*new blank line at EOF[\s\S]*c\.txt: patch does not apply/,
    "between the files' errors",
  );
  const ours = await exec(root.path, "git -C r apply", { stdin: diff });
  assert.equal(ours.exit_code, 1);
  assert.equal(ours.stderr.replace(/\[Error\][\s\S]*$/, ""), theirs.stderr);
  assert.equal(git(repo, "status", "--porcelain").stdout, "");
});

Deno.test("git apply of input that is not a diff: git's words for it (a hunk without a header, nothing that starts a diff), nothing written", async () => {
  await using root = await makeRoot();
  await setUp(root.path);
  for (const input of ["a note, not a diff\n", "garbage\n@@ -1 +1 @@\n-a\n+b\n"]) {
    const theirs = await gitRaw(root.path, ["apply"], input);
    assert.equal(theirs.code, 128);
    const ours = await exec(root.path, "git apply", { stdin: input });
    assert.equal(ours.error_code, "PatchParseError");
    assert.equal(ours.stderr.replace(/\[Error\][\s\S]*$/, ""), theirs.stderr);
    assert.match(ours.stderr, /\nHint: A diff names its files before its hunks[^\n]*`git apply --help`/);
  }
  assert.equal(git(root.path, "status", "--porcelain").stdout, "");
});
