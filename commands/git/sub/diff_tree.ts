/**
 * `git diff-tree`: its flags and declaration (the handler: handlers/diff_tree.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const diffTreeFlags = [
  repoFlag("read"),
  { name: "recursive", short: "r", type: "boolean", description: "Go into subfolders (files with their paths)." },
  { name: "trees", short: "t", type: "boolean", description: "With -r, list the changed folders too." },
  { name: "name-only", type: "boolean", description: "Only the changed paths." },
  { name: "name-status", type: "boolean", description: "Each changed path with its letter (A, M, D, T)." },
  { name: "no-commit-id", type: "boolean", description: "Leave out the commit id line." },
  { name: "root", type: "boolean", description: "Show a first commit as adding everything." },
] as const satisfies readonly FlagSpec[];

export const diffTreeSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "diff-tree",
  "What a commit changed (or what differs between two trees), in git diff-tree's raw lines.",
  diffTreeFlags,
  [
    { command: "git diff-tree --no-commit-id --name-only -r HEAD", description: "The files HEAD's commit changed." },
    { command: "git diff-tree -r --name-status HEAD~2 HEAD", description: "What changed between two commits." },
  ],
  {
    positionals: [{ name: "revs", variadic: true, description: "One commit, or two trees (then paths)." }],
    afterDoubleDash: "revs",
    handler: handler("diff-tree", "diffTree"),
  },
);
