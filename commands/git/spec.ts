/**
 * `git`: the local git workflow (PRD-0013 v13 + v14), reading and writing the repository's
 * files (index, objects, packs, refs) directly. Declaration only: nothing here imports an npm
 * package.
 */

import type { CommandSpec, FlagSpec, HandlerRef, LeafSpec } from "../../core/declaration.ts";
import { lazyImport } from "../../core/lazy.ts";

const repoFlag = (access: "read" | "write") =>
  ({
    name: "repo",
    type: "string",
    required: true,
    valueName: "path",
    path: access,
    description: "The repository's top folder (the one holding .git), relative to the workspace root.",
  }) as const satisfies FlagSpec;

const pathFlag = (what: string) =>
  ({
    name: "path",
    type: "string",
    repeatable: true,
    valueName: "path",
    description: `${what} (relative to the repository; a folder means everything in it).`,
  }) as const satisfies FlagSpec;

const FS = ["fs.read", "fs.write"] as const;
const loadSchemas = () => lazyImport<typeof import("./schema.ts")>(new URL("./schema.ts", import.meta.url));
const schema = (name: string) => async () => ((await loadSchemas()).resultSchemas as Record<string, unknown>)[name];

/**
 * Which module under handlers/ serves each subcommand, and under which export: a `git status`
 * loads basic.ts only, not the diff or merge code.
 */
const HANDLER_EXPORTS = {
  basic: ["init", "status", "add", "commit", "log"],
  history: ["diff", "show"],
  change: [
    "branch",
    "checkout",
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
} as const;
type HandlerModules = {
  basic: typeof import("./handlers/basic.ts");
  history: typeof import("./handlers/history.ts");
  change: typeof import("./handlers/change.ts");
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
    required: true,
    valueName: "path",
    path: "write",
    description: "Folder to turn into a repository (created if missing), relative to the workspace root.",
  },
  {
    name: "initial-branch",
    type: "string",
    default: "main",
    valueName: "name",
    description: "Name of the first branch.",
  },
] as const satisfies readonly FlagSpec[];

export const statusFlags = [
  repoFlag("read"),
  pathFlag("Only report these paths"),
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
    name: "force",
    short: "f",
    type: "boolean",
    description: "Also stage files a .gitignore excludes (only those named by --path).",
  },
] as const satisfies readonly FlagSpec[];

export const commitFlags = [
  repoFlag("write"),
  {
    name: "message",
    short: "m",
    type: "string",
    required: true,
    valueName: "text",
    description: "The commit message.",
  },
  {
    name: "author",
    type: "string",
    valueName: "Name <email>",
    description:
      'Author and committer, e.g. "Ada <ada@example.com>" (default: git.author in pterm.json, else pterm <pterm@localhost>).',
  },
  { name: "allow-empty", type: "boolean", description: "Commit even when nothing is staged." },
] as const satisfies readonly FlagSpec[];

export const logFlags = [
  repoFlag("read"),
  { name: "max", short: "n", type: "number", default: 20, min: 1, max: 10000, description: "Most commits to list." },
  {
    name: "ref",
    type: "string",
    valueName: "rev",
    description: "Start from this branch, tag or commit (default HEAD).",
  },
  { name: "path", type: "string", valueName: "path", description: "Only commits that changed this file or folder." },
] as const satisfies readonly FlagSpec[];

