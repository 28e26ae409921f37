/**
 * The repository lock held by this process, and the index seen through it. A mutating
 * operation runs inside `withRepoLock`: git's `index.lock` is created exclusively first; the
 * index is read once and changed in memory; at the end the new index is written into the lock
 * file and renamed over `.git/index` (or the lock is simply removed when nothing changed). A
 * failure discards the in-memory changes: the index on disk is never half-updated.
 */

import { PtermError } from "../../../core/errors.ts";
import { type CurrentStat, type Index, readIndexFile, serializeIndex } from "../worktree/index_file.ts";
import { lstatTracked } from "../worktree/worktree.ts";
import { LockFile, type LockOwner } from "./lock.ts";
import type { Repo } from "./repo.ts";

interface Held {
  readonly lock: LockFile;
  index: Index | null;
}

const held = new Map<string, Held>();

export async function withRepoLock<T>(repo: Repo, fn: () => Promise<T>, owner: LockOwner = "git"): Promise<T> {
  if (held.has(repo.gitdir)) {
    throw new PtermError(
      "RepoLocked",
      `${repo.label} is already locked by this pterm run (a nested operation); this is a bug.`,
    );
  }
  const lock = await LockFile.acquire(`${repo.gitdir}/index`, `the repository ${repo.label}`, owner);
  const state: Held = { lock, index: null };
  held.set(repo.gitdir, state);
  try {
    const result = await fn();
    if (state.index?.dirty) lock.commit(await serializeIndex(state.index, workTreeStat(repo)));
    return result;
  } finally {
    held.delete(repo.gitdir);
    lock.rollback();
  }
}

export function isLocked(repo: Repo): boolean {
  return held.has(repo.gitdir);
}

/** The work tree's file at a tracked path, for the racy-git check of an index write. */
function workTreeStat(repo: Repo): CurrentStat {
  return (path) => {
    try {
      return lstatTracked(repo, path);
    } catch {
      return "unknown";
    }
  };
}

/** Throws unless this process holds the repository lock (the `{locked: true}` contract of the API). */
export function assertLocked(repo: Repo, operation: string): void {
  if (!held.has(repo.gitdir)) {
    throw new PtermError(
      "Internal",
      `${operation} was called without holding the repository lock of ${repo.label}; wrap it in withRepoLock.`,
    );
  }
}

/** The index: inside the lock, the one in-memory copy that will be written back; outside, a fresh read. */
export function loadIndex(repo: Repo): Index {
  const state = held.get(repo.gitdir);
  if (!state) return readIndexFile(repo.gitdir);
  state.index ??= readIndexFile(repo.gitdir);
  return state.index;
}

/** Forgets in-memory index changes of the held lock (after the index file was restored from a snapshot). */
export function discardPendingIndex(repo: Repo): void {
  const state = held.get(repo.gitdir);
  if (state) state.index = null;
}

/** Replaces the in-memory index of the held lock (e.g. with one built from a tree). */
export function replaceIndex(repo: Repo, index: Index): void {
  const state = held.get(repo.gitdir);
  if (!state) throw new PtermError("Internal", "replaceIndex outside the repository lock");
  const previous = state.index ?? readIndexFile(repo.gitdir);
  index.fileMtimeMs = previous.fileMtimeMs;
  index.dirty = true;
  state.index = index;
}

/**
 * Writes refreshed stat data back without waiting (git status does this opportunistically):
 * skipped silently when another process holds the lock.
 */
export async function tryWriteRefreshedIndex(repo: Repo, index: Index): Promise<boolean> {
  let lock: LockFile;
  try {
    lock = await LockFile.acquireNow(`${repo.gitdir}/index`);
  } catch {
    return false;
  }
  try {
    const current = readIndexFile(repo.gitdir);
    // Someone changed the index since we read it: our stat data may be stale; leave it.
    if (current.fileMtimeMs !== index.fileMtimeMs || current.entries.size !== index.entries.size) return false;
    lock.commit(await serializeIndex(index, workTreeStat(repo)));
    return true;
  } finally {
    lock.rollback();
  }
}
