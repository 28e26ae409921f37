/** `sed -n 'A,Bp'`: the habitual spelling of `read --lines A:B`; sed's other forms are refused with the line to run. */

import { fileCommand } from "./declare.ts";

export const sedSpec = fileCommand("sed", "linesResultSchema", {
  summary: "Print lines A to B of files: only `sed -n 'A,Bp' <file>` (the same as `read <file> --lines A:B`).",
  description: "Scripts are `A,Bp`, `Ap`, `A,$p` and `$p`. Editing (`sed -i`, `s/…/…/`) is refused: pterm changes " +
    "files with `patch`.",
  positionals: [
    { name: "script", description: "A,Bp: print lines A to B", required: true },
    { name: "files", description: "The files, relative to the root", variadic: true, required: true, path: "read" },
  ],
  flags: [{
    name: "quiet",
    short: "n",
    aliases: ["silent"],
    type: "boolean",
    description: "Print only what the script prints (required)",
  }],
  examples: [{ command: "sed -n '10,40p' src/app.py", description: "Lines 10 to 40." }],
}, { spellings: true });
