/**
 * Every refusal's suggested line runs: the kernel's hints for shell habits and the file commands'
 * refusals each name lines in backticks; each such line is run in the same workspace and must not
 * fail on its spelling (a usage error), only, at most, on the data.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { exec, makeRoot } from "../../_support/helpers.ts";
import { commands } from "../../../commands/index.ts";
import { tokenize } from "../../../core/grammar.ts";
import { git } from "../git/oracle.ts";
import { writeTree } from "./oracle.ts";

const COMMANDS = new Set([...Object.keys(commands), "help"]);
/** Commands that run alone (`ls`, `pwd`): a one-word suggestion of these is a line too. */
const ALONE = new Set(["ls", "pwd", "find", "hello"]);
const USAGE_ERRORS = new Set(["InvalidArgs", "UnknownCommand", "InvalidCommandLine"]);

/** Backticked spans of the message (not the Hint) that are complete pterm lines. */
function suggested(stderr: string): string[] {
  const message = stderr.split("\n\nHint:")[0];
  return [...message.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((span) => {
    if (/[<>…]/.test(span)) return false;
    try {
      const words = tokenize(span);
      return COMMANDS.has(words[0]) && (words.length > 1 || ALONE.has(words[0]));
    } catch {
      return false;
    }
  });
}

const REFUSED = [
  // the kernel's hints for shell habits
  "cd newproj && git init",
  "cd proj && git status",
  "cd proj && cat README.md",
  "cd proj; ls",
  "markitdown docs/report.docx > report.md",
  "pdftotext docs/spec.pdf && cat notes.txt",
  "cat notes.txt | grep todo",
  "cat notes.txt | head -5",
  "cat notes.txt | wc -l",
  "git log | head -3",
  "git diff > out.patch",
  "git add proj/*.md",
  "cat proj/*.md",
  "doc extract docs/*.pdf",
  "git commit -m 'first\nsecond'",
  "git status 2>&1",
  "ls && pwd",
  // programs pterm does not have
  "less notes.txt",
  "rg todo .",
  "stat notes.txt",
  // the file commands' own refusals
  "sed -i 's/a/b/' notes.txt",
  "sed 's/a/b/' notes.txt",
  "sed -n '/todo/p' notes.txt",
  "sed -n 'x' notes.txt",
  "cat -A notes.txt",
  "head -c 10 notes.txt",
  "tail -f notes.txt",
  "find . -name '*.md' -delete",
  "find . -name '*.md' -exec cat {} ';'",
  "find . -name a -o -name b",
  "find . -type f -exec grep -l todo {} +",
  "grep todo",
  "grep todo proj",
  "grep '\\(' notes.txt",
  "read notes.txt --lines x",
  "head -n x notes.txt",
  "cat proj",
  "cat docs/spec.pdf",
  "cat blob.bin",
  "doc extract spec.pdf",
];

Deno.test("every refusal's suggested line runs", async (t) => {
  await using dir = await makeRoot();
  await writeTree(dir.path, {
    "notes.txt": "todo: one\ndone\n",
    "proj/README.md": "# P\n",
    "docs/spec.pdf": "%PDF-1.4\n%\u00e2\u00e3\n1 0 obj << >> endobj\n",
    "docs/report.docx": new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]),
    "blob.bin": new Uint8Array([1, 0, 2]),
  });
  await git(join(dir.path, "proj"), "init", "-q", "-b", "main");
  for (const line of REFUSED) {
    await t.step(line, async () => {
      const refused = await exec(dir.path, line);
      assert.notEqual(refused.exit_code, 0, `${line} was refused`);
      const lines = suggested(refused.stderr);
      assert.ok(lines.length > 0, `the refusal of ${line} names a line to run:\n${refused.stderr}`);
      for (const next of lines) {
        // A line the message says takes its text on stdin is run with some.
        const stdin = /stdin field/.test(refused.stderr) ? "first\nsecond\n" : undefined;
        const ran = await exec(dir.path, next, { stdin });
        assert.ok(
          !USAGE_ERRORS.has(ran.error_code ?? ""),
          `${line} suggests \`${next}\`, which is refused (${ran.error_code}):\n${ran.stderr}`,
        );
      }
    });
  }
});
