/** Is a work-tree file still what the index says? Stat data first, content only when needed (as git's ie_match_stat). */

import { worktreeBlob } from "./convert.ts";
import { entryMtimeMs, type IndexEntry, S_IFGITLINK, S_IFLNK, S_IFREG_755, statMatches } from "./index_file.ts";
import { sha1 } from "../odb/codec.ts";
import { objectHeader } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { lstatTracked } from "./worktree.ts";

export type QuickVerdict = "same" | "modified" | "typechange" | "hash";

/** Compares by stat data; "hash" when only the content can tell (stat changed, racy, or smudged). */
export function quickCompare(repo: Repo, entry: IndexEntry, info: Deno.FileInfo, racyLimitMs: number): QuickVerdict {
  // `git update-index --assume-unchanged`: git takes the file as unchanged without looking.
  if (entry.assumeValid) return "same";
  // skip-worktree: the file is outside what git looks at, whatever is (or is not) there.
  if (entry.skipWorktree) return "same";
  if (entry.mode === S_IFGITLINK) return info.isDirectory ? "same" : "typechange";
  if (info.isDirectory) return "typechange";
  // A FIFO, socket or device where a file or link is tracked: git's ce_match_stat_basic says
  // TYPE_CHANGED and status shows it modified (a link entry: a type change). It is never read.
  if (!info.isFile && !info.isSymlink) return entry.mode === S_IFLNK ? "typechange" : "modified";
  if (info.isSymlink !== (entry.mode === S_IFLNK)) {
    // With core.symlinks=false (set when pterm checks a link out as a plain file) a link is
    // compared by content, as git does.
    if (!(entry.mode === S_IFLNK && info.isFile && !repo.symlinks)) return "typechange";
  }
  if (repo.fileMode && info.isFile && entry.mode !== S_IFLNK) {
    const exec = ((info.mode ?? 0) & 0o111) !== 0;
    if (exec !== (entry.mode === S_IFREG_755)) return "modified";
  }
  if (entry.size !== 0 && entry.size !== (info.size >>> 0)) return "modified";
  if (statMatches(entry, info) && entryMtimeMs(entry) < racyLimitMs) {
    if (entry.size !== 0 || info.size === 0) return "same";
  }
  return "hash";
}

export async function hashWorktreeFile(repo: Repo, path: string, info: Deno.FileInfo): Promise<string | null> {
  // A FIFO, socket or device holds no blob (and opening a FIFO would wait for a writer).
  if (!info.isFile && !info.isSymlink) return null;
  let content: Uint8Array;
  try {
    content = await worktreeBlob(repo, path, info);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) return null;
    throw error;
  }
  return await sha1(objectHeader("blob", content.length), content);
}

/** "clean" when the work-tree file matches `entry`, "missing" when absent, else "dirty". */
export async function worktreeState(
  repo: Repo,
  entry: IndexEntry,
  racyLimitMs: number,
): Promise<"clean" | "dirty" | "missing"> {
  const info = lstatTracked(repo, entry.path);
  if (!info) return "missing";
  const verdict = quickCompare(repo, entry, info, racyLimitMs);
  if (verdict === "same") return "clean";
  if (verdict !== "hash") return "dirty";
  const oid = await hashWorktreeFile(repo, entry.path, info);
  return oid === entry.oid ? "clean" : "dirty";
}

/** Whether the file at `path` holds exactly the blob `oid` (used for untracked files in the way). */
export async function worktreeHolds(repo: Repo, path: string, oid: string): Promise<boolean> {
  const info = lstatTracked(repo, path);
  if (!info || info.isDirectory) return false;
  return (await hashWorktreeFile(repo, path, info)) === oid;
}
