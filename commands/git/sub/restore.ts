/**
 * `git restore`: its flags and declaration (the handler: handlers/restore.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, pathspec, quiet, refusedInteractive, repoFlag } from "./common.ts";

export const restoreFlags = [
  repoFlag("write"),
  pathFlag("Restore this path"),
  {
    name: "source",
    short: "s",
    type: "string",
    valueName: "rev",
    description: "Take the content from this commit (default: the index for the work tree, HEAD for --staged).",
  },
  { name: "staged", short: "S", type: "boolean", description: "Restore the index (unstage)." },
  {
    name: "worktree",
    short: "W",
    type: "boolean",
    description: "Restore the work tree (the default; with --staged, both).",
  },
  quiet,
  {
    name: "ours",
    type: "boolean",
    description: "For a path with a merge conflict: write our side (stage 2) to the work tree; the conflict stays " +
      "staged until `git add`.",
  },
  { name: "theirs", type: "boolean", description: "For a path with a merge conflict: write their side (stage 3)." },
] as const satisfies readonly FlagSpec[];

export const restoreSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "restore",
  "Restore files in the work tree or the index (git restore).",
  restoreFlags,
  [
    { command: "git restore src/app.ts", description: "Discard unstaged changes to a file (from the index)." },
    { command: "git restore --staged src/app.ts", description: "Unstage a file (the index from HEAD)." },
    { command: "git restore --source HEAD~1 src/app.ts", description: "Take a file's content from a commit." },
  ],
  {
    refusedFlags: refusedInteractive,
    positionals: [pathspec("The paths to restore")],
    afterDoubleDash: "path",
  },
);
