/**
 * A patch as an agent session meets it: applied twice (a retry after a timeout, `runs replay`),
 * a hunk that must end or start the file, a patch during an unfinished merge, the repository found
 * as `git` finds it, unified and codex patches that edit without committing, and the closest lines
 * of a failed hunk in every format. Real git is the oracle: `git apply --check` says whether a diff
 * applies (again), `git log` and `git status` show what the repository holds afterwards.
 */

import assert from "node:assert/strict";
import { cli, exec, makeRoot } from "../../_support/helpers.ts";
import { gitRaw } from "../git/oracle.ts";
import { apply, git, problemsOf, writeTree } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
const WITH_MUL = CALC + "\n\ndef mul(a, b):\n    return a * b\n";

/** A repository at `dir` holding calc.py (committed), and the diff real git makes for appending mul. */
async function calcRepo(dir: string): Promise<string> {
  await git(dir, "init", "-q", "-b", "main");
  await writeTree(dir, { "src/calc.py": CALC });
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "calc");
  await Deno.writeTextFile(`${dir}/src/calc.py`, WITH_MUL);
  const diff = await git(dir, "diff");
  await git(dir, "checkout", "-q", "--", "src/calc.py");
  return diff;
}

/** Whether real `git apply --check` accepts `diff` in `dir`. */
async function gitApplies(dir: string, diff: string): Promise<boolean> {
  return (await gitRaw(dir, ["apply", "--check", "-"], diff)).code === 0;
}

const count = (text: string, part: string) => text.split(part).length - 1;

Deno.test("a unified diff applied twice: the second run is AlreadyApplied, as git apply refuses it, and nothing is written", async () => {
  await using dir = await makeRoot();
  const diff = await calcRepo(dir.path);
  const first = await apply(dir.path, diff);
  assert.equal(first.exit_code, 0, first.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/src/calc.py`), WITH_MUL);
  // The retry: git apply refuses it, and so does pterm — naming the line where the result stands.
  assert.equal(await gitApplies(dir.path, diff), false);
  const second = await apply(dir.path, diff);
  assert.equal(second.error_code, "AlreadyApplied", second.stderr);
  assert.match(second.stderr, /already applied: its result stands at line 4/);
  assert.match(second.stderr, /--reapply/);
  assert.equal(problemsOf(second)[0].details.line, 4);
  assert.equal(count(await Deno.readTextFile(`${dir.path}/src/calc.py`), "def mul"), 1);
  // What the user does next: real git sees one change, made once.
  assert.equal(await git(dir.path, "status", "--porcelain"), " M src/calc.py\n");
  assert.equal(count(await git(dir.path, "diff"), "+def mul"), 1);
});

Deno.test("an insertion without context next to an equal line applies to the file the diff was made from, as git apply --unidiff-zero does", async () => {
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "notes.txt": "intro\n=== end ===\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "notes");
  // git slides such an insertion below the equal line; a diff tool that does not, places it above.
  const before = (await git(dir.path, "rev-parse", "HEAD:notes.txt")).slice(0, 7);
  const after = (await gitRaw(dir.path, ["hash-object", "--stdin"], "intro\n=== end ===\n=== end ===\n")).stdout
    .slice(0, 7);
  const diff = `diff --git a/notes.txt b/notes.txt\nindex ${before}..${after} 100644\n--- a/notes.txt\n` +
    "+++ b/notes.txt\n@@ -1,0 +2 @@\n+=== end ===\n";
  // The inserted line already stands where the hunk puts it, yet the file is the diff's preimage
  // (its `index` line names this blob): the hunk has not run, so it applies.
  assert.equal((await gitRaw(dir.path, ["apply", "--check", "--unidiff-zero", "-"], diff)).code, 0);
  const first = await apply(dir.path, diff);
  assert.equal(first.exit_code, 0, first.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.txt`), "intro\n=== end ===\n=== end ===\n");
  // The retry: the file is no longer the preimage, and the result stands there — refused.
  const second = await apply(dir.path, diff);
  assert.equal(second.error_code, "AlreadyApplied", second.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.txt`), "intro\n=== end ===\n=== end ===\n");
});

Deno.test("a diff that only adds a BOM, applied twice: the second run is AlreadyApplied, as git apply refuses it", async () => {
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "notes.txt": "diff --git looks like a header\n}\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "notes");
  await Deno.writeTextFile(`${dir.path}/notes.txt`, "\ufeffdiff --git looks like a header\n}\n");
  const diff = await git(dir.path, "diff");
  await git(dir.path, "checkout", "-q", "--", "notes.txt");
  const first = await apply(dir.path, diff);
  assert.equal(first.exit_code, 0, first.stderr);
  assert.equal(await gitApplies(dir.path, diff), false);
  const second = await apply(dir.path, diff);
  assert.equal(second.error_code, "AlreadyApplied", second.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.txt`), "\ufeffdiff --git looks like a header\n}\n");
});

