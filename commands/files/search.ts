/** `search`: ripgrep's search, the agent's own: recursive, numbered, ignore files honoured. */

import type { FlagSpec } from "../../core/declaration.ts";
import { fileCommand } from "./declare.ts";
import { CONTEXT_FLAGS } from "./grep.ts";

const bool = (name: string, short: string | undefined, description: string, compat = false): FlagSpec => ({
  name,
  ...(short ? { short } : {}),
  ...(compat ? { compat } : {}),
  type: "boolean",
  description,
});

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
    bool("line-number", "n", "Line numbers (the default)", true),
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
  ],
  examples: [{ command: "search -i 'timeout' src", description: "Lines mentioning timeout below src/." }],
});
