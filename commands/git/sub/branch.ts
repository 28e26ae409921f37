/**
 * `git branch`: its flags and declaration (the handler: handlers/branch.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, repoFlag, trackFlags } from "./common.ts";

export const branchFlags = [
  repoFlag("write"),
  {
    name: "delete",
    short: "d",
    type: "boolean",
    description: "Delete the branch <name> (refused if not merged into HEAD, unless --force).",
  },
  { name: "force-delete", short: "D", type: "boolean", description: "Delete the branch even if unmerged (-d -f)." },
  {
    name: "move",
    short: "m",
    type: "boolean",
    description: "Rename the branch <name> to <start> (the second word); alone, renames the current branch to <name>.",
  },
  { name: "force-move", short: "M", type: "boolean", description: "Rename even over an existing branch (-m -f)." },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Delete an unmerged branch, or move/create over an existing one.",
  },
  { name: "show-current", type: "boolean", description: "Print only the current branch's name." },
  {
    name: "list",
    short: "l",
    type: "boolean",
    description: "List branches; with <name>, only those matching it (`*` as a wildcard, quoted).",
  },
  {
    name: "all",
    short: "a",
    type: "boolean",
    description: "List remote-tracking branches (refs/remotes/) too.",
  },
  {
    name: "remotes",
    short: "r",
    type: "boolean",
    description: "List the remote-tracking branches (refs/remotes/) alone, as `git branch -r`.",
  },
  ...trackFlags,
  {
    name: "set-upstream-to",
    short: "u",
    type: "string",
    valueName: "upstream",
    description: "Make <upstream> (e.g. origin/main) the upstream of <name> (default: the current branch).",
  },
  {
    name: "unset-upstream",
    type: "boolean",
    description: "Remove the upstream of <name> (default: the current branch).",
  },
  {
    name: "verbose",
    short: "v",
    type: "boolean",
    repeatable: true,
    description: "With each branch its commit and subject (-v); -vv adds the upstream: `[origin/main: ahead 1]`.",
  },
  {
    name: "format",
    type: "string",
    valueName: "format",
    description:
      "Each branch through this format: %(refname), %(refname:short), %(objectname), %(objectname:short), %(upstream), %(upstream:short), %(upstream:track), %(HEAD), %(subject).",
  },
] as const satisfies readonly FlagSpec[];

export const branchSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "branch",
  "List, create, delete or rename branches.",
  branchFlags,
  [
    { command: "git branch --repo projects/demo", description: "List branches; the current one is marked." },
    { command: "git branch --repo projects/demo --all", description: "Local and remote-tracking branches." },
    { command: "git branch --repo projects/demo feature", description: "Create feature at HEAD." },
    { command: "git branch --repo projects/demo hotfix v1.0", description: "Create hotfix at the tag v1.0." },
    { command: "git branch --repo projects/demo --delete feature", description: "Delete a merged branch." },
    { command: "git branch --repo projects/demo --move feature feature-2", description: "Rename a branch." },
  ],
  {
    positionals: [
      { name: "name", description: "The branch to create, delete or rename." },
      { name: "start", description: "Where a new branch starts (default HEAD); with --move, the new name." },
    ],
  },
);