Deno.test("a diff that adds lines and a BOM before a first line it keeps, applied twice: AlreadyApplied, as git apply refuses it", async () => {
  // The file keeps its BOM apart from its first line, so without the BOM the hunk's context still
  // matches the file's first line after the first run; the BOM and the result standing there are the signs.
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "notes.c": "--- not a header\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "notes");
  const result = "\ufeff--- not a header\n{\n++ counter\n--- not a header\n";
  await Deno.writeTextFile(`${dir.path}/notes.c`, result);
  const diff = await git(dir.path, "diff");
  await git(dir.path, "checkout", "-q", "--", "notes.c");
  const first = await apply(dir.path, diff);
  assert.equal(first.exit_code, 0, first.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.c`), result);
  assert.equal(await gitApplies(dir.path, diff), false);
  const second = await apply(dir.path, diff);
  assert.equal(second.error_code, "AlreadyApplied", second.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.c`), result);
  // The user's next step: real git sees exactly the one change.
  assert.equal((await git(dir.path, "diff", "--numstat")).trim(), "3\t0\tnotes.c");
});

Deno.test("a -U0 diff whose removed first line carries the BOM, applied twice: refused, as git apply refuses it; the BOM line matches no line without it", async () => {
  // Without its BOM the removed line is `}`, which the result holds further down: placed there, the
  // retry would add the lines again. A BOM belongs to the file's start, and U+FEFF is no white space.
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "a.c": "\ufeff}\nline 2\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "a");
  const result = "\ufeffline 1\ntrailing space  \n}\nline 2\n";
  await Deno.writeTextFile(`${dir.path}/a.c`, result);
  const diff = await git(dir.path, "diff", "-U0");
  await git(dir.path, "checkout", "-q", "--", "a.c");
  const first = await apply(dir.path, diff);
  assert.equal(first.exit_code, 0, first.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/a.c`), result);
  assert.notEqual((await gitRaw(dir.path, ["apply", "--check", "--unidiff-zero", "-"], diff)).code, 0);
  const second = await apply(dir.path, diff);
  assert.notEqual(second.exit_code, 0, "a second run was accepted");
  assert.equal(await Deno.readTextFile(`${dir.path}/a.c`), result);
  // The user's next step: real git sees the one change, made once.
  assert.equal((await git(dir.path, "diff", "--numstat")).trim(), "3\t1\ta.c");
});

Deno.test("a -U0 diff applied twice whose removed line also stands further down: AlreadyApplied, the other line untouched", async () => {
  // The oracle's case: a CRLF file ending in `-- an SQL comment` without a newline, and a -U0 hunk
  // replacing that text at line 2. A retry found the removed line only at the end (its `\r` and newline
  // aside) and edited it there; git apply finds it nowhere. The result standing at the stated line says
  // the diff ran before.
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  const before = "first\r\n-- an SQL comment\r\nthird\r\nfourth\r\nfifth\r\n-- an SQL comment";
  await writeTree(dir.path, { "notes.txt": before });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "notes");
  const result = before.replace("-- an SQL comment\r\n", "++ counter\r\n");
  await Deno.writeTextFile(`${dir.path}/notes.txt`, result);
  const diff = await git(dir.path, "diff", "-U0");
  assert.match(diff, /^@@ -2 \+2 @@/m);
  await git(dir.path, "checkout", "-q", "--", "notes.txt");
  const first = await apply(dir.path, diff);
  assert.equal(first.exit_code, 0, first.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.txt`), result);
  assert.notEqual((await gitRaw(dir.path, ["apply", "--check", "--unidiff-zero", "-"], diff)).code, 0);
  const second = await apply(dir.path, diff);
  assert.equal(second.error_code, "AlreadyApplied", second.stderr);
  assert.match(
    second.stderr,
    /its result stands at line 2, where the hunk says, and the lines it changes stand only at line 6/,
  );
  assert.match(second.stderr, /add --reapply/);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.txt`), result, "the last line was edited");
  // The hint's way through, on purpose: --reapply edits that other place, and says where.
  const forced = await apply(dir.path, diff, "--reapply");
  assert.equal(forced.exit_code, 0, forced.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/notes.txt`), result.replace(/-- an SQL comment$/, "++ counter"));
  assert.match(forced.stdout, /shifted|line 6/);
  await git(dir.path, "checkout", "-q", "--", "notes.txt");
  await Deno.writeTextFile(`${dir.path}/notes.txt`, result);
  // The user's next step: real git sees the one change, made once.
  assert.equal((await git(dir.path, "diff", "--numstat")).trim(), "1\t1\tnotes.txt");
});