export const branchFlags = [
  repoFlag("write"),
  {
    name: "delete",
    short: "d",
    type: "boolean",
    description: "Delete the branch <name> (refused if not merged into HEAD, unless --force).",
  },
  { name: "move", type: "boolean", description: "Rename the branch <name> to <start> (the second word)." },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Delete an unmerged branch, or move/create over an existing one.",
  },
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
  pathFlag("Restore this path from <target> (or from the index when no target is given) instead of switching"),
  { name: "detach", type: "boolean", description: "Check out <target> as a detached HEAD even if it is a branch." },
  {
    name: "force",
    short: "f",
    type: "boolean",
    description: "Switch even if local changes would be overwritten (they are discarded).",
  },
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
  { name: "staged", type: "boolean", description: "Compare the index (staged changes) instead of the work tree." },
  { name: "cached", type: "boolean", description: "Same as --staged." },
  pathFlag("Only this path"),
  { name: "stat", type: "boolean", description: "Print a diffstat instead of the patch." },
  { name: "name-only", type: "boolean", description: "Print only the names of changed files." },
  {
    name: "context",
    short: "U",
    type: "number",
    default: 3,
    min: 0,
    max: 1000,
    description: "Lines of context around each change.",
  },
  ...renameFlags,
] as const satisfies readonly FlagSpec[];

export const showFlags = [
  repoFlag("read"),
  pathFlag("Only show the diff of this path"),
  { name: "stat", type: "boolean", description: "Print a diffstat instead of the patch." },
  { name: "name-only", type: "boolean", description: "Print only the names of changed files." },
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
] as const satisfies readonly FlagSpec[];

export const rmFlags = [
  repoFlag("write"),
  pathFlag("Remove this tracked path"),
  { name: "cached", type: "boolean", description: "Only remove from the index; keep the file in the work tree." },
  { name: "recursive", short: "r", type: "boolean", description: "Allow removing a folder." },
  { name: "force", short: "f", type: "boolean", description: "Remove even with local or staged changes." },
] as const satisfies readonly FlagSpec[];

export const mvFlags = [
  repoFlag("write"),
  { name: "force", short: "f", type: "boolean", description: "Overwrite an existing destination file." },
] as const satisfies readonly FlagSpec[];

export const stashPushFlags = [
  repoFlag("write"),
  { name: "message", short: "m", type: "string", valueName: "text", description: "A description for the stash entry." },
] as const satisfies readonly FlagSpec[];

export const stashRefFlags = [repoFlag("write")] as const satisfies readonly FlagSpec[];

export const tagFlags = [
  repoFlag("write"),
  {
    name: "message",
    short: "m",
    type: "string",
    valueName: "text",
    description: "Make an annotated tag with this message.",
  },
  { name: "delete", short: "d", type: "boolean", description: "Delete the tag <name>." },
  { name: "force", short: "f", type: "boolean", description: "Replace an existing tag of that name." },
] as const satisfies readonly FlagSpec[];

export const revertFlags = [
  repoFlag("write"),
  { name: "ref", type: "string", required: true, valueName: "rev", description: "The commit to revert." },
  {
    name: "no-commit",
    type: "boolean",
    description: "Apply the reverse change to index and work tree without committing.",
  },
] as const satisfies readonly FlagSpec[];

export const mergeFlags = [
  repoFlag("write"),
  { name: "branch", type: "string", valueName: "rev", description: "The branch (or commit) to merge into HEAD." },
  { name: "no-ff", type: "boolean", description: "Always make a merge commit, even when a fast-forward is possible." },
  { name: "message", short: "m", type: "string", valueName: "text", description: "Message of the merge commit." },
  {
    name: "abort",
    type: "boolean",
    description: "Abandon a merge that stopped on conflicts (restores HEAD's version).",
  },
] as const satisfies readonly FlagSpec[];

