/**
 * `git apply`: its flags and declaration (the handler: handlers/apply.ts). The patch engine of
 * `patch apply` applies the diff, in its strict mode: git apply's placement and messages, no commit.
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const applyFlags = [
  repoFlag("write"),
  {
    name: "patch-file",
    type: "string",
    repeatable: true,
    valueName: "path",
    description: "A file holding the diff, relative to the repository (the words after `git apply`, as `git -C " +
      "<repository> apply <file>` reads them); without one, the diff is the call's stdin.",
  },
  { name: "check", type: "boolean", description: "Only see whether the diff applies; write nothing." },
  {
    name: "stat",
    type: "boolean",
    description: "Print git's diffstat of the diff instead of applying it (`git apply --stat`).",
  },
  {
    name: "numstat",
    type: "boolean",
    description: "Print added and removed line counts per file (`-\t-\t` for binary) instead of applying it.",
  },
  {
    name: "index",
    type: "boolean",
    description: "Apply to the work tree and the index: each file the diff edits must be in the index and match " +
      "it; the result is staged (not committed).",
  },
  {
    name: "cached",
    type: "boolean",
    description: "Apply to the index only, leaving the work tree as it is: each file the diff edits must be in " +
      "the index, and is read from there.",
  },
  {
    name: "strip",
    short: "p",
    type: "number",
    min: 0,
    default: 1,
    description: "Leading folders to take off the diff's names (-p1 by default, -p0 for `git diff --no-prefix`).",
  },
  {
    name: "3way",
    short: "3",
    type: "boolean",
    description: "Merge where the diff's `index` line names a preimage blob the repository has: the diff is " +
      "applied to that blob and merged with the file (implies --index unless --cached); conflicts are left with " +
      "markers and the index's stages 1, 2 and 3, named `U <path>` (exit 1).",
  },
  { name: "reverse", short: "R", type: "boolean", description: "Apply the diff backwards (undo it)." },
  {
    name: "unidiff-zero",
    type: "boolean",
    description: "Accept hunks without context (`git diff -U0`), placed by their line numbers.",
  },
] as const satisfies readonly FlagSpec[];

export const applySpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "apply",
  "Apply a diff to the work tree (and with --index the index) as git apply does: context must match exactly, " +
    "all files or none; no commit.",
  applyFlags,
  [
    {
      command: "git apply",
      description: "Apply the diff on stdin.",
      stdin: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-draft\n+final\n",
    },
    { command: "git apply --check fix.diff", description: "Whether fix.diff applies; nothing is written." },
    { command: "git apply --index -p0 fix.diff", description: "A `--no-prefix` diff, applied and staged." },
    { command: "git apply -R fix.diff", description: "Undo what fix.diff did." },
    {
      command: "git apply --3way fix.diff",
      description: "Apply fix.diff, merging where its context changed; conflicts are left to resolve and `git add`.",
    },
  ],
  {
    description: "The diff comes from the files named after `git apply` (`-` or none: the call's stdin), in " +
      "git's format (`git diff`, `git diff --binary`, `git format-patch`, `diff -u`). Each hunk must find its " +
      "context lines byte for byte — at its stated line or, as git, at the nearest other line — and a hunk " +
      "without trailing context must end the file; nothing is fuzzy and nothing is guessed. A file that does " +
      "not apply is named in git's words on stderr (`error: patch failed: a.txt:3`, `error: a.txt: patch does " +
      "not apply`, `error: a.txt: already exists in working directory`, `error: a.txt: does not exist in " +
      "index`) and nothing is written (exit 1). With --3way, a file whose context moved is merged from the preimage " +
      "blob its `index` line names, as git does: `Applied patch to 'a.txt' cleanly.` (staged) or `... with " +
      "conflicts.` (markers, index stages 1-3, `U a.txt`, exit 1). Every path keeps pterm's rules: confined to the workspace, never " +
      "into .git/, secrets/ or .env*. For pterm's own patch formats and a commit, use `patch apply`.",
    positionals: [{ name: "patches", variadic: true, into: "patch-file", description: "Diff files (`-`: stdin)." }],
    stdin: { mode: "unlessFlag", flag: "patch-file", bytes: true },
    refusedFlags: {
      "--reject": "pterm's git apply writes all files or none; it leaves no .rej files.",
      "--ignore-whitespace": "pterm's git apply matches context byte for byte, as git does by default; " +
        "`patch apply` tolerates whitespace differences and says so.",
      "--ignore-space-change": "pterm's git apply matches context byte for byte, as git does by default; " +
        "`patch apply` tolerates whitespace differences and says so.",
    },
    handler: handler("apply", "gitApply"),
  },
);