Deno.test("a codex patch applied twice is AlreadyApplied; --reapply applies it once more on purpose", async () => {
  await using dir = await makeRoot();
  await calcRepo(dir.path);
  const codex = "*** Begin Patch\n*** Update File: src/calc.py\n@@ def sub(a, b):\n     return a - b\n+\n+\n" +
    "+def mul(a, b):\n+    return a * b\n*** End Patch\n";
  assert.equal((await apply(dir.path, codex)).exit_code, 0);
  assert.equal(await Deno.readTextFile(`${dir.path}/src/calc.py`), WITH_MUL);
  const again = await apply(dir.path, codex);
  assert.equal(again.error_code, "AlreadyApplied", again.stderr);
  assert.match(again.stderr, /already applied/);
  assert.equal(await Deno.readTextFile(`${dir.path}/src/calc.py`), WITH_MUL);
  const forced = await apply(dir.path, codex, "--reapply");
  assert.equal(forced.exit_code, 0, forced.stderr);
  assert.equal(count(await Deno.readTextFile(`${dir.path}/src/calc.py`), "def mul"), 2);
});

Deno.test("a codex chunk whose removed lines are gone and whose result is there is AlreadyApplied, not NoMatch", async () => {
  await using dir = await makeRoot();
  await calcRepo(dir.path);
  const codex = "*** Begin Patch\n*** Update File: src/calc.py\n@@ def sub(a, b):\n-    return a - b\n" +
    "+    return b - a\n*** End Patch\n";
  assert.equal((await apply(dir.path, codex)).exit_code, 0);
  const again = await apply(dir.path, codex);
  assert.equal(again.error_code, "AlreadyApplied", again.stderr);
  assert.equal(problemsOf(again)[0].details.line, 6);
});

Deno.test("a hunk without trailing context must end the file, as git apply anchors it", async () => {
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "f.txt": "a\nb\nc\nd\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "f");
  // Leading context, no trailing context: git reads it as "the file ends here" — it does not.
  const middle = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n a\n b\n+new\n";
  assert.equal(await gitApplies(dir.path, middle), false);
  const refused = await apply(dir.path, middle);
  assert.equal(refused.error_code, "NoMatch", refused.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/f.txt`), "a\nb\nc\nd\n");
});

Deno.test("a hunk without trailing context goes to the end even when its stated line is nearer another copy", async () => {
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "f.txt": "x\na\nb\nc\nd\na\nb\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "f");
  const diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,3 @@\n a\n b\n+end\n";
  assert.equal(await gitApplies(dir.path, diff), true);
  await gitRaw(dir.path, ["apply", "-"], diff);
  const byGit = await Deno.readTextFile(`${dir.path}/f.txt`);
  assert.equal(byGit, "x\na\nb\nc\nd\na\nb\nend\n");
  await git(dir.path, "checkout", "-q", "--", "f.txt");
  const applied = await apply(dir.path, diff);
  assert.equal(applied.exit_code, 0, applied.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/f.txt`), byGit);
});

Deno.test("a hunk stated at line 1 must start the file, as git apply anchors it", async () => {
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "f.txt": "head\nk\nl\nm\nn\nk\nl\nm\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "f");
  const diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n k\n-l\n+L\n m\n";
  assert.equal(await gitApplies(dir.path, diff), false);
  const refused = await apply(dir.path, diff);
  assert.equal(refused.error_code, "NoMatch", refused.stderr);
});

