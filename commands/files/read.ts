/** `read`: the agent's way to read a file, with line numbers for patching and a range for long files. */

import { fileCommand } from "./declare.ts";

export const readSpec = fileCommand("read", "linesResultSchema", {
  summary: "Print a file under the root (or a range of its lines, numbered as `cat -n` numbers them).",
  description: "Artifacts are files too: `read artifacts/<run>/stdout.txt --lines 1:200` reads the full output " +
    "a truncated envelope kept. Binary files are refused (documents: `doc extract`). cat, head, tail and " +
    "`sed -n 'A,Bp'` print the same lines.",
  positionals: [{ name: "path", description: "The file, relative to the root", required: true, path: "read" }],
  flags: [
    {
      name: "lines",
      type: "string",
      valueName: "A:B",
      description: "Only lines A to B (from 1); A: to the end, :B from the start, A one line, -N: the last N",
    },
    { name: "numbers", short: "n", type: "boolean", description: "Number the lines (`cat -n`'s format), for patching" },
  ],
  examples: [
    { command: "read src/app.py --lines 1:80 --numbers", description: "The first 80 lines, numbered." },
    { command: "read artifacts/20260101T000000Z-ab12/stdout.txt --lines 400:", description: "An artifact's rest." },
  ],
});
