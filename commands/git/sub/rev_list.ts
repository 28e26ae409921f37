/**
 * `git rev-list`: its flags and declaration (the handler: handlers/rev_list.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, pathFlag, repoFlag } from "./common.ts";

export const revListFlags = [
  repoFlag("read"),
  pathFlag("Only commits that changed these paths"),
  { name: "count", type: "boolean", description: "Print how many commits there are instead of their ids." },
  {
    name: "max",
    short: "n",
    aliases: ["max-count"],
    digits: true,
    type: "number",
    min: 0,
    max: 1_000_000,
    description: "At most this many commits (-n 5, -5, --max-count=5).",
  },
  { name: "all", type: "boolean", description: "Start from every ref and HEAD, as git's --all." },
  { name: "reverse", type: "boolean", description: "Oldest first (after --max-count picked the newest)." },
] as const satisfies readonly FlagSpec[];

export const revListSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "rev-list",
  "The commit ids a revision reaches, newest first, as git rev-list prints them (`A..B`, `^A`, --count).",
  revListFlags,
  [
    { command: "git rev-list --count HEAD", description: "How many commits HEAD has." },
    { command: "git rev-list main..feature", description: "The commits feature has that main has not." },
  ],
  {
    positionals: [{ name: "revs", variadic: true, description: "Revisions: `A`, `^A`, `A..B`, `A...B`." }],
    afterDoubleDash: "path",
    handler: handler("rev-list", "revList"),
  },
);
