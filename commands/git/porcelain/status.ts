/**
 * `git status`, computed the way git does it: read the index, lstat every tracked file and
 * compare the stat data recorded in the index (hashing only files whose stat changed, or that
 * are "racily clean"), walk the work tree once for untracked files with .gitignore applied,
 * and compare the index with HEAD through the cache tree, reading only subtrees that changed.
 */

import { comparePaths, encodeName, hasRawBytes, lenientDecoder, quoteName } from "../odb/bytes.ts";

/**
 * The warning for names pterm cannot open (not UTF-8), as git would quote them: their bytes that
 * are not UTF-8 are escaped whatever core.quotePath says, so git's default quoting shows them.
 */
export function unaddressableWarning(paths: readonly string[]): string {
  const shown = paths.slice(0, 10).map((path) => quoteName(path, true)).join(", ") +
    (paths.length > 10 ? `, and ${paths.length - 10} more` : "");
  return `warning: ${paths.length} path(s) have names that are not UTF-8 (${shown}); pterm cannot open such files, ` +
    "so it neither checked nor staged them, and kept their index entries as they are. Use the real git for them.\n";
}
import { type Index, type IndexEntry, S_IFGITLINK, statFields } from "../worktree/index_file.ts";
import { quickCompare } from "../worktree/compare.ts";
import { type IgnoreLevel, IgnoreRules } from "../worktree/ignore.ts";
import { sha1 } from "../odb/codec.ts";
import { conversionFor } from "../worktree/convert.ts";
import { MODE_TREE, objectHeader, parseTree } from "../odb/objects.ts";
import { readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { cachedTreeOid, flattenTree } from "../odb/tree.ts";
import { openSubmodule, submoduleIgnore } from "../repo/submodule.ts";
import { lstatOrNull } from "../../../core/fs/paths.ts";
import { type PathPolicy, pathPolicy } from "../worktree/worktree.ts";
import { PtermError } from "../../../core/errors.ts";
import { readIndexFile } from "../worktree/index_file.ts";
import { parseCommit } from "../odb/objects.ts";
import { modeToTreeMode } from "../worktree/index_file.ts";

/** index vs HEAD: A added, M changed, D removed, T type changed (counted as changed). */
export type IndexChange = "A" | "M" | "D" | "T";
/** work tree vs index: M modified, D missing, T type changed (counted as modified), A intent-to-add (counted as added). */
export type WorktreeChange = "M" | "D" | "T" | "A";

export interface StatusFile {
  readonly path: string;
  /**
   * Porcelain-style two letters: index then work tree; `.` unchanged, `??` untracked; an unmerged
   * path has git's code for the stages it has (`UU` both modified, `AA` both added, `DU` deleted by
   * us, `UD` deleted by them, `AU`/`UA` added by us/them, `DD` both deleted).
   */
  readonly xy: string;
  /** For a submodule (a gitlink): git's porcelain v2 `S<c><m><u>` — new commits, modified content, untracked content. */
  readonly submodule?: string;
  /** For a staged rename (xy `R.`): the path HEAD has it at. */
  readonly orig_path?: string;
}

export interface StatusReport {
  readonly branch: string | null;
  readonly head: string | null;
  readonly staged: Map<string, IndexChange>;
  readonly unstaged: Map<string, WorktreeChange>;
  readonly untracked: string[];
  readonly conflicted: string[];
  /** Each conflicted path's unmerged code, as git's status gives it (`unmergedCode`). */
  readonly unmerged: Map<string, string>;
  /** Tracked paths pterm does not look at (secrets, pterm state), by kind. */
  readonly withheld: string[];
  /** Entries whose stat data was refreshed (content unchanged); the caller may write them back. */
  readonly refreshed: IndexEntry[];
  /** Paths whose names are not UTF-8 (see worktreeStatus): reported, never guessed at. */
  readonly unaddressable: string[];
  /** Every submodule looked at (checked out, in scope): git's porcelain v2 state `S<c><m><u>` (see SubmoduleState). */
  readonly submodules: Map<string, string>;
  /** Changed paths that are gitlinks in the index (reported `S...` when their checkout shows nothing more). */
  readonly gitlinks: Set<string>;
}

export interface StatusOptions {
  readonly untracked: boolean;
  /** Limit the report to these paths (files or folders); null for everything. */
  readonly paths?: readonly string[] | null;
  /** How many submodule levels above this repository are being looked at (0 for the top). */
  readonly submoduleDepth?: number;
  /**
   * How submodules' checkouts are looked at: "config" (status, diff: git's `submodule.<name>.ignore`
   * from .git/config or .gitmodules, else `diff.ignoreSubmodules`, else none), "none" (add, commit
   * -a: git's override_submodule_config, every new commit found), "all" (stash: not at all).
   */
  readonly submodules?: "config" | "none" | "all";
}

/** Submodules inside submodules are looked at this deep, no deeper (git has no limit; a loop of gitfiles would never end). */
const MAX_SUBMODULE_DEPTH = 8;

/**
 * A submodule's checkout as git's status reports it (porcelain v2's `S<c><m><u>`): `commit` when
 * its HEAD is not the commit the superproject's index records, `modified` when it has staged or
 * unstaged changes to tracked files (or a submodule of its own with anything but untracked
 * content), `untracked` when it has untracked files (or a submodule of its own has).
 */
export interface SubmoduleState {
  readonly head: string | null;
  readonly commit: boolean;
  readonly modified: boolean;
  readonly untracked: boolean;
  /** Tracked paths inside it (relative to it) pterm did not look at (secrets): its state says nothing of them. */
  readonly withheld: string[];
}

export function submoduleCode(state: SubmoduleState): string {
  return `S${state.commit ? "C" : "."}${state.modified ? "M" : "."}${state.untracked ? "U" : "."}`;
}

/**
 * The state of the submodule checked out at `path` (git's is_submodule_modified: its own status,
 * read through the same code), or null when nothing is checked out there. `untracked: false` is
 * git's `-uno` (and `git diff`), where untracked files in a submodule are not looked for.
 */
export async function submoduleState(
  repo: Repo,
  path: string,
  recorded: string | null,
  options: { untracked: boolean; depth?: number },
): Promise<SubmoduleState | null> {
  const depth = (options.depth ?? 0) + 1;
  if (depth > MAX_SUBMODULE_DEPTH) {
    throw new PtermError(
      "UnsupportedFormat",
      `${repo.label}/${path} is a submodule nested more than ${MAX_SUBMODULE_DEPTH} levels deep; pterm does not ` +
        "look further. Run git status inside a deeper submodule with --repo.",
    );
  }
  const sub = openSubmodule(repo, path);
  if (!sub) return null;
  const head = readHead(sub).oid;
  const index = readIndexFile(sub.gitdir);
  const report = await computeStatus(sub, index, pathPolicy(sub.label, sub.dir), {
    untracked: options.untracked,
    submoduleDepth: depth,
  });
  // As git reads `git status --porcelain=2` of the submodule: a nested submodule with only
  // untracked content (`S..U`) makes this one "untracked", anything else listed "modified".
  let modified = report.staged.size > 0 || report.conflicted.length > 0;
  for (const [inner] of report.unstaged) {
    if (report.submodules.get(inner) !== "S..U") modified = true;
  }
  const untracked = report.untracked.length > 0 ||
    [...report.submodules.entries()].some(([inner, code]) => report.unstaged.has(inner) && code.endsWith("U"));
  return {
    head,
    commit: head !== null && recorded !== null && head !== recorded,
    modified,
    untracked,
    withheld: report.withheld,
  };
}

/** What `worktreeStatus` found: the work tree against the index. */
export interface WorktreeReport {
  unstaged: Map<string, WorktreeChange>;
  untracked: string[];
  withheld: string[];
  refreshed: IndexEntry[];
  /** Paths whose names are not UTF-8: pterm cannot open them, so they are neither checked nor staged. */
  unaddressable: string[];
  /** Every checked-out submodule looked at: its `S<c><m><u>` code (`submoduleCode`); changed ones are also `M` in unstaged. */
  submodules: Map<string, string>;
}

/**
 * Told what the walk looked at, for a cache that must know when its answer could have changed
 * (commands/git/worktree/fsmonitor.ts).
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
  const ignore = new IgnoreRules(repo.dir, repo.commondir, repo.ignoreCase, (p) => policy.hidden(p) !== null);
  observer?.rules(ignore);
  const toHash: { entry: IndexEntry; info: Deno.FileInfo }[] = [];
  const gitlinks: IndexEntry[] = [];
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
      if (policy.hiddenChild(dir, name, dirent.isDirectory || dirent.isSymlink)) {
        if (trackedAt(path) !== undefined || trackedDirs.has(path)) withheld.push(path);
        continue;
      }
      if (dirent.isDirectory) {
        const trackedEntry = entries.get(path);
        if (trackedEntry && trackedEntry.mode === S_IFGITLINK) {
          seen.add(path);
          // Looked into after the walk: its own HEAD, index and work tree (submoduleState).
          if (inScope(path, options.paths)) gitlinks.push(trackedEntry);
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
      if (policy.hiddenChild(dir, dirent.name, dirent.isDirectory || dirent.isSymlink)) continue;
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
    if (entry.mode === S_IFGITLINK) {
      // A submodule's folder gone altogether: ` D sub`, as git (an empty folder is "not checked out": nothing).
      if (lstatOrNull(`${repo.dir}/${path}`) === null && (options.submodules ?? "config") !== "all") {
        unstaged.set(path, "D");
      }
      continue;
    }
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
  // A submodule at another commit, or with changes of its own: ` M sub`, as git's default --ignore-submodules=none.
  const submodules = new Map<string, string>();
  const mode = options.submodules ?? "config";
  for (const entry of mode === "all" ? [] : gitlinks) {
    const { ignore, perSubmodule } = mode === "none"
      ? { ignore: "none", perSubmodule: false }
      : submoduleIgnore(repo, entry.path);
    if (ignore === "all") continue;
    const found = await submoduleState(repo, entry.path, entry.oid, {
      // `-uno` leaves untracked files in submodules out too, unless the submodule's own setting says "none".
      untracked: ignore === "none" && (options.untracked || perSubmodule),
      depth: options.submoduleDepth,
    });
    if (!found) continue;
    const state = {
      ...found,
      modified: found.modified && ignore !== "dirty",
      untracked: found.untracked && ignore === "none",
    };
    submodules.set(entry.path, submoduleCode(state));
    // Secret paths inside it were not looked at, as in this repository: listed as withheld, never taken for clean.
    for (const inner of found.withheld) withheld.push(`${entry.path}/${inner}`);
    if (state.commit || state.modified || state.untracked) unstaged.set(entry.path, "M");
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
    submodules,
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
 * it current, commands/git/worktree/fsmonitor.ts); it is not changed.
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
    ? { ...work, unstaged: new Map(work.unstaged), withheld: [...work.withheld], submodules: new Map(work.submodules) }
    : await worktreeStatus(repo, index, policy, options);
  const conflicted = [...index.conflicts.keys()].filter((p) => !policy.hidden(p) && inScope(p, options.paths))
    .sort(comparePaths);
  for (const path of conflicted) work.unstaged.delete(path);
  const unmerged = new Map(conflicted.map((path) => [path, unmergedCode(index.conflicts.get(path)!)]));
  for (const [path] of stagedAll) if (policy.hidden(path)) work.withheld.push(path);
  return {
    branch: head.branch,
    head: head.oid,
    staged,
    unstaged: work.unstaged,
    untracked: work.untracked,
    conflicted,
    unmerged,
    withheld: [...new Set(work.withheld)].sort(comparePaths),
    refreshed: work.refreshed,
    unaddressable: work.unaddressable,
    submodules: work.submodules,
    gitlinks: new Set(
      [...stagedAll.keys(), ...work.unstaged.keys()].filter((p) => index.entries.get(p)?.mode === S_IFGITLINK),
    ),
  };
}

/**
 * Staged renames as git status pairs them (index against HEAD, git's rename detection: exact, then
 * similar content from 50%), new path → HEAD's path; `status.renames` (default `diff.renames`,
 * default true) false turns it off. Looked for only when something was both deleted and added.
 */
export async function stagedRenames(repo: Repo, index: Index, report: StatusReport): Promise<Map<string, string>> {
  const deletedPaths = [...report.staged].filter(([, c]) => c === "D").map(([p]) => p);
  const addedPaths = [...report.staged].filter(([, c]) => c === "A").map(([p]) => p);
  const setting = repo.config.get("status.renames") ?? repo.config.get("diff.renames") ?? "true";
  const off = ["false", "no", "off", "0"].includes(setting.trim().toLowerCase());
  if (off || deletedPaths.length === 0 || addedPaths.length === 0 || !report.head) return new Map();
  const { detectRenames } = await import("../diff/renames.ts");
  const headTree = parseCommit(await repo.objects.readTyped(report.head, "commit")).tree;
  const inHead = await flattenTree(repo, headTree);
  const deleted = new Map(deletedPaths.flatMap((p) => {
    const entry = inHead.get(p);
    return entry ? [[p, { oid: entry.oid, mode: entry.mode }] as const] : [];
  }));
  const added = new Map(addedPaths.flatMap((p) => {
    const entry = index.entries.get(p);
    return entry ? [[p, { oid: entry.oid, mode: modeToTreeMode(entry.mode) }] as const] : [];
  }));
  const renames = await detectRenames(deleted, added, (_path, side) => repo.objects.readTyped(side.oid, "blob"));
  return new Map(renames.map((r) => [r.to, r.from]));
}

/**
 * git's two letters for an unmerged path, from the stages the index has for it (wt-status.c's
 * stage mask: 1 base, 2 ours, 3 theirs).
 */
const UNMERGED_CODES = ["", "DD", "AU", "UD", "UA", "DU", "AA", "UU"];

export function unmergedCode(stages: readonly IndexEntry[]): string {
  let mask = 0;
  for (const entry of stages) if (entry.stage >= 1 && entry.stage <= 3) mask |= 1 << (entry.stage - 1);
  return UNMERGED_CODES[mask] || "UU";
}

/** git's long-status label for each unmerged code (`both modified:`, `deleted by us:`…). */
export const UNMERGED_LABELS: Readonly<Record<string, string>> = {
  DD: "both deleted:",
  AU: "added by us:",
  UD: "deleted by them:",
  UA: "added by them:",
  DU: "deleted by us:",
  AA: "both added:",
  UU: "both modified:",
};

export function statusFiles(report: StatusReport, renames: ReadonlyMap<string, string> = new Map()): StatusFile[] {
  const renamedFrom = new Set(renames.values());
  const paths = new Set<string>([...report.staged.keys(), ...report.unstaged.keys()]);
  const files: StatusFile[] = [];
  for (const path of [...paths].sort(comparePaths)) {
    // A renamed file's old path is shown with its new one (`R  old -> new`), as git shows it.
    if (renamedFrom.has(path) && !report.unstaged.has(path)) continue;
    const from = renames.get(path);
    const xy = `${from !== undefined ? "R" : report.staged.get(path) ?? "."}${report.unstaged.get(path) ?? "."}`;
    const sub = report.submodules.get(path) ?? (report.gitlinks.has(path) ? "S..." : undefined);
    files.push({ path, xy, ...(sub ? { submodule: sub } : {}), ...(from !== undefined ? { orig_path: from } : {}) });
  }
  for (const path of report.conflicted) files.push({ path, xy: report.unmerged.get(path) ?? "UU" });
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
