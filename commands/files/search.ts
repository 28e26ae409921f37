/** `search`: ripgrep's search, the agent's own: recursive, numbered, ignore files honoured. */

import { fileCommand } from "./declare.ts";
import { boolFlag as bool, CONTEXT_FLAGS, MAX_COUNT_FLAG, REGEXP_FLAG } from "./search_flags.ts";

export const searchSpec = fileCommand("search", "grepResultSchema", {
  summary:
    "Search files for a pattern as ripgrep does: recursive, numbered, .gitignore/.ignore and hidden files skipped.",
  description: "Patterns are JavaScript regular expressions (close to ripgrep's). Prints `path:line:text`, as " +
    "`rg -n`; binary files are skipped while walking. Exit code 1 when nothing matches.",
  positionals: [{
    name: "args",
    description: "The pattern (unless -e), then files or folders (default: the root)",
    variadic: true,
  }],
  flags: [
    bool("ignore-case", "i", "Ignore case"),
    bool("word-regexp", "w", "Match whole words"),
    bool("fixed-strings", "F", "The pattern is literal text"),
    bool("invert-match", "v", "Select lines that do not match"),
    bool("files-with-matches", "l", "Print only the names of files with a match"),
    bool("count", "c", "Print the number of matching lines per file"),
    bool("only-matching", "o", "Print only the matching parts"),
    bool("no-line-number", "N", "No line numbers"),
    bool("line-number", "n", "Line numbers (the default)", { compat: true }),
    bool("hidden", undefined, "Search hidden files and folders too"),
    bool("no-ignore", undefined, "Do not honour .gitignore, .ignore, .rgignore"),
    {
      name: "glob",
      short: "g",
      type: "string",
      repeatable: true,
      valueName: "glob",
      description: "Only files whose name matches (!glob: skip)",
    },
    REGEXP_FLAG,
    ...CONTEXT_FLAGS,
    MAX_COUNT_FLAG,
  ],
  examples: [{ command: "search -i 'timeout' src", description: "Lines mentioning timeout below src/." }],
});
