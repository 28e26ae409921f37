/**
 * `git commit`: its flags and declaration (the handler: handlers/commit.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { authorFlag, compat, leaf, pathFlag, pathspec, quiet, refusedInteractive, repoFlag } from "./common.ts";

export const commitFlags = [
  repoFlag("write"),
  {
    name: "message",
    short: "m",
    type: "string",
    repeatable: true,
    valueName: "text",
    description: "The commit message; given several times, each is a paragraph (as git does).",
  },
  {
    name: "file",
    short: "F",
    type: "string",
    valueName: "-",
    description: "Read the message from the call's stdin: `-F -` (a file path is not read; use stdin).",
  },
  {
    name: "all",
    short: "a",
    type: "boolean",
    description:
      "First stage modifications and deletions of tracked files, as `git commit -a` (new files are not added).",
  },
  {
    name: "amend",
    type: "boolean",
    description:
      "Replace the last commit (same parents) with the staged tree; the message is kept unless -m/-F gives one.",
  },
  compat("no-edit", "Accepted: pterm never opens an editor (with --amend the old message is kept)."),
  {
    name: "signoff",
    short: "s",
    type: "boolean",
    description: "Add a `Signed-off-by:` trailer with the committer's name and email.",
  },
  authorFlag,
  { name: "allow-empty", type: "boolean", description: "Commit even when nothing is staged." },
  pathFlag("Commit only this path, as it is in the work tree (git commit <path>); what else is staged stays staged"),
  compat("no-verify", "Accepted: pterm runs no hooks.", { short: "n" }),
  quiet,
  compat("verbose", "Accepted; the result shows the commit.", { short: "v" }),
] as const satisfies readonly FlagSpec[];

export const commitSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "commit",
  "Record the staged changes as a commit on the current branch.",
  commitFlags,
  [
    { command: 'git commit --repo projects/demo --message "Add parser"', description: "Commit what is staged." },
    { command: 'git commit -am "Fix parser"', description: "Stage tracked changes and commit them." },
    { command: 'git commit -m "Subject" -m "Body paragraph."', description: "Subject and body, as git does." },
    { command: "git commit -F -", description: "The message from the call's stdin.", stdin: "Subject\n\nBody\n" },
    { command: "git commit --amend --no-edit", description: "Fold the staged changes into the last commit." },
    {
      command: 'git commit --repo projects/demo -m "Start" --author "Ada <ada@example.com>" --allow-empty',
      description: "An empty commit with an explicit author.",
    },
  ],
  {
    refusedFlags: {
      ...refusedInteractive,
      "--include": "not available; `git add <path>` first, then `git commit`.",
      "--reset-author": 'not available; give the author with --author "Name <email>".',
    },
    stdin: { mode: "whenFlag", flag: "file" },
    positionals: [pathspec("Commit only these paths")],
    afterDoubleDash: "path",
  },
);
