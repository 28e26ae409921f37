/**
 * `git symbolic-ref`: its flags and declaration (the handler: handlers/symbolic_ref.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, quiet, repoFlag } from "./common.ts";

export const symbolicRefFlags = [
  repoFlag("read"),
  { name: "short", type: "boolean", description: "The branch's short name (main, not refs/heads/main)." },
  { ...quiet, compat: false, description: "No message when the ref is not symbolic (a detached HEAD): exit 1." },
] as const satisfies readonly FlagSpec[];

export const symbolicRefSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "symbolic-ref",
  "The branch HEAD (or another symbolic ref) points to, as git symbolic-ref prints it. Read only.",
  symbolicRefFlags,
  [
    { command: "git symbolic-ref --short HEAD", description: "The current branch's name." },
    { command: "git symbolic-ref refs/remotes/origin/HEAD", description: "The remote's default branch." },
  ],
  {
    positionals: [{ name: "args", variadic: true, description: "The symbolic ref (HEAD)." }],
    refusedFlags: {
      "-d": "pterm's symbolic-ref only reads: `git switch <branch>` moves HEAD.",
      "--delete": "pterm's symbolic-ref only reads: `git switch <branch>` moves HEAD.",
      "-m": "pterm's symbolic-ref only reads: `git switch <branch>` moves HEAD.",
    },
    handler: handler("symbolic-ref", "symbolicRef"),
  },
);
