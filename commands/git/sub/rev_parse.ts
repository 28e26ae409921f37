/**
 * `git rev-parse`: its flags and declaration (the handler: handlers/rev_parse.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, quiet, repoFlag, schema } from "./common.ts";

export const revParseFlags = [
  repoFlag("read"),
  { name: "abbrev-ref", type: "boolean", description: "Print the branch name a ref stands for (HEAD → main)." },
  { name: "short", type: "boolean", description: "Print 7-character ids." },
  { name: "verify", type: "boolean", description: "Exactly one revision, which must exist." },
  { name: "show-toplevel", type: "boolean", description: "Print the repository's folder (relative to the root)." },
  { name: "git-dir", type: "boolean", description: "Print the .git folder (relative to the root)." },
  { name: "is-inside-work-tree", type: "boolean", description: "Print true (the call reached a repository)." },
  quiet,
] as const satisfies readonly FlagSpec[];

export const revParseSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "rev-parse",
  "Print the commit id a revision names, or the current branch or repository.",
  revParseFlags,
  [
    { command: "git rev-parse HEAD", description: "The current commit's id." },
    { command: "git rev-parse --abbrev-ref HEAD", description: "The current branch's name." },
    { command: "git rev-parse --show-toplevel", description: "The repository's folder, relative to the root." },
  ],
  {
    positionals: [{ name: "revs", variadic: true, description: "Revisions to resolve." }],
    result: schema("rev-parse"),
    handler: handler("rev-parse", "revParse"),
  },
);
