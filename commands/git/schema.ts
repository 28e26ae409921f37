/** zod schemas of every `git` result, and of the `git` section of pterm.json. */

import { z } from "zod";

export const gitConfigSchema = z.strictObject({
  author: z.strictObject({
    name: z.string().min(1).describe("Author and committer name of commits and tags pterm makes."),
    email: z.string().describe("Their email."),
  }).optional().describe("Default author (else pterm <pterm@localhost>)."),
  default_repo: z.string().min(1).refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), {
    message: "must be a folder relative to the workspace root, without `..`",
  }).optional().describe(
    "The repository (relative to the workspace root) a git call means when it gives no --repo and the root is not one.",
  ),
});

const base = <C extends string>(command: C) => ({
  ok: z.literal(true),
  command: z.literal(command),
  repo_path: z.string().describe("The repository, relative to the workspace root."),
});

const oid = z.string().regex(/^[0-9a-f]{40}$/);
const paths = z.array(z.string());
const person = z.strictObject({ name: z.string(), email: z.string(), time: z.string(), timestamp: z.number() });

export const commitSchema = z.strictObject({
  id: oid,
  short_id: z.string(),
  author: person,
  committer: person,
  subject: z.string(),
  body: z.string(),
  parents: z.array(oid),
});

const counts = z.strictObject({
  untracked: z.number().int(),
  modified: z.number().int(),
  added: z.number().int(),
  changed: z.number().int(),
  removed: z.number().int(),
  missing: z.number().int(),
  conflicting: z.number().int(),
});

const diffFile = z.strictObject({
  path: z.string(),
  old_path: z.string().optional(),
  status: z.enum(["added", "modified", "deleted", "typechange"]),
  old_mode: z.string().nullable(),
  new_mode: z.string().nullable(),
  binary: z.boolean(),
  additions: z.number().int(),
  deletions: z.number().int(),
});

const diffFields = {
  files: z.array(diffFile),
  additions: z.number().int(),
  deletions: z.number().int(),
  truncated: z.boolean().describe("files lists only the first entries."),
  patch_artifact: z.string().nullable().describe("The full patch, when too large for stdout."),
  withheld: paths.describe("Secret paths (or pterm state) left out."),
};

const tagInfo = z.strictObject({
  name: z.string(),
  target: oid.describe("The commit the tag leads to."),
  type: z.enum(["lightweight", "annotated"]),
  object: oid.describe("What refs/tags/<name> points to (the tag object when annotated)."),
  message: z.string().nullable(),
});

const stashEntry = z.strictObject({ ref: z.string(), commit_id: oid, message: z.string() });

