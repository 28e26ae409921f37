/**
 * `git status`, computed the way git does it: read the index, lstat every tracked file and
 * compare the stat data recorded in the index (hashing only files whose stat changed, or that
 * are "racily clean"), walk the work tree once for untracked files with .gitignore applied,
 * and compare the index with HEAD through the cache tree, reading only subtrees that changed.
 */

import { comparePaths, encodeName, hasRawBytes, lenientDecoder, quoteName } from "./bytes.ts";

/** The warning for names pterm cannot open (not UTF-8), as git would quote them. */
export function unaddressableWarning(paths: readonly string[]): string {
  const shown = paths.slice(0, 10).map(quoteName).join(", ") +
    (paths.length > 10 ? `, and ${paths.length - 10} more` : "");
  return `warning: ${paths.length} path(s) have names that are not UTF-8 (${shown}); pterm cannot open such files, ` +
    "so it neither checked nor staged them, and kept their index entries as they are. Use the real git for them.\n";
}
import { type Index, type IndexEntry, S_IFGITLINK, statFields } from "./index_file.ts";
import { quickCompare } from "./compare.ts";
import { type IgnoreLevel, IgnoreRules } from "./ignore.ts";
import { sha1 } from "./codec.ts";
import { conversionFor } from "./convert.ts";
import { MODE_TREE, objectHeader, parseTree } from "./objects.ts";
import { readHead } from "./refs.ts";
import type { Repo } from "./repo.ts";
import { cachedTreeOid } from "./tree.ts";
import { submoduleHead } from "./submodule.ts";
import type { PathPolicy } from "./worktree.ts";
import { parseCommit } from "./objects.ts";
import { modeToTreeMode } from "./index_file.ts";

/** index vs HEAD: A added, M changed, D removed, T type changed (counted as changed). */
export type IndexChange = "A" | "M" | "D" | "T";
/** work tree vs index: M modified, D missing, T type changed (counted as modified), A intent-to-add (counted as added). */
export type WorktreeChange = "M" | "D" | "T" | "A";

export interface StatusFile {
  readonly path: string;
  /** Porcelain-style two letters: index then work tree; `.` unchanged, `??` untracked, `UU` conflicted. */
  readonly xy: string;
}

export interface StatusReport {
  readonly branch: string | null;
  readonly head: string | null;
  readonly staged: Map<string, IndexChange>;
  readonly unstaged: Map<string, WorktreeChange>;
  readonly untracked: string[];
  readonly conflicted: string[];
  /** Tracked paths pterm does not look at (secrets, pterm state), by kind. */
  readonly withheld: string[];
  /** Entries whose stat data was refreshed (content unchanged); the caller may write them back. */
  readonly refreshed: IndexEntry[];
  /** Paths whose names are not UTF-8 (see worktreeStatus): reported, never guessed at. */
  readonly unaddressable: string[];
}

export interface StatusOptions {
  readonly untracked: boolean;
  /** Limit the report to these paths (files or folders); null for everything. */
  readonly paths?: readonly string[] | null;
}

/** What `worktreeStatus` found: the work tree against the index. */
export interface WorktreeReport {
  unstaged: Map<string, WorktreeChange>;
  untracked: string[];
  withheld: string[];
  refreshed: IndexEntry[];
  /** Paths whose names are not UTF-8: pterm cannot open them, so they are neither checked nor staged. */
  unaddressable: string[];
}

/**
 * Told what the walk looked at, for a cache that must know when its answer could have changed
 * (commands/git/lib/fsmonitor.ts).
 */
export interface WalkObserver {
  /** A folder about to be listed ("" for the top), with its lstat taken before the listing. */
  folder(path: string, info: Deno.FileInfo | null): void;
  /** A path .gitignore leaves out (for a folder: nothing under it is looked at). */
  ignored(path: string): void;
  /**
   * A folder's listing, with the ignore level its entries are judged by and whether it is a
   * tracked folder that .gitignore excludes (then no untracked file in it is reported).
   */
  listed(path: string, entries: readonly Deno.DirEntry[], level: IgnoreLevel, excluded: boolean): void;
  /** The ignore rules of the walk (their levels stay valid while no ignore file changes). */
  rules(ignore: IgnoreRules): void;
}

