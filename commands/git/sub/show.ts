/**
 * `git show`: its flags and declaration (the handler: handlers/show.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { algorithmFlags, leaf, pathFlag, prettyFlags, refusedDiffFlags, renameFlags, repoFlag } from "./common.ts";

export const showFlags = [
  repoFlag("read"),
  pathFlag("Only show the diff of this path"),
  { name: "stat", type: "boolean", description: "Print a diffstat instead of the patch." },
  { name: "name-only", type: "boolean", description: "Print only the names of changed files." },
  { name: "name-status", type: "boolean", description: "Print `M path`, `A path`, `D path` per changed file." },
  { name: "no-patch", short: "s", type: "boolean", description: "Show the commit's metadata without its diff." },
  ...prettyFlags,
  ...algorithmFlags,
  ...renameFlags,
] as const satisfies readonly FlagSpec[];

export const showSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "show",
  "Show a commit: its metadata and its diff.",
  showFlags,
  [
    { command: "git show --repo projects/demo", description: "The HEAD commit and its patch." },
    { command: "git show --repo projects/demo v1.0 --stat", description: "A tagged commit, with a diffstat." },
    { command: "git show HEAD~1:README.md", description: "Print a file as it was in a commit." },
  ],
  {
    positionals: [{
      name: "rev",
      description: "The commit (or tag) to show; default HEAD. `<rev>:<path>` prints that file at that commit.",
    }],
    refusedFlags: refusedDiffFlags,
    afterDoubleDash: "path",
  },
);
