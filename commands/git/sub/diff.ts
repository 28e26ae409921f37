/**
 * `git diff`: its flags and declaration (the handler: handlers/diff.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { algorithmFlags, compat, leaf, pathFlag, refusedDiffFlags, renameFlags, repoFlag } from "./common.ts";

export const diffFlags = [
  repoFlag("read"),
  {
    name: "word-diff",
    type: "boolean",
    description: "git's plain word diff: changed words marked `[-old-]{+new+}` inside the new text.",
  },
  {
    name: "staged",
    aliases: ["cached"],
    type: "boolean",
    description: "Compare the index (staged changes) instead of the work tree.",
  },
  pathFlag("Only this path"),
  { name: "stat", type: "boolean", description: "Print a diffstat instead of the patch." },
  {
    name: "numstat",
    type: "boolean",
    description: "Print the added and deleted line counts and the path of each changed file, tab-separated " +
      "(`-` for a binary file), as git.",
  },
  { name: "shortstat", type: "boolean", description: "Print only the diffstat's summary line, as git." },
  { name: "name-only", type: "boolean", description: "Print only the names of changed files." },
  { name: "name-status", type: "boolean", description: "Print `M path`, `A path`, `D path` per changed file." },
  compat("patch", "Accepted: the patch is the default output.", { short: "p" }),
  compat(
    "cc",
    "Accepted: during a merge, cherry-pick or revert each conflicted path already shows git's dense combined diff " +
      "(`diff --cc`, the work tree against both sides).",
  ),
  {
    name: "combined",
    short: "c",
    type: "boolean",
    description: "Show conflicted paths in git's full combined form (`diff --combined`), not the dense `--cc` one.",
  },
  {
    name: "context",
    short: "U",
    aliases: ["unified"],
    type: "number",
    default: 3,
    min: 0,
    max: 1000,
    description: "Lines of context around each change.",
  },
  ...algorithmFlags,
  ...renameFlags,
] as const satisfies readonly FlagSpec[];

export const diffSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "diff",
  "Show changes as a unified diff (work tree, index, or between commits).",
  diffFlags,
  [
    { command: "git diff HEAD~1 -- src/app.ts", description: "One file against the previous commit." },
    { command: "git diff main...feature --stat", description: "What feature changed since it left main." },
    { command: "git diff --repo projects/demo", description: "Unstaged changes (work tree vs index)." },
    { command: "git diff --repo projects/demo --staged", description: "Staged changes (index vs HEAD)." },
    { command: "git diff --repo projects/demo main feature --stat", description: "Diffstat between two branches." },
    {
      command: "git diff --repo projects/demo HEAD~1 --path src",
      description: "Work tree vs the previous commit, src only.",
    },
  ],
  {
    refusedFlags: {
      ...refusedDiffFlags,
      "--color-words": "pterm prints no colour: `git diff --word-diff` marks the changed words `[-old-]{+new+}`.",
    },
    positionals: [{
      name: "args",
      variadic: true,
      description: "Up to two commits (from, to; one alone compares with the work tree or, with --staged, the " +
        "index; `a..b` and `a...b` as in git), then paths; a word that is no revision but an existing path is a path.",
    }],
    afterDoubleDash: "path",
  },
);
