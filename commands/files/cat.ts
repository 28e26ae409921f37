/** `cat`: the habitual spelling of `read` for whole files. */

import { fileCommand } from "./declare.ts";

export const catSpec = fileCommand("cat", "linesResultSchema", {
  summary: "Print files as they are (the same as `read <file>`; -n numbers the lines).",
  positionals: [{
    name: "files",
    description: "The files, relative to the root",
    variadic: true,
    required: true,
    path: "read",
  }],
  flags: [{ name: "number", short: "n", type: "boolean", description: "Number the lines (`read --numbers`)" }],
  examples: [{ command: "cat README.md", description: "Print README.md." }],
}, { spellings: true });
