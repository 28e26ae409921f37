/**
 * `git grep`: its flags and declaration (the handler: handlers/grep.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { compat, leaf, pathFlag, repoFlag } from "./common.ts";

export const grepFlags = [
  repoFlag("read"),
  pathFlag("Only search under this path"),
  {
    name: "regexp",
    short: "e",
    type: "string",
    valueName: "pattern",
    description: "The pattern (instead of the first word); useful when it starts with -.",
  },
  { name: "line-number", short: "n", type: "boolean", description: "Prefix each line with its line number." },
  { name: "ignore-case", short: "i", type: "boolean", description: "Ignore case." },
  { name: "word-regexp", short: "w", type: "boolean", description: "Match whole words only." },
  { name: "invert-match", short: "v", type: "boolean", description: "Select lines that do not match." },
  {
    name: "files-with-matches",
    short: "l",
    aliases: ["name-only"],
    type: "boolean",
    description: "Print only the names of files that match.",
  },
  { name: "count", short: "c", type: "boolean", description: "Print each file's number of matching lines." },
  { name: "no-filename", short: "h", type: "boolean", description: "Do not prefix each line with its file's name." },
  compat("with-filename", "Accepted: each line is prefixed with its file's name (the default).", { short: "H" }),
  {
    name: "extended-regexp",
    short: "E",
    type: "boolean",
    description: "The pattern is an extended regular expression.",
  },
  { name: "fixed-strings", short: "F", type: "boolean", description: "The pattern is plain text." },
  { name: "cached", type: "boolean", description: "Search the staged content (the index) instead of the work tree." },
  { name: "untracked", type: "boolean", description: "Also search untracked files (not ignored ones)." },
  compat("no-color", "Accepted: output has no colour."),
] as const satisfies readonly FlagSpec[];

export const grepSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "grep",
  "Search the tracked files' lines for a pattern (git grep).",
  grepFlags,
  [
    { command: 'git grep -n "def main"', description: "Lines with their numbers." },
    { command: "git grep -l TODO -- src", description: "The files under src that mention TODO." },
    { command: 'git grep -E -i "fixme|todo"', description: "An extended, case-insensitive pattern." },
  ],
  {
    positionals: [{
      name: "args",
      variadic: true,
      description: "The pattern (unless -e gives it), then paths to search under.",
    }],
    afterDoubleDash: "path",
  },
);
