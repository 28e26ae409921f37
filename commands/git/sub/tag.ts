/**
 * `git tag`: its flags and declaration (the handler: handlers/tag.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { authorFlag, leaf, repoFlag } from "./common.ts";

export const tagFlags = [
  repoFlag("write"),
  {
    name: "message",
    short: "m",
    type: "string",
    valueName: "text",
    description: "Make an annotated tag with this message.",
  },
  {
    name: "annotate",
    short: "a",
    type: "boolean",
    description: "Make an annotated tag (needs --message; pterm opens no editor).",
  },
  { name: "delete", short: "d", type: "boolean", description: "Delete the tag <name>." },
  { name: "force", short: "f", type: "boolean", description: "Replace an existing tag of that name." },
  authorFlag,
  {
    name: "list",
    short: "l",
    type: "boolean",
    description: "List tags; with <name>, only those matching it (`*` as a wildcard, quoted).",
  },
  {
    name: "lines",
    short: "n",
    type: "number",
    min: 0,
    bareValue: "1",
    valueName: "n",
    description:
      "List tags with the first <n> lines of each annotation (a lightweight tag: its commit's message); `-n` alone is `-n1`, the number attached: `-n3`.",
  },
] as const satisfies readonly FlagSpec[];

export const tagSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "tag",
  "List, create (lightweight or annotated) or delete tags.",
  tagFlags,
  [
    { command: "git tag --repo projects/demo", description: "List tags." },
    { command: "git tag --repo projects/demo v1.0", description: "Tag HEAD (lightweight)." },
    {
      command: 'git tag --repo projects/demo v1.1 main --message "Release 1.1"',
      description: "Annotated tag on main.",
    },
    { command: "git tag --repo projects/demo --delete v1.0", description: "Delete a tag." },
    { command: 'git tag -a v1.2 -m "Release 1.2"', description: "An annotated tag, as real git spells it." },
  ],
  {
    positionals: [
      { name: "name", description: "The tag to create or delete." },
      { name: "target", description: "What the new tag points to (default HEAD)." },
    ],
  },
);
