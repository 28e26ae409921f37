/**
 * `git checkout`: its flags and declaration (the handler: handlers/checkout.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, quiet, refusedInteractive, repoFlag, trackFlags } from "./common.ts";

export const checkoutFlags = [
  repoFlag("write"),
  {
    name: "create",
    short: "b",
    type: "string",
    valueName: "branch",
    description: "Create this branch at <target> (default HEAD) and switch to it.",
  },
  {
    name: "force-create",
    short: "B",
    type: "string",
    valueName: "branch",
    description: "Like --create, but reset the branch to <target> if it exists.",
  },
  ...trackFlags,
  pathFlag("Restore this path from <target> (or from the index when no target is given) instead of switching"),
  { name: "detach", type: "boolean", description: "Check out <target> as a detached HEAD even if it is a branch." },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Switch even if local changes would be overwritten (they are discarded).",
  },
  {
    name: "ours",
    type: "boolean",
    description: "For a path with a merge conflict: write our side (stage 2) to the work tree; the conflict stays " +
      "staged until `git add`.",
  },
  { name: "theirs", type: "boolean", description: "For a path with a merge conflict: write their side (stage 3)." },
  quiet,
] as const satisfies readonly FlagSpec[];

export const checkoutSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "checkout",
  "Switch branches, detach at a commit, or restore files.",
  checkoutFlags,
  [
    { command: "git checkout -b feature", description: "Create feature at HEAD and switch to it." },
    { command: "git checkout -- src/app.ts", description: "Discard unstaged changes to one file." },
    { command: "git checkout --repo projects/demo feature", description: "Switch to the branch feature." },
    {
      command: "git checkout --repo projects/demo --create topic",
      description: "Create topic at HEAD and switch to it.",
    },
    { command: "git checkout --repo projects/demo 1a2b3c4", description: "Detach HEAD at a commit." },
    {
      command: "git checkout --repo projects/demo HEAD --path src/app.ts",
      description: "Discard local changes to one file.",
    },
  ],
  {
    refusedFlags: refusedInteractive,
    positionals: [{
      name: "args",
      variadic: true,
      description: "Branch, tag or commit (with --create: the start point), then paths to restore from it; " +
        "a word that is no revision but an existing path is a path.",
    }],
    afterDoubleDash: "path",
  },
);
