/**
 * `git config`: its flags and declaration (the handler: handlers/config.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, repoFlag } from "./common.ts";

export const configFlags = [
  repoFlag("write"),
  { name: "get", type: "boolean", description: "Print the value of <key> (the last one set), as git config --get." },
  { name: "get-all", type: "boolean", description: "Print every value of <key>, one a line." },
  {
    name: "get-regexp",
    type: "boolean",
    description: "Print `<key> <value>` for every key matching the regular expression <key>.",
  },
  { name: "list", short: "l", type: "boolean", description: "Print every `<key>=<value>` of the repository's config." },
  { name: "unset", type: "boolean", description: "Remove <key> (only keys pterm may write; see --help)." },
  { name: "local", type: "boolean", description: "The repository's .git/config (what pterm reads and writes)." },
  { name: "worktree", type: "boolean", description: "Read: the repository's config as this work tree sees it." },
  {
    name: "global",
    type: "boolean",
    description: "Refused: the person's ~/.gitconfig is outside the workspace; pterm reads the repository's config.",
  },
  { name: "system", type: "boolean", description: "Refused, as --global." },
] as const satisfies readonly FlagSpec[];

export const configSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "config",
  "Read the repository's git config; write the keys that cannot make git run a program (user.name, user.email, …).",
  configFlags,
  [
    { command: "git config user.name", description: "The name commits here are made with." },
    { command: 'git config user.email "ada@example.com"', description: "Set this repository's email." },
    { command: "git config --list", description: "Every key of the repository's config (secrets redacted)." },
    { command: "git config --get-regexp '^branch\\.'", description: "The branch settings." },
  ],
  {
    positionals: [{
      name: "args",
      variadic: true,
      description: "<key> to read, or <key> <value> to write (also git's `get <key>`, `set <key> <value>`, `list`).",
    }],
  },
);
