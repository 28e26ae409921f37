/**
 * `patch apply` / `patch check` read, besides XGit blocks, a plain unified diff (as real git and
 * GNU diff write it, fenced or not) and codex's `*** Begin Patch` format (the shapes of
 * openai/codex's apply-patch scenarios: several operations, several chunks with `@@` anchors,
 * moves into new folders, pure additions, `*** End of File`, a missing final line break). Real
 * git is the oracle: the same tree as `git apply`, `git fsck --strict` clean, nothing written on
 * failure.
 */

import assert from "node:assert/strict";
import { assertFsck } from "../git/oracle.ts";
import { apply, check, fingerprint, git, problemsOf, readTree, writeTree } from "./helpers.ts";
import { makeRoot } from "../../_support/helpers.ts";

type Applied = { input_format: string; commit_id: string | null; warnings: string[]; files_changed: unknown[] };

async function repoWith(root: string, files: Record<string, string>): Promise<string> {
  const repo = `${root}/proj`;
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await writeTree(repo, files);
  await git(repo, "add", "-A");
  await git(repo, "commit", "-qm", "base");
  return repo;
}

/** A real text nobody here wrote: the GPL as Debian ships it (base-files). */
const GPL = await Deno.readTextFile("/usr/share/common-licenses/GPL-3");

Deno.test("a diff real git wrote (edit, add, delete, rename) applies to the same tree as git apply, fenced or not", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, {
    "COPYING": GPL,
    "src/old_name.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\n",
    "gone.txt": "bye\n",
  });
  // Make the changes with real git and take its diff and its tree.
  const edited = GPL.replace("Preamble", "Preamble (edited)").replace(
    "END OF TERMS AND CONDITIONS",
    "END OF TERMS\nAND CONDITIONS",
  );
  await Deno.writeTextFile(`${repo}/COPYING`, edited);
  await git(repo, "mv", "src/old_name.txt", "src/new_name.txt");
  await Deno.writeTextFile(`${repo}/src/new_name.txt`, "one\ntwo\nthree\nFOUR\nfive\nsix\nseven\n");
  await Deno.remove(`${repo}/gone.txt`);
  await writeTree(repo, { "docs/added.md": "# Added\n\ntext\n" });
  await git(repo, "add", "-A");
  const diff = await git(repo, "diff", "--cached", "-M", "HEAD");
  assert.match(diff, /rename from src\/old_name\.txt/);
  const expectedTree = (await git(repo, "write-tree")).trim();
  await git(repo, "reset", "-q", "--hard", "HEAD");
  await git(repo, "clean", "-qfd");

  for (const text of [diff, "Here is the patch:\n\n```diff\n" + diff + "```\n"]) {
    const before = await fingerprint(repo);
    const checked = await check(dir.path, text, "--repo proj");
    assert.equal(checked.exit_code, 0, checked.stderr);
    assert.deepEqual(await fingerprint(repo), before, "check writes nothing");
    const head = await git(repo, "rev-parse", "HEAD");
    const envelope = await apply(dir.path, text, "--repo proj");
    assert.equal(envelope.exit_code, 0, envelope.stderr);
    const result = envelope.result as Applied;
    assert.equal(result.input_format, "unified_diff");
    assert.match(envelope.stdout, /^Read as a unified diff/);
    // A unified diff edits the work tree as git apply does, and commits nothing.
    assert.equal(result.commit_id, null);
    assert.equal(await git(repo, "rev-parse", "HEAD"), head);
    await git(repo, "add", "-A");
    assert.equal((await git(repo, "write-tree")).trim(), expectedTree);
    await assertFsck(repo);
    await git(repo, "reset", "-q", "--hard", "HEAD");
    await git(repo, "clean", "-qfd");
  }
});

