/**
 * The git library other commands build on (the `patch` command: its final commit and its
 * git.reset / git.revert / git.tag blocks). Plain async functions over an absolute work-tree
 * path that the caller has already confined to the workspace root. They are the same code the
 * `git` subcommands run.
 *
 * Locking: mutating functions take `{ locked: true }` and must run inside `withRepoLock(dir, fn)`,
 * which holds git's own `.git/index.lock` for the whole of `fn`. The index is changed in memory
 * and written (lock file + rename) when `fn` returns; if `fn` throws, index changes are
 * discarded. Ref updates (commit, reset, tag) are written immediately under their own
 * `<ref>.lock`; `snapshotGitState` / `restoreGitState` put them back after a failure.
 *
 * Secrets: paths inside a `secrets/` folder or named `.env*` are never staged or written.
 *
 * Additions to the agreed shape (all optional): `opts.root` (the workspace root) on
 * stagePaths / reset / revert / pathsChangedBy — when `dir` is the root itself, pterm's own
 * state (audit/, artifacts/, sessions/, pterm.json) is then treated as invisible too; and the
 * `reverted` field in revert's result.
 */

import { PtermError } from "../../core/errors.ts";
import { stage } from "./worktree/add.ts";
import { commitIndex as commitLib, SEQUENCE_FILES } from "./porcelain/commit.ts";
import {
  authorFromConfig as authorFromConfigLib,
  type GitAuthor,
  parseAuthor as parseAuthorLib,
} from "./repo/identity.ts";
import { revertCommit } from "./porcelain/pick.ts";
import { pathsChangedBy as pathsChangedByLib, resetTo } from "./porcelain/reset.ts";
import { createTag } from "./porcelain/tags.ts";
import {
  emptyEntry,
  entryMtimeMs,
  type Index,
  type IndexEntry,
  S_IFGITLINK,
  S_IFLNK,
  statMatches,
} from "./worktree/index_file.ts";
import { hashWorktreeFile } from "./worktree/compare.ts";
import { TextConversion } from "./worktree/convert.ts";
import { disableSymlinks, excludePtermState, isRepositoryDir, openRepo, type Repo } from "./repo/repo.ts";
import { resolveRevision } from "./history/revparse.ts";
import { mergeFileBytes } from "./merge/merge.ts";
import { type Sequence, sequenceInProgress } from "./merge/sequence.ts";
import { assertLocked, discardPendingIndex, loadIndex, withRepoLock as withLock } from "./repo/state.ts";
import { normalizeUserPath, type PathPolicy, pathPolicy } from "./worktree/worktree.ts";

export type { GitAuthor };

/** The author from the git section of pterm.json (`{"author": {"name", "email"}}`), else `pterm <pterm@localhost>`. */
export function authorFromConfig(section: unknown): GitAuthor {
  return authorFromConfigLib(section);
}

/** "Name <email>" → GitAuthor; InvalidArgs if malformed. */
export function parseAuthor(text: string): GitAuthor {
  return parseAuthorLib(text);
}

export function isRepository(dir: string): Promise<boolean> {
  return Promise.resolve(isRepositoryDir(dir));
}

/**
 * The merge, cherry-pick, revert or rebase stopped in the repository (its MERGE_HEAD, CHERRY_PICK_HEAD,
 * REVERT_HEAD or rebase state folder), or null: a commit made now would conclude it, or (a rebase) be taken
 * into it without its own message.
 */
export function operationInProgress(dir: string): Promise<Sequence | null> {
  return Promise.resolve(sequenceInProgress(open(dir)));
}

/**
 * A repository at the workspace root: pterm's own state (audit/, artifacts/, sessions/) goes
 * into `.git/info/exclude`, as every git command does there, so real git never lists it.
 */
export function hideWorkspaceState(dir: string): Promise<void> {
  excludePtermState(open(dir).commondir);
  return Promise.resolve();
}

function open(dir: string): Repo {
  return openRepo(dir);
}

function policyFor(dir: string, root?: string): PathPolicy {
  if (root === undefined) return pathPolicy(dir, dir);
  const rel = dir === root ? "." : dir.startsWith(root + "/") ? dir.slice(root.length + 1) : dir;
  return pathPolicy(rel, dir);
}

/** Holds git's own `index.lock` for `fn` (RepoLocked if someone else holds it). */
export async function withRepoLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  // Owned by "patch": a killed patch run's lock is recovered by patch's journal, not by the next git command.
  return await withLock(open(dir), fn, "patch");
}

