/** `patch apply` / `patch check` end to end, through the real kernel and sandbox, on folders that are not repositories. */

import assert from "node:assert/strict";
import { makeRoot } from "../../_support/helpers.ts";
import { apply, block, check, fingerprint, patchOf, problemsOf, readTree, writeTree } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("file ops: write, append, prepend, delete (with empty parents), move, chmod, eol, binary, image", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, {
    "keep.txt": "keep\n",
    "old/deep/gone.txt": "bye\n",
    "crlf.txt": "a\r\nb",
    "src/mod.py": "x = 1\n",
    "pkg/a.txt": "A\n",
    "pkg/sub/b.txt": "B\n",
  });
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
  const env = await apply(
    dir.path,
    patchOf(
      block("file.write", "new/dir/created.txt", ["line one", "line two"]),
      block("file.append", "keep.txt", ["appended"]),
      block("file.prepend", "keep.txt", ["prepended"]),
      block("file.delete", "old/deep/gone.txt"),
      block("file.move", "src/mod.py", ["to=lib/mod.py"]),
      block("file.move", "pkg", ["to=vendor/pkg"]),
      block("file.chmod", "lib/mod.py", ["mode=755"]),
      block("file.eol", "crlf.txt", ["style=lf"]),
      block("file.binary", "bin/data.bin", [btoa("\x00\x01\x02hello")]),
      block("file.image", "img/dot.png", [btoa(String.fromCharCode(...png))]),
    ),
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.deepEqual(await readTree(dir.path), {
    "bin/data.bin": "\x00\x01\x02hello",
    "crlf.txt": "a\nb\n",
    "img/dot.png": new TextDecoder().decode(png),
    "keep.txt": "prepended\nkeep\nappended\n",
    "lib/mod.py": "x = 1\n",
    "new/dir/created.txt": "line one\nline two\n",
    "vendor/pkg/a.txt": "A\n",
    "vendor/pkg/sub/b.txt": "B\n",
  });
  assert.equal(((await Deno.stat(`${dir.path}/lib/mod.py`)).mode ?? 0) & 0o777, 0o755);
  for (const gone of ["old", "src", "pkg"]) {
    await assert.rejects(Deno.stat(`${dir.path}/${gone}`), Deno.errors.NotFound, `${gone} was emptied and removed`);
  }
  const blocks = (env.result as Any).blocks;
  assert.deepEqual(
    blocks.map((b: Any) => [b.index, b.op, b.status, b.lines_added, b.lines_removed]),
    [
      [1, "file.write", "created", 2, 0],
      [2, "file.append", "modified", 1, 0],
      [3, "file.prepend", "modified", 1, 0],
      [4, "file.delete", "deleted", 0, 1],
      [5, "file.move", "moved", 0, 0],
      [6, "file.move", "moved", 0, 0],
      [7, "file.chmod", "mode_changed", 0, 0],
      [8, "file.eol", "modified", 2, 2],
      [9, "file.binary", "created", 0, 0],
      [10, "file.image", "created", 0, 0],
    ],
  );
  assert.equal((env.result as Any).commit_id, null);
  assert.equal((env.result as Any).is_repository, false);
});

const CODE = [
  "def login(user):",
  "    timeout = 30",
  "    return check(user, timeout)",
  "",
  "def logout(user):",
  "    timeout = 5",
  "    return drop(user)",
].join("\n") + "\n";

Deno.test("line ops locate by keys, lineno, nthl, offset and scope; blocks by start-keys/end-keys", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "auth.py": CODE });
  const env = await apply(
    dir.path,
    patchOf(
      block("line.replace", "auth.py", ["start-keys=def logout", "keys=timeout", "    timeout = 10"]),
      block("line.insert", "auth.py", ["keys=TIMEOUT = 30", "    # the login timeout"]),
      block("line.append", "auth.py", ["keys=return", "nthl=2", "    # after logout's return"]),
      block("line.delete", "auth.py", ["keys=def login", "offset=+1"]),
      block("line.insert", "auth.py", ["lineno=1", "import os"]),
    ),
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal(
    (await readTree(dir.path))["auth.py"],
    [
      "import os",
      "def login(user):",
      "    timeout = 30",
      "    return check(user, timeout)",
      "",
      "def logout(user):",
      "    timeout = 10",
      "    return drop(user)",
      "    # after logout's return",
    ].join("\n") + "\n",
  );
  assert.deepEqual((env.result as Any).blocks.map((b: Any) => b.at_line), [6, 2, 8, 2, 1]);

  const blocks = await apply(
    dir.path,
    patchOf(
      block("block.replace", "auth.py", ["start-keys=def logout", "end-keys=return", "def logout(user):", "    pass"]),
      block("block.delete", "auth.py", ["start-keys=# after", "nthb=1"]),
    ),
  );
  assert.equal(blocks.exit_code, 0, blocks.stderr);
  assert.equal(
    (await readTree(dir.path))["auth.py"],
    [
      "import os",
      "def login(user):",
      "    timeout = 30",
      "    return check(user, timeout)",
      "",
      "def logout(user):",
      "    pass",
    ]
      .join("\n") + "\n",
  );
});

