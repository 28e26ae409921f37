/**
 * `git merge`: its flags and declaration (the handler: handlers/merge.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { authorFlag, compat, leaf, repoFlag } from "./common.ts";

export const mergeFlags = [
  repoFlag("write"),
  { name: "branch", type: "string", valueName: "rev", description: "The branch (or commit) to merge into HEAD." },
  { name: "no-ff", type: "boolean", description: "Always make a merge commit, even when a fast-forward is possible." },
  {
    name: "squash",
    type: "boolean",
    description: "Stage the other branch's changes as one change, without a commit or a merge (HEAD stays); " +
      "`git commit` then records them with git's prepared message.",
  },
  {
    name: "ff-only",
    type: "boolean",
    description: "Only fast-forward; refuse (nothing changed) when a merge commit would be needed.",
  },
  compat("no-edit", "Accepted: pterm never opens an editor; the message is git's `Merge branch '…'`."),
  authorFlag,
  { name: "message", short: "m", type: "string", valueName: "text", description: "Message of the merge commit." },
  {
    name: "abort",
    type: "boolean",
    description: "Abandon a merge that stopped on conflicts (restores HEAD's version).",
  },
  {
    name: "continue",
    type: "boolean",
    description: "After resolving the conflicts (edit, git add): make the merge commit with the prepared message.",
  },
  {
    name: "quit",
    type: "boolean",
    description: "Forget the merge in progress but keep index and work tree as they are.",
  },
] as const satisfies readonly FlagSpec[];

export const mergeSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "merge",
  "Merge a branch into HEAD (fast-forward when possible); conflicts are reported.",
  mergeFlags,
  [
    {
      command: "git merge --repo projects/demo --branch feature",
      description: "Merge feature into the current branch.",
    },
    {
      command: 'git merge --repo projects/demo --branch feature --no-ff -m "Merge feature"',
      description: "Always make a merge commit.",
    },
    { command: "git merge --repo projects/demo --abort", description: "Give up a conflicted merge." },
    { command: "git merge feature --no-edit", description: "Merge feature, as real git spells it." },
  ],
  { positionals: [{ name: "commit", into: "branch", description: "Same as --branch." }] },
);
