/**
 * `git push`: its flags and declaration (the handler: handlers/push.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { confirmFlag, leaf, NET, remoteNameFlag, repoFlag } from "./common.ts";

export const FORCE =
  "pterm's only force is --force-with-lease: it overwrites the remote branch only if it is where your " +
  "last fetch saw it (with --confirm).";

export const pushFlags = [
  repoFlag("write"),
  {
    name: "branch",
    type: "string",
    valueName: "name",
    description: "The local branch to push (default: the current one) to its upstream; a tag's name pushes that tag.",
  },
  remoteNameFlag,
  {
    name: "tags",
    type: "boolean",
    description: "Push every local tag the remote lacks (tags it has with another value refuse the push).",
  },
  {
    name: "delete",
    short: "d",
    type: "boolean",
    description: "Delete the branch (or tag) named by --branch / the refspec on the remote.",
  },
  {
    name: "set-upstream",
    short: "u",
    type: "boolean",
    description: "Push to a branch of the same name on the remote and remember it as the upstream.",
  },
  {
    name: "force-with-lease",
    type: "boolean",
    description: "Overwrite the remote branch even if not a fast-forward, only if it is where your last fetch saw it.",
  },
  confirmFlag,
] as const satisfies readonly FlagSpec[];

export const pushSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "push",
  "Send a branch's new commits to its upstream (network: needs --confirm).",
  pushFlags,
  [
    { command: "git push --repo projects/app --confirm", description: "The current branch to its upstream." },
    {
      command: "git push --repo projects/app --branch fix --set-upstream --confirm",
      description: "Create fix on origin and make it fix's upstream.",
    },
    { command: "git push -u origin fix --confirm", description: "The same, as real git spells it." },
    { command: "git push --repo projects/app --tags --confirm", description: "Send the tags origin lacks." },
    { command: "git push origin v1.0 --confirm", description: "Send one tag (and the history it needs)." },
    { command: "git push origin --delete fix --confirm", description: "Delete the branch fix on origin." },
  ],
  {
    capabilities: NET,
    positionals: [
      { name: "remote-name", into: "remote", description: "Same as --remote." },
      {
        name: "refspec",
        into: "branch",
        description: "The branch (or tag) to push (same as --branch); also git's `HEAD` (the current branch) and " +
          "`<branch>:<destination-branch>`.",
      },
    ],
    refusedFlags: {
      "--force": FORCE,
      "-f": FORCE,
      "--all": "pushes one branch at a time: `git push origin <branch> --confirm`.",
    },
  },
);
