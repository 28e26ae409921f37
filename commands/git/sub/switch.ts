/**
 * `git switch`: its flags and declaration (the handler: handlers/switch.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, quiet, repoFlag, trackFlags } from "./common.ts";

export const switchFlags = [
  repoFlag("write"),
  {
    name: "create",
    short: "c",
    type: "string",
    valueName: "branch",
    description: "Create this branch at <start> (default HEAD) and switch to it.",
  },
  {
    name: "force-create",
    short: "C",
    type: "string",
    valueName: "branch",
    description: "Like --create, but reset the branch to <start> if it exists.",
  },
  ...trackFlags,
  { name: "detach", short: "d", type: "boolean", description: "Switch to a commit as a detached HEAD." },
  {
    name: "force",
    short: "f",
    aliases: ["discard-changes"],
    type: "boolean",
    description: "Switch even if local changes would be overwritten (they are discarded).",
  },
  quiet,
] as const satisfies readonly FlagSpec[];

export const switchSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "switch",
  "Switch branches (git switch): -c creates, --detach goes to a commit.",
  switchFlags,
  [
    { command: "git switch main", description: "Switch to main." },
    { command: "git switch -c feature", description: "Create feature at HEAD and switch to it." },
  ],
  {
    positionals: [{ name: "branch", description: "The branch to switch to (with -c: the start point)." }],
    handler: handler("switch", "switchHandler"),
  },
);