const stashPositional = [{
  name: "stash",
  description: "Which entry: stash@{N} or N (default 0, the newest).",
}] as const;

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
  summary:
    "Local git: init, status, add, commit, log, branch, checkout, diff, show, reset, rm, mv, stash, tag, revert, merge.",
  description: [
    "A git for the workspace, implemented inside pterm (no git program runs). Repositories are ordinary git",
    "repositories: the real git reads what pterm writes and the other way round. --repo names the repository's",
    "top folder relative to the workspace root; paths after --path are relative to the repository.",
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
    "renames and build git's virtual base for criss-cross histories. No remotes: clone, fetch, pull and push",
    "are not available.",
  ].join("\n"),
  config: async () => (await loadSchemas()).gitConfigSchema,
  examples: [
    { command: "git init --dir projects/demo", description: "Create a repository." },
    { command: "git status --repo projects/demo", description: "See what changed." },
  ],
  subcommands: [
    leaf("init", "Create an empty repository (an existing one is reported, not touched).", initFlags, [
      { command: "git init --dir projects/demo", description: "Create projects/demo with a main branch." },
      { command: "git init --dir projects/demo --initial-branch trunk", description: "Name the first branch trunk." },
    ]),
    leaf("status", "Branch, staged and unstaged changes, untracked files (with JGit's counts).", statusFlags, [
      { command: "git status --repo projects/demo", description: "Summary and per-file status." },
    ]),
    leaf("add", "Stage changes (new, modified and deleted files).", addFlags, [
      { command: "git add --repo projects/demo --all", description: "Stage everything, like git add -A." },
      { command: "git add --repo projects/demo --path src/app.ts --path README.md", description: "Stage two paths." },
    ]),
    leaf("commit", "Record the staged changes as a commit on the current branch.", commitFlags, [
      { command: 'git commit --repo projects/demo --message "Add parser"', description: "Commit what is staged." },
      {
        command: 'git commit --repo projects/demo -m "Start" --author "Ada <ada@example.com>" --allow-empty',
        description: "An empty commit with an explicit author.",
      },
    ]),
    leaf("log", "List commits, newest first.", logFlags, [
      { command: "git log --repo projects/demo --max 5", description: "The last five commits of HEAD." },
      {
        command: "git log --repo projects/demo --ref feature --path src/app.ts",
        description: "Commits of feature touching one file.",
      },
    ]),
    leaf("branch", "List, create, delete or rename branches.", branchFlags, [
      { command: "git branch --repo projects/demo", description: "List branches; the current one is marked." },
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
    ], { positionals: [{ name: "target", description: "Branch, tag or commit (with --create: the start point)." }] }),
    leaf("diff", "Show changes as a unified diff (work tree, index, or between commits).", diffFlags, [
      { command: "git diff --repo projects/demo", description: "Unstaged changes (work tree vs index)." },
      { command: "git diff --repo projects/demo --staged", description: "Staged changes (index vs HEAD)." },
      { command: "git diff --repo projects/demo main feature --stat", description: "Diffstat between two branches." },
      {
        command: "git diff --repo projects/demo HEAD~1 --path src",
        description: "Work tree vs the previous commit, src only.",
      },
    ], {
      positionals: [
        {
          name: "from",
          description: "Compare from this commit (alone: against the work tree, or the index with --staged).",
        },
        { name: "to", description: "Compare to this commit." },
      ],
    }),
    leaf("show", "Show a commit: its metadata and its diff.", showFlags, [
      { command: "git show --repo projects/demo", description: "The HEAD commit and its patch." },
      { command: "git show --repo projects/demo v1.0 --stat", description: "A tagged commit, with a diffstat." },
    ], { positionals: [{ name: "rev", description: "The commit (or tag) to show; default HEAD." }] }),
    leaf("reset", "Move HEAD (--soft, --mixed, --hard) or unstage paths.", resetFlags, [
      { command: "git reset --repo projects/demo --hard HEAD~1", description: "Drop the last commit and its changes." },
      { command: "git reset --repo projects/demo --soft HEAD~1", description: "Undo the last commit, keep it staged." },
      { command: "git reset --repo projects/demo --path src/app.ts", description: "Unstage one file." },
    ], { positionals: [{ name: "rev", description: "The commit to reset to (default HEAD)." }] }),
    leaf("rm", "Remove tracked files from the index and the work tree.", rmFlags, [
      { command: "git rm --repo projects/demo --path old.txt", description: "Delete a file and stage the deletion." },
      {
        command: "git rm --repo projects/demo --cached --recursive --path build",
        description: "Stop tracking a folder, keep the files.",
      },
    ]),
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
    ]),
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
    ]),
  ],
};
