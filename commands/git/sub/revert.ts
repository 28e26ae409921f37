/**
 * `git revert`: its flags and declaration (the handler: handlers/revert.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { authorFlag, compat, leaf, repoFlag } from "./common.ts";

export const revertFlags = [
  repoFlag("write"),
  { name: "ref", type: "string", valueName: "rev", description: "The commit to revert (or as the first word)." },
  compat("no-edit", 'Accepted: pterm never opens an editor; the message is git\'s `Revert "…"`.'),
  authorFlag,
  {
    name: "no-commit",
    short: "n",
    type: "boolean",
    description: "Apply the reverse change to index and work tree without committing.",
  },
  {
    name: "continue",
    type: "boolean",
    description: "After resolving the conflicts (edit, git add): commit with the revert's prepared message.",
  },
  {
    name: "abort",
    type: "boolean",
    description: "Give up the revert that stopped: index and work tree back to HEAD for the files it touched.",
  },
  {
    name: "quit",
    type: "boolean",
    description: "Forget the revert in progress but keep index and work tree as they are.",
  },
  {
    name: "skip",
    type: "boolean",
    description: "Drop the revert in progress (pterm applies one at a time, so this is --abort).",
  },
] as const satisfies readonly FlagSpec[];

export const revertSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "revert",
  "Make a commit that undoes another commit.",
  revertFlags,
  [
    { command: "git revert --repo projects/demo --ref HEAD", description: "Undo the last commit with a new commit." },
    {
      command: "git revert --repo projects/demo --ref 1a2b3c4 --no-commit",
      description: "Stage the undo, do not commit.",
    },
    { command: "git revert HEAD --no-edit", description: "Undo the last commit, as real git spells it." },
  ],
  { positionals: [{ name: "commit", into: "ref", description: "Same as --ref." }] },
);
