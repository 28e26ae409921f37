/**
 * `git status`: its flags and declaration (the handler: handlers/status.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, pathFlag, pathspec, repoFlag } from "./common.ts";

export const statusFlags = [
  repoFlag("read"),
  pathFlag("Only report these paths"),
  {
    name: "short",
    short: "s",
    type: "boolean",
    description: "Print one `XY path` line per file, as `git status --short` (the result is the same).",
  },
  {
    name: "porcelain",
    type: "boolean",
    description:
      "Same as --short, but a submodule changed only inside shows M, as git's porcelain v1; the structured result is the stable format to parse.",
  },
  {
    name: "branch",
    short: "b",
    type: "boolean",
    description: "With --short/--porcelain: first a `## main...origin/main [ahead 1, behind 2]` line, as git's.",
  },
  {
    name: "untracked-files",
    short: "u",
    type: "string",
    choices: ["all", "normal", "no"],
    compat: true,
    valueName: "mode",
    description:
      "no: leave untracked files out; normal (the default, or status.showUntrackedFiles): the text shows a " +
      "folder holding no tracked file as `dir/`, as git; all: each file. result.files lists each untracked file.",
  },
] as const satisfies readonly FlagSpec[];

export const statusSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "status",
  "Branch, staged and unstaged changes, untracked files (with JGit's counts).",
  statusFlags,
  [
    { command: "git status --repo projects/demo", description: "Summary and per-file status." },
    { command: "git status -s", description: "One line per file; the repository found as --repo says." },
  ],
  {
    refusedFlags: {
      "--ignored": "not available: `git status` leaves ignored files out; .gitignore says which they are.",
    },
    positionals: [pathspec("Only report these paths")],
    afterDoubleDash: "path",
  },
);
