/**
 * `git name-rev`: its flags and declaration (the handler: handlers/name_rev.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const nameRevFlags = [
  repoFlag("read"),
  { name: "name-only", type: "boolean", description: "Print only the name (`main~2`), not the revision before it." },
  { name: "tags", type: "boolean", description: "Name commits by tags only." },
] as const satisfies readonly FlagSpec[];

export const nameRevSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "name-rev",
  "A commit's name relative to the branches and tags (`main~2`, `tags/v1.0^0`), as git name-rev gives it.",
  nameRevFlags,
  [
    { command: "git name-rev --name-only HEAD", description: "HEAD by a branch or tag name." },
    { command: "git name-rev --tags --name-only HEAD~3", description: "A commit by the nearest tag it is before." },
  ],
  {
    positionals: [{ name: "revs", variadic: true, description: "The commits to name." }],
    handler: handler("name-rev", "nameRev"),
  },
);