/**
 * Like `git add -A -- <paths>` (deletions staged too), inside a held lock. Paths are relative to `dir`.
 * `written`: the caller has just written these files itself (their stat data is recorded whole; see `stage`).
 * `blobs`: the content to record for some of them (see `stage`).
 */
export async function stagePaths(
  dir: string,
  paths: readonly string[],
  opts: { locked: true; root?: string; written?: boolean; blobs?: ReadonlyMap<string, Uint8Array> },
): Promise<void> {
  const repo = open(dir);
  assertLocked(repo, "stagePaths");
  if (paths.length === 0) return;
  const specs = paths.map((p) => normalizeUserPath(p));
  const blobs = opts.blobs && new Map([...opts.blobs].map(([path, bytes]) => [normalizeUserPath(path), bytes]));
  await stage(repo, loadIndex(repo), policyFor(dir, opts.root), specs, { written: opts.written, blobs });
}

/** The index's mode of each path that has an entry (stage 0), e.g. 0o120000 for a link. */
export function indexModes(
  dir: string,
  paths: readonly string[],
  _opts: { locked: true },
): Promise<Record<string, number>> {
  const repo = open(dir);
  assertLocked(repo, "indexModes");
  const index = loadIndex(repo);
  const modes: Record<string, number> = {};
  for (const path of paths) {
    const entry = index.entries.get(normalizeUserPath(path));
    if (entry) modes[path] = entry.mode;
  }
  return Promise.resolve(modes);
}

/** The commit a submodule pointer (a 160000 index entry) at `path` records, or null when there is none. */
export function gitlinkOid(dir: string, path: string, _opts: { locked: true }): Promise<string | null> {
  const repo = open(dir);
  assertLocked(repo, "gitlinkOid");
  const entry = loadIndex(repo).entries.get(normalizeUserPath(path));
  return Promise.resolve(entry && entry.mode === 0o160000 ? entry.oid : null);
}

/**
 * The index's entry (stage 0) at `path`: its blob id, its mode, and whether the file's lstat still
 * matches the stat data the index keeps for it (null: no file there) — what git's ie_match_stat
 * checks before `git apply --index` trusts a file. Null when there is no entry.
 */
export async function indexEntry(
  dir: string,
  path: string,
): Promise<{ oid: string; mode: number; matches: boolean | null } | null> {
  const normalized = normalizeUserPath(path);
  const repo = open(dir);
  const index = loadIndex(repo);
  const entry = index.entries.get(normalized);
  if (!entry) return null;
  let info: Deno.FileInfo | null = null;
  try {
    info = Deno.lstatSync(`${dir}/${normalized}`);
  } catch { /* no file there */ }
  return {
    oid: entry.oid,
    mode: entry.mode,
    matches: info && await matchesEntry(repo, index.fileMtimeMs, entry, info),
  };
}

/**
 * Whether the work-tree file matches its index entry as git apply's verify_index_match decides
 * (ce_match_stat): by its stat data; an entry not older than the index file (racy) is read as
 * well, in git's form (line endings converted as `core.autocrlf` and the attributes say).
 */
async function matchesEntry(repo: Repo, indexMtimeMs: number, entry: IndexEntry, info: Deno.FileInfo) {
  if (!statMatches(entry, info)) return false;
  if (entryMtimeMs(entry) < indexMtimeMs) return true;
  return (await hashWorktreeFile(repo, entry.path, info)) === entry.oid;
}

/**
 * How `git apply` sees the work tree's files of the repository at `dir`: `toGit` is the content
 * it patches — with `fromIndex` (`--index`) the index's blob, as git reads it once the file has
 * matched its entry; otherwise the file in git's form, line endings converted whatever the index
 * holds, or left as they are with `keepCrlf` (the diff's own old lines end in CRLF) — and
 * `toWorktree` what it writes back for a result (line endings as a checkout writes them). The
 * attribute files and the index are read once.
 */