function inScope(path: string, paths: readonly string[] | null | undefined): boolean {
  if (!paths) return true;
  return paths.some((p) => p === "" || path === p || path.startsWith(p + "/"));
}

/** Work tree vs index for every tracked path, plus untracked files. */
export async function worktreeStatus(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  options: StatusOptions,
  observer?: WalkObserver,
): Promise<WorktreeReport> {
  const unaddressable: string[] = [];
  const unstaged = new Map<string, WorktreeChange>();
  const untracked: string[] = [];
  const withheld: string[] = [];
  const refreshed: IndexEntry[] = [];
  const seen = new Set<string>();
  const trackedDirs = new Set<string>();
  const entries = index.entries;
  const conflicts = index.conflicts;
  for (const path of entries.keys()) addParents(trackedDirs, path);
  for (const path of conflicts.keys()) addParents(trackedDirs, path);
  const trackedAt = (path: string): IndexEntry | null | undefined =>
    entries.get(path) ?? (conflicts.has(path) ? null : undefined);
  const ignore = new IgnoreRules(repo.dir, repo.gitdir, repo.ignoreCase, (p) => policy.hidden(p) !== null);
  observer?.rules(ignore);
  const toHash: { entry: IndexEntry; info: Deno.FileInfo }[] = [];
  const racyLimit = index.fileMtimeMs;

  const checkTracked = (entry: IndexEntry, info: Deno.FileInfo) => {
    if (entry.intentToAdd) {
      unstaged.set(entry.path, "A");
      return;
    }
    const verdict = quickCompare(repo, entry, info, racyLimit);
    if (verdict === "modified") unstaged.set(entry.path, "M");
    else if (verdict === "typechange") unstaged.set(entry.path, "T");
    else if (verdict === "hash") toHash.push({ entry, info });
  };

  const listDir = (abs: string, rel: string): { list: Deno.DirEntry[]; hasIgnoreFile: boolean } | null => {
    const list: Deno.DirEntry[] = [];
    let hasIgnoreFile = false;
    if (observer) {
      let info: Deno.FileInfo | null = null;
      try {
        info = Deno.lstatSync(abs);
      } catch { /* gone: the observer records that */ }
      observer.folder(rel, info);
    }
    try {
      for (const entry of Deno.readDirSync(abs)) {
        list.push(entry);
        if (entry.name === ".gitignore") hasIgnoreFile = true;
      }
    } catch {
      return null;
    }
    return { list, hasIgnoreFile };
  };

  const walk = (dir: string, level: IgnoreLevel | null, excludedDir: boolean) => {
    const abs = dir === "" ? repo.dir : `${repo.dir}/${dir}`;
    const listing = listDir(abs, dir);
    if (!listing) return;
    const myLevel = excludedDir ? level : ignore.level(dir, level, listing.hasIgnoreFile);
    observer?.listed(dir, listing.list, myLevel!, excludedDir);
    for (const dirent of listing.list) {
      const name = dirent.name;
      if (name === ".git") continue;
      const path = dir === "" ? name : `${dir}/${name}`;
      // Deno reports a name that is not UTF-8 with U+FFFD and cannot open it under any name.
      if (name.includes("\uFFFD")) {
        unaddressable.push(path);
        continue;
      }
      if (policy.hiddenChild(dir, name)) {
        if (trackedAt(path) !== undefined || trackedDirs.has(path)) withheld.push(path);
        continue;
      }
      if (dirent.isDirectory) {
        const trackedEntry = entries.get(path);
        if (trackedEntry && trackedEntry.mode === S_IFGITLINK) {
          seen.add(path);
          // A submodule checked out at another commit than the superproject records: ` M sub`.
          const head = inScope(path, options.paths) ? submoduleHead(repo, path) : null;
          if (head !== null && head !== trackedEntry.oid) unstaged.set(path, "M");
          continue;
        }
        if (trackedDirs.has(path)) {
          if (!inScopeDir(path, options.paths)) continue;
          const excluded = excludedDir || (options.untracked && ignore.excludedAt(myLevel!, path, true));
          walk(path, myLevel, excluded);
          continue;
        }
        if (!options.untracked || excludedDir || !inScopeDir(path, options.paths)) continue;
        if (ignore.excludedAt(myLevel!, path, true)) {
          observer?.ignored(path);
          continue;
        }
        if (isNestedRepo(`${abs}/${name}`)) {
          untracked.push(path + "/");
          continue;
        }
        walkUntracked(path, myLevel!);
        continue;
      }
      const entry = trackedAt(path);
      // A FIFO, socket or device: git lists none untracked, but where a file is tracked it is
      // the tracked file, modified (quickCompare), not a missing one.
      if (!dirent.isFile && !dirent.isSymlink && entry === undefined) continue;
      if (entry !== undefined) {
        seen.add(path);
        if (entry === null || !inScope(path, options.paths)) continue;
        checkTracked(entry, Deno.lstatSync(`${abs}/${name}`));
        continue;
      }
      if (!options.untracked || excludedDir || !inScope(path, options.paths)) continue;
      if (ignore.excludedAt(myLevel!, path, false)) {
        observer?.ignored(path);
        continue;
      }
      untracked.push(path);
    }
  };

  const walkUntracked = (dir: string, parent: IgnoreLevel) => {
    const listing = listDir(`${repo.dir}/${dir}`, dir);
    if (!listing) return;
    const level = ignore.level(dir, parent, listing.hasIgnoreFile);
    observer?.listed(dir, listing.list, level, false);
    for (const dirent of listing.list) {
      if (dirent.name === ".git") continue;
      const path = `${dir}/${dirent.name}`;
      if (dirent.name.includes("\uFFFD")) {
        unaddressable.push(path);
        continue;
      }
      if (policy.hiddenChild(dir, dirent.name)) continue;
      if (dirent.isDirectory) {
        if (ignore.excludedAt(level, path, true)) {
          observer?.ignored(path);
          continue;
        }
        if (isNestedRepo(`${repo.dir}/${path}`)) {
          untracked.push(path + "/");
          continue;
        }
        walkUntracked(path, level);
      } else if (dirent.isFile || dirent.isSymlink) {
        if (!inScope(path, options.paths)) continue;
        if (!ignore.excludedAt(level, path, false)) untracked.push(path);
        else observer?.ignored(path);
      }
    }
  };

  walk("", null, false);

  for (const [path, entry] of entries) {
    if (seen.has(path)) continue;
    if (policy.hidden(path)) {
      withheld.push(path);
      continue;
    }
    if (!inScope(path, options.paths)) continue;
    if (entry.mode === S_IFGITLINK) continue;
    // assume-unchanged and skip-worktree: git does not look, not even for a deletion.
    if (entry.assumeValid || entry.skipWorktree) continue;
    if (hasRawBytes(path)) {
      // Tracked under a name that is not UTF-8: its file cannot be looked at, so nothing is said of it.
      unaddressable.push(path);
      continue;
    }
    unstaged.set(path, "D");
  }

  if (toHash.length > 0) {
    const now = Date.now();
    for (const { entry, info } of toHash) {
      const verdict = await compareContent(repo, index, entry, info, now);
      if (verdict.change) unstaged.set(entry.path, verdict.change);
      else if (verdict.refreshed) refreshed.push(verdict.refreshed);
    }
  }
  untracked.sort(comparePaths);
  // A tracked name that is not UTF-8 is seen twice: as its index entry, and in the walk with
  // U+FFFD where Deno could not decode it. Report it once, as the index has it.
  const trackedAsSeen = new Set(unaddressable.filter(hasRawBytes).map((p) => lenientDecoder.decode(encodeName(p))));
  return {
    unstaged,
    untracked,
    withheld: [...new Set(withheld)].sort(comparePaths),
    refreshed,
    unaddressable: [...new Set(unaddressable.filter((p) => hasRawBytes(p) || !trackedAsSeen.has(p)))].sort(
      comparePaths,
    ),
  };
}

