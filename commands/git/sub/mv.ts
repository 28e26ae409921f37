/**
 * `git mv`: its flags and declaration (the handler: handlers/mv.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, repoFlag } from "./common.ts";

export const mvFlags = [
  repoFlag("write"),
  { name: "force", short: "f", type: "boolean", description: "Overwrite an existing destination file." },
] as const satisfies readonly FlagSpec[];

export const mvSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "mv",
  "Move or rename a tracked file or folder.",
  mvFlags,
  [
    { command: "git mv --repo projects/demo notes.txt docs/notes.txt", description: "Move a file into docs/." },
  ],
  {
    positionals: [
      { name: "source", required: true, description: "The tracked file or folder to move." },
      { name: "destination", required: true, description: "The new path (an existing folder: move into it)." },
    ],
  },
);