export function lineEndings(dir: string, options: { fromIndex: boolean }): {
  toGit(path: string, bytes: Uint8Array, keepCrlf: boolean): Promise<Uint8Array>;
  toWorktree(path: string, bytes: Uint8Array): Promise<Uint8Array>;
} {
  let opened: { repo: Repo; conversion: TextConversion; index: Index | null } | null = null;
  const repoOf = () => {
    if (opened) return opened;
    const repo = open(dir);
    return opened = {
      repo,
      conversion: new TextConversion(repo, null),
      index: options.fromIndex ? loadIndex(repo) : null,
    };
  };
  return {
    toGit: async (path, bytes, keepCrlf) => {
      const { repo, conversion, index } = repoOf();
      const normalized = normalizeUserPath(path);
      const staged = index && await stagedBlob(repo, index, normalized);
      if (staged && (staged.mode & 0o170000) === 0o100000) return staged.bytes;
      return await conversion.toGit(normalized, bytes, { patching: { keepCrlf } });
    },
    toWorktree: (path, bytes) => repoOf().conversion.toWorktree(normalizeUserPath(path), bytes),
  };
}

/** What the index holds at `path` (stage 0): the blob's bytes and the entry's mode, or null. */
export function indexBlob(dir: string, path: string): Promise<{ bytes: Uint8Array; mode: number } | null> {
  const repo = open(dir);
  return stagedBlob(repo, loadIndex(repo), normalizeUserPath(path));
}

/** The blob `index` holds at a normalized `path` (stage 0) and the entry's mode; null for none or a submodule. */
async function stagedBlob(repo: Repo, index: Index, path: string): Promise<{ bytes: Uint8Array; mode: number } | null> {
  const entry = index.entries.get(path);
  if (!entry || entry.mode === S_IFGITLINK) return null;
  return { bytes: await repo.objects.readTyped(entry.oid, "blob"), mode: entry.mode };
}

/**
 * Sets index entries to new contents without touching the work tree (`git apply --cached`): each
 * path gets a blob of `bytes` with `mode`, or leaves the index when `bytes` is null.
 */
export async function writeIndexEntries(
  dir: string,
  entries: readonly { path: string; bytes: Uint8Array | null; mode: number }[],
  _opts: { locked: true },
): Promise<void> {
  const repo = open(dir);
  assertLocked(repo, "writeIndexEntries");
  const index = loadIndex(repo);
  for (const entry of entries) {
    const path = normalizeUserPath(entry.path);
    if (entry.bytes === null) {
      index.remove(path);
      continue;
    }
    index.set(emptyEntry(path, await repo.objects.write("blob", entry.bytes), entry.mode), true);
  }
}

/**
 * The blob an abbreviated object name (a diff's `index <pre>..<post>` side) names in the
 * repository, as `git apply --3way` looks its preimage up (get_oid, then read_blob_object): null
 * when the repository lacks it, the name is ambiguous or names no blob.
 */
export async function blobByPrefix(dir: string, prefix: string): Promise<Uint8Array | null> {
  const repo = open(dir);
  let oid: string | null;
  try {
    oid = await repo.objects.expand(prefix);
  } catch {
    return null;
  }
  if (oid === null) return null;
  const object = await repo.objects.read(oid);
  return object.type === "blob" ? object.content : null;
}

/**
 * `git apply --3way`'s merge of one file (apply.c's three_way_merge): identical sides settle it,
 * else git's file merge with the labels `ours` and `theirs` (base: `base`). A binary file is not
 * merged: our side stays, as a conflict, and `warning` is git's line saying so.
 */
export async function threeWayMerge(
  dir: string,
  path: string,
  sides: { base: Uint8Array; ours: Uint8Array; theirs: Uint8Array },
): Promise<{ bytes: Uint8Array; conflicted: boolean; warning: string | null }> {
  const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);
  if (same(sides.base, sides.ours)) return { bytes: sides.theirs, conflicted: false, warning: null };
  if (same(sides.base, sides.theirs) || same(sides.ours, sides.theirs)) {
    return { bytes: sides.ours, conflicted: false, warning: null };
  }
  const merged = await mergeFileBytes(open(dir), normalizeUserPath(path), sides, {
    ours: "ours",
    theirs: "theirs",
    base: "base",
  });
  return {
    bytes: merged.bytes,
    conflicted: merged.conflicted,
    warning: merged.binary ? `warning: Cannot merge binary files: ${path} (ours vs. theirs)` : null,
  };
}

/**
 * A three-way merge left unresolved in the index, as `git apply --3way` records it: the path's
 * stage 0 entry is replaced by stages 1 (the base; none for a created file), 2 (ours) and 3 (theirs).
 */
