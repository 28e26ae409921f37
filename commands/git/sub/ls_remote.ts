/**
 * `git ls-remote`: its flags and declaration (the handler: handlers/ls_remote.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { confirmFlag, handler, leaf, NET, urlFlag } from "./common.ts";

export const lsRemoteFlags = [urlFlag, confirmFlag] as const satisfies readonly FlagSpec[];

export const lsRemoteSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "ls-remote",
  "List a remote's branches and tags (network: needs --confirm and git.remotes).",
  lsRemoteFlags,
  [
    {
      command: "git ls-remote --url https://git.example.com/org/app.git --confirm",
      description: "The remote's HEAD, branches and tags.",
    },
    { command: "git ls-remote https://git.example.com/org/app.git --confirm", description: "As real git spells it." },
  ],
  {
    capabilities: NET,
    handler: handler("ls-remote", "lsRemote"),
    positionals: [{ name: "repository", into: "url", description: "Same as --url." }],
  },
);
