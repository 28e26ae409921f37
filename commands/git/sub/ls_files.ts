/**
 * `git ls-files`: its flags and declaration (the handler: handlers/ls_files.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { compat, handler, leaf, pathFlag, pathspec, repoFlag, schema } from "./common.ts";

export const lsFilesFlags = [
  repoFlag("read"),
  pathFlag("Only these paths"),
  { name: "cached", short: "c", type: "boolean", description: "Tracked files (the default)." },
  { name: "others", short: "o", type: "boolean", description: "Untracked files instead." },
  { name: "modified", short: "m", type: "boolean", description: "Tracked files changed in the work tree." },
  { name: "deleted", short: "d", type: "boolean", description: "Tracked files missing from the work tree." },
  {
    name: "unmerged",
    short: "u",
    type: "boolean",
    description: "Only the paths with a conflict in progress: each stage's entry, as `-s` shows it (git's -u).",
  },
  { name: "stage", short: "s", type: "boolean", description: "Show mode, object id and stage (`git ls-files -s`)." },
  compat("exclude-standard", "Accepted: .gitignore and .git/info/exclude always apply to --others."),
] as const satisfies readonly FlagSpec[];

export const lsFilesSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "ls-files",
  "List the files in the index (tracked files), or untracked/modified ones.",
  lsFilesFlags,
  [
    { command: "git ls-files", description: "Every tracked file." },
    { command: "git ls-files src", description: "Tracked files under src." },
    { command: "git ls-files --others --exclude-standard", description: "Untracked files, ignored ones left out." },
  ],
  {
    positionals: [pathspec("Only these paths")],
    afterDoubleDash: "path",
    result: schema("ls-files"),
    handler: handler("ls-files", "lsFiles"),
  },
);
