/**
 * `git add`: its flags and declaration (the handler: handlers/add.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { INTERACTIVE, leaf, pathFlag, pathspec, refusedInteractive, repoFlag } from "./common.ts";

export const addFlags = [
  repoFlag("write"),
  {
    name: "all",
    short: "A",
    type: "boolean",
    description: "Stage every change in the work tree, deletions included (git add -A).",
  },
  pathFlag("Stage changes under this path, deletions included"),
  {
    name: "update",
    short: "u",
    type: "boolean",
    description: "Stage modifications and deletions of tracked files only; new files stay untracked (git add -u).",
  },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Also stage files a .gitignore excludes (only those named by --path).",
  },
  {
    name: "verbose",
    short: "v",
    type: "boolean",
    description: "Print each path staged, as git does (`add 'x'`, `remove 'y'`); without it git add prints nothing.",
  },
] as const satisfies readonly FlagSpec[];

export const addSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "add",
  "Stage changes (new, modified and deleted files).",
  addFlags,
  [
    { command: "git add --repo projects/demo --all", description: "Stage everything, like git add -A." },
    { command: "git add --repo projects/demo --path src/app.ts --path README.md", description: "Stage two paths." },
    { command: "git add src/app.ts README.md", description: "The same, as real git spells it." },
    { command: "git add .", description: "Stage everything in the repository." },
  ],
  {
    refusedFlags: {
      ...refusedInteractive,
      "-i": INTERACTIVE,
      "--intent-to-add": "not available; `git add <path>` stages the file whole.",
      "-N": "not available; `git add <path>` stages the file whole.",
      "--dry-run": "not available; `git status -s` shows what `git add` would stage.",
      "-n": "not available (it is --dry-run); `git status -s` shows what `git add` would stage.",
    },
    positionals: [pathspec("Stage changes under these paths")],
    afterDoubleDash: "path",
  },
);