/** A tracked file whose stat data cannot tell: hash it (in git's form) and compare with the entry. */
async function compareContent(
  repo: Repo,
  index: Index,
  entry: IndexEntry,
  info: Deno.FileInfo,
  now: number,
): Promise<{ change: WorktreeChange | null; refreshed: IndexEntry | null }> {
  const abs = `${repo.dir}/${entry.path}`;
  let content: Uint8Array;
  try {
    content = info.isSymlink ? new TextEncoder().encode(Deno.readLinkSync(abs)) : Deno.readFileSync(abs);
  } catch {
    return { change: "D", refreshed: null };
  }
  // Compared in git's form: under autocrlf or a text attribute a file that differs only in line endings is clean.
  if (!info.isSymlink) content = await conversionFor(repo, index).toGit(entry.path, content);
  const oid = await sha1(objectHeader("blob", content.length), content);
  if (oid !== entry.oid) return { change: "M", refreshed: null };
  // Same content: remember fresher stat data, unless the file could still change within this timestamp.
  const mtime = info.mtime?.getTime() ?? 0;
  return { change: null, refreshed: mtime < now - 50 ? { ...entry, ...statFields(info) } : null };
}

/**
 * The work-tree verdict for one tracked stage-0 entry whose file `info` describes (a regular file
 * or a link, as the walk found it), decided exactly as `worktreeStatus` decides it: null when clean.
 */
