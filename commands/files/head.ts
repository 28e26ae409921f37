/** `head`: the habitual spelling of `read --lines 1:N`. */

import { fileCommand, FILES_POSITIONAL } from "./declare.ts";

export const headSpec = fileCommand("head", "linesResultSchema", {
  summary: "Print the first lines of files (`head -n 20 f` is `read f --lines 1:20`).",
  positionals: [FILES_POSITIONAL],
  flags: [{
    name: "lines",
    short: "n",
    type: "string",
    valueName: "N",
    default: "10",
    description: "How many lines (default 10); -N: all but the last N. `head -20` is `head -n 20`",
  }],
  examples: [{ command: "head -n 20 src/app.py", description: "The first 20 lines." }],
}, { spellings: true });
