/**
 * What several git subcommands' declarations share: flags, the leaf builder, handler references.
 */

import type { FlagSpec, HandlerRef, LeafSpec } from "../../../core/declaration.ts";
import { lazyImport } from "../../../core/lazy.ts";
import { OPENS_NO_REPOSITORY } from "../repo/command_line_config.ts";

export const repoFlag = (access: "read" | "write") =>
  ({
    name: "repo",
    type: "string",
    valueName: "path",
    path: access,
    description: "The repository's top folder (the one holding .git), relative to the workspace root. " +
      "Default: the root if it is a repository, else git.default_repo in pterm.json, else the only repository " +
      "directly under the root or one level down.",
  }) as const satisfies FlagSpec;

/**
 * git's `-c key=value` before the subcommand becomes this flag (spellings.ts): the setting for this
 * call, read over the repository's config. Every subcommand that opens a repository declares it.
 */
export const configFlag = {
  name: "config",
  type: "string",
  repeatable: true,
  compat: true,
  valueName: "key=value",
  description: "What git's `-c key=value` becomes: the setting for this call, over the repository's own " +
    "(`-c core.quotePath=false`: names outside ASCII printed as they are). Only the settings that change what " +
    "pterm prints or how it reads the work tree are taken; any other is refused by name.",
} as const satisfies FlagSpec;

export const pathFlag = (what: string) =>
  ({
    name: "path",
    type: "string",
    repeatable: true,
    valueName: "path",
    description: `${what} (relative to the repository; a folder means everything in it).`,
  }) as const satisfies FlagSpec;

/** `git <sub> a b` and `git <sub> -- a b`: the words are paths, as if each had been given with --path. */
export const pathspec = (what: string) =>
  ({
    name: "pathspec",
    variadic: true,
    into: "path",
    description: `${what} (same as --path; after \`--\` every word is a path).`,
  }) as const;

/** Accepted for git's sake: pterm's output and result are structured already. */
export const compat = (name: string, description: string, extra: Partial<FlagSpec> = {}): FlagSpec => ({
  name,
  type: "boolean",
  compat: true,
  description,
  ...extra,
});

export const quiet = compat("quiet", "Accepted; the result is the same (stdout is short already).", { short: "q" });

export const authorFlag = {
  name: "author",
  type: "string",
  valueName: "Name <email>",
  description:
    'Author and committer, e.g. "Ada <ada@example.com>" (default: the repository\'s user.name/user.email, else git.author in pterm.json, else pterm <pterm@localhost>).',
} as const satisfies FlagSpec;

/** Real git's flags these subcommands do not take, with what to do instead (see `refusedFlags`). */
export const INTERACTIVE =
  "interactive hunk selection needs a dialogue pterm does not have: work on whole files (edit a file to the state " +
  "you want, then `git add <path>`).";

export const refusedInteractive = { "--patch": INTERACTIVE, "-p": INTERACTIVE, "--interactive": INTERACTIVE };

export const FS = ["fs.read", "fs.write"] as const;

export const loadSchemas = () => lazyImport<typeof import("../schema.ts")>(new URL("../schema.ts", import.meta.url));

export const schema = (name: string) => async () =>
  ((await loadSchemas()).resultSchemas as Record<string, unknown>)[name];

/**
 * Which module under handlers/ serves each subcommand, and under which export: a `git status`
 * loads basic.ts only, not the diff or merge code.
 */
export const HANDLER_EXPORTS = {
  basic: ["init", "status", "add", "commit", "revParse", "lsFiles", "config"],
  history: [
    "diff",
    "show",
    "log",
    "grep",
    "blame",
    "stashShow",
    "reflog",
    "revList",
    "lsTree",
    "diffTree",
    "catFile",
    "forEachRef",
    "mergeBase",
    "showRef",
    "symbolicRef",
    "nameRev",
    "hashObject",
    "gitVar",
    "shortlog",
    "describe",
  ],
  change: [
    "branch",
    "checkout",
    "switchHandler",
    "restore",
    "cherryPick",
    "clean",
    "reset",
    "rm",
    "mv",
    "tag",
    "revert",
    "merge",
    "stashPushHandler",
    "stashPop",
    "stashApplyHandler",
    "stashList",
    "stashDropHandler",
    "stashClearHandler",
    "gitApply",
    "rebase",
  ],
  remote: ["lsRemote", "clone", "fetch", "push", "pull", "remotes"],
} as const;

export const FILE_OF_EXPORT = new Map<string, string>(
  Object.entries(HANDLER_EXPORTS).flatMap(([file, names]) => names.map((name) => [name, file] as const)),
);

/** The handler of a subcommand: its export is the subcommand's name unless given (the stash ones). */
export const handler = (name: string, exported = name): HandlerRef => {
  const file = FILE_OF_EXPORT.get(exported);
  if (!file) throw new Error(`git has no handler ${exported}`);
  return { module: new URL(`../entries/${file}.ts`, import.meta.url).href, export: exported };
};

