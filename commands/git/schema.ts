/** zod schemas of every `git` result, and of the `git` section of pterm.json. */

import { z } from "zod";

export const gitConfigSchema = z.strictObject({
  author: z.strictObject({
    name: z.string().min(1).describe("Author and committer name of commits and tags pterm makes."),
    email: z.string().describe("Their email."),
  }).optional().describe("Default author (else pterm <pterm@localhost>)."),
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
  status: z.enum(["added", "modified", "deleted", "typechange", "renamed"]),
  similarity: z.number().int().optional().describe("For a rename: git's similarity index, in percent."),
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
  }),
  log: z.strictObject({ ...base("git log"), commits: z.array(commitSchema) }),
  branch: z.strictObject({
    ...base("git branch"),
    action: z.enum(["list", "create", "delete", "rename"]),
    current: z.string().nullable(),
    branches: z.array(z.strictObject({ name: z.string(), commit: oid, current: z.boolean() })),
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
  diff: z.strictObject({ ...base("git diff"), from: z.string(), to: z.string(), ...diffFields }),
  show: z.strictObject({
    ...base("git show"),
    commit: commitSchema,
    tag: tagInfo.nullable(),
    ...diffFields,
  }),
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
