/**
 * `git fetch`: its flags and declaration (the handler: handlers/fetch.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { confirmFlag, leaf, NET, noPruneFlag, remoteNameFlag, repoFlag } from "./common.ts";

export const fetchFlags = [
  repoFlag("write"),
  remoteNameFlag,
  {
    name: "prune",
    short: "p",
    type: "boolean",
    description: "Also delete remote-tracking branches whose branch is gone from the remote (as git fetch --prune; " +
      "fetch.prune or remote.<name>.prune in .git/config turn it on, as in git).",
  },
  noPruneFlag,
  confirmFlag,
] as const satisfies readonly FlagSpec[];

export const fetchSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "fetch",
  "Bring a remote's new commits and tags in (network: needs --confirm and git.remotes).",
  fetchFlags,
  [
    {
      command: "git fetch --repo projects/app --confirm",
      description: "Update origin's remote-tracking branches (refs/remotes/origin/*) and follow its new tags.",
    },
    { command: "git fetch origin --confirm", description: "As real git spells it." },
    {
      command: "git fetch --repo projects/app --prune --confirm",
      description: "The same, and delete origin/<branch> for branches deleted on the remote.",
    },
  ],
  {
    capabilities: NET,
    positionals: [
      { name: "remote-name", into: "remote", description: "Same as --remote." },
      {
        name: "branch",
        description: "Only this branch (git fetch origin main): its remote-tracking branch and FETCH_HEAD.",
      },
    ],
  },
);