/** The line diff (git's diff.c options; `diff.algorithm` in the repository's config sets the default). */
export const algorithmFlags = [
  {
    name: "histogram",
    type: "boolean",
    description: "Use git's histogram diff (the same as --diff-algorithm=histogram).",
  },
  {
    name: "minimal",
    type: "boolean",
    description: "Myers' search without xdiff's cost bounds: git's smallest diff (slower on large rewrites).",
  },
  {
    name: "diff-algorithm",
    type: "string",
    valueName: "name",
    description: "myers (or default), minimal or histogram, as git; default: diff.algorithm in the repository's " +
      "config, else myers. patience is refused.",
  },
] as const satisfies readonly FlagSpec[];

export const PATIENCE_REFUSED =
  "pterm has no patience diff: use --histogram (git's histogram diff, patience's successor) or the default Myers.";

/** Refused diff options (`refusedFlags` of diff, show and log). */
export const refusedDiffFlags = {
  "--patience": PATIENCE_REFUSED,
  "--anchored": "pterm has no patience diff, which --anchored needs: use --histogram or the default Myers.",
};

export const prettyFlags = [
  {
    name: "format",
    aliases: ["pretty"],
    type: "string",
    valueName: "fmt",
    description: "git's pretty format: oneline, short, medium, full, fuller, reference, or a template " +
      "(`--format=%H`, `format:%h %s` without a newline after the last, `tformat:` with one): %H %h %T %t %P %p " +
      "%s %b %B %f %d %D %n %% %xNN, %a*/%c* (n e l d D r t i I s); colours and notes print nothing.",
  },
  {
    name: "oneline",
    type: "boolean",
    description: "git's `--pretty=oneline --abbrev-commit`: `<short id> <subject>` per commit.",
  },
  { name: "abbrev-commit", type: "boolean", description: "Abbreviate the commit id of the `commit` line." },
  {
    name: "decorate",
    type: "boolean",
    description: "Name the branches and tags at each commit (`(HEAD -> main, tag: v1)`), in the formats above.",
  },
  {
    name: "date",
    type: "string",
    valueName: "mode",
    description: "Dates in the formats above: default, iso, iso-strict, short, relative, unix, raw, rfc.",
  },
] as const satisfies readonly FlagSpec[];

/** `-n`/`--max-count`/`-<N>`: how many entries a listing shows (git's spellings; without it, all of them, as git). */
export const maxCountFlag = (what: string) =>
  ({
    name: "max",
    short: "n",
    aliases: ["max-count"],
    digits: true,
    type: "number",
    min: 1,
    description: `Most ${what} to list (also -n 5, -n5, -5, --max-count 5); all of them without it, as git.`,
  }) as const satisfies FlagSpec;

/** `--track` / `--no-track` of a new branch (branch, checkout -b, switch -c), as git's. */
export const trackFlags = [
  {
    name: "track",
    short: "t",
    type: "boolean",
    description: "Set the new branch's upstream to <start> (a remote-tracking or local branch), whatever " +
      "branch.autoSetupMerge says; for checkout and switch, alone with a remote-tracking branch, names the new " +
      "branch after it.",
  },
  {
    name: "no-track",
    type: "boolean",
    description: "Give the new branch no upstream, even when it starts from a remote-tracking branch.",
  },
] as const satisfies readonly FlagSpec[];

export const renameFlags = [
  {
    name: "find-renames",
    short: "M",
    type: "number",
    default: 50,
    min: 1,
    max: 100,
    valueName: "percent",
    description: "How similar (in %) a deleted and an added file must be to show as a rename (git's -M; default 50).",
  },
  { name: "no-renames", type: "boolean", description: "Show a renamed file as a deletion and an addition." },
] as const satisfies readonly FlagSpec[];

export const urlFlag = {
  name: "url",
  type: "string",
  required: true,
  valueName: "url",
  description: "The remote repository's https URL (allowed in git.remotes of pterm.json; no user or token in it).",
} as const satisfies FlagSpec;

export const confirmFlag = {
  name: "confirm",
  type: "boolean",
  description: "Required: this call reaches the network (without it the call says what it would do).",
} as const satisfies FlagSpec;

export const remoteNameFlag = {
  name: "remote",
  type: "string",
  default: "origin",
  valueName: "name",
  description: "Which configured remote (see `git remote`).",
} as const satisfies FlagSpec;

export const noPruneFlag = {
  name: "no-prune",
  type: "boolean",
  description: "Keep remote-tracking branches whose branch is gone, even when fetch.prune or remote.<name>.prune " +
    "in .git/config says to prune (as git's --no-prune).",
} as const satisfies FlagSpec;

export const NET = ["fs.read", "fs.write", "net"] as const;

export function leaf(
  name: string,
  summary: string,
  flags: readonly FlagSpec[],
  examples: LeafSpec["examples"],
  extra: Partial<LeafSpec> = {},
): LeafSpec {
  return {
    name,
    summary,
    flags: OPENS_NO_REPOSITORY.has(name) ? flags : [...flags, configFlag],
    capabilities: FS,
    examples,
    result: schema(name),
    handler: extra.handler ?? handler(name),
    ...extra,
  };
}