Deno.test("line ops keep a CRLF file CRLF and end it with a newline", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "w.txt": "one\r\ntwo\r\nthree" });
  const env = await apply(dir.path, patchOf(block("line.replace", "w.txt", ["keys=two", "TWO"])));
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal(await Deno.readTextFile(`${dir.path}/w.txt`), "one\r\nTWO\r\nthree\r\n");
});

Deno.test("the protocol's worked example applies verbatim (repo: from pterm.json, forgiving author)", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, {
    "pterm.json": JSON.stringify({ patch: { repos: { xgit: "projects/xgit" } } }),
    "projects/xgit/docs/login_guide.md": "# Login\n\nNote: Login timeout is 30 seconds.\n",
  });
  const seed = await Deno.readTextFile(new URL("./corpus/seed_example/patch.txt", import.meta.url));
  const env = await apply(dir.path, seed);
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal((env.result as Any).repo_path, "projects/xgit");
  assert.deepEqual(await readTree(`${dir.path}/projects/xgit`), {
    "docs/login_guide.md": "# Login\n\nNote: Login timeout is 60 seconds.\n",
    "src/utils/auth.py": [
      "func check_token(token string) bool {",
      "timeout := 60  // Extend timeout to 60s",
      "token_expire_check := true",
      "// Token validation logic",
      "return true",
      "}",
    ].join("\n") + "\n",
  });
});

Deno.test("repository resolution: --repo, then the header, then default_repo, then the root", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, {
    "pterm.json": JSON.stringify({ patch: { repos: { a: "ra", b: "rb" }, default_repo: "b" } }),
    "ra/.keep": "",
    "rb/.keep": "",
    "rc/.keep": "",
  });
  const body = block("file.write", "f.txt", ["x"]);
  assert.equal((await apply(dir.path, patchOf(body), "--repo rc")).exit_code, 0);
  assert.equal((await apply(dir.path, "repo: a\n" + patchOf(body))).exit_code, 0);
  assert.equal((await apply(dir.path, patchOf(body))).exit_code, 0);
  assert.deepEqual(Object.keys(await readTree(dir.path)).filter((p) => p.endsWith("f.txt")), [
    "ra/f.txt",
    "rb/f.txt",
    "rc/f.txt",
  ]);
  const unknown = await apply(dir.path, "repo: nope\n" + patchOf(body));
  assert.equal(unknown.error_code, "MissingConfig");
  assert.match(unknown.stderr, /known: a, b/);
  const missing = await apply(dir.path, patchOf(body), "--repo nowhere");
  assert.equal(missing.error_code, "NotFound");
});

Deno.test("errors name the block and op; NoMatch shows the closest lines, AmbiguousMatch every nthl", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "auth.py": CODE });
  const none = await apply(
    dir.path,
    patchOf(block("file.write", "ok.txt", ["fine"]), block("line.replace", "auth.py", ["keys=timeout = 45", "x"])),
  );
  assert.equal(none.error_code, "NoMatch");
  assert.equal(none.exit_code, 1);
  assert.match(none.stderr, /block 2 \(line.replace "auth.py"\), patch line 5: no line in the file/);
  assert.match(none.stderr, /closest: 2: `timeout = 30`|closest: 6: `timeout = 5`/);
  assert.match(none.stderr, /Nothing was written/);
  const [problem] = problemsOf(none);
  assert.equal(problem.block_index, 2);
  assert.equal(problem.op, "line.replace");
  assert.ok(problem.details.closest.length >= 2);

  const many = await apply(dir.path, patchOf(block("line.delete", "auth.py", ["keys=timeout"])));
  assert.equal(many.error_code, "AmbiguousMatch");
  const [amb] = problemsOf(many);
  assert.deepEqual(amb.details.matches.map((m: Any) => [m.line, m.nthl]), [[2, 1], [3, 2], [6, 3]]);
  assert.match(many.stderr, /nthl=1 → 2: `timeout = 30`, nthl=2 → 3: `return check\(user, timeout\)`/);
  assert.deepEqual(await readTree(dir.path), { "auth.py": CODE });
});