Deno.test("a unified or codex patch edits the work tree without committing; -m and --author commit it", async () => {
  await using dir = await makeRoot();
  const diff = await calcRepo(dir.path);
  const edited = await apply(dir.path, diff);
  assert.equal(edited.exit_code, 0, edited.stderr);
  assert.equal((edited.result as Any).commit_id, null);
  assert.match(edited.stdout, /not committed/);
  assert.equal((await git(dir.path, "log", "--format=%s")).trim(), "calc");
  assert.equal(await git(dir.path, "status", "--porcelain"), " M src/calc.py\n");
  await git(dir.path, "checkout", "-q", "--", "src/calc.py");

  const committed = await apply(dir.path, diff, "-m 'feat: mul' --author 'Ada <ada@example.com>'");
  assert.equal(committed.exit_code, 0, committed.stderr);
  assert.equal(await git(dir.path, "log", "-1", "--format=%s|%an <%ae>"), "feat: mul|Ada <ada@example.com>\n");
  assert.equal(await git(dir.path, "status", "--porcelain"), "");

  const contradict = await apply(dir.path, diff, "--no-commit --commit");
  assert.equal(contradict.error_code, "InvalidArgs");
});

Deno.test("an XGit patch still commits with its header's message", async () => {
  await using dir = await makeRoot();
  await calcRepo(dir.path);
  const xgit = 'commitmsg: docs: notes\n=== file.write: "NOTES.md" ===\nhello\n=== end ===\n=== PATCH EOF ===\n';
  const done = await apply(dir.path, xgit);
  assert.equal(done.exit_code, 0, done.stderr);
  assert.equal(await git(dir.path, "log", "-1", "--format=%s"), "docs: notes\n");
});

/** A repository stopped in a conflicted merge of `feature` into main, on app.txt. */
async function conflictedMerge(dir: string): Promise<void> {
  await git(dir, "init", "-q", "-b", "main");
  await writeTree(dir, { "app.txt": "one\n" });
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "base");
  await git(dir, "checkout", "-q", "-b", "feature");
  await Deno.writeTextFile(`${dir}/app.txt`, "feature\n");
  await git(dir, "commit", "-q", "-am", "feature side");
  await git(dir, "checkout", "-q", "main");
  await Deno.writeTextFile(`${dir}/app.txt`, "main\n");
  await git(dir, "commit", "-q", "-am", "main side");
  assert.notEqual((await gitRaw(dir, ["merge", "feature"])).code, 0);
}

