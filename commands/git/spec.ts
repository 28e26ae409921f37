/**
 * `git`: the local git workflow (PRD-0013 v13 + v14), reading and writing the repository's
 * files (index, objects, packs, refs) directly. Declaration only: nothing here imports an npm
 * package.
 */

import type { CommandSpec, FlagSpec, HandlerRef, LeafSpec } from "../../core/declaration.ts";
import { lazyImport } from "../../core/lazy.ts";
import { grantedHosts } from "./remote/gate.ts";
import { gitSpellings } from "./spellings.ts";

const repoFlag = (access: "read" | "write") =>
  ({
    name: "repo",
    type: "string",
    valueName: "path",
    path: access,
    description: "The repository's top folder (the one holding .git), relative to the workspace root. " +
      "Default: the root if it is a repository, else git.default_repo in pterm.json, else the only repository " +
      "directly under the root or one level down.",
  }) as const satisfies FlagSpec;

const pathFlag = (what: string) =>
  ({
    name: "path",
    type: "string",
    repeatable: true,
    valueName: "path",
    description: `${what} (relative to the repository; a folder means everything in it).`,
  }) as const satisfies FlagSpec;

/** `git <sub> a b` and `git <sub> -- a b`: the words are paths, as if each had been given with --path. */
const pathspec = (what: string) =>
  ({
    name: "pathspec",
    variadic: true,
    into: "path",
    description: `${what} (same as --path; after \`--\` every word is a path).`,
  }) as const;

/** Accepted for git's sake: pterm's output and result are structured already. */
const compat = (name: string, description: string, extra: Partial<FlagSpec> = {}): FlagSpec => ({
  name,
  type: "boolean",
  compat: true,
  description,
  ...extra,
});
const quiet = compat("quiet", "Accepted; the result is the same (stdout is short already).", { short: "q" });

const authorFlag = {
  name: "author",
  type: "string",
  valueName: "Name <email>",
  description:
    'Author and committer, e.g. "Ada <ada@example.com>" (default: git.author in pterm.json, else pterm <pterm@localhost>).',
} as const satisfies FlagSpec;

/** Real git's flags these subcommands do not take, with what to do instead (see `refusedFlags`). */
const INTERACTIVE =
  "interactive hunk selection needs a dialogue pterm does not have: work on whole files (edit a file to the state " +
  "you want, then `git add <path>`).";
const FORCE = "pterm's only force is --force-with-lease: it overwrites the remote branch only if it is where your " +
  "last fetch saw it (with --confirm).";
const refusedInteractive = { "--patch": INTERACTIVE, "-p": INTERACTIVE, "--interactive": INTERACTIVE };

const FS = ["fs.read", "fs.write"] as const;
const loadSchemas = () => lazyImport<typeof import("./schema.ts")>(new URL("./schema.ts", import.meta.url));
const schema = (name: string) => async () => ((await loadSchemas()).resultSchemas as Record<string, unknown>)[name];

/**
 * Which module under handlers/ serves each subcommand, and under which export: a `git status`
 * loads basic.ts only, not the diff or merge code.
 */
const HANDLER_EXPORTS = {
  basic: ["init", "status", "add", "commit", "revParse", "lsFiles"],
  history: ["diff", "show", "log", "grep", "blame", "stashShow", "reflog"],
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
  ],
  remote: ["lsRemote", "clone", "fetch", "push", "pull", "remotes"],
} as const;
type HandlerModules = {
  basic: typeof import("./handlers/basic.ts");
  history: typeof import("./handlers/history.ts");
  change: typeof import("./handlers/change.ts");
  remote: typeof import("./handlers/remote.ts");
};
// Every listed name must be an export of its module; this line fails to type-check otherwise.
const _exportsExist: { [F in keyof HandlerModules]: readonly (keyof HandlerModules[F])[] } = HANDLER_EXPORTS;

const FILE_OF_EXPORT = new Map<string, string>(
  Object.entries(HANDLER_EXPORTS).flatMap(([file, names]) => names.map((name) => [name, file] as const)),
);

/** The handler of a subcommand: its export is the subcommand's name unless given (the stash ones). */
const handler = (name: string, exported = name): HandlerRef => {
  const file = FILE_OF_EXPORT.get(exported);
  if (!file) throw new Error(`git has no handler ${exported}`);
  return { module: new URL(`./handlers/${file}.ts`, import.meta.url).href, export: exported };
};

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

export const addFlags = [
  repoFlag("write"),
  {
    name: "all",
    short: "A",
    type: "boolean",
    description: "Stage every change in the work tree, deletions included (git add -A).",
  },
  pathFlag("Stage changes under this path, deletions included"),
  {
    name: "update",
    short: "u",
    type: "boolean",
    description: "Stage modifications and deletions of tracked files only; new files stay untracked (git add -u).",
  },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Also stage files a .gitignore excludes (only those named by --path).",
  },
  compat("verbose", "Accepted; the result lists what was staged.", { short: "v" }),
] as const satisfies readonly FlagSpec[];

export const commitFlags = [
  repoFlag("write"),
  {
    name: "message",
    short: "m",
    type: "string",
    repeatable: true,
    valueName: "text",
    description: "The commit message; given several times, each is a paragraph (as git does).",
  },
  {
    name: "file",
    short: "F",
    type: "string",
    valueName: "-",
    description: "Read the message from the call's stdin: `-F -` (a file path is not read; use stdin).",
  },
  {
    name: "all",
    short: "a",
    type: "boolean",
    description:
      "First stage modifications and deletions of tracked files, as `git commit -a` (new files are not added).",
  },
  {
    name: "amend",
    type: "boolean",
    description:
      "Replace the last commit (same parents) with the staged tree; the message is kept unless -m/-F gives one.",
  },
  compat("no-edit", "Accepted: pterm never opens an editor (with --amend the old message is kept)."),
  {
    name: "signoff",
    short: "s",
    type: "boolean",
    description: "Add a `Signed-off-by:` trailer with the committer's name and email.",
  },
  authorFlag,
  { name: "allow-empty", type: "boolean", description: "Commit even when nothing is staged." },
  pathFlag("Commit only this path, as it is in the work tree (git commit <path>); what else is staged stays staged"),
  compat("no-verify", "Accepted: pterm runs no hooks.", { short: "n" }),
  quiet,
  compat("verbose", "Accepted; the result shows the commit.", { short: "v" }),
] as const satisfies readonly FlagSpec[];

