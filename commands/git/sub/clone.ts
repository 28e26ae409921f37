/**
 * `git clone`: its flags and declaration (the handler: handlers/clone.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { confirmFlag, leaf, NET, urlFlag } from "./common.ts";

export const cloneFlags = [
  urlFlag,
  {
    name: "dir",
    type: "string",
    valueName: "path",
    path: "write",
    description: "The new repository's folder (must not exist, or be empty), relative to the workspace root.",
  },
  confirmFlag,
  {
    name: "branch",
    type: "string",
    valueName: "name",
    description: "Check out this branch (default: the remote's HEAD).",
  },
  {
    name: "single-branch",
    type: "boolean",
    description: "Fetch only the checked-out branch (and the tags in its history); --depth implies it.",
  },
  {
    name: "depth",
    type: "number",
    min: 1,
    max: 1000000,
    valueName: "n",
    description: "A shallow clone of the last n commits of one branch (tags in that history come along).",
  },
] as const satisfies readonly FlagSpec[];

export const cloneSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "clone",
  "Copy a remote repository into a new folder (network: needs --confirm and git.remotes).",
  cloneFlags,
  [
    {
      command: "git clone --url https://git.example.com/org/app.git --dir projects/app --confirm",
      description: "Clone and check out the remote's default branch.",
    },
    {
      command:
        "git clone --url https://git.example.com/org/app.git --dir projects/app --depth 1 --branch dev --confirm",
      description: "Only the last commit of dev.",
    },
    {
      command: "git clone https://git.example.com/org/app.git projects/app --confirm",
      description: "As real git spells it (without a folder: app, from the URL).",
    },
  ],
  {
    capabilities: NET,
    positionals: [
      { name: "repository", into: "url", description: "Same as --url." },
      { name: "directory", into: "dir", description: "Same as --dir (default: the URL's last part, as git)." },
    ],
  },
);
