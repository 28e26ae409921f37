/**
 * `git show-ref`: its flags and declaration (the handler: handlers/show_ref.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, quiet, repoFlag } from "./common.ts";

export const showRefFlags = [
  repoFlag("read"),
  { name: "heads", aliases: ["branches"], type: "boolean", description: "Only branches (refs/heads/)." },
  { name: "tags", type: "boolean", description: "Only tags (refs/tags/)." },
  { name: "verify", type: "boolean", description: "Each pattern is a full ref name that must exist." },
  {
    name: "dereference",
    short: "d",
    type: "boolean",
    description: "After an annotated tag, what it points to (`^{}`).",
  },
  { name: "hash", short: "s", type: "boolean", description: "Only the object ids." },
  { name: "head", type: "boolean", description: "HEAD too." },
  { ...quiet, compat: false, description: "Print nothing: the exit status says whether a ref matched." },
] as const satisfies readonly FlagSpec[];

export const showRefSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "show-ref",
  "The refs and their object ids, as git show-ref prints them (`<id> refs/heads/main`).",
  showRefFlags,
  [
    { command: "git show-ref --heads", description: "Every branch with its commit." },
    { command: "git show-ref --verify refs/heads/main", description: "Whether the branch main exists." },
  ],
  {
    positionals: [{ name: "patterns", variadic: true, description: "Ref names or their last parts (main, v1.0)." }],
    handler: handler("show-ref", "showRef"),
  },
);
