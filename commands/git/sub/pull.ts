/**
 * `git pull`: its flags and declaration (the handler: handlers/pull.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { compat, confirmFlag, leaf, NET, noPruneFlag, repoFlag } from "./common.ts";

export const pullFlags = [
  repoFlag("write"),
  confirmFlag,
  {
    name: "rebase",
    short: "r",
    type: "boolean",
    description: "Rebase the branch's own commits onto the fetched upstream instead of merging (git's " +
      "pull --rebase; pull.rebase or branch.<name>.rebase = true in .git/config do the same).",
  },
  {
    name: "ff-only",
    type: "boolean",
    description: "Only fast-forward; refuse, with nothing merged, when the branches diverged.",
  },
  compat("no-edit", "Accepted: pterm never opens an editor; the merge message is git's."),
  compat("no-rebase", "Merge, even where pull.rebase or branch.<name>.rebase says rebase (as git pull --no-rebase)."),
  {
    name: "prune",
    short: "p",
    type: "boolean",
    description: "The fetch also deletes remote-tracking branches whose branch is gone from the remote (as git " +
      "pull --prune; fetch.prune or remote.<name>.prune in .git/config turn it on, as in git).",
  },
  noPruneFlag,
] as const satisfies readonly FlagSpec[];

export const pullSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "pull",
  "Fetch the current branch's upstream and merge it (network: needs --confirm).",
  pullFlags,
  [
    {
      command: "git pull --repo projects/app --confirm",
      description: "Fetch origin, then fast-forward or merge; conflicts are reported as Conflict.",
    },
    { command: "git pull origin main --confirm", description: "As real git spells it, naming the upstream." },
  ],
  {
    capabilities: NET,
    positionals: [
      { name: "remote-name", description: "The upstream's remote, if given: it must be the branch's upstream." },
      { name: "branch", description: "The upstream's branch, if given: it must be the branch's upstream." },
    ],
  },
);
