/**
 * `git remote`: its flags and declaration (the handler: handlers/remote.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const remoteFlags = [
  repoFlag("write"),
  {
    name: "verbose",
    short: "v",
    type: "boolean",
    description: "List each remote's fetch and push URL (`origin\thttps://… (fetch)`), as git; without it, the names.",
  },
] as const satisfies readonly FlagSpec[];

export const remoteSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "remote",
  "List, add, remove or re-point remotes (no network).",
  remoteFlags,
  [
    { command: "git remote --repo projects/app", description: "Each remote with its URL." },
    {
      command: "git remote --repo projects/app add upstream https://git.example.com/org/app.git",
      description: "Add a remote (fetch it with `git fetch --remote upstream`).",
    },
    {
      command: "git remote --repo projects/app set-url origin https://git.example.com/org/app2.git",
      description: "Point origin elsewhere.",
    },
    { command: "git remote --repo projects/app remove upstream", description: "Forget a remote and its branches." },
  ],
  {
    handler: handler("remote", "remotes"),
    positionals: [
      { name: "action", description: "list (default), add, remove, set-url or get-url." },
      { name: "name", description: "The remote's name (add, remove, set-url)." },
      { name: "url", description: "Its https URL (add, set-url); no user or token in it." },
    ],
  },
);
