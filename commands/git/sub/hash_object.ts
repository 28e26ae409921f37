/**
 * `git hash-object`: its flags and declaration (the handler: handlers/hash_object.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const hashObjectFlags = [
  repoFlag("read"),
  { name: "stdin", type: "boolean", description: "Hash the call's stdin (after the files)." },
  { name: "no-filters", type: "boolean", description: "Hash the bytes as they are (no line-ending conversion)." },
] as const satisfies readonly FlagSpec[];

export const hashObjectSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "hash-object",
  "The blob id git would give a file's content (as `git add` would store it); writes nothing.",
  hashObjectFlags,
  [
    { command: "git hash-object src/app.py", description: "The id the file would have if staged now." },
    { command: "git hash-object --stdin", description: "The id of the call's stdin as a blob.", stdin: "text\n" },
  ],
  {
    positionals: [{ name: "paths", variadic: true, description: "Files, relative to the repository." }],
    afterDoubleDash: "paths",
    stdin: { mode: "whenFlag", flag: "stdin", bytes: true },
    refusedFlags: {
      "-w": "pterm's hash-object writes nothing: `git add <path>` stores a file's content in the repository.",
      "--stdin-paths": "name the files as words: `git hash-object <path> <path>…`.",
    },
    handler: handler("hash-object", "hashObject"),
  },
);
