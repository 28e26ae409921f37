/**
 * `git merge-base`: its flags and declaration (the handler: handlers/merge_base.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const mergeBaseFlags = [
  repoFlag("read"),
  { name: "all", short: "a", type: "boolean", description: "Every best common ancestor, not only one." },
  {
    name: "is-ancestor",
    type: "boolean",
    description: "Print nothing; exit 0 when the first commit is an ancestor of the second, else 1.",
  },
] as const satisfies readonly FlagSpec[];

export const mergeBaseSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "merge-base",
  "The best common ancestor of two commits (what a merge starts from), or whether one is an ancestor of another.",
  mergeBaseFlags,
  [
    { command: "git merge-base main feature", description: "Where feature branched off main." },
    { command: "git merge-base --is-ancestor main feature", description: "Exit 0 if feature contains main." },
  ],
  {
    positionals: [{ name: "commits", variadic: true, description: "Two commits." }],
    handler: handler("merge-base", "mergeBase"),
  },
);
