/**
 * `git describe`: its flags and declaration (the handler: handlers/describe.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { leaf, repoFlag } from "./common.ts";

export const describeFlags = [
  repoFlag("read"),
  { name: "tags", type: "boolean", description: "Lightweight tags count too (default: annotated tags only)." },
  {
    name: "always",
    type: "boolean",
    description: "With no tag to describe it by, print the abbreviated commit id instead of failing.",
  },
  {
    name: "abbrev",
    type: "number",
    min: 0,
    max: 40,
    valueName: "n",
    description: "Hex digits of the `-g<id>` part (at least; more when needed to be unique); 0 prints the tag alone.",
  },
  { name: "long", type: "boolean", description: "Always `<tag>-<n>-g<id>`, even on the tagged commit itself." },
  {
    name: "dirty",
    type: "boolean",
    description: "Describe the work tree: append `-dirty` when it has uncommitted changes (tracked files).",
  },
] as const satisfies readonly FlagSpec[];

export const describeSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "describe",
  "Name a commit after the nearest tag before it (git describe): `v1.2-3-gabc1234`.",
  describeFlags,
  [
    { command: "git describe --tags", description: "HEAD after the nearest tag, lightweight ones too." },
    { command: "git describe --always --dirty", description: "A version string for the work tree." },
    { command: "git describe --abbrev=0 --tags", description: "The nearest tag's name alone." },
  ],
  {
    positionals: [{ name: "rev", description: "The commit to describe (default HEAD)." }],
  },
);
