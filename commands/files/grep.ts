/** `grep`: GNU grep's search, over files and folders under the root. */

import { fileCommand } from "./declare.ts";
import { boolFlag as bool, CONTEXT_FLAGS, MAX_COUNT_FLAG, REGEXP_FLAG } from "./search_flags.ts";

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
    REGEXP_FLAG,
    ...CONTEXT_FLAGS,
    MAX_COUNT_FLAG,
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