export async function setConflictStages(
  dir: string,
  conflicts: readonly { path: string; mode: number; base: Uint8Array | null; ours: Uint8Array; theirs: Uint8Array }[],
  _opts: { locked: true },
): Promise<void> {
  const repo = open(dir);
  assertLocked(repo, "setConflictStages");
  const index = loadIndex(repo);
  for (const conflict of conflicts) {
    const path = normalizeUserPath(conflict.path);
    const sides = [conflict.base, conflict.ours, conflict.theirs];
    const stages = [];
    for (let i = 0; i < 3; i++) {
      const bytes = sides[i];
      if (bytes !== null) stages.push(emptyEntry(path, await repo.objects.write("blob", bytes), conflict.mode, i + 1));
    }
    index.setConflict(path, stages);
  }
}

/**
 * Index entries a file's content cannot say (the `patch` command's diffs of links and submodules),
 * set after `stagePaths`: a symbolic link (120000), which pterm writes as a plain file holding the
 * target, keeps its link mode and the repository gets core.symlinks=false (as git on a file system
 * without links); a submodule pointer (160000) is set to `oid`, or removed when `oid` is null; a
 * regular mode (100644, 100755) stated by a diff replaces a link's mode (a link turned into a file).
 */
export async function setSpecialEntries(
  dir: string,
  entries: readonly { path: string; mode: 0o120000 | 0o160000 | 0o100644 | 0o100755; oid?: string | null }[],
  _opts: { locked: true },
): Promise<void> {
  const repo = open(dir);
  assertLocked(repo, "setSpecialEntries");
  const index = loadIndex(repo);
  for (const entry of entries) {
    const path = normalizeUserPath(entry.path);
    if (entry.mode !== S_IFGITLINK) {
      const staged = index.entries.get(path);
      if (!staged) throw new PtermError("Internal", `\`${path}\` was to be staged but is not in the index`);
      index.set({ ...staged, mode: entry.mode }, true);
      if (entry.mode === S_IFLNK) await disableSymlinks(repo);
    } else if (entry.oid) index.set(emptyEntry(path, entry.oid, S_IFGITLINK), true);
    else index.remove(path);
  }
}

/** Commit the index (NothingToCommit unless allowEmpty); returns the new commit id. */
export async function commitIndex(
  dir: string,
  opts: { message: string; author: GitAuthor; allowEmpty?: boolean; locked: true },
): Promise<string> {
  const repo = open(dir);
  assertLocked(repo, "commitIndex");
  return await commitLib(repo, loadIndex(repo), {
    message: opts.message,
    author: opts.author,
    allowEmpty: opts.allowEmpty,
  });
}

/** The object a revision names (branch, tag, HEAD~2, abbreviated id...); NotFound if unknown. */
export async function resolveRef(dir: string, ref: string): Promise<string> {
  return await resolveRevision(open(dir), ref);
}

/**
 * `git reset --soft|--mixed|--hard <ref>`. `changed_paths`: the work-tree paths written or
 * deleted (hard), the index paths that changed (mixed), nothing (soft). ORIG_HEAD is written.
 */
export async function reset(
  dir: string,
  ref: string,
  mode: "soft" | "mixed" | "hard",
  opts: { locked: true; root?: string; author?: GitAuthor },
): Promise<{ head: string; changed_paths: string[] }> {
  const repo = open(dir);
  assertLocked(repo, "reset");
  const { head, changed_paths } = await resetTo(
    repo,
    loadIndex(repo),
    policyFor(dir, opts.root),
    ref,
    mode,
    opts.author ?? authorFromConfig(undefined),
  );
  return { head, changed_paths };
}

/**
 * `git revert [--no-commit] <ref>` of a non-merge commit. Needs an index equal to HEAD
 * (UncommittedChanges otherwise). On conflicts nothing is committed: the files hold conflict
 * markers, the index has the stages, `conflicts` lists them (the caller decides what to do).
 */
export async function revert(
  dir: string,
  ref: string,
  opts: { noCommit: boolean; author: GitAuthor; locked: true; root?: string },
): Promise<{ commit_id: string | null; changed_paths: string[]; conflicts: string[]; reverted: string }> {
  const repo = open(dir);
  assertLocked(repo, "revert");
  return await revertCommit(repo, loadIndex(repo), policyFor(dir, opts.root), ref, {
    noCommit: opts.noCommit,
    author: opts.author,
  });
}

