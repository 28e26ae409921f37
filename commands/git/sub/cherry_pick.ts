/**
 * `git cherry-pick`: its flags and declaration (the handler: handlers/cherry_pick.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { authorFlag, compat, handler, leaf, repoFlag } from "./common.ts";

export const cherryPickFlags = [
  repoFlag("write"),
  {
    name: "x",
    short: "x",
    type: "boolean",
    description: "Add `(cherry picked from commit <id>)` to the message, as git's -x.",
  },
  {
    name: "no-commit",
    short: "n",
    type: "boolean",
    description: "Apply the change to index and work tree without committing.",
  },
  {
    name: "continue",
    type: "boolean",
    description: "After resolving the conflicts (edit, git add): commit with the picked commit's message (and author).",
  },
  {
    name: "abort",
    type: "boolean",
    description: "Give up the cherry-pick that stopped: index and work tree back to HEAD for the files it touched.",
  },
  {
    name: "quit",
    type: "boolean",
    description: "Forget the cherry-pick in progress but keep index and work tree as they are.",
  },
  {
    name: "skip",
    type: "boolean",
    description: "Drop the commit being picked (pterm applies one at a time, so this is --abort).",
  },
  {
    name: "allow-empty",
    type: "boolean",
    description:
      "Pick a commit that is empty itself as an empty commit (as git; a change already in HEAD still stops).",
  },
  {
    name: "keep-redundant-commits",
    type: "boolean",
    description: "Record a pick whose change is already in HEAD as an empty commit instead of stopping.",
  },
  compat("no-edit", "Accepted: pterm never opens an editor; the picked commit's message is kept."),
  authorFlag,
] as const satisfies readonly FlagSpec[];

export const cherryPickSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "cherry-pick",
  "Apply the change another commit made, as a new commit on HEAD.",
  cherryPickFlags,
  [
    { command: "git cherry-pick feature", description: "Copy the last commit of feature onto the current branch." },
    { command: "git cherry-pick -n 1a2b3c4", description: "Stage the change without committing." },
  ],
  {
    positionals: [{
      name: "commit",
      description: "The commit whose change to apply (none with --continue, --abort, --quit, --skip).",
    }],
    handler: handler("cherry-pick", "cherryPick"),
  },
);
