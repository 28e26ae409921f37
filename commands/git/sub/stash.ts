/**
 * `git stash`: its flags and declaration (the handler: handlers/stash.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import {
  authorFlag,
  handler,
  leaf,
  pathFlag,
  pathspec,
  quiet,
  refusedInteractive,
  repoFlag,
  schema,
} from "./common.ts";

export const stashPushFlags = [
  repoFlag("write"),
  { name: "message", short: "m", type: "string", valueName: "text", description: "A description for the stash entry." },
  {
    name: "include-untracked",
    short: "u",
    type: "boolean",
    description: "Also stash untracked files (not ignored ones) and remove them from the work tree.",
  },
  authorFlag,
  quiet,
  pathFlag("Stash only these paths' changes; the others stay"),
] as const satisfies readonly FlagSpec[];

export const stashRefFlags = [repoFlag("write")] as const satisfies readonly FlagSpec[];

export const stashShowFlags = [
  repoFlag("read"),
  { name: "patch", short: "p", type: "boolean", description: "The patch instead of the diffstat." },
  { name: "stat", type: "boolean", description: "The diffstat (the default)." },
  { name: "name-only", type: "boolean", description: "Print only the names of changed files." },
  { name: "name-status", type: "boolean", description: "Print `M path`, `A path`, `D path` per changed file." },
  {
    name: "include-untracked",
    short: "u",
    type: "boolean",
    description: "Also the untracked files the entry saved (git stash push -u), as added files.",
  },
] as const satisfies readonly FlagSpec[];

export const stashPositional = [{
  name: "stash",
  description: "Which entry: stash@{N} or N (default 0, the newest).",
}] as const;

export const stash: CommandSpec["subcommands"] = [
  leaf("push", "Save local changes to tracked files on the stash and reset them to HEAD.", stashPushFlags, [
    { command: 'git stash push --repo proj --message "half-done refactor"', description: "Stash work in progress." },
    { command: 'git stash push -m "parser only" -- src/parser.py', description: "Stash one file's changes." },
  ], {
    positionals: [pathspec("Only these paths")],
    refusedFlags: refusedInteractive,
    result: schema("stash push"),
    handler: handler("stash push", "stashPushHandler"),
  }),
  leaf("pop", "Apply a stash entry and drop it (kept when the apply conflicts).", stashRefFlags, [
    { command: "git stash pop --repo proj", description: "Re-apply the newest stash entry and remove it." },
  ], { positionals: stashPositional, result: schema("stash pop"), handler: handler("stash pop", "stashPop") }),
  leaf("apply", "Apply a stash entry, keeping it on the stash.", stashRefFlags, [
    { command: "git stash apply --repo proj stash@{1}", description: "Apply the second-newest entry." },
  ], {
    positionals: stashPositional,
    result: schema("stash apply"),
    handler: handler("stash apply", "stashApplyHandler"),
  }),
  leaf("show", "Show what a stash entry changed: its diffstat, or its patch with -p.", stashShowFlags, [
    { command: "git stash show --repo proj", description: "The newest entry's diffstat." },
    { command: "git stash show -p stash@{1}", description: "The second-newest entry's patch." },
  ], { positionals: stashPositional, result: schema("stash show"), handler: handler("stash show", "stashShow") }),
  leaf("list", "List stash entries, newest first.", stashRefFlags, [
    { command: "git stash list --repo proj", description: "Show the stash." },
  ], { result: schema("stash list"), handler: handler("stash list", "stashList") }),
  leaf("drop", "Delete one stash entry.", stashRefFlags, [
    { command: "git stash drop --repo proj stash@{0}", description: "Drop the newest entry." },
  ], {
    positionals: stashPositional,
    result: schema("stash drop"),
    handler: handler("stash drop", "stashDropHandler"),
  }),
  leaf("clear", "Delete every stash entry.", stashRefFlags, [
    { command: "git stash clear --repo proj", description: "Empty the stash." },
  ], { result: schema("stash clear"), handler: handler("stash clear", "stashClearHandler") }),
];

export const stashSpec: NonNullable<CommandSpec["subcommands"]>[number] = {
  name: "stash",
  summary: "Set local changes aside and bring them back (push, pop, apply, list, drop, clear).",
  description: "`git stash` alone (or followed by flags, as `git stash -m text`) means `git stash push`.",
  defaultSubcommand: "push",
  examples: [
    { command: "git stash push --repo projects/demo", description: "Stash local changes." },
    { command: "git stash pop --repo projects/demo", description: "Bring them back." },
  ],
  subcommands: stash,
};
