/**
 * `git for-each-ref`: its flags and declaration (the handler: handlers/for_each_ref.ts).
 */

import type { CommandSpec, FlagSpec } from "../../../core/declaration.ts";
import { handler, leaf, repoFlag } from "./common.ts";

export const forEachRefFlags = [
  repoFlag("read"),
  {
    name: "format",
    type: "string",
    valueName: "fmt",
    description: "git's atoms: %(refname), %(refname:short), %(refname:lstrip=N), %(objectname), " +
      "%(objectname:short), %(objecttype), %(objectsize), %(subject), %(body), %(contents), %(authorname), " +
      "%(authoremail), %(authordate[:mode]), %(committer…), %(tagger…), %(creatordate), %(HEAD), %(*objectname), " +
      "%xx, %%. Default: `%(objectname) %(objecttype)\\t%(refname)`.",
  },
  {
    name: "sort",
    type: "string",
    repeatable: true,
    valueName: "key",
    description: "Sort by an atom (`-` first for descending; `version:refname`); the last --sort is the first key.",
  },
  { name: "count", type: "number", min: 1, max: 1_000_000, description: "At most this many refs." },
] as const satisfies readonly FlagSpec[];

export const forEachRefSpec: NonNullable<CommandSpec["subcommands"]>[number] = leaf(
  "for-each-ref",
  "The refs (branches, tags, remote-tracking branches) in git for-each-ref's format.",
  forEachRefFlags,
  [
    {
      command: "git for-each-ref --format='%(refname:short)' refs/heads",
      description: "The branch names, one a line.",
    },
    {
      command: "git for-each-ref --sort=-committerdate --format='%(refname:short) %(subject)' refs/heads/",
      description: "Branches, most recently committed first.",
    },
  ],
  {
    positionals: [{
      name: "patterns",
      variadic: true,
      description: "Ref prefixes or globs: refs/heads, refs/tags/v*.",
    }],
    handler: handler("for-each-ref", "forEachRef"),
  },
);