Deno.test("check reports every problem at once, writes nothing, and exits 1", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "auth.py": CODE });
  const before = await fingerprint(dir.path);
  const env = await check(
    dir.path,
    [
      block("line.replace", "auth.py", ["keys=no such line", "x"]),
      block("line.delete", "auth.py", ["keys=return"]),
      block("file.delete", "missing.txt"),
      block("file.wrte", "x.txt", ["x"]),
      block("line.insert", "auth.py", ["lineno=abc", "x"]),
      block("file.write", "fine.txt", ["ok"]),
      "=== PATCH EOF ===\n",
    ].join(""),
  );
  assert.equal(env.exit_code, 1);
  const problems = problemsOf(env);
  assert.deepEqual(problems.map((p: Any) => [p.block_index, p.code]), [
    [1, "NoMatch"],
    [2, "AmbiguousMatch"],
    [3, "NotFound"],
    [4, "PatchParseError"],
    [5, "PatchParseError"],
  ]);
  assert.match(env.stderr, /^\[Error\] 5 problems found:/);
  assert.deepEqual(await fingerprint(dir.path), before);
  const ok = await check(
    dir.path,
    patchOf(block("line.replace", "auth.py", ["keys=timeout = 30", "    timeout = 60"])),
  );
  assert.equal(ok.exit_code, 0, ok.stderr);
  assert.deepEqual((ok.result as Any).files_changed, [{ path: "auth.py", change: "modified" }]);
  assert.deepEqual(await fingerprint(dir.path), before);
});

Deno.test("--dry-run reports what would change and writes nothing; --file reads the patch from the root", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, {
    "auth.py": CODE,
    "patches/p.txt": patchOf(block("line.replace", "auth.py", ["keys=timeout = 30", "    timeout = 60"])),
  });
  const before = await fingerprint(dir.path);
  const dry = await apply(dir.path, patchOf(block("file.write", "new.txt", ["x"])), "--dry-run");
  assert.equal(dry.exit_code, 0, dry.stderr);
  assert.equal((dry.result as Any).dry_run, true);
  assert.deepEqual((dry.result as Any).files_changed, [{ path: "new.txt", change: "created" }]);
  assert.deepEqual(await fingerprint(dir.path), before);
  const fromFile = await apply(dir.path, "", "--file patches/p.txt");
  assert.equal(fromFile.exit_code, 0, fromFile.stderr);
  assert.match(await Deno.readTextFile(`${dir.path}/auth.py`), /timeout = 60/);
});

