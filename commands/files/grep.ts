/** `grep`: GNU grep's search, over files and folders under the root. */

import type { FlagSpec } from "../../core/declaration.ts";
import { fileCommand } from "./declare.ts";

const bool = (
  name: string,
  short: string | undefined,
  description: string,
  options: { aliases?: string[]; compat?: boolean } = {},
): FlagSpec => ({
  name,
  ...(short ? { short } : {}),
  ...(options.aliases ? { aliases: options.aliases } : {}),
  ...(options.compat ? { compat: true } : {}),
  type: "boolean",
  description,
});

export const CONTEXT_FLAGS: readonly FlagSpec[] = [
  {
    name: "after-context",
    short: "A",
    type: "number",
    min: 0,
    valueName: "N",
    description: "N lines after each match",
  },
  {
    name: "before-context",
    short: "B",
    type: "number",
    min: 0,
    valueName: "N",
    description: "N lines before each match",
  },
  {
    name: "context",
    short: "C",
    type: "number",
    min: 0,
    digits: true,
    valueName: "N",
    description: "N lines around each match",
  },
];

export const grepSpec = fileCommand("grep", "grepResultSchema", {
  summary: "Print the lines of files that match a pattern (-r folders, -n numbers, -i, -w, -l, -c, -A/-B/-C).",
  description: "Patterns are POSIX basic (-E extended, -F literal, -P JavaScript). Exit code 1 when no line " +
    "matches. Walks skip symlinks, secret paths, .git, git directories and pterm's state; a binary file is " +
    "reported as `binary file matches`. -h means --help: write --no-filename.",
  positionals: [{ name: "args", description: "The pattern (unless -e), then files or folders", variadic: true }],
  flags: [
    bool("recursive", "r", "Search folders, recursively"),
    bool("dereference-recursive", "R", "Same as -r (symlinks are never followed)", { compat: true }),
    bool("line-number", "n", "Prefix line numbers"),
    bool("ignore-case", "i", "Ignore case"),
    bool("word-regexp", "w", "Match whole words"),
    bool("line-regexp", "x", "Match whole lines"),
    bool("invert-match", "v", "Select lines that do not match"),
    bool("files-with-matches", "l", "Print only the names of files with a match"),
    bool("files-without-match", "L", "Print only the names of files without a match"),
    bool("count", "c", "Print the number of matching lines per file"),
    bool("only-matching", "o", "Print only the matching parts"),
    bool("quiet", "q", "Print nothing; the exit code tells", { aliases: ["silent"] }),
    bool("with-filename", "H", "Prefix file names"),
    bool("no-filename", undefined, "Never prefix file names"),
    bool("extended-regexp", "E", "Extended regular expressions"),
    bool("fixed-strings", "F", "Patterns are literal text"),
    bool("basic-regexp", "G", "Basic regular expressions (the default)", { compat: true }),
    bool("perl-regexp", "P", "JavaScript regular expressions (close to Perl's)"),
    {
      name: "regexp",
      short: "e",
      type: "string",
      repeatable: true,
      valueName: "pattern",
      description: "A pattern (repeatable)",
    },
    ...CONTEXT_FLAGS,
    {
      name: "max-count",
      short: "m",
      type: "number",
      min: 0,
      valueName: "N",
      description: "Stop after N matching lines per file",
    },
    {
      name: "include",
      type: "string",
      repeatable: true,
      valueName: "glob",
      description: "With -r: only files whose name matches",
    },
    {
      name: "exclude",
      type: "string",
      repeatable: true,
      valueName: "glob",
      description: "With -r: skip files whose name matches",
    },
    {
      name: "exclude-dir",
      type: "string",
      repeatable: true,
      valueName: "glob",
      description: "With -r: skip folders whose name matches",
    },
    { name: "no-messages", short: "s", type: "boolean", compat: true, description: "Accepted; errors are in stderr" },
    {
      name: "color",
      aliases: ["colour"],
      type: "string",
      compat: true,
      valueName: "when",
      description: "Accepted; output is never coloured",
    },
  ],
  examples: [{ command: "grep -rn 'def main' src", description: "Every line defining main below src/, numbered." }],
});