Deno.test("an XGit patch during an unfinished merge refuses, naming git merge --continue / --abort; nothing is concluded", async () => {
  await using dir = await makeRoot();
  await conflictedMerge(dir.path);
  const before = await git(dir.path, "rev-parse", "HEAD");
  const resolve = 'commitmsg: resolve\n=== file.write: "app.txt" ===\nboth\n=== end ===\n=== PATCH EOF ===\n';
  const refused = await apply(dir.path, resolve);
  assert.equal(refused.error_code, "Conflict", refused.stderr);
  assert.match(refused.stderr, /a merge is in progress/);
  assert.match(refused.stderr, /git merge --continue/);
  assert.match(refused.stderr, /git merge --abort/);
  assert.equal(await git(dir.path, "rev-parse", "HEAD"), before);
  assert.match(await Deno.readTextFile(`${dir.path}/app.txt`), /^<<<<<<< /);
  // patch check says the same before anything is tried.
  const checked = await exec(dir.path, "patch check", { stdin: resolve });
  assert.equal(checked.error_code, "Conflict", checked.stderr);
  assert.match(checked.stderr, /git merge --continue/);
  // What the message says to do: resolve without committing, then let git conclude the merge.
  const resolved = await apply(dir.path, resolve, "--no-commit");
  assert.equal(resolved.exit_code, 0, resolved.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/app.txt`), "both\n");
  assert.match(await git(dir.path, "status"), /All conflicts fixed but you are still merging|You have unmerged paths/);
  await git(dir.path, "add", "app.txt");
  await git(dir.path, "commit", "-q", "--no-edit");
  const [parents, subject] = (await git(dir.path, "log", "-1", "--format=%P|%s")).trim().split("|");
  assert.equal(parents.split(" ").length, 2);
  assert.equal(subject, "Merge branch 'feature'");
});

Deno.test("a unified diff during an unfinished merge edits the work tree only; real git still sees the merge", async () => {
  await using dir = await makeRoot();
  await conflictedMerge(dir.path);
  const before = await git(dir.path, "rev-parse", "HEAD");
  const conflicted = await Deno.readTextFile(`${dir.path}/app.txt`);
  const lines = conflicted.replace(/\n$/, "").split("\n");
  const diff = `--- a/app.txt\n+++ b/app.txt\n@@ -1,${lines.length} +1 @@\n${
    lines.map((l) => `-${l}`).join("\n")
  }\n+both\n`;
  const done = await apply(dir.path, diff);
  assert.equal(done.exit_code, 0, done.stderr);
  assert.equal(await git(dir.path, "rev-parse", "HEAD"), before);
  assert.equal((await gitRaw(dir.path, ["rev-parse", "-q", "--verify", "MERGE_HEAD"])).code, 0);
  assert.match(await git(dir.path, "status"), /You have unmerged paths/);
});

Deno.test("without --repo a codex patch finds the only repository as git does; a wrong --repo names the right one", async () => {
  await using dir = await makeRoot();
  await Deno.mkdir(`${dir.path}/proj`);
  await calcRepo(`${dir.path}/proj`);
  await writeTree(dir.path, { "notes.md": "root notes\n" });
  const codex = "*** Begin Patch\n*** Update File: src/calc.py\n@@ def sub(a, b):\n-    return a - b\n" +
    "+    return b - a\n*** End Patch\n";
  const wrong = await apply(dir.path, codex, "--repo .");
  assert.equal(wrong.error_code, "NotFound", wrong.stderr);
  assert.match(wrong.stderr, /did you mean --repo proj\? Run `patch apply --repo proj`/);
  const found = await apply(dir.path, codex);
  assert.equal(found.exit_code, 0, found.stderr);
  assert.equal((found.result as Any).repo_path, "proj");
  assert.match(await Deno.readTextFile(`${dir.path}/proj/src/calc.py`), /return b - a/);
  assert.equal(await git(`${dir.path}/proj`, "status", "--porcelain"), " M src/calc.py\n");
  // The line the error suggested runs too (the change is there now: it is AlreadyApplied).
  assert.equal((await apply(dir.path, codex, "--repo proj")).error_code, "AlreadyApplied");
});

Deno.test("several repositories and no --repo: AmbiguousRepository naming them, as git says", async () => {
  await using dir = await makeRoot();
  for (const name of ["one", "two"]) {
    await Deno.mkdir(`${dir.path}/${name}`);
    await calcRepo(`${dir.path}/${name}`);
  }
  const diff = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -5,2 +5,2 @@\n def sub(a, b):\n-    return a - b\n" +
    "+    return b - a\n";
  const refused = await apply(dir.path, diff);
  assert.equal(refused.error_code, "AmbiguousRepository", refused.stderr);
  assert.match(refused.stderr, /patch apply --repo one/);
  assert.equal((await apply(dir.path, diff, "--repo one")).exit_code, 0);
});

Deno.test("a failed hunk of every format lists the closest lines and the first line where it diverged", async () => {
  await using dir = await makeRoot();
  await calcRepo(dir.path);
  const unified = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -5,2 +5,2 @@\n def sub(a, b):\n-    return a - c\n" +
    "+    return b - a\n";
  const u = await apply(dir.path, unified);
  assert.equal(u.error_code, "NoMatch", u.stderr);
  const uc = problemsOf(u)[0].details.closest;
  assert.equal(uc.line, 5);
  assert.deepEqual(uc.diverged, { line: 6, expected: "    return a - c", found: "    return a - b" });
  assert.match(u.stderr, /first different at line 6/);

  const codex = "*** Begin Patch\n*** Update File: src/calc.py\n def sub(a, b):\n-    return a - c\n" +
    "+    return b - a\n*** End Patch\n";
  const c = await apply(dir.path, codex);
  assert.equal(c.error_code, "NoMatch", c.stderr);
  const cc = problemsOf(c)[0].details.closest;
  assert.equal(cc.line, 5);
  assert.deepEqual(cc.diverged, { line: 6, expected: "    return a - c", found: "    return a - b" });
  assert.match(c.stderr, /first different at line 6/);
});

Deno.test("a fuzzy match is named in result.warnings and the text output", async () => {
  await using dir = await makeRoot();
  await calcRepo(dir.path);
  const diff = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,6 +1,6 @@\n def add(a, b):\n-    return a + b\n" +
    "+    return b + a\n \n \n def sub(x, y):\n     return a - b\n";
  const done = await apply(dir.path, diff);
  assert.equal(done.exit_code, 0, done.stderr);
  const warnings = (done.result as Any).warnings as string[];
  assert.ok(warnings.some((w) => /placed at line 1 fuzzily/.test(w)), JSON.stringify(warnings));
  assert.match(done.stdout, /Warning: .*fuzzily/);
});

Deno.test("`pterm runs replay` of a patch run that applied refuses as AlreadyApplied and says why", async () => {
  await using dir = await makeRoot();
  const diff = await calcRepo(dir.path);
  const first = await cli(["exec", "--root", dir.path, "--request", "-"], {
    stdin: JSON.stringify({ command: "patch apply", stdin: diff }),
  });
  assert.equal(first.envelope!.exit_code, 0, first.envelope!.stderr);
  const replay = await cli(["runs", "replay", first.envelope!.run_id, "--root", dir.path]);
  assert.equal(replay.envelope!.error_code, "AlreadyApplied", replay.envelope!.stderr);
  assert.match(replay.envelope!.stderr, /already applied/);
  assert.match(replay.envelope!.stderr, /runs replay/);
  assert.equal(count(await Deno.readTextFile(`${dir.path}/src/calc.py`), "def mul"), 1);
  assert.equal(count(await git(dir.path, "diff"), "+def mul"), 1);
});

Deno.test("a cherry-pick stopped on a conflict: a committing patch refuses naming git cherry-pick --continue; git concludes it with its own message", async () => {
  await using dir = await makeRoot();
  await git(dir.path, "init", "-q", "-b", "main");
  await writeTree(dir.path, { "app.txt": "one\n" });
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "base");
  await git(dir.path, "checkout", "-q", "-b", "feature");
  await Deno.writeTextFile(`${dir.path}/app.txt`, "feature\n");
  await git(dir.path, "commit", "-q", "-am", "feature: change app");
  await git(dir.path, "checkout", "-q", "main");
  await Deno.writeTextFile(`${dir.path}/app.txt`, "main\n");
  await git(dir.path, "commit", "-q", "-am", "main side");
  assert.notEqual((await gitRaw(dir.path, ["cherry-pick", "feature"])).code, 0);
  const head = await git(dir.path, "rev-parse", "HEAD");
  const codex = "*** Begin Patch\n*** Add File: app.txt\n+both\n*** End Patch\n";
  const refused = await apply(dir.path, codex, "-m 'resolve'");
  assert.equal(refused.error_code, "Conflict", refused.stderr);
  assert.match(refused.stderr, /a cherry-pick is in progress.*git cherry-pick --continue/s);
  assert.equal(await git(dir.path, "rev-parse", "HEAD"), head);
  // Without -m the codex patch only edits the file; real git concludes the cherry-pick.
  assert.equal((await apply(dir.path, codex)).exit_code, 0);
  await git(dir.path, "add", "app.txt");
  await gitRaw(dir.path, ["-c", "core.editor=true", "cherry-pick", "--continue"]);
  assert.equal(await git(dir.path, "log", "-1", "--format=%s|%P"), `feature: change app|${head}`);
});

Deno.test("a NotFound from a patch given with --file names the line with --file and the --repo that finds the path", async () => {
  await using dir = await makeRoot();
  for (const name of ["one", "two"]) await Deno.mkdir(`${dir.path}/${name}`);
  await calcRepo(`${dir.path}/two`);
  await git(`${dir.path}/one`, "init", "-q", "-b", "main");
  const diff = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -5,2 +5,2 @@\n def sub(a, b):\n-    return a - b\n" +
    "+    return b - a\n";
  await Deno.writeTextFile(`${dir.path}/fix.diff`, diff);
  const wrong = await apply(dir.path, "", "--file fix.diff --repo one");
  assert.equal(wrong.error_code, "NotFound", wrong.stderr);
  assert.match(wrong.stderr, /Run `patch apply --file fix\.diff --repo two`\./);
  assert.equal((await apply(dir.path, "", "--file fix.diff --repo two")).exit_code, 0);
});