Deno.test("paths are confined: .., absolute, secrets, pterm state, .git and symlinks are refused", async () => {
  await using dir = await makeRoot();
  await using outside = await makeRoot("pterm-outside-");
  await writeTree(dir.path, { "real/f.txt": "x\n", ".git/config": "[core]\n" });
  await writeTree(outside.path, { "t.txt": "outside\n" });
  await Deno.symlink(`${dir.path}/real`, `${dir.path}/inside-link`);
  await Deno.symlink(outside.path, `${dir.path}/escape`);
  await Deno.symlink(`${dir.path}/real/f.txt`, `${dir.path}/file-link`);
  const before = await fingerprint(dir.path);
  const cases: [string, string][] = [
    ["../x.txt", "PathEscape"],
    ["/etc/x.txt", "PathEscape"],
    ["secrets/key.txt", "SecretPathDenied"],
    [".env", "SecretPathDenied"],
    ["audit/x.txt", "ReadOnlyPath"],
    [".git/config", "GitDirDenied"],
    ["escape/t.txt", "PathEscape"],
    ["inside-link/f.txt", "PatchApplyError"],
    ["file-link", "PatchApplyError"],
  ];
  for (const [path, code] of cases) {
    const env = await apply(
      dir.path,
      patchOf(block("file.write", "ok.txt", ["fine"]), block("file.write", path, ["x"])),
    );
    assert.equal(env.error_code, code, `${path}: ${env.stderr}`);
    assert.match(env.stderr, /block 2 \(file.write/, path);
  }
  await writeTree(dir.path, { "conf/app.ini": "x\n", "conf/secrets/key.txt": "k\n", "conf2/.env.local": "E=1\n" });
  const withSecrets = await fingerprint(dir.path);
  for (const b of [block("file.delete", "conf"), block("file.move", "conf2", ["to=elsewhere"])]) {
    const env = await apply(dir.path, patchOf(b));
    assert.equal(env.error_code, "SecretPathDenied", env.stderr);
  }
  assert.deepEqual(await fingerprint(dir.path), withSecrets);
  await Deno.remove(`${dir.path}/conf`, { recursive: true });
  await Deno.remove(`${dir.path}/conf2`, { recursive: true });
  const moved = await apply(dir.path, patchOf(block("file.move", "real/f.txt", ["to=../stolen.txt"])));
  assert.equal(moved.error_code, "PathEscape");
  const diffEscape = await apply(
    dir.path,
    patchOf(block("git.diff", ".", ["--- a/../x", "+++ b/../x", "@@ -0,0 +1 @@", "+x"])),
  );
  assert.equal(diffEscape.error_code, "PathEscape");
  assert.match((await apply(dir.path, patchOf(block("file.write", "inside-link/f.txt", ["x"])))).stderr, /symlink/);
  assert.deepEqual(await fingerprint(dir.path), before);
  assert.equal(await Deno.readTextFile(`${outside.path}/t.txt`), "outside\n");
});

Deno.test("git.diff: several files, created, deleted and renamed, with the strategy per hunk", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, {
    "a.txt": "one\ntwo\nthree\n",
    "b.txt": "keep\nremove me\n",
    "gone.txt": "bye\n",
    "from.txt": "moving\n",
  });
  const env = await apply(
    dir.path,
    patchOf(block("git.diff", ".", [
      "```diff",
      "diff --git a/a.txt b/a.txt",
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -5,3 +5,3 @@",
      " one",
      "-two",
      "+TWO",
      " three",
      "--- a/b.txt",
      "+++ b/b.txt",
      "@@ -1,2 +1,1 @@",
      " keep  ",
      "-remove me",
      "--- /dev/null",
      "+++ b/new/file.txt",
      "@@ -0,0 +1,2 @@",
      "+fresh",
      "+file",
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
      "diff --git a/from.txt b/to.txt",
      "similarity index 100%",
      "rename from from.txt",
      "rename to to.txt",
      "```",
    ])),
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.deepEqual(await readTree(dir.path), {
    "a.txt": "one\nTWO\nthree\n",
    "b.txt": "keep\n",
    "new/file.txt": "fresh\nfile\n",
    "to.txt": "moving\n",
  });
  const [result] = (env.result as Any).blocks;
  assert.deepEqual(result.hunks.map((h: Any) => [h.file, h.strategy]), [
    ["a.txt", "shifted"],
    ["b.txt", "whitespace"],
    ["new/file.txt", "exact"],
    ["gone.txt", "exact"],
  ]);
  assert.equal(result.lines_added, 3);
  assert.equal(result.lines_removed, 3);
});

Deno.test("a git.diff block naming one file accepts a bare hunk list; a mismatched path is refused", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "src/a.py": "x = 1\ny = 2\n" });
  const ok = await apply(
    dir.path,
    patchOf(block("git.diff", "src/a.py", ["@@ -1,2 +1,2 @@", " x = 1", "-y = 2", "+y = 3"])),
  );
  assert.equal(ok.exit_code, 0, ok.stderr);
  const wrong = await apply(
    dir.path,
    patchOf(block("git.diff", "src/a.py", ["--- a/src/b.py", "+++ b/src/b.py", "@@ -1 +1 @@", "-x", "+y"])),
  );
  assert.equal(wrong.error_code, "PatchApplyError");
  assert.match(wrong.stderr, /the block names `src\/a.py` but the diff edits `src\/b.py`/);
});

