/** `ls`: a folder's entries, as `ls -1` (or `ls -ln` with -l) prints them. */

import { fileCommand } from "./declare.ts";

export const lsSpec = fileCommand("ls", "lsResultSchema", {
  summary: "List folders under the root (one name a line; -l long format, -a hidden entries too).",
  description: "Owners are numbers (as `ls -n` prints them). Secret paths, .git, git directories and pterm's state " +
    "are never listed; `ls artifacts` lists the runs' artifacts. -h alone means --help: write -lh.",
  positionals: [{ name: "paths", description: "Folders or files (default: the root)", variadic: true, path: "read" }],
  flags: [
    { name: "all", short: "a", type: "boolean", description: "Entries starting with . too, and . and .." },
    { name: "almost-all", short: "A", type: "boolean", description: "Entries starting with . too, without . and .." },
    { name: "long", short: "l", type: "boolean", description: "Mode, links, owner, group, size, date, name" },
    { name: "human-readable", short: "h", type: "boolean", description: "With -l: sizes as 1.5K, 12M" },
    { name: "time", short: "t", type: "boolean", description: "Newest first" },
    { name: "reverse", short: "r", type: "boolean", description: "Reverse the order" },
    { name: "directory", short: "d", type: "boolean", description: "List folders themselves, not their entries" },
  ],
  examples: [{ command: "ls -la src", description: "Every entry of src/, long format." }],
}, { spellings: true });
