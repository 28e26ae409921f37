/**
 * `git ls-tree`: its flags and declaration (the handler: handlers/ls_tree.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const lsTreeFlags = [
  repoFlag("read"),
  { name: "recursive", short: "r", type: "boolean", description: "Go into subfolders (files with their paths)." },
  { name: "trees", short: "t", type: "boolean", description: "With -r, list the folders too." },
  { name: "dirs-only", short: "d", type: "boolean", description: "Only folders (trees), no files." },
  { name: "long", short: "l", type: "boolean", description: "Each file's size in bytes too (`-` for a folder)." },
  { name: "name-only", aliases: ["name-status"], type: "boolean", description: "Only the paths." },
] as const satisfies readonly FlagSpec[];

export const lsTreeSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "ls-tree",
  "The files and folders of a commit's tree, as git ls-tree prints them (`<mode> <type> <id>\\t<path>`).",
  lsTreeFlags,
  [
    { command: "git ls-tree -r --name-only HEAD", description: "Every file HEAD holds." },
    { command: "git ls-tree HEAD src/", description: "What the folder src holds at HEAD." },
  ],
  {
    positionals: [
      { name: "tree", required: true, description: "A commit or tree: HEAD, main, v1.0, HEAD:src." },
      { name: "paths", variadic: true, description: "Only these paths (`dir` the folder itself, `dir/` its content)." },
    ],
    handler: handler("ls-tree", "lsTree"),
  },
);