export async function trackedFileVerdict(
  repo: Repo,
  index: Index,
  entry: IndexEntry,
  info: Deno.FileInfo,
): Promise<{ change: WorktreeChange | null; refreshed: IndexEntry | null }> {
  if (entry.intentToAdd) return { change: "A", refreshed: null };
  const verdict = quickCompare(repo, entry, info, index.fileMtimeMs);
  if (verdict === "modified") return { change: "M", refreshed: null };
  if (verdict === "typechange") return { change: "T", refreshed: null };
  if (verdict === "same") return { change: null, refreshed: null };
  return await compareContent(repo, index, entry, info, Date.now());
}

function inScopeDir(dir: string, paths: readonly string[] | null | undefined): boolean {
  if (!paths) return true;
  return paths.some((p) => p === "" || dir === p || dir.startsWith(p + "/") || p.startsWith(dir + "/"));
}

function addParents(set: Set<string>, path: string): void {
  let slash = path.lastIndexOf("/");
  while (slash > 0) {
    const dir = path.slice(0, slash);
    if (set.has(dir)) return;
    set.add(dir);
    slash = dir.lastIndexOf("/");
  }
}

function isNestedRepo(abs: string): boolean {
  try {
    Deno.lstatSync(`${abs}/.git`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Index vs a tree (normally HEAD's): stage-0 entries only. Subtrees whose cache-tree oid
 * equals the tree's are skipped without reading them.
 */
export async function indexVsTree(
  repo: Repo,
  index: Index,
  tree: string | null,
): Promise<Map<string, IndexChange>> {
  const changes = new Map<string, IndexChange>();
  // A valid cache tree for the top folder equal to the tree: nothing is staged (git's fast path).
  if (tree && cachedTreeOid(index, "") === tree && ![...index.entries.values()].some((e) => e.intentToAdd)) {
    return changes;
  }
  const sorted = [...index.entries.keys()].sort(comparePaths);
  const covered = new Uint8Array(sorted.length);
  const lowerBound = (prefix: string): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePaths(sorted[mid], prefix) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const markRange = (prefix: string) => {
    for (let i = lowerBound(prefix); i < sorted.length && sorted[i].startsWith(prefix); i++) covered[i] = 1;
  };
  const position = new Map<string, number>();
  sorted.forEach((p, i) => position.set(p, i));

  const walk = async (oid: string, dir: string): Promise<void> => {
    const cached = cachedTreeOid(index, dir);
    if (cached === oid) {
      markRange(dir === "" ? "" : dir + "/");
      return;
    }
    for (const entry of parseTree(await repo.objects.readTyped(oid, "tree"), oid)) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.mode === MODE_TREE) {
        await walk(entry.oid, path);
        continue;
      }
      const i = position.get(path);
      const ie = i === undefined ? undefined : index.entries.get(path);
      if (!ie || ie.intentToAdd) {
        if (!index.conflicts.has(path)) changes.set(path, "D");
        continue;
      }
      covered[i!] = 1;
      const mode = modeToTreeMode(ie.mode);
      if (mode !== entry.mode) {
        const linkChange = (mode === "120000") !== (entry.mode === "120000");
        const gitlinkChange = (mode === "160000") !== (entry.mode === "160000");
        changes.set(path, linkChange || gitlinkChange ? "T" : "M");
      } else if (ie.oid !== entry.oid) changes.set(path, "M");
    }
  };
  if (tree) await walk(tree, "");
  for (let i = 0; i < sorted.length; i++) {
    if (!covered[i] && !index.entries.get(sorted[i])!.intentToAdd) changes.set(sorted[i], "A");
  }
  return changes;
}

/** The tree of HEAD's commit, or null on an unborn branch. */
export async function headTree(repo: Repo): Promise<string | null> {
  const head = readHead(repo);
  if (!head.oid) return null;
  return parseCommit(await repo.objects.readTyped(head.oid, "commit")).tree;
}

/**
 * `work`, when given, is the work tree's side already computed for this index (a cache that proved
 * it current, commands/git/lib/fsmonitor.ts); it is not changed.
 */
export async function computeStatus(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  options: StatusOptions,
  work?: WorktreeReport,
): Promise<StatusReport> {
  const head = readHead(repo);
  const tree = head.oid ? parseCommit(await repo.objects.readTyped(head.oid, "commit")).tree : null;
  const stagedAll = await indexVsTree(repo, index, tree);
  const staged = new Map<string, IndexChange>();
  for (const [path, change] of stagedAll) {
    if (policy.hidden(path) || !inScope(path, options.paths)) continue;
    staged.set(path, change);
  }
  work = work
    ? { ...work, unstaged: new Map(work.unstaged), withheld: [...work.withheld] }
    : await worktreeStatus(repo, index, policy, options);
  const conflicted = [...index.conflicts.keys()].filter((p) => !policy.hidden(p) && inScope(p, options.paths))
    .sort(comparePaths);
  for (const path of conflicted) work.unstaged.delete(path);
  for (const [path] of stagedAll) if (policy.hidden(path)) work.withheld.push(path);
  return {
    branch: head.branch,
    head: head.oid,
    staged,
    unstaged: work.unstaged,
    untracked: work.untracked,
    conflicted,
    withheld: [...new Set(work.withheld)].sort(comparePaths),
    refreshed: work.refreshed,
    unaddressable: work.unaddressable,
  };
}

export function statusFiles(report: StatusReport): StatusFile[] {
  const paths = new Set<string>([...report.staged.keys(), ...report.unstaged.keys()]);
  const files: StatusFile[] = [];
  for (const path of [...paths].sort(comparePaths)) {
    files.push({ path, xy: `${report.staged.get(path) ?? "."}${report.unstaged.get(path) ?? "."}` });
  }
  for (const path of report.conflicted) files.push({ path, xy: "UU" });
  for (const path of report.untracked) files.push({ path, xy: "??" });
  return files.sort((a, b) => comparePaths(a.path, b.path));
}

export interface StatusCounts {
  untracked: number;
  modified: number;
  added: number;
  changed: number;
  removed: number;
  missing: number;
  conflicting: number;
}

/** JGit's counts: added/changed/removed compare index with HEAD, modified/missing work tree with index. */
export function statusCounts(report: StatusReport): StatusCounts {
  let added = 0, changed = 0, removed = 0, modified = 0, missing = 0;
  for (const change of report.staged.values()) {
    if (change === "A") added++;
    else if (change === "D") removed++;
    else changed++;
  }
  for (const change of report.unstaged.values()) {
    if (change === "D") missing++;
    else if (change === "A") added++;
    else modified++;
  }
  return {
    untracked: report.untracked.length,
    modified,
    added,
    changed,
    removed,
    missing,
    conflicting: report.conflicted.length,
  };
}
