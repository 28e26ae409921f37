/**
 * `git log`: its flags and declaration (the handler: handlers/log.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { algorithmFlags, leaf, prettyFlags, refusedDiffFlags, repoFlag } from "./common.ts";

export const logFlags = [
  repoFlag("read"),
  {
    name: "max",
    short: "n",
    aliases: ["max-count"],
    digits: true,
    type: "number",
    min: 0,
    description: "Most commits to list (also -n 5, -n5, -5, --max-count 5); without it, the whole history, as git.",
  },
  {
    name: "ref",
    type: "string",
    valueName: "rev",
    description: "Start from this branch, tag or commit (default HEAD); `a..b` lists what b has and a has not.",
  },
  {
    name: "path",
    type: "string",
    repeatable: true,
    valueName: "path",
    description: "Only commits that changed this file or folder.",
  },
  { name: "stat", type: "boolean", description: "Add each commit's diffstat." },
  { name: "patch", short: "p", type: "boolean", description: "Add each commit's patch (as git log -p)." },
  { name: "name-only", type: "boolean", description: "Add the names of each commit's changed files." },
  {
    name: "name-status",
    type: "boolean",
    description: "Add each commit's changed files with their status (`M path`, `A path`, `R100 old new`).",
  },
  ...algorithmFlags,
  {
    name: "all",
    type: "boolean",
    description: "Start from every branch, tag and remote-tracking branch, not only HEAD.",
  },
  {
    name: "since",
    aliases: ["after"],
    type: "string",
    valueName: "date",
    description: "Only commits made at or after this date (2026-01-31, `2 weeks ago`, yesterday, @<unix seconds>).",
  },
  {
    name: "until",
    aliases: ["before"],
    type: "string",
    valueName: "date",
    description: "Only commits made at or before this date (same forms as --since).",
  },
  {
    name: "author",
    type: "string",
    valueName: "pattern",
    description: "Only commits whose author (`Name <email>`) matches this regular expression (as git: basic syntax).",
  },
  {
    name: "grep",
    type: "string",
    valueName: "pattern",
    description: "Only commits whose message matches this regular expression (basic syntax, as git).",
  },
  {
    name: "regexp-ignore-case",
    short: "i",
    type: "boolean",
    description: "--author, --grep, -S and -G ignore case.",
  },
  {
    name: "pickaxe-string",
    short: "S",
    type: "string",
    valueName: "text",
    description: "git's -S: only commits that change how many times <text> occurs in a file (added or removed).",
  },
  {
    name: "pickaxe-grep",
    short: "G",
    type: "string",
    valueName: "regex",
    description: "git's -G: only commits with an added or removed line matching <regex> (POSIX extended).",
  },
  { name: "pickaxe-regex", type: "boolean", description: "-S takes a POSIX extended regular expression." },
  ...prettyFlags,
  {
    name: "graph",
    type: "boolean",
    description: "Draw the history's lanes beside the commits, as git's graph (implies git's topological order).",
  },
  {
    name: "line-range",
    short: "L",
    type: "string",
    repeatable: true,
    valueName: "a,b:file",
    description: "Trace these lines back through history (git log -L): each commit that changed them, with the diff " +
      "of just those lines. `10,20:f`, `10,+5:f`, `10,:f`, `/regex/,+5:f`, `:funcname:f`; the file is followed " +
      "across renames.",
  },
] as const satisfies readonly FlagSpec[];

export const logSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "log",
  "List commits, newest first.",
  logFlags,
  [
    { command: "git log --repo projects/demo --max 5", description: "The last five commits of HEAD." },
    {
      command: "git log --repo projects/demo --ref feature --path src/app.ts",
      description: "Commits of feature touching one file.",
    },
    { command: "git log --oneline -5 main -- src/app.ts", description: "The same kind of query, as git spells it." },
    { command: "git log main..feature --stat", description: "What feature has that main has not, with diffstats." },
    {
      command: "git log -L 10,20:src/app.py",
      description: "The commits that changed lines 10 to 20, with their diffs.",
    },
  ],
  {
    refusedFlags: {
      ...refusedDiffFlags,
      "--follow": "not available: pterm's log does not follow a file across renames; `git log -- <old path>` lists " +
        "its history before the move.",
    },
    positionals: [{
      name: "args",
      variadic: true,
      description: "A revision (or `a..b`) and then paths; a word that is no revision but an existing path is a path.",
    }],
    afterDoubleDash: "path",
  },
);
