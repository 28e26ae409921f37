/**
 * `git rebase`: its flags and declaration (the handler: handlers/rebase.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { authorFlag, leaf, quiet, repoFlag } from "./common.ts";

export const rebaseFlags = [
  repoFlag("write"),
  {
    name: "onto",
    type: "string",
    valueName: "newbase",
    description: "Put the commits on <newbase> instead of on the upstream (`--onto main A B`: B's commits after A).",
  },
  {
    name: "continue",
    type: "boolean",
    description: "After resolving the conflicts (edit, git add): commit the stopped pick and go on with the rest.",
  },
  {
    name: "skip",
    type: "boolean",
    description: "Drop the commit the rebase stopped at (index and work tree back to HEAD) and go on with the rest.",
  },
  {
    name: "abort",
    type: "boolean",
    description: "Give the rebase up: HEAD, branch, index and work tree back to where it started.",
  },
  {
    name: "quit",
    type: "boolean",
    description: "Forget the rebase in progress: HEAD, index and work tree stay as they are (detached).",
  },
  authorFlag,
  quiet,
] as const satisfies readonly FlagSpec[];

const interactiveRefusal =
  "an interactive rebase edits its todo list in an editor, which pterm does not have: rebase with " +
  "`git rebase <upstream>`, then reshape single commits with `git commit --amend`, `git cherry-pick` or " +
  "`git reset --soft`.";

export const rebaseSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "rebase",
  "Replay the current branch's own commits on top of another branch (git's non-interactive rebase).",
  rebaseFlags,
  [
    { command: "git rebase main", description: "Put the current branch's commits on top of main." },
    { command: "git rebase --continue", description: "After a conflict: `git add` the resolved files, then go on." },
    { command: "git rebase --abort", description: "Give the rebase up; everything back as it was." },
    {
      command: "git rebase --onto main feature~2 feature",
      description: "Move feature's last two commits onto main.",
    },
  ],
  {
    positionals: [
      { name: "upstream", description: "The branch to rebase onto (default: the branch's upstream)." },
      { name: "branch", description: "The branch to rebase (checked out first; default the current one)." },
    ],
    refusedFlags: {
      "--interactive": interactiveRefusal,
      "-i": interactiveRefusal,
      "--edit-todo": interactiveRefusal,
      "--exec": "pterm runs no programs; rebase, then run the checks yourself.",
      "-x": "pterm runs no programs; rebase, then run the checks yourself.",
      "--rebase-merges": "not available: pterm's rebase drops merge commits, as git's does without this flag.",
      "-r": "not available: pterm's rebase drops merge commits, as git's does without this flag.",
    },
  },
);
