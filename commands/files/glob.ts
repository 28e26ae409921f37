/** `glob`: the agent's file finder, a globstar pattern over root-relative paths. */

import { fileCommand } from "./declare.ts";

export const globSpec = fileCommand("glob", "globResultSchema", {
  summary: "List the paths matching wildcard patterns (`**` is any number of folders), in byte order.",
  description: "As bash with globstar matches: * and ? stay inside one name, names starting with . match only a " +
    "pattern that starts with . too. Quote the pattern: `glob 'src/**/*.ts'`.",
  positionals: [{ name: "patterns", description: "Patterns relative to the root", variadic: true, required: true }],
  examples: [{ command: "glob '**/*.md'", description: "Every Markdown file." }],
});
