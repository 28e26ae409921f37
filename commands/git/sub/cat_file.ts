/**
 * `git cat-file`: its flags and declaration (the handler: handlers/cat_file.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const catFileFlags = [
  repoFlag("read"),
  { name: "type", short: "t", type: "boolean", description: "Print the object's type (blob, tree, commit, tag)." },
  { name: "size", short: "s", type: "boolean", description: "Print the object's size in bytes." },
  { name: "pretty", short: "p", type: "boolean", description: "Print the object: a file's text, a tree's entries." },
  { name: "exists", short: "e", type: "boolean", description: "Print nothing; exit 0 if the object exists, else 1." },
  {
    name: "batch-check",
    type: "boolean",
    description: "For each object name on stdin, print `<id> <type> <size>` (or `<name> missing`).",
  },
] as const satisfies readonly FlagSpec[];

export const catFileSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "cat-file",
  "An object's type, size or content by its name, as git cat-file prints it (-t, -s, -p, -e, --batch-check).",
  catFileFlags,
  [
    { command: "git cat-file -p HEAD", description: "HEAD's commit object (tree, parents, author, message)." },
    { command: "git cat-file -t v1.0", description: "Whether v1.0 is an annotated tag or a commit." },
    { command: "git cat-file --batch-check", description: "Types and sizes of the names on stdin.", stdin: "HEAD\n" },
  ],
  {
    positionals: [{ name: "args", variadic: true, description: "The object (or `<type> <object>`)." }],
    stdin: { mode: "whenFlag", flag: "batch-check" },
    refusedFlags: {
      "--batch": "pterm prints one object's content per call: `git cat-file -p <object>`; `git cat-file " +
        "--batch-check` (names on stdin) gives types and sizes.",
    },
    handler: handler("cat-file", "catFile"),
  },
);
