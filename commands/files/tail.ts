/** `tail`: the habitual spelling of `read --lines -N:`. */

import { fileCommand, FILES_POSITIONAL } from "./declare.ts";

export const tailSpec = fileCommand("tail", "linesResultSchema", {
  summary: "Print the last lines of files (`tail -n 20 f` is `read f --lines -20:`).",
  positionals: [FILES_POSITIONAL],
  flags: [{
    name: "lines",
    short: "n",
    type: "string",
    valueName: "N",
    default: "10",
    description: "How many lines (default 10); +N: from line N to the end. `tail -20` is `tail -n 20`",
  }],
  examples: [{ command: "tail -n 20 notes.txt", description: "The last 20 lines." }],
}, { spellings: true });