Deno.test("a diff -u without git headers (GNU diff's output) applies; a diff that does not fit writes nothing", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "COPYING": GPL });
  await Deno.writeTextFile(`${dir.path}/new.txt`, GPL.replace("Preamble", "PREAMBLE"));
  const run = await new Deno.Command("diff", {
    args: ["-u", "--label", "a/COPYING", "--label", "b/COPYING", `${repo}/COPYING`, `${dir.path}/new.txt`],
    stdout: "piped",
  }).output();
  const diff = new TextDecoder().decode(run.stdout);
  assert.match(diff, /^--- a\/COPYING\n\+\+\+ b\/COPYING\n@@ /);
  await Deno.remove(`${dir.path}/new.txt`);
  const envelope = await apply(dir.path, diff, "--repo proj");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal(await Deno.readTextFile(`${repo}/COPYING`), GPL.replace("Preamble", "PREAMBLE"));
  await assertFsck(repo);

  const before = await fingerprint(repo);
  const stale = await apply(dir.path, diff, "--repo proj");
  assert.notEqual(stale.exit_code, 0, "the same diff again no longer fits");
  assert.match(stale.stderr, /read as a unified diff/);
  assert.deepEqual(await fingerprint(repo), before);
});

const APP = [
  "import os",
  "",
  "",
  "class Config:",
  "    debug = False",
  "    port = 8080",
  "",
  "",
  "def greet(name):",
  '    print("Hi")',
  "    return name",
  "",
  "",
  "def farewell(name):",
  '    print("Hi")',
  "    return None",
  "",
].join("\n");

Deno.test("a codex patch: add, update with anchors and several chunks, delete, move into a new folder — one commit", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, {
    "app.py": APP,
    "obsolete.txt": "old\n",
    "old/name.txt": "from\nline 2\nline 3\nline 4\nline 5\n",
    "old/other.txt": "stays\n",
    "tail.txt": "first\nsecond\n",
    "lines.txt": "line 1\nline 2\nline 3\n",
    "input.txt": "line\n",
    "no_newline.txt": "no newline at end",
  });
  const patch = [
    "*** Begin Patch",
    "*** Add File: nested/new.txt",
    "+created",
    "+",
    "+with a blank line",
    "*** Update File: app.py",
    "@@ class Config:",
    "-    debug = False",
    "+    debug = True",
    "     port = 8080",
    "@@ def farewell(name):",
    '-    print("Hi")',
    '+    print("Bye")',
    "*** Delete File: obsolete.txt",
    "*** Update File: old/name.txt",
    "*** Move to: renamed/dir/name.txt",
    "@@",
    "-from",
    "+to",
    "*** Update File: tail.txt",
    "@@",
    " first",
    "-second",
    "+second updated",
    "*** End of File",
    "*** Update File: lines.txt",
    "@@",
    " line 1",
    "-line 2",
    " line 3",
    "*** Update File: input.txt",
    "@@",
    "+added line 1",
    "+added line 2",
    "*** Update File: no_newline.txt",
    "@@",
    "-no newline at end",
    "+first line",
    "+second line",
    "*** End Patch",
    "",
  ].join("\n");
  // A codex patch commits only when asked (--commit, -m or --author).
  const envelope = await apply(dir.path, patch, "--repo proj --commit");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as Applied;
  assert.equal(result.input_format, "codex_patch");
  assert.ok(result.commit_id);
  assert.match(envelope.stdout, /^Read as a codex `\*\*\* Begin Patch` patch/);
  assert.deepEqual(await readTree(repo), {
    "app.py": APP.replace("debug = False", "debug = True").replace(
      'def farewell(name):\n    print("Hi")',
      'def farewell(name):\n    print("Bye")',
    ),
    "input.txt": "line\nadded line 1\nadded line 2\n",
    "lines.txt": "line 1\nline 3\n",
    "nested/new.txt": "created\n\nwith a blank line\n",
    "no_newline.txt": "first line\nsecond line\n",
    "old/other.txt": "stays\n",
    "renamed/dir/name.txt": "to\nline 2\nline 3\nline 4\nline 5\n",
    "tail.txt": "first\nsecond updated\n",
  });
  // Real git: one commit on top of base, a clean status, a sound repository.
  assert.equal((await git(repo, "rev-list", "--count", "HEAD")).trim(), "2");
  assert.equal(await git(repo, "status", "--porcelain"), "");
  const names = await git(repo, "show", "--name-status", "--format=", "-M", "HEAD");
  assert.match(names, /^D\tobsolete\.txt$/m);
  assert.match(names, /^A\tnested\/new\.txt$/m);
  assert.match(names, /^R\d+\told\/name\.txt\trenamed\/dir\/name\.txt$/m);
  await assertFsck(repo);
});

