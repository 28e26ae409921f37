/**
 * `git blame`: its flags and declaration (the handler: handlers/blame.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, repoFlag } from "./common.ts";

export const blameFlags = [
  repoFlag("read"),
  pathFlag("The file to blame"),
  {
    name: "lines",
    short: "L",
    type: "string",
    valueName: "start,end",
    description: "Only these lines: `10,20`, `10,+5` (five lines from 10), `10,` (to the end).",
  },
  { name: "long", short: "l", type: "boolean", description: "Show full 40-character commit ids." },
  { name: "suppress", short: "s", type: "boolean", description: "Leave the author and date out of each line." },
  { name: "show-email", short: "e", type: "boolean", description: "Show the author's email instead of the name." },
  {
    name: "porcelain",
    short: "p",
    type: "boolean",
    description: "git's machine format: each commit's details once, then its lines (git blame --porcelain).",
  },
  {
    name: "line-porcelain",
    type: "boolean",
    description: "The porcelain format with the commit's details repeated on every line.",
  },
] as const satisfies readonly FlagSpec[];

export const blameSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "blame",
  "Show which commit last changed each line of a file (git blame).",
  blameFlags,
  [
    { command: "git blame src/app.py", description: "Every line with its commit, author and date." },
    { command: "git blame -L 10,20 src/app.py", description: "Only lines 10 to 20." },
    { command: "git blame v1.0 -- src/app.py", description: "The file as it was at v1.0." },
    { command: "git blame --porcelain src/app.py", description: "git's machine-readable format." },
  ],
  {
    positionals: [{
      name: "args",
      variadic: true,
      description: "A revision (default: HEAD, with the work tree's uncommitted lines), then the file.",
    }],
    afterDoubleDash: "path",
  },
);
