/** `cat`: the habitual spelling of `read` for whole files. */

import { fileCommand, FILES_POSITIONAL } from "./declare.ts";

export const catSpec = fileCommand("cat", "linesResultSchema", {
  summary: "Print files as they are (the same as `read <file>`; -n numbers the lines).",
  positionals: [FILES_POSITIONAL],
  flags: [{ name: "number", short: "n", type: "boolean", description: "Number the lines (`read --numbers`)" }],
  examples: [{ command: "cat README.md", description: "Print README.md." }],
}, { spellings: true });
