/**
 * `git rm`: its flags and declaration (the handler: handlers/rm.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, pathspec, quiet, repoFlag } from "./common.ts";

export const rmFlags = [
  repoFlag("write"),
  pathFlag("Remove this tracked path"),
  { name: "cached", type: "boolean", description: "Only remove from the index; keep the file in the work tree." },
  { name: "recursive", short: "r", type: "boolean", description: "Allow removing a folder." },
  { name: "force", short: "f", type: "boolean", description: "Remove even with local or staged changes." },
  quiet,
] as const satisfies readonly FlagSpec[];

export const rmSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "rm",
  "Remove tracked files from the index and the work tree.",
  rmFlags,
  [
    { command: "git rm --repo projects/demo --path old.txt", description: "Delete a file and stage the deletion." },
    {
      command: "git rm --repo projects/demo --cached --recursive --path build",
      description: "Stop tracking a folder, keep the files.",
    },
    { command: "git rm -r --cached build", description: "The same, as real git spells it." },
  ],
  { positionals: [pathspec("The tracked paths to remove")], afterDoubleDash: "path" },
);
