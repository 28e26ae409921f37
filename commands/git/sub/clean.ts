/**
 * `git clean`: its flags and declaration (the handler: handlers/clean.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, pathspec, quiet, repoFlag } from "./common.ts";

export const cleanFlags = [
  repoFlag("write"),
  pathFlag("Only clean under this path"),
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Really delete (git requires -f or -n, and so does pterm).",
  },
  { name: "dry-run", short: "n", type: "boolean", description: "List what would be deleted; delete nothing." },
  { name: "directories", short: "d", type: "boolean", description: "Also delete untracked folders." },
  quiet,
] as const satisfies readonly FlagSpec[];

export const cleanSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "clean",
  "Delete untracked files (git clean): -n lists them, -f deletes, -d includes folders.",
  cleanFlags,
  [
    { command: "git clean -n", description: "List the untracked files that -f would delete." },
    { command: "git clean -fd", description: "Delete untracked files and folders (ignored files stay)." },
  ],
  { positionals: [pathspec("Only clean under these paths")], afterDoubleDash: "path" },
);
