/** `wc`: line, word and byte counts, as coreutils prints them. */

import { fileCommand, FILES_POSITIONAL } from "./declare.ts";

export const wcSpec = fileCommand("wc", "wcResultSchema", {
  summary: "Count lines, words and bytes of files (-l lines only, -w words, -c bytes, -m characters).",
  positionals: [FILES_POSITIONAL],
  flags: [
    { name: "lines", short: "l", type: "boolean", description: "Lines (newlines)" },
    { name: "words", short: "w", type: "boolean", description: "Words" },
    { name: "chars", short: "m", type: "boolean", description: "Characters (UTF-8)" },
    { name: "bytes", short: "c", type: "boolean", description: "Bytes" },
  ],
  examples: [{ command: "wc -l src/app.py", description: "How many lines src/app.py has." }],
});
