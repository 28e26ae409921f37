/**
 * `git init`: its flags and declaration (the handler: handlers/init.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, quiet } from "./common.ts";

export const initFlags = [
  {
    name: "dir",
    type: "string",
    valueName: "path",
    path: "write",
    description:
      "Folder to turn into a repository (created if missing), relative to the workspace root (default: the root).",
  },
  {
    name: "initial-branch",
    short: "b",
    type: "string",
    default: "main",
    valueName: "name",
    description: "Name of the first branch.",
  },
  quiet,
] as const satisfies readonly FlagSpec[];

export const initSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "init",
  "Create an empty repository (an existing one is reported, not touched).",
  initFlags,
  [
    { command: "git init --dir projects/demo", description: "Create projects/demo with a main branch." },
    { command: "git init --dir projects/demo --initial-branch trunk", description: "Name the first branch trunk." },
    { command: "git init projects/demo -b trunk", description: "The same, as real git spells it." },
  ],
  { positionals: [{ name: "directory", into: "dir", description: "Same as --dir." }] },
);