Deno.test("a codex chunk whose lines repeat: refused without an anchor, placed below the anchor with one", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "app.py": APP });
  const chunk = ['-    print("Hi")', '+    print("Hello")'];
  const before = await fingerprint(repo);
  const bare = await apply(
    dir.path,
    ["*** Begin Patch", "*** Update File: app.py", "@@", ...chunk, "*** End Patch"].join("\n"),
    "--repo proj",
  );
  assert.equal(bare.error_code, "AmbiguousMatch");
  assert.match(bare.stderr, /occur 2 times \(at lines 10, 15\)/);
  assert.match(bare.stderr, /@@ <line>/);
  assert.deepEqual(await fingerprint(repo), before, "nothing written");

  const anchored = await apply(
    dir.path,
    ["*** Begin Patch", "*** Update File: app.py", "@@ def farewell(name):", ...chunk, "*** End Patch"].join("\n"),
    "--repo proj",
  );
  assert.equal(anchored.exit_code, 0, anchored.stderr);
  const text = await Deno.readTextFile(`${repo}/app.py`);
  assert.match(text, /def greet\(name\):\n {4}print\("Hi"\)/);
  assert.match(text, /def farewell\(name\):\n {4}print\("Hello"\)/);

  // A unified-diff hunk header where codex wants `@@`: its numbers are no line of the file; the chunk's lines decide.
  const numbered = await apply(
    dir.path,
    [
      "*** Begin Patch",
      "*** Update File: app.py",
      "@@ -4,3 +4,3 @@ class Config:",
      "-    port = 8080",
      "+    port = 9090",
      "*** End Patch",
    ]
      .join("\n"),
    "--repo proj",
  );
  assert.equal(numbered.exit_code, 0, numbered.stderr);
  assert.match(await Deno.readTextFile(`${repo}/app.py`), /port = 9090/);

  // Only `+` lines under an anchor go right below it.
  const insert = await apply(
    dir.path,
    ["*** Begin Patch", "*** Update File: app.py", "@@ def greet(name):", '+    """Say hi."""', "*** End Patch"].join(
      "\n",
    ),
    "--repo proj",
  );
  assert.equal(insert.exit_code, 0, insert.stderr);
  assert.match(await Deno.readTextFile(`${repo}/app.py`), /def greet\(name\):\n {4}"""Say hi."""\n {4}print\("Hi"\)/);
  await assertFsck(repo);
});

