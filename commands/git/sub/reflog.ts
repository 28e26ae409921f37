/**
 * `git reflog`: its flags and declaration (the handler: handlers/reflog.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, maxCountFlag, repoFlag } from "./common.ts";

export const reflogFlags = [repoFlag("read"), maxCountFlag("entries")] as const satisfies readonly FlagSpec[];

export const reflogSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "reflog",
  "Where HEAD (or a branch) has been, newest first: git reflog's `<id> HEAD@{N}: <what>`.",
  reflogFlags,
  [
    { command: "git reflog", description: "Every move of HEAD, newest first (commits, checkouts, resets, merges)." },
    { command: "git reflog show main -n 5", description: "The last five moves of main." },
  ],
  {
    positionals: [{
      name: "args",
      variadic: true,
      description: "`show` (optional, as git spells it), then the ref (default HEAD).",
    }],
  },
);
