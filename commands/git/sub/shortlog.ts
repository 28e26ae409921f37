/**
 * `git shortlog`: its flags and declaration (the handler: handlers/shortlog.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, repoFlag } from "./common.ts";

export const shortlogFlags = [
  repoFlag("read"),
  pathFlag("Only commits that changed this path"),
  { name: "summary", short: "s", type: "boolean", description: "Only each author's commit count (`    12\tName`)." },
  { name: "numbered", short: "n", type: "boolean", description: "Most commits first (default: by name)." },
  { name: "email", short: "e", type: "boolean", description: "Group by `Name <email>`, not the name alone." },
  { name: "no-merges", type: "boolean", description: "Leave merge commits out." },
  {
    name: "all",
    type: "boolean",
    description: "Count the commits of every branch, tag and remote-tracking branch, not only HEAD's.",
  },
] as const satisfies readonly FlagSpec[];

export const shortlogSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "shortlog",
  "Commits grouped by author (git shortlog): each author's subjects, or with -s their counts.",
  shortlogFlags,
  [
    { command: "git shortlog -sn", description: "Who committed how much, most first." },
    { command: "git shortlog -sne v1.0..HEAD", description: "Counts by name and email since v1.0." },
    { command: "git shortlog", description: "Each author's commit subjects, oldest first." },
  ],
  {
    positionals: [{
      name: "args",
      variadic: true,
      description: "A revision or range (default HEAD), then paths.",
    }],
    afterDoubleDash: "path",
  },
);