Deno.test("a codex patch that does not fit writes nothing: missing context, missing file, bad grammar", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "modify.txt": "line1\nline2\n", "foo.txt": "foo\n" });
  const before = await fingerprint(repo);
  const cases: [string[], string, RegExp][] = [
    [
      ["*** Add File: created.txt", "+made", "*** Update File: modify.txt", "@@", "-missing", "+changed"],
      "NoMatch",
      /are not in the file/,
    ],
    [["*** Delete File: missing.txt"], "NotFound", /missing\.txt` does not exist/],
    [["*** Update File: nothing.txt", "@@", "-a", "+b"], "NotFound", /use `\*\*\* Add File:`/],
    [["*** Update File: foo.txt", "@@ nope", "-foo", "+bar"], "NoMatch", /anchor `@@ nope`/],
    [["*** Frobnicate File: foo.txt"], "PatchParseError", /line 2: expected `\*\*\* Add File: <path>`/],
    [["*** Update File: foo.txt"], "PatchParseError", /has no changes/],
    [["*** Update File: modify.txt", "@@", "-line1", "+bar", "*** End of File"], "NoMatch", /at its end/],
  ];
  for (const [body, code, message] of cases) {
    const patch = ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
    for (const run of [apply, check]) {
      const envelope = await run(dir.path, patch, "--repo proj");
      assert.equal(envelope.error_code, code, `${body.join(" | ")}: ${envelope.stderr}`);
      assert.match(envelope.stderr, message);
      assert.ok(problemsOf(envelope).length >= 1);
    }
    assert.deepEqual(await fingerprint(repo), before, `${body.join(" | ")} wrote nothing`);
  }
  const prose = await apply(
    dir.path,
    "Here is the patch:\n*** Begin Patch\n*** Delete File: foo.txt\n*** End Patch\n",
    "--repo proj",
  );
  assert.equal(prose.error_code, "PatchParseError");
  assert.match(prose.stderr, /must start with `\*\*\* Begin Patch` \(line 2\); remove the text before it/);
  const absolute = await apply(
    dir.path,
    "*** Begin Patch\n*** Delete File: /etc/passwd\n*** End Patch\n",
    "--repo proj",
  );
  assert.equal(absolute.error_code, "PathEscape");
  assert.deepEqual(await fingerprint(repo), before);
  const cut = await apply(dir.path, "*** Begin Patch\n*** Update File: foo.txt\n@@\n-foo\n+bar\n", "--repo proj");
  assert.equal(cut.error_code, "PatchParseError");
  assert.match(cut.stderr, /\*\*\* End Patch/);
  assert.deepEqual(await fingerprint(repo), before);
});

Deno.test("a codex patch in a fence or a heredoc, sent with CRLF, and a CRLF file keep their line breaks", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "win.txt": "alpha\r\nbeta\r\ngamma\r\n", "unix.txt": "x\ny\n" });
  const fenced = "```\n*** Begin Patch\n*** Update File: win.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch\n```\n";
  const one = await apply(dir.path, fenced, "--repo proj");
  assert.equal(one.exit_code, 0, one.stderr);
  assert.equal(await Deno.readTextFile(`${repo}/win.txt`), "alpha\r\nBETA\r\ngamma\r\n");

  const heredoc =
    "<<'EOF'\r\n*** Begin Patch\r\n*** Update File: unix.txt\r\n@@\r\n-y\r\n+z\r\n*** End Patch\r\nEOF\r\n";
  const checked = await check(dir.path, heredoc, "--repo proj");
  assert.equal(checked.exit_code, 0, checked.stderr);
  assert.equal((checked.result as Applied).input_format, "codex_patch");
  assert.equal(await Deno.readTextFile(`${repo}/unix.txt`), "x\ny\n", "check writes nothing");
  const two = await apply(dir.path, heredoc, "--repo proj");
  assert.equal(two.exit_code, 0, two.stderr);
  assert.equal(await Deno.readTextFile(`${repo}/unix.txt`), "x\nz\n");
  await assertFsck(repo);
});

Deno.test("a codex Add File over an existing file replaces it (as apply_patch does) and says so", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "duplicate.txt": "old content\n" });
  const envelope = await apply(
    dir.path,
    "*** Begin Patch\n*** Add File: duplicate.txt\n+new content\n*** End Patch\n",
    "--repo proj",
  );
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal(await Deno.readTextFile(`${repo}/duplicate.txt`), "new content\n");
  assert.match((envelope.result as Applied).warnings.join("\n"), /existed; its content was replaced/);
});

Deno.test("XGit patches are still XGit, also when their bodies hold diff or codex lines", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "a.txt": "a\n" });
  const xgit = '=== file.write: "notes.md" ===\n*** Begin Patch\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n' +
    "=== end ===\n=== PATCH EOF ===\n";
  const envelope = await apply(dir.path, xgit, "--repo proj");
  // The first line is XGit's, so it is XGit.
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((envelope.result as Applied).input_format, "xgit");
  assert.match(await Deno.readTextFile(`${repo}/notes.md`), /^\*\*\* Begin Patch\ndiff --git/);
});

Deno.test("a diff holding `===` lines (Markdown underlines, an XGit patch) and a diff sent with CRLF apply", async () => {
  await using dir = await makeRoot();
  const before = "Title\n======\n\ntext\n\n=== end ===\n";
  const after = "Title\n======\n\nmore text\n\n=== end ===\n=== PATCH EOF ===\n";
  const repo = await repoWith(dir.path, { "README.md": before, "unix.txt": "a\nb\n" });
  await Deno.writeTextFile(`${repo}/README.md`, after);
  await Deno.writeTextFile(`${repo}/unix.txt`, "a\nc\n");
  const diff = await git(repo, "diff");
  await git(repo, "checkout", "--", ".");
  const readme = diff.slice(0, diff.indexOf("diff --git a/unix.txt"));
  const envelope = await apply(dir.path, readme, "--repo proj");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((envelope.result as Applied).input_format, "unified_diff");
  assert.equal(await Deno.readTextFile(`${repo}/README.md`), after);

  const unix = diff.slice(diff.indexOf("diff --git a/unix.txt"));
  const crlf = await apply(dir.path, unix.replaceAll("\n", "\r\n"), "--repo proj");
  assert.equal(crlf.exit_code, 0, crlf.stderr);
  assert.equal(await Deno.readTextFile(`${repo}/unix.txt`), "a\nc\n");
  await assertFsck(repo);
});

Deno.test("patch apply outside a repository on files inside one: no commit, and the result says why and what to run", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "src/a.py": "x = 1\n" });
  const head = (await git(repo, "rev-parse", "HEAD")).trim();
  const fromRoot =
    '=== line.replace: "proj/src/a.py" ===\nkeys=x = 1\nx = 2\n=== end ===\n=== file.write: "notes.md" ===\nhi\n=== end ===\n=== PATCH EOF ===\n';
  // Without --repo the patch runs in the repository git would use (proj, the only one): its paths
  // are relative to it, and the error says how this one was written and which line runs it.
  const refused = await apply(dir.path, fromRoot);
  assert.equal(refused.error_code, "AmbiguousRepository", refused.stderr);
  assert.match(
    refused.stderr,
    /written from the workspace root \(`proj\/src\/a\.py`\).*Nothing was written\. Run `patch apply --repo \.`.*relative to the repository, src\/a\.py, and pass --repo proj/s,
  );
  await assert.rejects(Deno.lstat(`${dir.path}/notes.md`), "nothing was written");
  assert.equal(await Deno.readTextFile(`${repo}/src/a.py`), "x = 1\n");
  const envelope = await apply(dir.path, fromRoot, "--repo .");
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  const result = envelope.result as Applied & { is_repository: boolean };
  assert.equal(result.is_repository, false);
  assert.equal(result.commit_id, null);
  assert.equal(await Deno.readTextFile(`${repo}/src/a.py`), "x = 2\n");
  assert.equal((await git(repo, "rev-parse", "HEAD")).trim(), head, "real git sees no commit");
  const warning = result.warnings.find((w) => w.includes("no commit was made"));
  assert.ok(warning, JSON.stringify(result.warnings));
  assert.match(warning, /`proj\/src\/a\.py` lie in the repository `proj`/);
  assert.match(
    warning,
    /run `patch apply --repo proj` with paths relative to it \(`src\/a\.py` for `proj\/src\/a\.py`\)/,
  );
  assert.match(envelope.stdout, /no commit \(not a git repository\)/);

  // The line it names commits.
  const again = await apply(
    dir.path,
    '=== line.replace: "src/a.py" ===\nkeys=x = 2\nx = 3\n=== end ===\n=== PATCH EOF ===\n',
    "--repo proj",
  );
  assert.equal(again.exit_code, 0, again.stderr);
  assert.ok((again.result as Applied).commit_id);
  assert.equal(await git(repo, "status", "--porcelain"), "");

  // A folder with no repository anywhere: still says that no commit was made.
  await using plain = await makeRoot();
  const bare = await apply(plain.path, '=== file.write: "a.txt" ===\na\n=== end ===\n=== PATCH EOF ===\n');
  assert.equal(bare.exit_code, 0, bare.stderr);
  assert.match((bare.result as Applied).warnings.join("\n"), /no commit was made: `\.` is not a git repository/);
});

/**
 * Shapes where pterm's reading of a codex patch was compared with the real `apply_patch` (the
 * `codex` binary of npm's @openai/codex; scripts/codex_differential.ts): the expected texts are
 * what that binary wrote. A context line copied loosely keeps the file's own text; a CRLF file
 * without a final line break gets a CRLF one; a blank context line that only stands for the
 * final line break; a chunk that must end the file but lies above the previous one is refused.
 */
Deno.test("codex shapes checked against the real apply_patch: same text, or a refusal that writes nothing", async () => {
  const cases: { text: string; patch: string[]; expected: string | null }[] = [
    {
      text: "return x\nalpha\nreturn x\ntrail  \ndash \u2014 here\nx = 1\ndelta\n",
      patch: ["@@ return x", " dash - here", "-x = 1", "+X = 1"],
      expected: "return x\nalpha\nreturn x\ntrail  \ndash \u2014 here\nX = 1\ndelta\n",
    },
    {
      text: "trail  \r\n\r\ntrail  \r\nalpha\r\nx = 1\r\nbeta\r\ntrail  ",
      patch: ["@@ trail  ", " alpha", "+added"],
      expected: "trail  \r\n\r\ntrail  \r\nalpha\r\nadded\r\nx = 1\r\nbeta\r\ntrail  \r\n",
    },
    {
      text: "  indented\n  indented\ngamma\nalpha\ngamma\nbeta\n\ngamma\ntrail  \n\n",
      patch: ["@@", "-beta", "+BETA", "-", "+NEW", "@@", "-trail", "+TRAIL  ", "@@", " ", " ", "+added"],
      expected: "  indented\n  indented\ngamma\nalpha\ngamma\nBETA\nNEW\ngamma\nTRAIL  \n\n\nadded\n",
    },
    { text: "line 1\r\nline 2", patch: ["@@", "-line 1", "+X"], expected: "X\r\nline 2\r\n" },
    {
      text: "delta\ndelta\ntrail  \n\ngamma\ndelta\nreturn x\n",
      patch: ["@@", " ", " gamma", "-delta", "+DELTA", "@@", " delta", " return x", "+appended", "*** End of File"],
      expected: null,
    },
  ];
  for (const { text, patch, expected } of cases) {
    await using dir = await makeRoot();
    await Deno.writeTextFile(`${dir.path}/f.txt`, text);
    const envelope = await apply(
      dir.path,
      ["*** Begin Patch", "*** Update File: f.txt", ...patch, "*** End Patch", ""].join("\n"),
    );
    if (expected === null) {
      assert.notEqual(envelope.exit_code, 0, patch.join(" | "));
      assert.equal(await Deno.readTextFile(`${dir.path}/f.txt`), text, "nothing written");
    } else {
      assert.equal(envelope.exit_code, 0, `${patch.join(" | ")}: ${envelope.stderr}`);
      assert.equal(await Deno.readTextFile(`${dir.path}/f.txt`), expected, patch.join(" | "));
    }
  }
});

Deno.test("a codex section the engine refuses: the message maps its block to the patch line; the summary names files", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "a.txt": "x\n" });
  const before = await fingerprint(dir.path);
  const refused = await apply(
    dir.path,
    "*** Begin Patch\n*** Add File: ok.txt\n+fine\n*** Add File: a.txt/x\n+y\n*** End Patch\n",
  );
  assert.notEqual(refused.exit_code, 0);
  assert.match(refused.stderr, /^\[Error\] block 2 \(git\.diff\)/);
  assert.match(refused.stderr, /block 1 = line 2, block 2 = line 4/);
  assert.deepEqual(await fingerprint(dir.path), before, "nothing written, not even ok.txt");

  const applied = await apply(dir.path, "*** Begin Patch\n*** Add File: ok.txt\n+fine\n*** End Patch\n");
  assert.equal(applied.exit_code, 0, applied.stderr);
  assert.match(applied.stdout, /1\. git\.diff ok\.txt: created \+1 -0/);
});

Deno.test("diff -ruN output (GNU diff) applies as GNU patch -p1 applies it: edits, a new file, a deleted file", async () => {
  await using dir = await makeRoot();
  const old = `${dir.path}/old`;
  const neu = `${dir.path}/new`;
  const sql = "-- drop the old table\nDROP TABLE t;\n-- keep this\nSELECT 1;\n";
  await writeTree(old, { "COPYING": GPL, "db/init.sql": sql, "gone.txt": "bye\n" });
  await writeTree(neu, {
    "COPYING": GPL.replace("Preamble", "PREAMBLE"),
    "db/init.sql": sql.replace("-- drop the old table\nDROP TABLE t;\n", ""),
    "docs/new.md": "# New\n",
  });
  const run = await new Deno.Command("diff", { args: ["-ruN", "old", "new"], cwd: dir.path, stdout: "piped" }).output();
  const diff = new TextDecoder().decode(run.stdout);
  assert.match(diff, /^diff -ruN old\/COPYING new\/COPYING$/m);
  assert.match(diff, /^--- old\/docs\/new\.md\t1970-01-01/m);
  assert.match(diff, /^--- drop the old table$/m, "a removed SQL comment looks like a header line");

  // The oracle: GNU patch -p1 in one copy, pterm in another.
  await using byPatch = await makeRoot();
  await using byPterm = await makeRoot();
  for (const target of [byPatch.path, byPterm.path]) {
    await writeTree(target, { "COPYING": GPL, "db/init.sql": sql, "gone.txt": "bye\n" });
  }
  const gnu = await new Deno.Command("patch", { args: ["-p1", "-s"], cwd: byPatch.path, stdin: "piped" }).spawn();
  const writer = gnu.stdin.getWriter();
  await writer.write(new TextEncoder().encode(diff));
  await writer.close();
  assert.ok((await gnu.status).success, "GNU patch applies it");

  const envelope = await apply(byPterm.path, diff);
  assert.equal(envelope.exit_code, 0, envelope.stderr);
  assert.equal((envelope.result as Applied).input_format, "unified_diff");
  assert.deepEqual(await readTree(byPterm.path), await readTree(byPatch.path));
  assert.deepEqual(Object.keys(await readTree(byPterm.path)), ["COPYING", "db/init.sql", "docs/new.md"]);
});

Deno.test("a diff copied from a coloured git diff is refused with the line to make it again; nothing written", async () => {
  await using dir = await makeRoot();
  const repo = await repoWith(dir.path, { "f.txt": "one\ntwo\nthree\n" });
  await Deno.writeTextFile(`${repo}/f.txt`, "one\nTWO\nthree\n");
  const coloured = await git(repo, "-c", "color.ui=always", "diff");
  assert.ok(coloured.includes("\x1b["), "the real git coloured it");
  await git(repo, "checkout", "--", "f.txt");
  const before = await fingerprint(repo);
  for (const run of [apply, check]) {
    const envelope = await run(dir.path, coloured, "--repo proj");
    assert.equal(envelope.exit_code, 1, envelope.stderr);
    const problems = problemsOf(envelope);
    assert.equal(problems[0].code, "PatchParseError");
    assert.match(problems[0].message, /terminal colour codes.*git diff --no-color/);
    assert.equal(problems[0].patch_line, 1);
  }
  assert.deepEqual(await fingerprint(repo), before);
});