Deno.test("ops that make no sense are refused with what to do instead", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "a.txt": "x\n", "bin.dat": new Uint8Array([0, 1, 2, 255]), "d/f.txt": "f\n" });
  const cases: [string, string, RegExp][] = [
    [block("line.replace", "bin.dat", ["lineno=1", "x"]), "UnsupportedFormat", /not UTF-8 text/],
    [block("line.replace", "a.txt", ["keys=x", "lineno=1", "y"]), "PatchParseError", /either keys or lineno/],
    [block("line.replace", "a.txt", ["y"]), "PatchParseError", /needs keys=/],
    [block("line.insert", "a.txt", ["keys=x", "nth=2", "y"]), "PatchParseError", /did you mean `nthl`/],
    [block("line.delete", "a.txt", ["lineno=5"]), "NoMatch", /past the end/],
    [block("line.delete", "a.txt", ["keys=x", "nthl=2"]), "NoMatch", /matches one line only/],
    [block("file.move", "a.txt", ["to=d/f.txt"]), "AlreadyExists", /already exists/],
    [block("file.chmod", "a.txt", ["mode=rwx"]), "PatchParseError", /octal/],
    [block("file.write", "a.txt/inner", ["y"]), "AlreadyExists", /is a file/],
    [block("file.write", "d", ["y"]), "AlreadyExists", /is a folder/],
    [block("file.image", "p.png", [btoa("not a png at all")]), "UnsupportedFormat", /not a PNG image/],
    [block("file.binary", "b.bin", ["*** not base64 ***"]), "PatchParseError", /not Base64/],
    [block("git.tag", ".", ["name=v1"]), "NotARepository", /not a git repository/],
  ];
  const before = await fingerprint(dir.path);
  for (const [b, code, message] of cases) {
    const env = await apply(dir.path, patchOf(block("file.write", "first.txt", ["ok"]), b));
    assert.equal(env.error_code, code, `${b}\n${env.stderr}`);
    assert.match(env.stderr, message, b);
    assert.deepEqual(await fingerprint(dir.path), before, b);
  }
});

Deno.test("concurrent patches on the same file run one after the other: no update is lost", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "log.txt": "start\n" });
  const runs = Array.from(
    { length: 6 },
    (_, i) =>
      apply(
        dir.path,
        patchOf(block("file.append", "log.txt", [`entry ${i}`]), block("file.write", `f${i}.txt`, ["x"])),
      ),
  );
  for (const env of await Promise.all(runs)) assert.equal(env.exit_code, 0, env.stderr);
  const lines = (await Deno.readTextFile(`${dir.path}/log.txt`)).trim().split("\n");
  assert.equal(lines[0], "start");
  assert.deepEqual(lines.slice(1).sort(), Array.from({ length: 6 }, (_, i) => `entry ${i}`));
});

Deno.test("end-keys copied from the block's last line (commas and all) ends the block there, not at a fragment", async () => {
  await using dir = await makeRoot();
  const source = [
    "def pair(a, b):",
    "    total = add(a, b)",
    "    log(total)",
    "    return a, b",
    "",
    "def other():",
    "    return 0",
  ].join("\n") + "\n";
  await writeTree(dir.path, { "m.py": source });
  const env = await apply(
    dir.path,
    patchOf(
      block("block.replace", "m.py", [
        "start-keys=def pair(a, b):",
        "end-keys=    return a, b",
        "def pair(a, b):",
        "    return b, a",
      ]),
    ),
  );
  assert.equal(env.exit_code, 0, env.stderr);
  assert.equal(
    await Deno.readTextFile(`${dir.path}/m.py`),
    "def pair(a, b):\n    return b, a\n\ndef other():\n    return 0\n",
  );
  // Parts that first occur on different lines, the whole nowhere: AmbiguousMatch listing both.
  const ambiguous = await apply(
    dir.path,
    patchOf(block("block.delete", "m.py", ["start-keys=def pair", "end-keys=return b, other"])),
  );
  assert.equal(ambiguous.error_code, "AmbiguousMatch", ambiguous.stderr);
  assert.match(
    ambiguous.stderr,
    /2: `return b, a` \(first line with `return b`\); 4: `def other\(\):` \(first line with `other`\)/,
  );
});

Deno.test("`keys = x` with spaces is body text; the missing-locator error says how to write it", async () => {
  await using dir = await makeRoot();
  await writeTree(dir.path, { "a.py": "x = 1\n" });
  const env = await apply(dir.path, patchOf(block("line.replace", "a.py", ["keys = x = 1", "x = 2"])));
  assert.equal(env.error_code, "PatchParseError", env.stderr);
  assert.match(env.stderr, /`keys = x = 1` is body text: write `keys=x = 1`, = right after the key/);
});
