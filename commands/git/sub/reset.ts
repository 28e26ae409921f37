/**
 * `git reset`: its flags and declaration (the handler: handlers/reset.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, quiet, refusedInteractive, repoFlag } from "./common.ts";

export const resetFlags = [
  repoFlag("write"),
  { name: "soft", type: "boolean", description: "Move the branch only; index and work tree stay." },
  {
    name: "mixed",
    type: "boolean",
    description: "Move the branch and reset the index; the work tree stays (the default).",
  },
  {
    name: "hard",
    type: "boolean",
    description: "Move the branch and reset index and work tree (local changes to tracked files are lost).",
  },
  pathFlag("Unstage this path: reset its index entry to <rev> (HEAD by default); HEAD does not move"),
  quiet,
] as const satisfies readonly FlagSpec[];

export const resetSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "reset",
  "Move HEAD (--soft, --mixed, --hard) or unstage paths.",
  resetFlags,
  [
    { command: "git reset --repo projects/demo --hard HEAD~1", description: "Drop the last commit and its changes." },
    { command: "git reset --repo projects/demo --soft HEAD~1", description: "Undo the last commit, keep it staged." },
    { command: "git reset --repo projects/demo --path src/app.ts", description: "Unstage one file." },
    { command: "git reset HEAD src/app.ts", description: "The same, as real git spells it." },
  ],
  {
    refusedFlags: refusedInteractive,
    positionals: [{
      name: "args",
      variadic: true,
      description: "The commit to reset to (default HEAD), then paths to unstage; a word that is no revision but " +
        "an existing path is a path.",
    }],
    afterDoubleDash: "path",
  },
);