/** Creates a tag (annotated when `message` is given); AlreadyExists unless `force`. `target` is the commit it leads to. */
export async function tag(
  dir: string,
  name: string,
  opts: { ref?: string; message?: string; author: GitAuthor; force?: boolean; locked: true },
): Promise<{ name: string; target: string }> {
  const repo = open(dir);
  assertLocked(repo, "tag");
  return await createTag(repo, name, opts);
}

// ---- snapshots -----------------------------------------------------------------------------

/** The state files of .git a failed patch must put back (relative to .git). */
// config too: a patch that stages a link sets core.symlinks=false, which a rollback must undo.
const STATE_FILES = ["HEAD", "index", "ORIG_HEAD", ...SEQUENCE_FILES, "packed-refs", "config"];

export interface GitStateSnapshot {
  readonly dir: string;
  /** Path relative to .git → content. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /**
   * The index file's mtime (ms): git trusts an entry's stat data only when the file is older than
   * the index ("racy git"), so a restored index must keep its old time, or a file changed in the
   * same second as the index was written would look unchanged to git.
   */
  readonly indexMtime?: number | null;
}

function listTree(gitdir: string, prefix: string, out: string[]): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(`${gitdir}/${prefix}`)];
  } catch {
    return;
  }
  for (const entry of entries) {
    const rel = `${prefix}/${entry.name}`;
    if (entry.isDirectory) listTree(gitdir, rel, out);
    else if (entry.isFile && !entry.name.endsWith(".lock") && !entry.name.endsWith(".tmp")) out.push(rel);
  }
}

function trackedStateFiles(gitdir: string): string[] {
  const out: string[] = [];
  for (const name of STATE_FILES) {
    try {
      if (Deno.statSync(`${gitdir}/${name}`).isFile) out.push(name);
    } catch { /* absent */ }
  }
  listTree(gitdir, "refs", out);
  listTree(gitdir, "logs", out);
  return out;
}

/** Everything under .git that a failed patch must put back: refs (loose and packed), HEAD, index, ORIG_HEAD, MERGE_*, reflogs, config. */
export function snapshotGitState(dir: string): Promise<GitStateSnapshot> {
  const repo = open(dir);
  const files = new Map<string, Uint8Array>();
  for (const rel of trackedStateFiles(repo.gitdir)) files.set(rel, Deno.readFileSync(`${repo.gitdir}/${rel}`));
  let indexMtime: number | null = null;
  try {
    indexMtime = Deno.statSync(`${repo.gitdir}/index`).mtime?.getTime() ?? null;
  } catch { /* no index yet */ }
  return Promise.resolve({ dir, files, indexMtime });
}

/** Puts the snapshot back: files written atomically, files created since then removed. */
export function restoreGitState(dir: string, snapshot: GitStateSnapshot): Promise<void> {
  if (snapshot.dir !== dir) {
    throw new PtermError("Internal", `restoreGitState: the snapshot is of ${snapshot.dir}, not ${dir}`);
  }
  const repo = open(dir);
  for (const rel of trackedStateFiles(repo.gitdir)) {
    if (!snapshot.files.has(rel)) Deno.removeSync(`${repo.gitdir}/${rel}`);
  }
  for (const [rel, content] of snapshot.files) {
    const path = `${repo.gitdir}/${rel}`;
    // A file that still holds its content is left alone (its time too: see indexMtime).
    if (sameBytes(path, content)) continue;
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    Deno.writeFileSync(temp, content);
    if (rel === "index" && snapshot.indexMtime) {
      const time = new Date(snapshot.indexMtime);
      Deno.utimeSync(temp, time, time);
    }
    Deno.renameSync(temp, path);
  }
  discardPendingIndex(repo);
  return Promise.resolve();
}

function sameBytes(path: string, content: Uint8Array): boolean {
  try {
    const now = Deno.readFileSync(path);
    return now.length === content.length && now.every((b, i) => b === content[i]);
  } catch {
    return false;
  }
}

/** Paths (relative to dir) whose work-tree content `reset --hard`/`revert` to `ref` would change — so a caller can back them up first. */
export async function pathsChangedBy(
  dir: string,
  op: { kind: "reset"; ref: string; mode: "soft" | "mixed" | "hard" } | { kind: "revert"; ref: string },
  opts: { root?: string } = {},
): Promise<string[]> {
  const repo = open(dir);
  return await pathsChangedByLib(repo, loadIndex(repo), policyFor(dir, opts.root), op);
}