/** The line diff (git's diff.c options; `diff.algorithm` in the repository's config sets the default). */
const algorithmFlags = [
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

const PATIENCE_REFUSED =
  "pterm has no patience diff: use --histogram (git's histogram diff, patience's successor) or the default Myers.";
/** Refused diff options (`refusedFlags` of diff, show and log). */
const refusedDiffFlags = {
  "--patience": PATIENCE_REFUSED,
  "--anchored": "pterm has no patience diff, which --anchored needs: use --histogram or the default Myers.",
};

const prettyFlags = [
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

/** `-n`/`--max-count`/`-<N>`: how many entries a listing shows (git's spellings, default 20). */
const maxCountFlag = (what: string) =>
  ({
    name: "max",
    short: "n",
    aliases: ["max-count"],
    digits: true,
    type: "number",
    default: 20,
    min: 1,
    max: 10000,
    description: `Most ${what} to list (also -n 5, -n5, -5, --max-count 5).`,
  }) as const satisfies FlagSpec;

export const reflogFlags = [repoFlag("read"), maxCountFlag("entries")] as const satisfies readonly FlagSpec[];

export const logFlags = [
  repoFlag("read"),
  maxCountFlag("commits"),
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
  compat("graph", "Accepted and not drawn: the result lists each commit's parents."),
] as const satisfies readonly FlagSpec[];

/** `--track` / `--no-track` of a new branch (branch, checkout -b, switch -c), as git's. */
const trackFlags = [
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

export const branchFlags = [
  repoFlag("write"),
  {
    name: "delete",
    short: "d",
    type: "boolean",
    description: "Delete the branch <name> (refused if not merged into HEAD, unless --force).",
  },
  { name: "force-delete", short: "D", type: "boolean", description: "Delete the branch even if unmerged (-d -f)." },
  {
    name: "move",
    short: "m",
    type: "boolean",
    description: "Rename the branch <name> to <start> (the second word); alone, renames the current branch to <name>.",
  },
  { name: "force-move", short: "M", type: "boolean", description: "Rename even over an existing branch (-m -f)." },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Delete an unmerged branch, or move/create over an existing one.",
  },
  { name: "show-current", type: "boolean", description: "Print only the current branch's name." },
  {
    name: "list",
    short: "l",
    type: "boolean",
    description: "List branches; with <name>, only those matching it (`*` as a wildcard, quoted).",
  },
  {
    name: "all",
    short: "a",
    type: "boolean",
    description: "List remote-tracking branches (refs/remotes/) too.",
  },
  ...trackFlags,
  {
    name: "set-upstream-to",
    short: "u",
    type: "string",
    valueName: "upstream",
    description: "Make <upstream> (e.g. origin/main) the upstream of <name> (default: the current branch).",
  },
  {
    name: "unset-upstream",
    type: "boolean",
    description: "Remove the upstream of <name> (default: the current branch).",
  },
  compat("verbose", "Accepted: each listed branch shows its commit and its upstream.", { short: "v" }),
] as const satisfies readonly FlagSpec[];

export const checkoutFlags = [
  repoFlag("write"),
  {
    name: "create",
    short: "b",
    type: "string",
    valueName: "branch",
    description: "Create this branch at <target> (default HEAD) and switch to it.",
  },
  {
    name: "force-create",
    short: "B",
    type: "string",
    valueName: "branch",
    description: "Like --create, but reset the branch to <target> if it exists.",
  },
  ...trackFlags,
  pathFlag("Restore this path from <target> (or from the index when no target is given) instead of switching"),
  { name: "detach", type: "boolean", description: "Check out <target> as a detached HEAD even if it is a branch." },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Switch even if local changes would be overwritten (they are discarded).",
  },
  quiet,
] as const satisfies readonly FlagSpec[];

export const switchFlags = [
  repoFlag("write"),
  {
    name: "create",
    short: "c",
    type: "string",
    valueName: "branch",
    description: "Create this branch at <start> (default HEAD) and switch to it.",
  },
  {
    name: "force-create",
    short: "C",
    type: "string",
    valueName: "branch",
    description: "Like --create, but reset the branch to <start> if it exists.",
  },
  ...trackFlags,
  { name: "detach", short: "d", type: "boolean", description: "Switch to a commit as a detached HEAD." },
  {
    name: "force",
    short: "f",
    aliases: ["discard-changes"],
    type: "boolean",
    description: "Switch even if local changes would be overwritten (they are discarded).",
  },
  quiet,
] as const satisfies readonly FlagSpec[];

export const restoreFlags = [
  repoFlag("write"),
  pathFlag("Restore this path"),
  {
    name: "source",
    short: "s",
    type: "string",
    valueName: "rev",
    description: "Take the content from this commit (default: the index for the work tree, HEAD for --staged).",
  },
  { name: "staged", short: "S", type: "boolean", description: "Restore the index (unstage)." },
  {
    name: "worktree",
    short: "W",
    type: "boolean",
    description: "Restore the work tree (the default; with --staged, both).",
  },
  quiet,
] as const satisfies readonly FlagSpec[];

const renameFlags = [
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

export const diffFlags = [
  repoFlag("read"),
  {
    name: "staged",
    aliases: ["cached"],
    type: "boolean",
    description: "Compare the index (staged changes) instead of the work tree.",
  },
  pathFlag("Only this path"),
  { name: "stat", type: "boolean", description: "Print a diffstat instead of the patch." },
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

export const showFlags = [
  repoFlag("read"),
  pathFlag("Only show the diff of this path"),
  { name: "stat", type: "boolean", description: "Print a diffstat instead of the patch." },
  { name: "name-only", type: "boolean", description: "Print only the names of changed files." },
  { name: "name-status", type: "boolean", description: "Print `M path`, `A path`, `D path` per changed file." },
  { name: "no-patch", short: "s", type: "boolean", description: "Show the commit's metadata without its diff." },
  ...prettyFlags,
  ...algorithmFlags,
  ...renameFlags,
] as const satisfies readonly FlagSpec[];

export const resetFlags = [
  repoFlag("write"),
  { name: "soft", type: "boolean", description: "Move the branch only; index and work tree stay." },
  {
    name: "mixed",
    type: "boolean",
    description: "Move the branch and reset the index; the work tree stays (the default).",
  },
  {
    name: "hard",
    type: "boolean",
    description: "Move the branch and reset index and work tree (local changes to tracked files are lost).",
  },
  pathFlag("Unstage this path: reset its index entry to <rev> (HEAD by default); HEAD does not move"),
  quiet,
] as const satisfies readonly FlagSpec[];

export const rmFlags = [
  repoFlag("write"),
  pathFlag("Remove this tracked path"),
  { name: "cached", type: "boolean", description: "Only remove from the index; keep the file in the work tree." },
  { name: "recursive", short: "r", type: "boolean", description: "Allow removing a folder." },
  { name: "force", short: "f", type: "boolean", description: "Remove even with local or staged changes." },
  quiet,
] as const satisfies readonly FlagSpec[];

export const mvFlags = [
  repoFlag("write"),
  { name: "force", short: "f", type: "boolean", description: "Overwrite an existing destination file." },
] as const satisfies readonly FlagSpec[];

export const revParseFlags = [
  repoFlag("read"),
  { name: "abbrev-ref", type: "boolean", description: "Print the branch name a ref stands for (HEAD → main)." },
  { name: "short", type: "boolean", description: "Print 7-character ids." },
  { name: "verify", type: "boolean", description: "Exactly one revision, which must exist." },
  { name: "show-toplevel", type: "boolean", description: "Print the repository's folder (relative to the root)." },
  { name: "git-dir", type: "boolean", description: "Print the .git folder (relative to the root)." },
  { name: "is-inside-work-tree", type: "boolean", description: "Print true (the call reached a repository)." },
  quiet,
] as const satisfies readonly FlagSpec[];

export const lsFilesFlags = [
  repoFlag("read"),
  pathFlag("Only these paths"),
  { name: "cached", short: "c", type: "boolean", description: "Tracked files (the default)." },
  { name: "others", short: "o", type: "boolean", description: "Untracked files instead." },
  { name: "modified", short: "m", type: "boolean", description: "Tracked files changed in the work tree." },
  { name: "deleted", short: "d", type: "boolean", description: "Tracked files missing from the work tree." },
  { name: "stage", short: "s", type: "boolean", description: "Show mode, object id and stage (`git ls-files -s`)." },
  compat("exclude-standard", "Accepted: .gitignore and .git/info/exclude always apply to --others."),
] as const satisfies readonly FlagSpec[];

export const blameFlags = [
  repoFlag("read"),
  pathFlag("The file to blame"),
  {
    name: "lines",
    short: "L",
    type: "string",
    valueName: "start,end",
    description: "Only these lines: `10,20`, `10,+5` (five lines from 10), `10,` (to the end).",
  },
  { name: "long", short: "l", type: "boolean", description: "Show full 40-character commit ids." },
  { name: "suppress", short: "s", type: "boolean", description: "Leave the author and date out of each line." },
  { name: "show-email", short: "e", type: "boolean", description: "Show the author's email instead of the name." },
] as const satisfies readonly FlagSpec[];

export const grepFlags = [
  repoFlag("read"),
  pathFlag("Only search under this path"),
  {
    name: "regexp",
    short: "e",
    type: "string",
    valueName: "pattern",
    description: "The pattern (instead of the first word); useful when it starts with -.",
  },
  { name: "line-number", short: "n", type: "boolean", description: "Prefix each line with its line number." },
  { name: "ignore-case", short: "i", type: "boolean", description: "Ignore case." },
  { name: "word-regexp", short: "w", type: "boolean", description: "Match whole words only." },
  { name: "invert-match", short: "v", type: "boolean", description: "Select lines that do not match." },
  {
    name: "files-with-matches",
    short: "l",
    aliases: ["name-only"],
    type: "boolean",
    description: "Print only the names of files that match.",
  },
  { name: "count", short: "c", type: "boolean", description: "Print each file's number of matching lines." },
  {
    name: "extended-regexp",
    short: "E",
    type: "boolean",
    description: "The pattern is an extended regular expression.",
  },
  { name: "fixed-strings", short: "F", type: "boolean", description: "The pattern is plain text." },
  { name: "cached", type: "boolean", description: "Search the staged content (the index) instead of the work tree." },
  { name: "untracked", type: "boolean", description: "Also search untracked files (not ignored ones)." },
  compat("no-color", "Accepted: output has no colour."),
] as const satisfies readonly FlagSpec[];

export const cherryPickFlags = [
  repoFlag("write"),
  {
    name: "x",
    short: "x",
    type: "boolean",
    description: "Add `(cherry picked from commit <id>)` to the message, as git's -x.",
  },
  {
    name: "no-commit",
    short: "n",
    type: "boolean",
    description: "Apply the change to index and work tree without committing.",
  },
  {
    name: "continue",
    type: "boolean",
    description: "After resolving the conflicts (edit, git add): commit with the picked commit's message (and author).",
  },
  {
    name: "abort",
    type: "boolean",
    description: "Give up the cherry-pick that stopped: index and work tree back to HEAD for the files it touched.",
  },
  {
    name: "quit",
    type: "boolean",
    description: "Forget the cherry-pick in progress but keep index and work tree as they are.",
  },
  {
    name: "skip",
    type: "boolean",
    description: "Drop the commit being picked (pterm applies one at a time, so this is --abort).",
  },
  compat("no-edit", "Accepted: pterm never opens an editor; the picked commit's message is kept."),
  authorFlag,
] as const satisfies readonly FlagSpec[];

export const cleanFlags = [
  repoFlag("write"),
  pathFlag("Only clean under this path"),
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Really delete (git requires -f or -n, and so does pterm).",
  },
  { name: "dry-run", short: "n", type: "boolean", description: "List what would be deleted; delete nothing." },
  { name: "directories", short: "d", type: "boolean", description: "Also delete untracked folders." },
  quiet,
] as const satisfies readonly FlagSpec[];

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
] as const satisfies readonly FlagSpec[];

export const revertFlags = [
  repoFlag("write"),
  { name: "ref", type: "string", valueName: "rev", description: "The commit to revert (or as the first word)." },
  compat("no-edit", 'Accepted: pterm never opens an editor; the message is git\'s `Revert "…"`.'),
  authorFlag,
  {
    name: "no-commit",
    short: "n",
    type: "boolean",
    description: "Apply the reverse change to index and work tree without committing.",
  },
  {
    name: "continue",
    type: "boolean",
    description: "After resolving the conflicts (edit, git add): commit with the revert's prepared message.",
  },
  {
    name: "abort",
    type: "boolean",
    description: "Give up the revert that stopped: index and work tree back to HEAD for the files it touched.",
  },
  {
    name: "quit",
    type: "boolean",
    description: "Forget the revert in progress but keep index and work tree as they are.",
  },
  {
    name: "skip",
    type: "boolean",
    description: "Drop the revert in progress (pterm applies one at a time, so this is --abort).",
  },
] as const satisfies readonly FlagSpec[];

export const mergeFlags = [
  repoFlag("write"),
  { name: "branch", type: "string", valueName: "rev", description: "The branch (or commit) to merge into HEAD." },
  { name: "no-ff", type: "boolean", description: "Always make a merge commit, even when a fast-forward is possible." },
  {
    name: "squash",
    type: "boolean",
    description: "Stage the other branch's changes as one change, without a commit or a merge (HEAD stays); " +
      "`git commit` then records them with git's prepared message.",
  },
  {
    name: "ff-only",
    type: "boolean",
    description: "Only fast-forward; refuse (nothing changed) when a merge commit would be needed.",
  },
  compat("no-edit", "Accepted: pterm never opens an editor; the message is git's `Merge branch '…'`."),
  authorFlag,
  { name: "message", short: "m", type: "string", valueName: "text", description: "Message of the merge commit." },
  {
    name: "abort",
    type: "boolean",
    description: "Abandon a merge that stopped on conflicts (restores HEAD's version).",
  },
  {
    name: "continue",
    type: "boolean",
    description: "After resolving the conflicts (edit, git add): make the merge commit with the prepared message.",
  },
  {
    name: "quit",
    type: "boolean",
    description: "Forget the merge in progress but keep index and work tree as they are.",
  },
] as const satisfies readonly FlagSpec[];

const stashPositional = [{
  name: "stash",
  description: "Which entry: stash@{N} or N (default 0, the newest).",
}] as const;

const urlFlag = {
  name: "url",
  type: "string",
  required: true,
  valueName: "url",
  description: "The remote repository's https URL (allowed in git.remotes of pterm.json; no user or token in it).",
} as const satisfies FlagSpec;

const confirmFlag = {
  name: "confirm",
  type: "boolean",
  description: "Required: this call reaches the network (without it the call says what it would do).",
} as const satisfies FlagSpec;

export const lsRemoteFlags = [urlFlag, confirmFlag] as const satisfies readonly FlagSpec[];

export const cloneFlags = [
  urlFlag,
  {
    name: "dir",
    type: "string",
    valueName: "path",
    path: "write",
    description: "The new repository's folder (must not exist, or be empty), relative to the workspace root.",
  },
  confirmFlag,
  {
    name: "branch",
    type: "string",
    valueName: "name",
    description: "Check out this branch (default: the remote's HEAD).",
  },
  {
    name: "single-branch",
    type: "boolean",
    description: "Fetch only the checked-out branch (and the tags in its history); --depth implies it.",
  },
  {
    name: "depth",
    type: "number",
    min: 1,
    max: 1000000,
    valueName: "n",
    description: "A shallow clone of the last n commits of one branch (tags in that history come along).",
  },
] as const satisfies readonly FlagSpec[];

const remoteNameFlag = {
  name: "remote",
  type: "string",
  default: "origin",
  valueName: "name",
  description: "Which configured remote (see `git remote`).",
} as const satisfies FlagSpec;

const noPruneFlag = {
  name: "no-prune",
  type: "boolean",
  description: "Keep remote-tracking branches whose branch is gone, even when fetch.prune or remote.<name>.prune " +
    "in .git/config says to prune (as git's --no-prune).",
} as const satisfies FlagSpec;

export const fetchFlags = [
  repoFlag("write"),
  remoteNameFlag,
  {
    name: "prune",
    short: "p",
    type: "boolean",
    description: "Also delete remote-tracking branches whose branch is gone from the remote (as git fetch --prune; " +
      "fetch.prune or remote.<name>.prune in .git/config turn it on, as in git).",
  },
  noPruneFlag,
  confirmFlag,
] as const satisfies readonly FlagSpec[];

export const pushFlags = [
  repoFlag("write"),
  {
    name: "branch",
    type: "string",
    valueName: "name",
    description: "The local branch to push (default: the current one) to its upstream; a tag's name pushes that tag.",
  },
  remoteNameFlag,
  {
    name: "tags",
    type: "boolean",
    description: "Push every local tag the remote lacks (tags it has with another value refuse the push).",
  },
  {
    name: "delete",
    short: "d",
    type: "boolean",
    description: "Delete the branch (or tag) named by --branch / the refspec on the remote.",
  },
  {
    name: "set-upstream",
    short: "u",
    type: "boolean",
    description: "Push to a branch of the same name on the remote and remember it as the upstream.",
  },
  {
    name: "force-with-lease",
    type: "boolean",
    description: "Overwrite the remote branch even if not a fast-forward, only if it is where your last fetch saw it.",
  },
  confirmFlag,
] as const satisfies readonly FlagSpec[];

export const remoteFlags = [
  repoFlag("write"),
  compat("verbose", "Accepted: each remote is listed with its URL.", { short: "v" }),
] as const satisfies readonly FlagSpec[];

export const pullFlags = [
  repoFlag("write"),
  confirmFlag,
  {
    name: "rebase",
    short: "r",
    type: "boolean",
    description: "Not available: pterm's pull merges (or fast-forwards); refused, nothing fetched.",
  },
  {
    name: "ff-only",
    type: "boolean",
    description: "Only fast-forward; refuse, with nothing merged, when the branches diverged.",
  },
  compat("no-edit", "Accepted: pterm never opens an editor; the merge message is git's."),
  compat("no-rebase", "Accepted: pterm's pull merges, as git pull --no-rebase does."),
  {
    name: "prune",
    short: "p",
    type: "boolean",
    description: "The fetch also deletes remote-tracking branches whose branch is gone from the remote (as git " +
      "pull --prune; fetch.prune or remote.<name>.prune in .git/config turn it on, as in git).",
  },
  noPruneFlag,
] as const satisfies readonly FlagSpec[];

const NET = ["fs.read", "fs.write", "net"] as const;

function leaf(
  name: string,
  summary: string,
  flags: readonly FlagSpec[],
  examples: LeafSpec["examples"],
  extra: Partial<LeafSpec> = {},
): LeafSpec {
  return {
    name,
    summary,
    flags,
    capabilities: FS,
    examples,
    result: schema(name),
    handler: extra.handler ?? handler(name),
    ...extra,
  };
}

const stash: CommandSpec["subcommands"] = [
  leaf("push", "Save local changes to tracked files on the stash and reset them to HEAD.", stashPushFlags, [
    { command: 'git stash push --repo proj --message "half-done refactor"', description: "Stash work in progress." },
  ], { result: schema("stash push"), handler: handler("stash push", "stashPushHandler") }),
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

export const gitSpec: CommandSpec = {
  name: "git",
  zone: "help-first",
  summary: "Local git, spelled as real git (`git status`, `git add .`, `git commit -am msg`, `git log -5`; " +
    "--repo only when the workspace has several repositories): init, status, add, commit, log, branch, checkout, " +
    "switch, restore, diff, show, reset, rm, mv, stash, tag, revert, merge, cherry-pick, clean, blame, grep, " +
    "rev-parse, ls-files; remotes: clone, fetch, pull, push, ls-remote, remote.",
  description: [
    "A git for the workspace, implemented inside pterm (no git program runs). Repositories are ordinary git",
    "repositories: the real git reads what pterm writes and the other way round. --repo names the repository's",
    "top folder relative to the workspace root; paths after --path are relative to the repository.",
    "",
    "Without --repo (or `git -C <dir>`), pterm uses the workspace root if it is a repository, else",
    "git.default_repo from pterm.json, else the only repository directly under the root or one level down;",
    "every result says which in repo_path. Real git's spellings work with git's meaning: positional paths",
    "(`git add a b`, `git diff HEAD~1 -- f`), short flags and clusters (`-am msg`, `-n3`, `-3`, `-U0`),",
    "`git -C dir`, `git --no-pager`, `--no-color`, `-c user.name=… -c user.email=…` (the author of that call).",
    "",
    "Mutating subcommands take git's own .git/index.lock; if another git holds it the call fails with",
    "RepoLocked (retry; if no git is running, delete .git/index.lock).",
    "",
    "Secrets: paths inside a secrets/ folder or named .env* are invisible to git in pterm. They are never",
    "hashed, staged, diffed, shown or written; one already tracked is listed as `withheld` and its content",
    "is never printed. When the repository is the workspace root, pterm's own audit/, artifacts/, sessions/",
    "and pterm.json are treated the same way.",
    "",
    'Defaults: the author is git.author in pterm.json ({"git": {"author": {"name": ..., "email": ...}}}),',
    "else `pterm <pterm@localhost>`; times are UTC. Symbolic links are checked out as plain files holding",
    "the link target (pterm never creates links). .gitignore files and .git/info/exclude are honoured;",
    "core.excludesFile is not read. Line endings follow .gitattributes (text, eol, binary), core.autocrlf and",
    "core.eol as in git; a path with a filter (e.g. Git LFS) is never staged with its file content",
    "(UnsupportedFilter; LFS pointer files are left as they are). Untracked counts are files (as",
    "`git status -uall`); diff and show detect renames as git does (--no-renames to turn off); merges follow",
    "renames and build git's virtual base for criss-cross histories.",
    "",
    "Remotes (ls-remote, clone, fetch, pull, push) speak git's smart HTTP protocol (v2 for reading where the",
    "server offers it, else v0; push is v0 receive-pack).",
    "They reach only remotes git.remotes in pterm.json allows (URL prefixes; https, or http for a prefix that",
    'says http:// itself): {"git": {"remotes": {"allow": ["https://git.example.com/org/"]}}}. Every call that',
    "reaches the network needs --confirm. A token goes in skills/git/secrets/.env as GIT_<HOST>_TOKEN=...",
    "(GIT_<HOST>_USER=... for the user name, GIT_<HOST>_BEARER=... for a bearer token; HOST in capitals, other",
    "characters as _, a non-default port appended: GIT_GIT_EXAMPLE_COM_TOKEN, GIT_127_0_0_1_8080_TOKEN), never",
    "in the URL. A push that is not a fast-forward is Rejected unless --force-with-lease (and the remote is",
    "still where the last fetch saw it). A self-hosted server's CA: git.ca_file (a PEM file in the workspace); a proxy:",
    "git.proxy (http://host:port; its GIT_PROXY_USER and GIT_PROXY_PASSWORD in the same .env). Packs larger than",
    "git.max_fetch_bytes (default 2 GiB) are refused. push --tags sends the tags the remote lacks, push --delete",
    "removes a remote branch or tag; fetch --prune deletes remote-tracking branches gone from the remote.",
    "Not supported: ssh, git:// and file:// remotes, moving a remote tag, pull --rebase.",
  ].join("\n"),
  config: async () => (await loadSchemas()).gitConfigSchema,
  // Imported with the declaration: the registry rewrites every git line with it, so loading it lazily only made
  // each call wait for one more module.
  spellings: () => Promise.resolve(gitSpellings),
  unavailable: {
    rebase: "To bring a branch up to date use `git merge <branch>`; to fix the last commit `git commit --amend`.",
    apply: "Apply a diff with `patch apply` (the diff in the call's stdin; paths as the diff names them, from " +
      "the workspace root unless --repo names the repository); patch check only tries it.",
    am: "Apply a diff with `patch apply` (the diff on stdin), then `git commit`.",
    "format-patch": "`git diff <a> <b>` prints the patch (the full text is an artifact when long).",
    bisect: "Not available. `git log` and `git show <rev>` help find the commit by hand.",
    submodule: "Not available; `git status` shows a submodule's commit and `git add <path>` stages its pointer.",
    worktree: "Not available; use another repository folder and `--repo`.",
    config: "Not available: pterm's git settings live in pterm.json's git section (author, default_repo).",
    describe: "`git tag` lists tags with their commits; `git log -n 1` shows the current one.",
    shortlog: "Use `git log` (each line has the author).",
    whatchanged: "Use `git log --stat`.",
    gc: "Not needed and not available.",
    fsck: "Not available; pterm checks every object it reads.",
    prune: "Not needed and not available.",
    repack: "Not needed and not available.",
    notes: "Not available.",
    archive: "Not available.",
    "cat-file": "`git show <rev>:<path>` prints a file at a commit; `git show <rev>` a commit.",
    "ls-tree": "`git ls-files` lists the tracked files; `git show <rev>:<folder>` is not available.",
  },
  netHosts: grantedHosts,
  examples: [
    { command: "git init --dir projects/demo", description: "Create a repository." },
    { command: "git status --repo projects/demo", description: "See what changed." },
    { command: 'git -C projects/demo commit -am "Fix"', description: "Real git's spelling: -C names the repository." },
  ],
  subcommands: [
    leaf("init", "Create an empty repository (an existing one is reported, not touched).", initFlags, [
      { command: "git init --dir projects/demo", description: "Create projects/demo with a main branch." },
      { command: "git init --dir projects/demo --initial-branch trunk", description: "Name the first branch trunk." },
      { command: "git init projects/demo -b trunk", description: "The same, as real git spells it." },
    ], { positionals: [{ name: "directory", into: "dir", description: "Same as --dir." }] }),
    leaf("status", "Branch, staged and unstaged changes, untracked files (with JGit's counts).", statusFlags, [
      { command: "git status --repo projects/demo", description: "Summary and per-file status." },
      { command: "git status -s", description: "One line per file; the repository found as --repo says." },
    ], {
      refusedFlags: {
        "--ignored": "not available: `git status` leaves ignored files out; .gitignore says which they are.",
      },
      positionals: [pathspec("Only report these paths")],
      afterDoubleDash: "path",
    }),
    leaf("add", "Stage changes (new, modified and deleted files).", addFlags, [
      { command: "git add --repo projects/demo --all", description: "Stage everything, like git add -A." },
      { command: "git add --repo projects/demo --path src/app.ts --path README.md", description: "Stage two paths." },
      { command: "git add src/app.ts README.md", description: "The same, as real git spells it." },
      { command: "git add .", description: "Stage everything in the repository." },
    ], {
      refusedFlags: {
        ...refusedInteractive,
        "-i": INTERACTIVE,
        "--intent-to-add": "not available; `git add <path>` stages the file whole.",
        "-N": "not available; `git add <path>` stages the file whole.",
        "--dry-run": "not available; `git status -s` shows what `git add` would stage.",
        "-n": "not available (it is --dry-run); `git status -s` shows what `git add` would stage.",
      },
      positionals: [pathspec("Stage changes under these paths")],
      afterDoubleDash: "path",
    }),
    leaf("commit", "Record the staged changes as a commit on the current branch.", commitFlags, [
      { command: 'git commit --repo projects/demo --message "Add parser"', description: "Commit what is staged." },
      { command: 'git commit -am "Fix parser"', description: "Stage tracked changes and commit them." },
      { command: 'git commit -m "Subject" -m "Body paragraph."', description: "Subject and body, as git does." },
      { command: "git commit -F -", description: "The message from the call's stdin.", stdin: "Subject\n\nBody\n" },
      { command: "git commit --amend --no-edit", description: "Fold the staged changes into the last commit." },
      {
        command: 'git commit --repo projects/demo -m "Start" --author "Ada <ada@example.com>" --allow-empty',
        description: "An empty commit with an explicit author.",
      },
    ], {
      refusedFlags: {
        ...refusedInteractive,
        "--include": "not available; `git add <path>` first, then `git commit`.",
        "--reset-author": 'not available; give the author with --author "Name <email>".',
      },
      stdin: { mode: "whenFlag", flag: "file" },
      positionals: [pathspec("Commit only these paths")],
      afterDoubleDash: "path",
    }),
    leaf(
      "reflog",
      "Where HEAD (or a branch) has been, newest first: git reflog's `<id> HEAD@{N}: <what>`.",
      reflogFlags,
      [
        { command: "git reflog", description: "HEAD's last 20 moves (commits, checkouts, resets, merges)." },
        { command: "git reflog show main -n 5", description: "The last five moves of main." },
      ],
      {
        positionals: [{
          name: "args",
          variadic: true,
          description: "`show` (optional, as git spells it), then the ref (default HEAD).",
        }],
      },
    ),
    leaf("log", "List commits, newest first.", logFlags, [
      { command: "git log --repo projects/demo --max 5", description: "The last five commits of HEAD." },
      {
        command: "git log --repo projects/demo --ref feature --path src/app.ts",
        description: "Commits of feature touching one file.",
      },
      { command: "git log --oneline -5 main -- src/app.ts", description: "The same kind of query, as git spells it." },
      { command: "git log main..feature --stat", description: "What feature has that main has not, with diffstats." },
    ], {
      refusedFlags: {
        ...refusedDiffFlags,
        "--follow": "not available: pterm's log does not follow a file across renames; `git log -- <old path>` lists " +
          "its history before the move.",
      },
      positionals: [{
        name: "args",
        variadic: true,
        description:
          "A revision (or `a..b`) and then paths; a word that is no revision but an existing path is a path.",
      }],
      afterDoubleDash: "path",
    }),
    leaf("branch", "List, create, delete or rename branches.", branchFlags, [
      { command: "git branch --repo projects/demo", description: "List branches; the current one is marked." },
      { command: "git branch --repo projects/demo --all", description: "Local and remote-tracking branches." },
      { command: "git branch --repo projects/demo feature", description: "Create feature at HEAD." },
      { command: "git branch --repo projects/demo hotfix v1.0", description: "Create hotfix at the tag v1.0." },
      { command: "git branch --repo projects/demo --delete feature", description: "Delete a merged branch." },
      { command: "git branch --repo projects/demo --move feature feature-2", description: "Rename a branch." },
    ], {
      positionals: [
        { name: "name", description: "The branch to create, delete or rename." },
        { name: "start", description: "Where a new branch starts (default HEAD); with --move, the new name." },
      ],
    }),
    leaf("checkout", "Switch branches, detach at a commit, or restore files.", checkoutFlags, [
      { command: "git checkout -b feature", description: "Create feature at HEAD and switch to it." },
      { command: "git checkout -- src/app.ts", description: "Discard unstaged changes to one file." },
      { command: "git checkout --repo projects/demo feature", description: "Switch to the branch feature." },
      {
        command: "git checkout --repo projects/demo --create topic",
        description: "Create topic at HEAD and switch to it.",
      },
      { command: "git checkout --repo projects/demo 1a2b3c4", description: "Detach HEAD at a commit." },
      {
        command: "git checkout --repo projects/demo HEAD --path src/app.ts",
        description: "Discard local changes to one file.",
      },
    ], {
      refusedFlags: refusedInteractive,
      positionals: [{
        name: "args",
        variadic: true,
        description: "Branch, tag or commit (with --create: the start point), then paths to restore from it; " +
          "a word that is no revision but an existing path is a path.",
      }],
      afterDoubleDash: "path",
    }),
    leaf("switch", "Switch branches (git switch): -c creates, --detach goes to a commit.", switchFlags, [
      { command: "git switch main", description: "Switch to main." },
      { command: "git switch -c feature", description: "Create feature at HEAD and switch to it." },
    ], {
      positionals: [{ name: "branch", description: "The branch to switch to (with -c: the start point)." }],
      handler: handler("switch", "switchHandler"),
    }),
    leaf("restore", "Restore files in the work tree or the index (git restore).", restoreFlags, [
      { command: "git restore src/app.ts", description: "Discard unstaged changes to a file (from the index)." },
      { command: "git restore --staged src/app.ts", description: "Unstage a file (the index from HEAD)." },
      { command: "git restore --source HEAD~1 src/app.ts", description: "Take a file's content from a commit." },
    ], {
      refusedFlags: refusedInteractive,
      positionals: [pathspec("The paths to restore")],
      afterDoubleDash: "path",
    }),
    leaf("diff", "Show changes as a unified diff (work tree, index, or between commits).", diffFlags, [
      { command: "git diff HEAD~1 -- src/app.ts", description: "One file against the previous commit." },
      { command: "git diff main...feature --stat", description: "What feature changed since it left main." },
      { command: "git diff --repo projects/demo", description: "Unstaged changes (work tree vs index)." },
      { command: "git diff --repo projects/demo --staged", description: "Staged changes (index vs HEAD)." },
      { command: "git diff --repo projects/demo main feature --stat", description: "Diffstat between two branches." },
      {
        command: "git diff --repo projects/demo HEAD~1 --path src",
        description: "Work tree vs the previous commit, src only.",
      },
    ], {
      refusedFlags: {
        ...refusedDiffFlags,
        "--word-diff": "word diffs are not available: the patch shows whole lines (-U0 for the changed lines only).",
        "--color-words": "word diffs are not available: the patch shows whole lines (-U0 for the changed lines only).",
      },
      positionals: [{
        name: "args",
        variadic: true,
        description: "Up to two commits (from, to; one alone compares with the work tree or, with --staged, the " +
          "index; `a..b` and `a...b` as in git), then paths; a word that is no revision but an existing path is a path.",
      }],
      afterDoubleDash: "path",
    }),
    leaf("show", "Show a commit: its metadata and its diff.", showFlags, [
      { command: "git show --repo projects/demo", description: "The HEAD commit and its patch." },
      { command: "git show --repo projects/demo v1.0 --stat", description: "A tagged commit, with a diffstat." },
      { command: "git show HEAD~1:README.md", description: "Print a file as it was in a commit." },
    ], {
      positionals: [{
        name: "rev",
        description: "The commit (or tag) to show; default HEAD. `<rev>:<path>` prints that file at that commit.",
      }],
      refusedFlags: refusedDiffFlags,
      afterDoubleDash: "path",
    }),
    leaf("reset", "Move HEAD (--soft, --mixed, --hard) or unstage paths.", resetFlags, [
      { command: "git reset --repo projects/demo --hard HEAD~1", description: "Drop the last commit and its changes." },
      { command: "git reset --repo projects/demo --soft HEAD~1", description: "Undo the last commit, keep it staged." },
      { command: "git reset --repo projects/demo --path src/app.ts", description: "Unstage one file." },
      { command: "git reset HEAD src/app.ts", description: "The same, as real git spells it." },
    ], {
      refusedFlags: refusedInteractive,
      positionals: [{
        name: "args",
        variadic: true,
        description: "The commit to reset to (default HEAD), then paths to unstage; a word that is no revision but " +
          "an existing path is a path.",
      }],
      afterDoubleDash: "path",
    }),
    leaf("rm", "Remove tracked files from the index and the work tree.", rmFlags, [
      { command: "git rm --repo projects/demo --path old.txt", description: "Delete a file and stage the deletion." },
      {
        command: "git rm --repo projects/demo --cached --recursive --path build",
        description: "Stop tracking a folder, keep the files.",
      },
      { command: "git rm -r --cached build", description: "The same, as real git spells it." },
    ], { positionals: [pathspec("The tracked paths to remove")], afterDoubleDash: "path" }),
    leaf("mv", "Move or rename a tracked file or folder.", mvFlags, [
      { command: "git mv --repo projects/demo notes.txt docs/notes.txt", description: "Move a file into docs/." },
    ], {
      positionals: [
        { name: "source", required: true, description: "The tracked file or folder to move." },
        { name: "destination", required: true, description: "The new path (an existing folder: move into it)." },
      ],
    }),
    {
      name: "stash",
      summary: "Set local changes aside and bring them back (push, pop, apply, list, drop, clear).",
      description: "`git stash` alone (or followed by flags, as `git stash -m text`) means `git stash push`.",
      defaultSubcommand: "push",
      examples: [
        { command: "git stash push --repo projects/demo", description: "Stash local changes." },
        { command: "git stash pop --repo projects/demo", description: "Bring them back." },
      ],
      subcommands: stash,
    },
    leaf("tag", "List, create (lightweight or annotated) or delete tags.", tagFlags, [
      { command: "git tag --repo projects/demo", description: "List tags." },
      { command: "git tag --repo projects/demo v1.0", description: "Tag HEAD (lightweight)." },
      {
        command: 'git tag --repo projects/demo v1.1 main --message "Release 1.1"',
        description: "Annotated tag on main.",
      },
      { command: "git tag --repo projects/demo --delete v1.0", description: "Delete a tag." },
      { command: 'git tag -a v1.2 -m "Release 1.2"', description: "An annotated tag, as real git spells it." },
    ], {
      positionals: [
        { name: "name", description: "The tag to create or delete." },
        { name: "target", description: "What the new tag points to (default HEAD)." },
      ],
    }),
    leaf("revert", "Make a commit that undoes another commit.", revertFlags, [
      { command: "git revert --repo projects/demo --ref HEAD", description: "Undo the last commit with a new commit." },
      {
        command: "git revert --repo projects/demo --ref 1a2b3c4 --no-commit",
        description: "Stage the undo, do not commit.",
      },
      { command: "git revert HEAD --no-edit", description: "Undo the last commit, as real git spells it." },
    ], { positionals: [{ name: "commit", into: "ref", description: "Same as --ref." }] }),
    leaf("merge", "Merge a branch into HEAD (fast-forward when possible); conflicts are reported.", mergeFlags, [
      {
        command: "git merge --repo projects/demo --branch feature",
        description: "Merge feature into the current branch.",
      },
      {
        command: 'git merge --repo projects/demo --branch feature --no-ff -m "Merge feature"',
        description: "Always make a merge commit.",
      },
      { command: "git merge --repo projects/demo --abort", description: "Give up a conflicted merge." },
      { command: "git merge feature --no-edit", description: "Merge feature, as real git spells it." },
    ], { positionals: [{ name: "commit", into: "branch", description: "Same as --branch." }] }),
    leaf("cherry-pick", "Apply the change another commit made, as a new commit on HEAD.", cherryPickFlags, [
      { command: "git cherry-pick feature", description: "Copy the last commit of feature onto the current branch." },
      { command: "git cherry-pick -n 1a2b3c4", description: "Stage the change without committing." },
    ], {
      positionals: [{
        name: "commit",
        description: "The commit whose change to apply (none with --continue, --abort, --quit, --skip).",
      }],
      handler: handler("cherry-pick", "cherryPick"),
    }),
    leaf("clean", "Delete untracked files (git clean): -n lists them, -f deletes, -d includes folders.", cleanFlags, [
      { command: "git clean -n", description: "List the untracked files that -f would delete." },
      { command: "git clean -fd", description: "Delete untracked files and folders (ignored files stay)." },
    ], { positionals: [pathspec("Only clean under these paths")], afterDoubleDash: "path" }),
    leaf("blame", "Show which commit last changed each line of a file (git blame).", blameFlags, [
      { command: "git blame src/app.py", description: "Every line with its commit, author and date." },
      { command: "git blame -L 10,20 src/app.py", description: "Only lines 10 to 20." },
      { command: "git blame v1.0 -- src/app.py", description: "The file as it was at v1.0." },
    ], {
      positionals: [{
        name: "args",
        variadic: true,
        description: "A revision (default: HEAD, with the work tree's uncommitted lines), then the file.",
      }],
      afterDoubleDash: "path",
    }),
    leaf("grep", "Search the tracked files' lines for a pattern (git grep).", grepFlags, [
      { command: 'git grep -n "def main"', description: "Lines with their numbers." },
      { command: "git grep -l TODO -- src", description: "The files under src that mention TODO." },
      { command: 'git grep -E -i "fixme|todo"', description: "An extended, case-insensitive pattern." },
    ], {
      positionals: [{
        name: "args",
        variadic: true,
        description: "The pattern (unless -e gives it), then paths to search under.",
      }],
      afterDoubleDash: "path",
    }),
    leaf("rev-parse", "Print the commit id a revision names, or the current branch or repository.", revParseFlags, [
      { command: "git rev-parse HEAD", description: "The current commit's id." },
      { command: "git rev-parse --abbrev-ref HEAD", description: "The current branch's name." },
      { command: "git rev-parse --show-toplevel", description: "The repository's folder, relative to the root." },
    ], {
      positionals: [{ name: "revs", variadic: true, description: "Revisions to resolve." }],
      result: schema("rev-parse"),
      handler: handler("rev-parse", "revParse"),
    }),
    leaf("ls-files", "List the files in the index (tracked files), or untracked/modified ones.", lsFilesFlags, [
      { command: "git ls-files", description: "Every tracked file." },
      { command: "git ls-files src", description: "Tracked files under src." },
      { command: "git ls-files --others --exclude-standard", description: "Untracked files, ignored ones left out." },
    ], {
      positionals: [pathspec("Only these paths")],
      afterDoubleDash: "path",
      result: schema("ls-files"),
      handler: handler("ls-files", "lsFiles"),
    }),
    leaf("ls-remote", "List a remote's branches and tags (network: needs --confirm and git.remotes).", lsRemoteFlags, [
      {
        command: "git ls-remote --url https://git.example.com/org/app.git --confirm",
        description: "The remote's HEAD, branches and tags.",
      },
      { command: "git ls-remote https://git.example.com/org/app.git --confirm", description: "As real git spells it." },
    ], {
      capabilities: NET,
      handler: handler("ls-remote", "lsRemote"),
      positionals: [{ name: "repository", into: "url", description: "Same as --url." }],
    }),
    leaf(
      "clone",
      "Copy a remote repository into a new folder (network: needs --confirm and git.remotes).",
      cloneFlags,
      [
        {
          command: "git clone --url https://git.example.com/org/app.git --dir projects/app --confirm",
          description: "Clone and check out the remote's default branch.",
        },
        {
          command:
            "git clone --url https://git.example.com/org/app.git --dir projects/app --depth 1 --branch dev --confirm",
          description: "Only the last commit of dev.",
        },
        {
          command: "git clone https://git.example.com/org/app.git projects/app --confirm",
          description: "As real git spells it (without a folder: app, from the URL).",
        },
      ],
      {
        capabilities: NET,
        positionals: [
          { name: "repository", into: "url", description: "Same as --url." },
          { name: "directory", into: "dir", description: "Same as --dir (default: the URL's last part, as git)." },
        ],
      },
    ),
    leaf("fetch", "Bring a remote's new commits and tags in (network: needs --confirm and git.remotes).", fetchFlags, [
      {
        command: "git fetch --repo projects/app --confirm",
        description: "Update origin's remote-tracking branches (refs/remotes/origin/*) and follow its new tags.",
      },
      { command: "git fetch origin --confirm", description: "As real git spells it." },
      {
        command: "git fetch --repo projects/app --prune --confirm",
        description: "The same, and delete origin/<branch> for branches deleted on the remote.",
      },
    ], {
      capabilities: NET,
      positionals: [
        { name: "remote-name", into: "remote", description: "Same as --remote." },
        {
          name: "branch",
          description: "Only this branch (git fetch origin main): its remote-tracking branch and FETCH_HEAD.",
        },
      ],
    }),
    leaf("pull", "Fetch the current branch's upstream and merge it (network: needs --confirm).", pullFlags, [
      {
        command: "git pull --repo projects/app --confirm",
        description: "Fetch origin, then fast-forward or merge; conflicts are reported as Conflict.",
      },
      { command: "git pull origin main --confirm", description: "As real git spells it, naming the upstream." },
    ], {
      capabilities: NET,
      positionals: [
        { name: "remote-name", description: "The upstream's remote, if given: it must be the branch's upstream." },
        { name: "branch", description: "The upstream's branch, if given: it must be the branch's upstream." },
      ],
    }),
    leaf("remote", "List, add, remove or re-point remotes (no network).", remoteFlags, [
      { command: "git remote --repo projects/app", description: "Each remote with its URL." },
      {
        command: "git remote --repo projects/app add upstream https://git.example.com/org/app.git",
        description: "Add a remote (fetch it with `git fetch --remote upstream`).",
      },
      {
        command: "git remote --repo projects/app set-url origin https://git.example.com/org/app2.git",
        description: "Point origin elsewhere.",
      },
      { command: "git remote --repo projects/app remove upstream", description: "Forget a remote and its branches." },
    ], {
      handler: handler("remote", "remotes"),
      positionals: [
        { name: "action", description: "list (default), add, remove, set-url or get-url." },
        { name: "name", description: "The remote's name (add, remove, set-url)." },
        { name: "url", description: "Its https URL (add, set-url); no user or token in it." },
      ],
    }),
    leaf("push", "Send a branch's new commits to its upstream (network: needs --confirm).", pushFlags, [
      { command: "git push --repo projects/app --confirm", description: "The current branch to its upstream." },
      {
        command: "git push --repo projects/app --branch fix --set-upstream --confirm",
        description: "Create fix on origin and make it fix's upstream.",
      },
      { command: "git push -u origin fix --confirm", description: "The same, as real git spells it." },
      { command: "git push --repo projects/app --tags --confirm", description: "Send the tags origin lacks." },
      { command: "git push origin v1.0 --confirm", description: "Send one tag (and the history it needs)." },
      { command: "git push origin --delete fix --confirm", description: "Delete the branch fix on origin." },
    ], {
      capabilities: NET,
      positionals: [
        { name: "remote-name", into: "remote", description: "Same as --remote." },
        {
          name: "refspec",
          into: "branch",
          description: "The branch (or tag) to push (same as --branch); also git's `HEAD` (the current branch) and " +
            "`<branch>:<destination-branch>`.",
        },
      ],
      refusedFlags: {
        "--force": FORCE,
        "-f": FORCE,
        "--all": "pushes one branch at a time: `git push origin <branch> --confirm`.",
      },
    }),
  ],
};
