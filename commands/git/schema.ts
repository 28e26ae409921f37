/** zod schemas of every `git` result, and of the `git` section of pterm.json. */

import { z } from "zod";
import { checkPattern, checkProxy } from "./remote/gate.ts";

const remotePattern = z.string().superRefine((value, ctx) => {
  const problem = checkPattern(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

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
  remotes: z.strictObject({
    allow: z.array(remotePattern).default([]).describe(
      "URL prefixes git may reach (scheme://host[:port][/path]); https only unless a prefix names http:// itself.",
    ),
    deny: z.array(remotePattern).default([]).describe("URL prefixes refused even when allowed."),
  }).optional().describe("Remotes for clone, fetch and ls-remote; absent: none allowed."),
  proxy: z.string().superRefine((value, ctx) => {
    const problem = checkProxy(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }).optional().describe(
    "An http(s) proxy for remotes (http://host:port); its user and password go in skills/git/secrets/.env as " +
      "GIT_PROXY_USER and GIT_PROXY_PASSWORD.",
  ),
  ca_file: z.string().min(1).optional().describe(
    "A PEM file (path inside the workspace) of certificate authorities trusted for https remotes, besides the system's.",
  ),
  max_fetch_bytes: z.number().int().positive().optional().describe(
    "Largest pack a clone or fetch accepts (default 2 GiB); larger ones fail with InputTooLarge.",
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
  patch_artifact: z.string().nullable().describe(
    "The full patch as git's bytes, when too large for stdout or when some file in it is not UTF-8.",
  ),
  not_utf8: paths.describe(
    "Files whose lines are not UTF-8: stdout shows each of their bytes as one character, so only patch_artifact " +
      "is the exact patch.",
  ),
  withheld: paths.describe("Secret paths (or pterm state) left out."),
};

const tagInfo = z.strictObject({
  name: z.string(),
  target: oid.describe("The commit the tag leads to."),
  type: z.enum(["lightweight", "annotated"]),
  object: oid.describe("What refs/tags/<name> points to (the tag object when annotated)."),
  message: z.string().nullable(),
});

const remoteRef = z.strictObject({
  name: z.string(),
  oid,
  peeled: oid.optional().describe("For an annotated tag: the commit it names."),
  symref: z.string().optional().describe("For HEAD: the branch it names."),
});
const transfer = z.strictObject({
  objects: z.number().int().describe("Objects received."),
  bytes: z.number().int().describe("Bytes of pack received."),
  elapsed_ms: z.number().int(),
});

const fetchedRef = z.strictObject({
  remote: z.string().describe("The remote's ref."),
  local: z.string().describe("The local ref it updates."),
  old: oid.nullable(),
  new: oid.nullable().describe("null when the ref was pruned (fetch --prune)."),
  status: z.enum(["new", "fast-forward", "forced", "up-to-date", "rejected", "pruned"]),
  reason: z.string().optional(),
});

const stashEntry = z.strictObject({ ref: z.string(), commit_id: oid, message: z.string() });

export const resultSchemas = {
  "ls-remote": z.strictObject({
    ok: z.literal(true),
    command: z.literal("git ls-remote"),
    url: z.string(),
    refs: z.array(remoteRef),
  }),
  fetch: z.strictObject({
    ...base("git fetch"),
    remote: z.string(),
    url: z.string(),
    refs: z.array(fetchedRef).describe("Every ref the fetch looked at; up-to-date ones included."),
    updated: z.number().int(),
    rejected: z.number().int(),
    pruned: z.number().int().describe("Remote-tracking refs deleted by --prune."),
    transfer,
  }),
  push: z.union([
    z.strictObject({
      ...base("git push"),
      remote: z.string(),
      url: z.string(),
      branch: z.string(),
      ref: z.string().describe("The remote ref updated."),
      old: oid.nullable().describe("Where it was (null: it is new)."),
      new: oid,
      status: z.enum(["new", "fast-forward", "forced", "up-to-date"]),
      commits: z.number().int().describe("Commits sent."),
      objects: z.number().int().describe("Objects sent."),
      upstream_set: z.boolean(),
      elapsed_ms: z.number().int(),
    }),
    z.strictObject({
      ...base("git push"),
      remote: z.string(),
      url: z.string(),
      refs: z.array(z.strictObject({
        ref: z.string(),
        old: oid.nullable(),
        new: oid.nullable().describe("null: deleted."),
        status: z.enum(["new", "up-to-date", "deleted"]),
      })).describe("push --tags / a tag / --delete: each ref and what happened to it."),
      commits: z.number().int().describe("Commits sent."),
      objects: z.number().int().describe("Objects sent."),
      elapsed_ms: z.number().int(),
    }),
  ]),
  pull: z.strictObject({
    ...base("git pull"),
    remote: z.string(),
    url: z.string(),
    merged: z.string().describe("The remote-tracking ref merged (or, rebased: rebased onto)."),
    outcome: z.enum(["fast-forward", "merge", "up-to-date", "rebased"]),
    commit_id: oid.nullable(),
    head: oid,
    changed_paths: paths,
    conflicts: paths,
    fetched: z.array(fetchedRef),
    transfer,
  }),
  remote: z.strictObject({
    ...base("git remote"),
    action: z.enum(["list", "add", "remove", "set-url", "get-url"]),
    remotes: z.array(z.strictObject({
      name: z.string(),
      url: z.string().nullable(),
      fetch: z.array(z.string()),
      allowed: z.boolean().describe("Whether git.remotes in pterm.json lets fetch/push reach it."),
    })),
    removed_refs: z.number().int().optional().describe("remove: remote-tracking refs deleted."),
  }),
  clone: z.strictObject({
    ...base("git clone"),
    url: z.string(),
    branch: z.string().nullable().describe("The branch checked out (null: the remote is empty)."),
    head: oid.nullable(),
    refs: z.number().int().describe("Remote-tracking branches and tags written."),
    files: z.number().int().describe("Files checked out."),
    withheld: paths.describe(
      "Tracked files not written (secret paths such as .env, pterm's own state): in the index, so git status " +
        "does not list them, but absent from the work tree.",
    ),
    shallow: z.boolean(),
    transfer,
  }),
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
    files: z.array(z.strictObject({
      path: z.string(),
      xy: z.string().describe(
        "Index then work tree, `.` for unchanged (M A D T R), `??` untracked; a conflicted path has git's code: " +
          "UU both modified, AA both added, DU/UD deleted by us/them, AU/UA added by us/them, DD both deleted.",
      ),
      orig_path: z.string().optional().describe(
        "A staged rename (xy R.): the path HEAD has the file at, as git status pairs them.",
      ),
      submodule: z.string().optional().describe(
        "For a submodule: git's porcelain v2 state S<c><m><u> (C new commits, M modified content, U untracked " +
          "content, . none); its xy is .M when any is set, as in git's porcelain v1.",
      ),
    })),
    truncated: z.boolean(),
    withheld: paths,
    upstream: z.strictObject({
      name: z.string().describe("e.g. origin/main"),
      ahead: z.number().int().nullable().describe(
        "Commits on the branch that its upstream does not have (null: not counted, status.aheadBehind=false).",
      ),
      behind: z.number().int().nullable().describe("Commits on the upstream that the branch does not have."),
      gone: z.boolean().describe("The upstream is configured but its branch is gone (deleted on the remote)."),
    }).nullable().describe("The current branch's upstream (as of the last fetch); null: none."),
    in_progress: z.enum(["merge", "cherry-pick", "revert", "rebase"]).nullable().describe(
      "An operation stopped on conflicts or by --no-commit: finish it with `git <it> --continue` (or `git commit`), " +
        "or `git <it> --abort`.",
    ),
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
    warnings: z.array(z.string()).describe(
      "What the call did that may not be what was meant (a literal \\n; the project's git hooks, which pterm does " +
        "not run).",
    ),
  }),
  log: z.strictObject({ ...base("git log"), commits: z.array(commitSchema) }),
  shortlog: z.strictObject({
    ...base("git shortlog"),
    authors: z.array(z.strictObject({
      author: z.string().describe("The name (with -e, `Name <email>`)."),
      commits: z.number(),
      subjects: z.array(z.string()).describe("Their commits' subjects, oldest first (empty with -s)."),
    })),
  }),
  describe: z.strictObject({
    ...base("git describe"),
    description: z.string().describe("What git describe prints, e.g. v1.2-3-gabc1234 (with -dirty when asked)."),
    commit_id: oid,
    tag: z.string().nullable().describe("The tag it is described by (null: --always found none)."),
    depth: z.number().nullable().describe("Commits since that tag."),
    dirty: z.boolean(),
  }),
  config: z.strictObject({
    ...base("git config"),
    action: z.enum(["get", "get-all", "get-regexp", "list", "set", "unset"]),
    key: z.string().nullable().describe("The key read or written, lower-cased as git prints it (null for --list)."),
    values: z.array(z.string()).describe(
      "The values read (`key=value` for --list, `key value` for --get-regexp), credentials redacted; the value set.",
    ),
  }),
  reflog: z.strictObject({
    ...base("git reflog"),
    ref: z.string().describe("The reflog read: HEAD, refs/heads/main, …"),
    entries: z.array(z.strictObject({
      selector: z.string().describe("e.g. HEAD@{0}, usable as a revision."),
      commit_id: oid,
      previous: oid.nullable().describe("Where it was before (null: created)."),
      message: z.string(),
    })),
  }),
  branch: z.strictObject({
    ...base("git branch"),
    action: z.enum(["list", "create", "delete", "rename", "show-current", "set-upstream", "unset-upstream"]),
    current: z.string().nullable(),
    branches: z.array(z.strictObject({
      name: z.string(),
      commit: oid,
      current: z.boolean(),
      upstream: z.string().nullable().describe("What it tracks (e.g. origin/main; branch.<name>.remote/.merge)."),
    })),
    remote_branches: z.array(z.strictObject({
      name: z.string().describe("e.g. origin/main"),
      commit: oid,
      points_to: z.string().optional().describe("For origin/HEAD: the branch it names."),
    })).optional().describe("With --all: the remote-tracking branches."),
    name: z.string().nullable(),
    commit: oid.nullable(),
    upstream: z.string().nullable().optional().describe(
      "create, set-upstream: what <name> now tracks (e.g. origin/main); null: nothing.",
    ),
  }),
  checkout: z.strictObject({
    ...base("git checkout"),
    action: z.enum(["switch", "create", "detach", "restore"]),
    branch: z.string().nullable(),
    head: oid.nullable(),
    changed_paths: paths,
    truncated: z.boolean(),
    withheld: paths,
    upstream: z.string().nullable().optional().describe(
      "A new branch: what it was set up to track (e.g. origin/main, git's branch.autoSetupMerge); null: nothing.",
    ),
  }),
  switch: z.strictObject({
    ...base("git switch"),
    action: z.enum(["switch", "create", "detach"]),
    branch: z.string().nullable(),
    head: oid.nullable(),
    changed_paths: paths,
    truncated: z.boolean(),
    withheld: paths,
    upstream: z.string().nullable().optional().describe(
      "A new branch: what it was set up to track (e.g. origin/main, git's branch.autoSetupMerge); null: nothing.",
    ),
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
    action: z.enum(["pick", "continue", "abort", "quit", "skip"]).optional().describe("Absent: pick."),
    picked: oid,
    commit_id: oid.nullable().describe("null with --no-commit (or when it conflicted)."),
    changed_paths: paths,
    conflicts: paths,
  }),
  rebase: z.strictObject({
    ...base("git rebase"),
    action: z.enum(["start", "continue", "skip", "abort", "quit"]),
    outcome: z.enum(["up-to-date", "rebased", "stopped", "aborted", "quit"]).describe(
      "stopped: a pick conflicted; the rebase is in progress (git's .git/rebase-merge).",
    ),
    branch: z.string().nullable().optional().describe("The branch rebased (refs/heads/…); null: a detached HEAD."),
    head: oid.nullable(),
    onto: oid.optional(),
    picked: z.array(z.strictObject({ from: oid, to: oid })).optional().describe("Each commit picked: old id, new id."),
    skipped: z.array(oid).optional().describe("Left out: the upstream has their change already (patch-id)."),
    dropped: z.array(oid).optional().describe("Dropped: their change was in HEAD already when picked."),
    stopped_at: oid.nullable().optional(),
    conflicts: paths.optional(),
    changed_paths: paths.optional(),
  }),
  clean: z.strictObject({
    ...base("git clean"),
    dry_run: z.boolean(),
    removed: paths.describe("Deleted (or, with --dry-run, what would be)."),
    withheld: paths.describe("Untracked secret paths (.env*, secrets/): never deleted by pterm."),
    skipped: paths.describe("Untracked repositories of their own, left as git clean leaves them."),
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
    })).describe("Every line blamed (all of the file, or -L's range), as stdout lists them."),
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
  "rev-list": z.strictObject({
    ...base("git rev-list"),
    count: z.number().int().describe("How many commits were selected."),
    commits: z.array(oid).describe("Their ids in the printed order (empty with --count)."),
  }),
  "ls-tree": z.strictObject({
    ...base("git ls-tree"),
    entries: z.array(z.strictObject({ path: z.string(), mode: z.string(), oid })).describe(
      "The listed entries (secret paths are never listed).",
    ),
  }),
  "diff-tree": z.strictObject({
    ...base("git diff-tree"),
    commit: oid.nullable().describe("The commit id line printed, or null."),
    changes: z.array(z.strictObject({
      path: z.string(),
      status: z.enum(["A", "D", "M", "T"]),
      old_mode: z.string(),
      new_mode: z.string(),
      old_id: oid,
      new_id: oid,
    })),
  }),
  "cat-file": z.strictObject({
    ...base("git cat-file"),
    objects: z.array(z.strictObject({
      name: z.string().describe("The name as given."),
      id: oid.nullable().describe("null: no such object."),
      type: z.string().nullable(),
      size: z.number().int().nullable(),
    })),
  }),
  "for-each-ref": z.strictObject({
    ...base("git for-each-ref"),
    refs: z.array(z.strictObject({ name: z.string(), id: oid, type: z.string() })),
  }),
  "merge-base": z.strictObject({
    ...base("git merge-base"),
    bases: z.array(oid),
    is_ancestor: z.boolean().nullable().describe("With --is-ancestor: true (false is exit status 1, NoMatch)."),
  }),
  "show-ref": z.strictObject({
    ...base("git show-ref"),
    refs: z.array(z.strictObject({ name: z.string(), id: oid })),
  }),
  "symbolic-ref": z.strictObject({
    ...base("git symbolic-ref"),
    ref: z.string(),
    target: z.string().describe("The full ref it points to (refs/heads/main)."),
  }),
  "name-rev": z.strictObject({
    ...base("git name-rev"),
    names: z.array(z.strictObject({
      rev: z.string(),
      commit: oid,
      name: z.string().nullable().describe("null: no ref reaches it (git prints `undefined`)."),
    })),
  }),
  apply: z.strictObject({
    ...base("git apply"),
    applied: z.boolean().describe("Whether files were written (false for --check, --stat, --numstat)."),
    checked: z.boolean().describe("--check: the diff applies; nothing was written."),
    files: z.array(z.strictObject({
      path: z.string(),
      added: z.number().int().nullable().optional().describe("--stat/--numstat: lines added (null: binary)."),
      removed: z.number().int().nullable().optional(),
    })),
    conflicts: z.array(z.string()).optional().describe(
      "--3way: files whose merge conflicted (with --check: would conflict); a conflicted apply exits 1 as `Conflict`.",
    ),
  }),
  "hash-object": z.strictObject({
    ...base("git hash-object"),
    objects: z.array(z.strictObject({ path: z.string().nullable().describe("null: stdin."), id: oid })),
  }),
  var: z.strictObject({ ...base("git var"), variable: z.string(), value: z.string() }),
  "ls-files": z.strictObject({
    ...base("git ls-files"),
    which: z.enum(["cached", "others", "modified", "deleted", "unmerged"]),
    files: z.array(z.strictObject({
      path: z.string(),
      mode: z.string().optional(),
      oid: oid.optional(),
      stage: z.number().int().optional(),
    })),
    truncated: z.boolean(),
  }),
  diff: z.strictObject({
    ...base("git diff"),
    from: z.string(),
    to: z.string(),
    ...diffFields,
    unmerged: paths.describe(
      "Paths with a conflict in progress. The patch shows each as git does: the combined diff (`diff --cc`) of the " +
        "work-tree file against both sides, or `* Unmerged path <path>` when one side lacks it; they are not in files.",
    ),
  }),
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
      not_utf8: z.boolean().describe(
        "The file is text that is not UTF-8: stdout shows each byte as one character; content_artifact has its bytes.",
      ),
      content_artifact: z.string().nullable().describe(
        "The file's bytes, when binary, too long for stdout, or not UTF-8.",
      ),
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
  "stash show": z.strictObject({
    ...base("git stash show"),
    stash: z.string(),
    commit_id: oid,
    ...diffFields,
  }),
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
    action: z.enum(["revert", "continue", "abort", "quit", "skip"]).optional().describe("Absent: revert."),
    reverted: oid,
    commit_id: oid.nullable(),
    changed_paths: paths,
    conflicts: paths,
  }),
  merge: z.strictObject({
    ...base("git merge"),
    outcome: z.enum(["fast-forward", "merge", "up-to-date", "aborted", "quit", "squashed"]),
    commit_id: oid.nullable(),
    head: oid.nullable(),
    changed_paths: paths,
    conflicts: paths,
  }),
};
