/**
 * One translation of POSIX patterns serves `grep` (pterm's read-only file command) and git's
 * `grep`, `log --grep` and `log --author`. Held to GNU grep and real git on the same file: each
 * pattern matches the same lines in all four, or all of them refuse it (an unknown character
 * class, an unclosed bracket) — pterm with InvalidArgs, never by reading it as something else;
 * and a pattern no line matches prints nothing and exits 1 in all four. (`git grep -h` drops the file names,
 * as git does: `-h` asks for help only where a command gives it no meaning of its own.)
 */

import assert from "node:assert/strict";
import { exec, makeRoot } from "../_support/helpers.ts";
import { git } from "../commands/git/oracle.ts";
import { real } from "../commands/files/oracle.ts";

const LINES = ["a,b", "x[y", "foo(bar", "tab\there", "a-z", "digit 42", "ab|cd", "star*", "path/to", "back\\slash"];

const PATTERNS: readonly { pattern: string; extended?: boolean }[] = [
  { pattern: "a\\,b" },
  { pattern: "a\\-z" },
  { pattern: "foo(bar" },
  { pattern: "foo\\(bar\\)\\?", extended: false },
  { pattern: "ab|cd" },
  { pattern: "ab|cd", extended: true },
  { pattern: "[[:digit:]]\\+" },
  { pattern: "[[:foo:]]" },
  { pattern: "x[" },
  { pattern: "x\\[y" },
  { pattern: "*star" },
  { pattern: "star*", extended: true },
  { pattern: "path/to" },
  { pattern: "back\\\\slash" },
  { pattern: "[\\]" },
  { pattern: "\\<digit\\>" },
];

const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

Deno.test("one POSIX translation: grep and git grep in pterm match what GNU grep and git grep match, or refuse what they refuse", async (t) => {
  await using dir = await makeRoot();
  await Deno.writeTextFile(`${dir.path}/f.txt`, LINES.join("\n") + "\n");
  await git(dir.path, "init", "-q");
  await git(dir.path, "add", "f.txt");
  for (const { pattern, extended } of PATTERNS) {
    await t.step(`${extended ? "-E " : ""}${pattern}`, async () => {
      const flag = extended ? ["-E"] : [];
      const byGrep = await real(dir.path, ["grep", ...flag, "-e", pattern, "f.txt"]);
      const byGit = await new Deno.Command("git", {
        args: ["grep", "--no-color", "-h", ...flag, "-e", pattern, "--", "f.txt"],
        cwd: dir.path,
      }).output();
      const ptermGrep = await exec(dir.path, `grep ${flag.join(" ")} -e ${quote(pattern)} f.txt`);
      const ptermGit = await exec(dir.path, `git grep -h ${flag.join(" ")} -e ${quote(pattern)} -- f.txt`);
      if (byGrep.code === 2) {
        assert.equal(byGit.code, 128, "git refuses what grep refuses");
        assert.equal(ptermGrep.error_code, "InvalidArgs", ptermGrep.stderr);
        assert.equal(ptermGit.error_code, "InvalidArgs", ptermGit.stderr);
        return;
      }
      assert.equal(ptermGrep.stdout, byGrep.stdout, "pterm grep against GNU grep");
      assert.equal(ptermGrep.exit_code, byGrep.code, "grep's exit code: 1 when no line matches");
      assert.equal(ptermGit.exit_code, byGit.code, `git grep's exit code: ${ptermGit.stderr}`);
      assert.equal(
        ptermGit.stdout,
        new TextDecoder().decode(byGit.stdout),
        `pterm git grep against git grep: ${ptermGit.stderr}`,
      );
    });
  }
});
