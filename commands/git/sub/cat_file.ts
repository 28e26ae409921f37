/**
 * `git cat-file`: its flags and declaration (the handler: handlers/cat_file.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

/** git cat-file's line for each object of --batch and --batch-check without a format of their own. */
export const DEFAULT_BATCH_FORMAT = "%(objectname) %(objecttype) %(objectsize)";

export const catFileFlags = [
  repoFlag("read"),
  { name: "type", short: "t", type: "boolean", description: "Print the object's type (blob, tree, commit, tag)." },
  { name: "size", short: "s", type: "boolean", description: "Print the object's size in bytes." },
  { name: "pretty", short: "p", type: "boolean", description: "Print the object: a file's text, a tree's entries." },
  { name: "exists", short: "e", type: "boolean", description: "Print nothing; exit 0 if the object exists, else 1." },
  {
    name: "batch-check",
    type: "string",
    bareValue: DEFAULT_BATCH_FORMAT,
    valueName: "format",
    description: "For each object name on stdin (one a line), print `<id> <type> <size>` (or `<name> missing`); " +
      "`--batch-check=<format>` prints the format instead: %(objectname) %(objecttype) %(objectsize) %(rest) " +
      "(with %(rest), a line is the name, a space and the rest).",
  },
  {
    name: "batch",
    type: "string",
    bareValue: DEFAULT_BATCH_FORMAT,
    valueName: "format",
    description: "As --batch-check, each line followed by the object's content and a newline (text objects; a " +
      "binary one is refused: `git show <rev>:<path>` saves it as an artifact).",
  },
] as const satisfies readonly FlagSpec[];

export const catFileSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "cat-file",
  "An object's type, size or content by its name, as git cat-file prints it (-t, -s, -p, -e, --batch-check, " +
    "--batch).",
  catFileFlags,
  [
    { command: "git cat-file -p HEAD", description: "HEAD's commit object (tree, parents, author, message)." },
    { command: "git cat-file -t v1.0", description: "Whether v1.0 is an annotated tag or a commit." },
    { command: "git cat-file --batch-check", description: "Types and sizes of the names on stdin.", stdin: "HEAD\n" },
    {
      command: "git cat-file --batch='%(objectname) %(objectsize)'",
      description: "Each object named on stdin: its id and size, then its content.",
      stdin: "HEAD\n",
    },
  ],
  {
    positionals: [{ name: "args", variadic: true, description: "The object (or `<type> <object>`)." }],
    stdin: { mode: "whenFlag", flag: "batch-check", alsoFlags: ["batch"] },
    handler: handler("cat-file", "catFile"),
  },
);
