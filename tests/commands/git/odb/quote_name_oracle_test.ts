/**
 * Names are quoted as real git quotes them (quote.c's quote_c_style), with core.quotePath on and
 * off: control bytes, DEL, `"` and `\` are escaped under both settings, bytes outside ASCII only
 * while core.quotePath holds. The names are put straight into the index (no file needs to exist),
 * and `git ls-files` of pterm and of git are compared byte for byte; then the same names through
 * `-c core.quotePath=…` on the command line.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../../_support/helpers.ts";
import { git, gitRaw } from "../oracle.ts";
import { EMPTY_BLOB_OID, quoteName } from "../../../../commands/git/odb/bytes.ts";
import { OPENS_NO_REPOSITORY } from "../../../../commands/git/repo/command_line_config.ts";
import { gitSpec } from "../../../../commands/git/spec.ts";
import { type CommandNode, isGroup } from "../../../../core/declaration.ts";

const NAMES = [
  "plain.txt",
  "with space.txt",
  "tab\there",
  "new\nline",
  "bell\u0007",
  "esc\u001b[31m",
  "del\u007f",
  'quo"te',
  "back\\slash",
  "caf\u00e9.txt",
  "d\u00efr/\u65e5\u672c.md",
  "emoji \u{1f600}.txt",
  'mixed\t\u00e9"\\',
];

Deno.test("names are quoted as git quotes them, with core.quotePath true and false", async () => {
  await using root = await makeRoot("pterm-quote-name-");
  const dir = join(root.path, "r");
  await Deno.mkdir(dir);
  await git(dir, "init", "-q");
  for (const name of NAMES) {
    await git(dir, "update-index", "--add", "--cacheinfo", `100644,${EMPTY_BLOB_OID},${name}`);
  }
  for (const setting of ["true", "false"]) {
    await git(dir, "config", "core.quotePath", setting);
    const [ours, theirs] = await Promise.all([
      exec(root.path, "git -C r ls-files"),
      gitRaw(root.path, ["-C", "r", "ls-files"]),
    ]);
    assert.equal(ours.exit_code, 0, ours.stderr);
    assert.equal(ours.stdout, theirs.stdout, `core.quotePath=${setting}`);
    // The structured result has each name as it is.
    const listed = (ours.result as { files: { path: string }[] }).files.map((f) => f.path).sort();
    assert.deepEqual(listed, [...NAMES].sort());
  }
  await git(dir, "config", "--unset", "core.quotePath");
  for (const setting of ["true", "false"]) {
    const ours = await exec(root.path, `git -C r -c core.quotePath=${setting} ls-files`);
    const theirs = await gitRaw(root.path, ["-C", "r", "-c", `core.quotePath=${setting}`, "ls-files"]);
    assert.equal(ours.stdout, theirs.stdout, `-c core.quotePath=${setting}`);
  }
});

Deno.test("a byte that is not UTF-8 keeps its octal escape whatever core.quotePath says", () => {
  // decodeName keeps such a byte as U+DC80–U+DCFF; text cannot carry the byte itself.
  const latin1 = "caf\udce9.txt";
  assert.equal(quoteName(latin1, true), '"caf\\351.txt"');
  assert.equal(quoteName(latin1, false), '"caf\\351.txt"');
  assert.equal(quoteName("caf\u00e9 \udce9", false), '"caf\u00e9 \\351"');
  // A character outside the BMP is a surrogate pair, never mistaken for such a byte.
  assert.equal(quoteName("\u{1f300}", false), "\u{1f300}");
  assert.equal(quoteName("\u{1f300}", true), '"\\360\\237\\214\\200"');
});

Deno.test("-c settings reach every subcommand that opens a repository (its --config), and no other", () => {
  const taking: string[] = [];
  const all: string[] = [];
  const walk = (node: CommandNode, path: string[]) => {
    if (isGroup(node)) { for (const sub of node.subcommands) walk(sub, [...path, sub.name]); }
    else {
      all.push(path.join(" "));
      if (node.flags?.some((f) => f.name === "config")) taking.push(path.join(" "));
    }
  };
  walk(gitSpec, []);
  assert.deepEqual(taking.sort(), all.filter((name) => !OPENS_NO_REPOSITORY.has(name)).sort());
  assert.ok(taking.includes("status") && taking.includes("stash show") && !taking.includes("clone"));
});

Deno.test("-c core.quotePath on a subcommand that prints no name changes nothing, and a bad value is refused", async () => {
  await using root = await makeRoot("pterm-quote-name-spelling-");
  const dir = join(root.path, "r");
  await Deno.mkdir(dir);
  await git(dir, "init", "-q");
  await git(dir, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "one");
  const ours = await exec(root.path, "git -C r -c core.quotePath=false rev-parse --abbrev-ref HEAD");
  assert.equal(ours.stdout, (await gitRaw(root.path, ["-C", "r", "rev-parse", "--abbrev-ref", "HEAD"])).stdout);
  const refused = await exec(root.path, "git -C r -c core.quotePath=sometimes status");
  assert.equal(refused.error_code, "InvalidArgs");
  assert.match(refused.stderr, /core\.quotepath/);
  assert.equal((await gitRaw(root.path, ["-C", "r", "-c", "core.quotePath=sometimes", "status"])).code, 128);
});

Deno.test("a diffstat measures names in display columns: wide names padded and cut as git does", async () => {
  await using root = await makeRoot("pterm-quote-name-stat-");
  const dir = join(root.path, "r");
  await Deno.mkdir(join(dir, "d\u00efr"), { recursive: true });
  await git(dir, "init", "-q");
  await git(dir, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "one");
  const names = [
    "a.txt",
    "d\u00efr/\u65e5\u672c.md",
    `d\u00efr/${"\u65e5\u672c\u8a9e\u306e\u9577\u3044\u540d\u524d".repeat(5)}.md`,
    `${"caf\u00e9-".repeat(12)}end.txt`,
  ];
  for (const [i, name] of names.entries()) await Deno.writeTextFile(join(dir, name), "line\n".repeat(i + 1));
  await git(dir, "add", ".");
  await git(dir, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "two");
  for (const setting of ["true", "false"]) {
    for (const line of ["diff --stat HEAD~1", "diff --numstat HEAD~1", "log --stat -1 --format=%s"]) {
      const ours = await exec(root.path, `git -C r -c core.quotePath=${setting} ${line}`);
      const theirs = await gitRaw(root.path, ["-C", "r", "-c", `core.quotePath=${setting}`, ...line.split(" ")]);
      assert.equal(ours.stdout, theirs.stdout, `core.quotePath=${setting} ${line}`);
    }
  }
});