export const resultSchemas = {
  init: z.strictObject({
    ...base("git init"),
    git_dir: z.string(),
    created: z.boolean().describe("false when the folder already was a repository (left as it was)."),
    initial_branch: z.string(),
  }),
  status: z.strictObject({
    ...base("git status"),
    branch: z.string().nullable().describe("null when HEAD is detached."),
    head: oid.nullable().describe("null before the first commit."),
    is_clean: z.boolean(),
    counts,
    files: z.array(z.strictObject({ path: z.string(), xy: z.string() })),
    truncated: z.boolean(),
    withheld: paths,
    in_progress: z.enum(["merge", "revert"]).nullable(),
  }),
  add: z.strictObject({
    ...base("git add"),
    added_patterns: paths,
    added: paths,
    updated: paths,
    removed: paths,
    truncated: z.boolean(),
    withheld: paths,
  }),
  commit: z.strictObject({
    ...base("git commit"),
    commit_id: oid,
    short_id: z.string(),
    branch: z.string().nullable(),
    parents: z.array(oid),
    subject: z.string(),
    amended: z.boolean().describe("true for --amend: the commit replaced the previous HEAD commit."),
    warnings: z.array(z.string()).describe("What the call did that may not be what was meant (a literal \\n)."),
  }),
  log: z.strictObject({ ...base("git log"), commits: z.array(commitSchema) }),
  branch: z.strictObject({
    ...base("git branch"),
    action: z.enum(["list", "create", "delete", "rename", "show-current"]),
    current: z.string().nullable(),
    branches: z.array(z.strictObject({ name: z.string(), commit: oid, current: z.boolean() })),
    remote_branches: z.array(z.strictObject({ name: z.string(), commit: oid })).optional().describe(
      "With --all: remote-tracking branches (remotes/<remote>/<branch>).",
    ),
    name: z.string().nullable(),
    commit: oid.nullable(),
  }),
  checkout: z.strictObject({
    ...base("git checkout"),
    action: z.enum(["switch", "create", "detach", "restore"]),
    branch: z.string().nullable(),
    head: oid.nullable(),
    changed_paths: paths,
    truncated: z.boolean(),
    withheld: paths,
  }),
  switch: z.strictObject({
    ...base("git switch"),
    action: z.enum(["switch", "create", "detach"]),
    branch: z.string().nullable(),
    head: oid.nullable(),
    changed_paths: paths,
    truncated: z.boolean(),
    withheld: paths,
  }),
  restore: z.strictObject({
    ...base("git restore"),
    staged: z.boolean().describe("The index was restored (unstaged)."),
    worktree: z.boolean().describe("The work tree was restored."),
    source: z.string().nullable(),
    changed_paths: paths,
    truncated: z.boolean(),
    withheld: paths,
  }),
  "cherry-pick": z.strictObject({
    ...base("git cherry-pick"),
    picked: oid,
    commit_id: oid.nullable().describe("null with --no-commit (or when it conflicted)."),
    changed_paths: paths,
    conflicts: paths,
  }),
  clean: z.strictObject({
    ...base("git clean"),
    dry_run: z.boolean(),
    removed: paths.describe("Deleted (or, with --dry-run, what would be)."),
    withheld: paths.describe("Untracked secret paths (.env*, secrets/): never deleted by pterm."),
    truncated: z.boolean(),
  }),
  blame: z.strictObject({
    ...base("git blame"),
    path: z.string(),
    rev: z.string().describe("HEAD (with the work tree's lines) or the revision given."),
    lines: z.array(z.strictObject({
      line: z.number().int(),
      commit: z.string().describe("40 zeros for a line not committed yet."),
      boundary: z.boolean().describe("The commit has no parent (git prints ^)."),
      author: z.string(),
      time: z.string().nullable(),
      text: z.string(),
    })),
    truncated: z.boolean(),
  }),
  grep: z.strictObject({
    ...base("git grep"),
    pattern: z.string(),
    matched: z.boolean().describe("false when no line matched (git grep exits 1 then; pterm reports it here)."),
    files: z.array(z.strictObject({ path: z.string(), count: z.number().int() })),
    matches: z.array(z.strictObject({ path: z.string(), line: z.number().int(), text: z.string() })),
    truncated: z.boolean().describe("matches lists only the first 5,000."),
  }),
  "rev-parse": z.strictObject({ ...base("git rev-parse"), values: z.array(z.string()) }),
  "ls-files": z.strictObject({
    ...base("git ls-files"),
    which: z.enum(["cached", "others", "modified", "deleted"]),
    files: z.array(z.strictObject({
      path: z.string(),
      mode: z.string().optional(),
      oid: oid.optional(),
      stage: z.number().int().optional(),
    })),
    truncated: z.boolean(),
  }),
  diff: z.strictObject({ ...base("git diff"), from: z.string(), to: z.string(), ...diffFields }),
  show: z.union([
    z.strictObject({
      ...base("git show"),
      commit: commitSchema,
      tag: tagInfo.nullable(),
      ...diffFields,
    }),
    z.strictObject({
      ...base("git show"),
      rev: z.string().describe("`<rev>:<path>` as given."),
      path: z.string(),
      object_id: oid,
      type: z.enum(["blob", "tree"]),
      entries: z.array(z.string()).nullable().describe("For a folder: its entries (folders end in /)."),
      binary: z.boolean(),
      content_artifact: z.string().nullable().describe("The file's bytes, when binary or too long for stdout."),
    }),
  ]),
  reset: z.strictObject({
    ...base("git reset"),
    mode: z.enum(["soft", "mixed", "hard", "paths"]),
    head: oid.nullable(),
    changed_paths: paths,
    truncated: z.boolean(),
  }),
  rm: z.strictObject({ ...base("git rm"), removed: paths, cached: z.boolean() }),
  mv: z.strictObject({ ...base("git mv"), moved: z.array(z.strictObject({ from: z.string(), to: z.string() })) }),
  "stash push": z.strictObject({
    ...base("git stash push"),
    stash: z.string().nullable().describe("null when there was nothing to stash."),
    commit_id: oid.nullable(),
    message: z.string().nullable(),
    changed_paths: paths,
  }),
  "stash pop": z.strictObject({
    ...base("git stash pop"),
    stash: z.string(),
    commit_id: oid,
    changed_paths: paths,
    conflicts: paths,
    dropped: z.boolean(),
  }),
  "stash apply": z.strictObject({
    ...base("git stash apply"),
    stash: z.string(),
    commit_id: oid,
    changed_paths: paths,
    conflicts: paths,
    dropped: z.boolean(),
  }),
  "stash list": z.strictObject({ ...base("git stash list"), entries: z.array(stashEntry) }),
  "stash drop": z.strictObject({ ...base("git stash drop"), stash: z.string(), commit_id: oid }),
  "stash clear": z.strictObject({ ...base("git stash clear"), cleared: z.number().int() }),
  tag: z.strictObject({
    ...base("git tag"),
    action: z.enum(["list", "create", "delete"]),
    tags: z.array(tagInfo),
    name: z.string().nullable(),
    target: oid.nullable(),
  }),
  revert: z.strictObject({
    ...base("git revert"),
    reverted: oid,
    commit_id: oid.nullable(),
    changed_paths: paths,
    conflicts: paths,
  }),
  merge: z.strictObject({
    ...base("git merge"),
    outcome: z.enum(["fast-forward", "merge", "up-to-date", "aborted"]),
    commit_id: oid.nullable(),
    head: oid.nullable(),
    changed_paths: paths,
    conflicts: paths,
  }),
};
