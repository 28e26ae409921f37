/**
 * Three-way merges of trees (for merge, revert and stash apply) and applying the result to the
 * index and work tree. Per path: one side's change wins when the other kept the base; both
 * changed differently → a text merge of the contents; anything else (modify/delete, links,
 * mode clashes, a binary file) is a conflict recorded as index stages 1/2/3, as git records it.
 * Criss-cross histories (several merge bases) merge against a virtual base built as git's ort
 * builds it: the merge bases merged pairwise, recursively, with conflicts kept in the result
 * (content conflicts as markers two characters longer per level, modify/delete and binary
 * conflicts as the base's version).
 */

import { PtermError } from "../../../core/errors.ts";
import { bytesToByteString, byteStringToBytes, comparePaths, encoder, looksBinary } from "../odb/bytes.ts";
import { worktreeHolds, worktreeState } from "../worktree/compare.ts";
import { conversionFor } from "../worktree/convert.ts";
import type { ConflictStyle, MergeLabels } from "./diff3.ts";
import { lazyImport } from "../../../core/lazy.ts";
import { IgnoreRules } from "../worktree/ignore.ts";
import { emptyEntry, Index, type IndexEntry, S_IFGITLINK, S_IFLNK, treeModeToMode } from "../worktree/index_file.ts";
import { type Commit, MODE_EXEC, MODE_FILE } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { readCommit } from "../history/log.ts";
import {
  holdsNothingUnsaved,
  isAttributesFile,
  localChangesError,
  refuseSkipWorktree,
  writeBlob,
} from "../worktree/checkout.ts";
import { detectRenames } from "../diff/renames.ts";
import { type FlatEntry, flattenTree, writeTreeFromIndex } from "../odb/tree.ts";
import {
  hiddenPathDenied,
  lstatTracked,
  type PathPolicy,
  refuseUnaddressable,
  WorktreeWriter,
} from "../worktree/worktree.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { withPrinted } from "../porcelain/printed.ts";

/**
 * The three-way text merge (diff3.ts: histogram diff and xdiff's merge), loaded on the first
 * content merge only: `git diff`, `log` and `show` import this module for `mergeBases` and never
 * need it.
 */
const loadDiff3 = () => lazyImport<typeof import("./diff3.ts")>(new URL("./diff3.ts", import.meta.url));

/**
 * diff3.ts's mergeText for `path`. Where git's histogram diff gives up (xhistogram.c: more than
 * 64 different lines of one range in one hash chain), git's merge fails ("Failed to execute
 * internal merge") and changes nothing; so does pterm's, before anything is written.
 */
async function mergeContent(
  path: string,
  ...args: Parameters<typeof import("./diff3.ts").mergeText>
): Promise<ReturnType<typeof import("./diff3.ts").mergeText>> {
  const diff3 = await loadDiff3();
  try {
    return diff3.mergeText(...args);
  } catch (error) {
    if (!(error instanceof diff3.HistogramLimit)) throw error;
    throw new PtermError(
      "UnsupportedFormat",
      `${path}: git's own merge fails on this file too ("Failed to execute internal merge": its histogram diff ` +
        "gives up on more than 64 different lines in one hash chain); nothing was changed. Merge this file's " +
        "changes by hand.",
    );
  }
}

/**
 * One file's contents merged as git's ll_merge merges them outside a tree merge (`git apply
 * --3way`): the trivial cases settled first, the `merge` attribute and binary content (a NUL in
 * the first 8000 bytes) kept to our side as a conflict, else the text merge with the repository's
 * merge.conflictStyle, the path's conflict-marker-size and `labels`, its diff Myers's.
 */
export async function mergeFileBytes(
  repo: Repo,
  path: string,
  sides: { base: Uint8Array; ours: Uint8Array; theirs: Uint8Array },
  labels: MergeLabels,
): Promise<{ bytes: Uint8Array; conflicted: boolean; binary: boolean }> {
  const plan = await conversionFor(repo).plan(path);
  const mergeAttr = plan.merge;
  const binary = mergeAttr === false || mergeAttr === "binary" || looksBinary(sides.base) ||
    looksBinary(sides.ours) || looksBinary(sides.theirs);
  if (binary) return { bytes: sides.ours, conflicted: true, binary: true };
  const merged = await mergeContent(
    path,
    bytesToByteString(sides.base),
    bytesToByteString(sides.ours),
    bytesToByteString(sides.theirs),
    {
      ours: bytesToByteString(encoder.encode(labels.ours)),
      theirs: bytesToByteString(encoder.encode(labels.theirs)),
      base: labels.base === undefined ? undefined : bytesToByteString(encoder.encode(labels.base)),
    },
    {
      union: mergeAttr === "union",
      markerSize: plan.conflictMarkerSize,
      style: conflictStyle(repo),
      // ll_merge without options (apply.c's three_way_merge) diffs with Myers, not merge-ort's histogram.
      algorithm: "myers",
    },
  );
  return { bytes: byteStringToBytes(merged.text), conflicted: merged.conflicts > 0, binary: false };
}

export type MergedPath =
  | { kind: "clean"; entry: FlatEntry | undefined }
  | {
    kind: "conflict";
    base?: FlatEntry;
    ours?: FlatEntry;
    theirs?: FlatEntry;
    worktree: Uint8Array | FlatEntry | null;
  };

/**
 * A conflict of names rather than of contents, as git's ort reports it: a file renamed on one side and deleted on
 * the other (`rename/delete`), or renamed by both sides to different paths (`rename/rename`).
 */
export type RenameConflict =
  | { kind: "rename/delete"; from: string; to: string; renamedIn: "ours" | "theirs" }
  | { kind: "rename/rename"; from: string; ours: string; theirs: string };

export interface TreeMerge {
  /** Paths whose result differs from ours, with their result. */
  readonly changes: Map<string, MergedPath>;
  /**
   * Paths both sides changed, differently: the ones merge-ort merges file by file and reports
   * (`Auto-merging`), whether or not the result differs from ours (theirs' change may be in ours already).
   */
  readonly bothChanged: string[];
  readonly conflicts: string[];
  /** The conflicts among them that renames made. */
  readonly renameConflicts: RenameConflict[];
}

/** `merge.conflictStyle` (git's git_xmerge_config: exactly `merge`, `diff3` or `zdiff3`; anything else stops git). */
function conflictStyle(repo: Repo): ConflictStyle {
  const value = repo.config.get("merge.conflictStyle");
  if (value === undefined || value === "merge" || value === "diff3" || value === "zdiff3") return value ?? "merge";
  throw new PtermError(
    "InvalidConfig",
    `merge.conflictStyle is '${value}', which git does not know (merge, diff3 or zdiff3): ` +
      "fix it with `git config merge.conflictStyle merge`; nothing was changed.",
  );
}

function same(a: FlatEntry | undefined, b: FlatEntry | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.oid === b.oid && a.mode === b.mode;
}

const isRegular = (e: FlatEntry) => e.mode === MODE_FILE || e.mode === MODE_EXEC;

export async function mergeTrees(
  repo: Repo,
  baseTree: string | null,
  oursTree: string | null,
  theirsTree: string | null,
  labels: MergeLabels,
  options: { depth?: number } = {},
): Promise<TreeMerge> {
  // Inside a virtual merge base (depth > 0) a conflict is not recorded: it is resolved into the tree.
  const depth = options.depth ?? 0;
  const style = conflictStyle(repo);
  const B = await flattenTree(repo, baseTree);
  const O = await flattenTree(repo, oursTree);
  const T = await flattenTree(repo, theirsTree);
  const { base: B2, ours: O2, theirs: T2, renamedPaths, forced, twoWays, renameDeletes } = await followRenames(
    repo,
    B,
    O,
    T,
    depth,
  );
  // A file both sides renamed to different paths: as git's ort, its contents are merged (conflict
  // markers and all) and the merged file stands at both paths (still a conflict: which name to keep).
  for (const { from, ours: oursPath, theirs: theirsPath } of twoWays) {
    const b = B.get(from)!;
    const o = O.get(oursPath)!;
    const t = T.get(theirsPath)!;
    if (!isRegular(b) || !isRegular(o) || !isRegular(t)) continue;
    const [baseBytes, oursBytes, theirsBytes] = await Promise.all(
      [b, o, t].map((e) => repo.objects.readTyped(e.oid, "blob")),
    );
    if (looksBinary(baseBytes) || looksBinary(oursBytes) || looksBinary(theirsBytes)) continue;
    const merged = await mergeContent(
      from,
      bytesToByteString(baseBytes),
      bytesToByteString(oursBytes),
      bytesToByteString(theirsBytes),
      {
        ours: bytesToByteString(encoder.encode(`${labels.ours}:${oursPath}`)),
        theirs: bytesToByteString(encoder.encode(`${labels.theirs}:${theirsPath}`)),
        base: bytesToByteString(encoder.encode(`${labels.base ?? ""}:${from}`)),
      },
      // One character longer than usual, as git marks this merge (it could be nested in another);
      // the attributes are the base path's, as ort merges it under that name.
      { markerSize: (await conversionFor(repo).plan(from)).conflictMarkerSize + 1 + 2 * depth, style },
    );
    const oid = await repo.objects.write("blob", byteStringToBytes(merged.text));
    O2.set(oursPath, { oid, mode: o.mode });
    T2.set(theirsPath, { oid, mode: t.mode });
  }
  const results = new Map<string, MergedPath>();
  const conflicts: string[] = [];
  const bothChanged: string[] = [];
  const paths = new Set([...B2.keys(), ...O2.keys(), ...T2.keys()]);
  for (const path of [...paths].sort(comparePaths)) {
    const b = B2.get(path);
    const o = O2.get(path);
    const t = T2.get(path);
    const clean = (entry: FlatEntry | undefined) => results.set(path, { kind: "clean", entry });
    if (!forced.has(path) || depth > 0) {
      if (same(o, t) || same(b, t)) {
        clean(o);
        continue;
      }
      if (same(b, o)) {
        clean(t);
        continue;
      }
    }
    // Both sides changed the path, differently.
    bothChanged.push(path);
    const named = renamedPaths.get(path);
    const pathLabels = named && named.ours !== named.theirs
      ? {
        ours: `${labels.ours}:${named.ours}`,
        theirs: `${labels.theirs}:${named.theirs}`,
        base: `${labels.base ?? ""}:${named.base}`,
      }
      : labels;
    if (o && t && isRegular(o) && isRegular(t)) {
      let mode: string | null = o.mode === t.mode ? o.mode : null;
      if (mode === null && b) mode = o.mode === b.mode ? t.mode : t.mode === b.mode ? o.mode : null;
      const [baseBytes, oursBytes, theirsBytes] = await Promise.all([
        b && isRegular(b) ? repo.objects.readTyped(b.oid, "blob") : Promise.resolve(new Uint8Array()),
        repo.objects.readTyped(o.oid, "blob"),
        repo.objects.readTyped(t.oid, "blob"),
      ]);
      // The `merge` attribute: unset (or `binary`) never merges line by line; `union` keeps both sides.
      const plan = await conversionFor(repo).plan(path);
      const mergeAttr = plan.merge;
      const binary = mergeAttr === false || mergeAttr === "binary" || looksBinary(baseBytes) ||
        looksBinary(oursBytes) || looksBinary(theirsBytes);
      if (!binary) {
        // Merged as bytes (one character per byte), so a BOM, Latin-1 or any other encoding and
        // CRLF line ends come out exactly as they went in; the labels are UTF-8 bytes too.
        const merged = await mergeContent(
          path,
          bytesToByteString(baseBytes),
          bytesToByteString(oursBytes),
          bytesToByteString(theirsBytes),
          {
            ours: bytesToByteString(encoder.encode(pathLabels.ours)),
            theirs: bytesToByteString(encoder.encode(pathLabels.theirs)),
            base: pathLabels.base === undefined ? undefined : bytesToByteString(encoder.encode(pathLabels.base)),
          },
          { union: mergeAttr === "union", markerSize: plan.conflictMarkerSize + 2 * depth, style },
        );
        if ((merged.conflicts === 0 || depth > 0) && (mode !== null || depth > 0)) {
          mode ??= o.mode;
          const bytes = byteStringToBytes(merged.text);
          const oid = await repo.objects.write("blob", bytes);
          clean(oid === o.oid && mode === o.mode ? o : { oid, mode });
          continue;
        }
        conflicts.push(path);
        results.set(path, { kind: "conflict", base: b, ours: o, theirs: t, worktree: byteStringToBytes(merged.text) });
        continue;
      }
    }
    if (depth > 0) {
      // git's virtual base: no middle point between the sides, so the base's version (binary
      // add/add: an empty file).
      clean(
        b ??
          (o && t && isRegular(o) && isRegular(t)
            ? { oid: await repo.objects.write("blob", new Uint8Array()), mode: o.mode }
            : undefined),
      );
      continue;
    }
    conflicts.push(path);
    // Keep whichever side still has the file in the work tree (ours first), as git does.
    results.set(path, { kind: "conflict", base: b, ours: o, theirs: t, worktree: o ?? t ?? null });
  }
  // What changes from ours, path by path (a rename on their side moves our file).
  const changes = new Map<string, MergedPath>();
  for (const path of [...new Set([...results.keys(), ...O.keys()])].sort(comparePaths)) {
    const result = results.get(path) ?? { kind: "clean", entry: undefined };
    if (result.kind === "conflict" || !same(result.entry, O.get(path))) changes.set(path, result);
  }
  if (depth === 0) checkFileFolderClashes(O, changes);
  const renameConflicts: RenameConflict[] = depth > 0 ? [] : [
    ...renameDeletes.map((r) => ({ kind: "rename/delete" as const, ...r })),
    ...twoWays.map((r) => ({ kind: "rename/rename" as const, ...r })),
  ];
  return { changes, bothChanged, conflicts, renameConflicts };
}

/**
 * Renames on either side (base → ours, base → theirs, as git's ort detects them) carried over to
 * the other side, so that a change to a file the other side moved is merged at its new path:
 * the maps returned are keyed by the path each file ends up at. A rename against a deletion, or
 * two renames of one file to different paths, are conflicts (`forced`), as in git.
 */
async function followRenames(
  repo: Repo,
  B: Map<string, FlatEntry>,
  O: Map<string, FlatEntry>,
  T: Map<string, FlatEntry>,
  depth: number,
): Promise<{
  base: Map<string, FlatEntry>;
  ours: Map<string, FlatEntry>;
  theirs: Map<string, FlatEntry>;
  renamedPaths: Map<string, { ours: string; theirs: string; base: string }>;
  forced: Set<string>;
  /** Files renamed by both sides to different paths. */
  twoWays: { from: string; ours: string; theirs: string }[];
  /** Files renamed by one side and deleted by the other. */
  renameDeletes: { from: string; to: string; renamedIn: "ours" | "theirs" }[];
}> {
  const base = new Map(B);
  const ours = new Map(O);
  const theirs = new Map(T);
  const renamedPaths = new Map<string, { ours: string; theirs: string; base: string }>();
  const forced = new Set<string>();
  const twoWays: { from: string; ours: string; theirs: string }[] = [];
  const renameDeletes: { from: string; to: string; renamedIn: "ours" | "theirs" }[] = [];
  const baseDirs = foldersOf(B.keys());
  const renamesFrom = async (side: Map<string, FlatEntry>, other: Map<string, FlatEntry>) => {
    const deleted = new Map([...B].filter(([p]) => !side.has(p)));
    const added = new Map([...side].filter(([p]) => !B.has(p)));
    if (deleted.size === 0 || added.size === 0) return new Map<string, string>();
    // Folders this side removed into which the other side added files: their renames decide
    // where those files go (ort's "relevant for location").
    const sideDirs = foldersOf(side.keys());
    const located = new Set<string>();
    for (const path of other.keys()) {
      if (B.has(path)) continue;
      for (const dir of parentsOf(path)) if (baseDirs.has(dir) && !sideDirs.has(dir)) located.add(dir);
    }
    // As git's ort: exact renames of any file, inexact ones only of files the other side changed
    // (the rename of a file nobody else touched changes nothing in the merge) or that decide a location.
    const relevant = (path: string) =>
      !same(other.get(path), B.get(path)) || parentsOf(path).some((dir) => located.has(dir));
    // Candidates equally similar are taken in the order ort lists them (ortOrder), not in path order.
    const order = ortOrder(B, side, other, [...deleted.keys()].some(relevant));
    const byOrtOrder = (paths: Map<string, FlatEntry>) =>
      new Map([...paths].sort(([a], [b]) => order(a) - order(b) || comparePaths(a, b)));
    const found = await detectRenames(
      byOrtOrder(deleted),
      byOrtOrder(added),
      (_path, e) => repo.objects.readTyped(e.oid, "blob"),
      undefined,
      relevant,
    );
    return new Map(found.map((r) => [r.from, r.to]));
  };
  const oursRenames = await renamesFrom(O, T);
  const theirsRenames = await renamesFrom(T, O);
  const moveBase = (from: string, to: string) => {
    base.delete(from);
    base.set(to, B.get(from)!);
  };
  for (const [from, to] of oursRenames) {
    const theirTo = theirsRenames.get(from);
    if (theirTo !== undefined) {
      if (theirTo === to) moveBase(from, to);
      else {
        // rename/rename to two paths: git keeps the base at the old path (stage 1) and each side's file at its own.
        forced.add(from);
        forced.add(to);
        forced.add(theirTo);
        twoWays.push({ from, ours: to, theirs: theirTo });
      }
      continue;
    }
    if (T.has(to)) continue; // they added a file there: an add/add at that path
    moveBase(from, to);
    if (!T.has(from)) {
      forced.add(to); // renamed here, deleted there
      renameDeletes.push({ from, to, renamedIn: "ours" });
      continue;
    }
    theirs.delete(from);
    theirs.set(to, T.get(from)!);
    renamedPaths.set(to, { ours: to, theirs: from, base: from });
  }
  for (const [from, to] of theirsRenames) {
    if (oursRenames.has(from) || O.has(to)) continue;
    moveBase(from, to);
    if (!O.has(from)) {
      forced.add(to);
      renameDeletes.push({ from, to, renamedIn: "theirs" });
      continue;
    }
    ours.delete(from);
    ours.set(to, O.get(from)!);
    renamedPaths.set(to, { ours: from, theirs: to, base: from });
  }
  // Directory renames (git's merge.directoryRenames=conflict, its default): a file one side added
  // inside a folder the other side moved away goes to the folder's new place, as a conflict.
  for (
    const [renames, renamer, adder, adderMap] of [[oursRenames, O, T, theirs], [theirsRenames, T, O, ours]] as const
  ) {
    if (depth > 0) break; // a virtual merge base keeps such files where they were added
    const moved = folderRenames(renames, baseDirs, foldersOf(renamer.keys()));
    if (moved.size === 0) continue;
    for (const path of [...adder.keys()]) {
      if (B.has(path) || !adderMap.has(path)) continue;
      const dir = parentsOf(path).find((d) => moved.has(d));
      if (dir === undefined) continue;
      const target = moved.get(dir)!;
      const to = (target === "" ? "" : `${target}/`) + path.slice(dir.length + 1);
      if (O.has(to) || T.has(to) || base.has(to) || ours.has(to) || theirs.has(to)) continue;
      adderMap.set(to, adderMap.get(path)!);
      adderMap.delete(path);
      forced.add(to);
    }
  }
  return { base, ours, theirs, renamedPaths, forced, twoWays, renameDeletes };
}

/**
 * Where a path of `side` comes in the list of changes git's ort hands to rename detection (the
 * order that decides between equally similar candidates). ort walks the trees in path order but
 * defers a folder that only this side changed (the other side has it as the base has it, or it is
 * new on this side): such folders are walked after everything else, in the iteration order of
 * git's hash map of them (merge-ort.c's collect_merge_info and handle_deferred_entries), and only
 * when this side has sources that need inexact detection (`walkDeferred`); else not at all.
 */
function ortOrder(
  B: Map<string, FlatEntry>,
  side: Map<string, FlatEntry>,
  other: Map<string, FlatEntry>,
  walkDeferred: boolean,
): (path: string) => number {
  /** The folders holding a path whose entry differs between the base and `tree`: the folders `tree` changed. */
  const changedFolders = (tree: Map<string, FlatEntry>) => {
    const out = new Set<string>();
    const mark = (path: string) => {
      for (const dir of parentsOf(path)) {
        if (out.has(dir)) break;
        out.add(dir);
      }
    };
    for (const [path, e] of tree) if (!same(e, B.get(path))) mark(path);
    for (const path of B.keys()) if (!tree.has(path)) mark(path);
    return out;
  };
  const mine = changedFolders(side);
  const theirs = changedFolders(other);
  // A folder one side removed and the other added a file to needs folder-rename detection: ort
  // (dir_rename_mask 0x07) then defers nothing below it.
  const baseDirs = foldersOf(B.keys());
  const sideDirs = foldersOf(side.keys());
  const otherDirs = foldersOf(other.keys());
  const needsFolderRenames = new Set<string>();
  for (
    const [keeper, keeperDirs, removerDirs] of [[side, sideDirs, otherDirs], [other, otherDirs, sideDirs]] as const
  ) {
    for (const path of keeper.keys()) {
      const dir = path.slice(0, Math.max(0, path.lastIndexOf("/")));
      if (dir && !B.has(path) && baseDirs.has(dir) && keeperDirs.has(dir) && !removerDirs.has(dir)) {
        needsFolderRenames.add(dir);
      }
    }
  }
  // The folders this side changed, in the order the walk meets them; those the other side left as
  // the base has them are deferred (nothing more inside a deferred folder).
  const deferred: string[] = [];
  const deferredSet = new Set<string>();
  for (const dir of [...mine].sort(comparePaths)) {
    if (parentsOf(dir).some((d) => deferredSet.has(d) || needsFolderRenames.has(d))) continue;
    if (!theirs.has(dir)) {
      deferred.push(dir);
      deferredSet.add(dir);
    }
  }
  const rank = new Map<string, number>();
  gitHashmapOrder(deferred).forEach((dir, i) => rank.set(dir, i));
  const NOT_WALKED = deferred.length + 1;
  return (path) => {
    for (const dir of parentsOf(path).reverse()) {
      const at = rank.get(dir);
      if (at !== undefined) return walkDeferred ? 1 + at : NOT_WALKED;
    }
    return 0; // walked in path order, before the deferred folders
  };
}

/**
 * The order git's hashmap.c iterates string keys inserted in this order (a strintmap): FNV-1
 * hashes, 64 buckets to start, each new key at the head of its bucket, four times the buckets
 * when more than 80% full (keys moved over bucket by bucket, each to the head).
 */
function gitHashmapOrder(keys: readonly string[]): string[] {
  const strhash = (key: string) => {
    let hash = 0x811c9dc5;
    for (const byte of encoder.encode(key)) hash = (Math.imul(hash, 0x01000193) ^ byte) >>> 0;
    return hash;
  };
  let table: string[][] = Array.from({ length: 64 }, () => []);
  const put = (key: string) => table[strhash(key) & (table.length - 1)].unshift(key);
  let count = 0;
  for (const key of keys) {
    put(key);
    if (++count > Math.floor(table.length * 80 / 100)) {
      const old = table;
      table = Array.from({ length: old.length * 4 }, () => []);
      for (const bucket of old) for (const key of bucket) put(key);
    }
  }
  return table.flat();
}

/** Every folder that holds one of `paths` (at any depth). */
function foldersOf(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const path of paths) for (const dir of parentsOf(path)) out.add(dir);
  return out;
}

/** The folders above `path`, deepest first ("a/b/c" → "a/b", "a"). */
function parentsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) out.push(path.slice(0, i));
  return out;
}

/**
 * Folders of the base that one side removed, with where most of their files went (git's ort:
 * the part of the path that changed, the largest count wins; a tie is no folder rename).
 */
function folderRenames(
  renames: ReadonlyMap<string, string>,
  baseDirs: ReadonlySet<string>,
  sideDirs: ReadonlySet<string>,
): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const [from, to] of renames) {
    const a = from.split("/").slice(0, -1);
    const b = to.split("/").slice(0, -1);
    if (a.length === 0) continue;
    while (a.length > 0 && b.length > 0 && a[a.length - 1] === b[b.length - 1]) {
      a.pop();
      b.pop();
    }
    if (a.length === 0) continue;
    const oldDir = a.join("/");
    if (!baseDirs.has(oldDir) || sideDirs.has(oldDir)) continue;
    const forDir = counts.get(oldDir) ?? new Map<string, number>();
    forDir.set(b.join("/"), (forDir.get(b.join("/")) ?? 0) + 1);
    counts.set(oldDir, forDir);
  }
  const out = new Map<string, string>();
  for (const [dir, targets] of counts) {
    const ranked = [...targets].sort((x, y) => y[1] - x[1]);
    if (ranked.length > 1 && ranked[0][1] === ranked[1][1]) continue;
    out.set(dir, ranked[0][0]);
  }
  return out;
}

/** The tree `merge` leads to from `ours` (a merge without conflicts, as a virtual base has). */
async function resultTree(repo: Repo, oursTree: string | null, merge: TreeMerge): Promise<string> {
  const index = new Index();
  for (const [path, entry] of await flattenTree(repo, oursTree)) {
    index.entries.set(path, emptyEntry(path, entry.oid, treeModeToMode(entry.mode)));
  }
  for (const [path, merged] of merge.changes) {
    if (merged.kind !== "clean") throw new Error(`a virtual merge left ${path} conflicted`);
    if (merged.entry) index.entries.set(path, emptyEntry(path, merged.entry.oid, treeModeToMode(merged.entry.mode)));
    else index.entries.delete(path);
  }
  // A file and a folder of the same name cannot both be in a tree: the file goes (git renames it away).
  const paths = [...index.entries.keys()];
  const folders = new Set<string>();
  for (const path of paths) {
    for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) folders.add(path.slice(0, i));
  }
  for (const path of paths) if (folders.has(path)) index.entries.delete(path);
  return await writeTreeFromIndex(repo, index);
}

/** A commit as the merge-base search sees it: a real one, or a virtual merge of merge bases. */
interface MergeCommit {
  readonly oid: string;
  readonly tree: string | null;
  readonly parents: readonly string[];
}

/**
 * The base tree for merging `ours` and `theirs` (commit ids): the merge base's tree when there
 * is one, a virtual merge of all of them (git's ort, recursively) when there are several, null
 * when there is none; with the label git's ort gives it (after `|||||||` in the diff3 styles).
 */
export async function mergeBaseTree(
  repo: Repo,
  ours: string,
  theirs: string,
): Promise<{ tree: string | null; label: string }> {
  const virtuals = new Map<string, MergeCommit>();
  const read = async (oid: string): Promise<MergeCommit> => {
    const known = virtuals.get(oid);
    if (known) return known;
    const commit = await readCommit(repo, oid);
    return { oid, tree: commit.tree, parents: commit.parents };
  };
  const baseOf = async (a: string, b: string, depth: number): Promise<{ tree: string | null; label: string }> => {
    const bases = await mergeBasesOf(read, a, b);
    if (bases.length === 0) return { tree: null, label: "empty tree" };
    // Oldest first, as git's ort takes them (it reverses the newest-first list of merge bases).
    const dated = await Promise.all(bases.map(async (oid) => ({ oid, time: await commitTime(repo, oid, virtuals) })));
    dated.sort((x, y) => x.time - y.time);
    let merged = dated[0].oid;
    for (const next of dated.slice(1)) {
      const base = await baseOf(merged, next.oid, depth + 1);
      const mergedCommit = await read(merged);
      const nextCommit = await read(next.oid);
      const merge = await mergeTrees(
        repo,
        base.tree,
        mergedCommit.tree,
        nextCommit.tree,
        { ours: "Temporary merge branch 1", theirs: "Temporary merge branch 2", base: base.label },
        { depth: depth + 1 },
      );
      const tree = await resultTree(repo, mergedCommit.tree, merge);
      const oid = `virtual:${virtuals.size}`;
      virtuals.set(oid, { oid, tree, parents: [merged, next.oid] });
      merged = oid;
    }
    const label = bases.length > 1 ? "merged common ancestors" : abbreviate(repo, bases[0]);
    return { tree: (await read(merged)).tree, label };
  };
  return await baseOf(ours, theirs, 0);
}

async function commitTime(repo: Repo, oid: string, virtuals: Map<string, MergeCommit>): Promise<number> {
  if (virtuals.has(oid)) return Number.MAX_SAFE_INTEGER;
  return (await readCommit(repo, oid)).committer.timestamp;
}

/** A merge result with both `a` and `a/b` cannot be written; pterm refuses it before touching anything. */
function checkFileFolderClashes(ours: Map<string, FlatEntry>, changes: Map<string, MergedPath>): void {
  const result = new Set(ours.keys());
  for (const [path, merged] of changes) {
    const present = merged.kind === "clean" ? merged.entry !== undefined : true;
    if (present) result.add(path);
    else result.delete(path);
  }
  for (const path of result) {
    const parts = path.split("/");
    for (let k = 1; k < parts.length; k++) {
      const prefix = parts.slice(0, k).join("/");
      if (result.has(prefix)) {
        throw new PtermError(
          "Conflict",
          `the merge would put a file and a folder at ${prefix}; pterm cannot record that conflict. Resolve it with the real git.`,
          { result: { conflicts: [prefix] } },
        );
      }
    }
  }
}

/**
 * What git's merge machinery (unpack-trees, for a merge, cherry-pick, revert or a rebase's pick) prints when files
 * are in its way: the tracked files with local changes, then the untracked files, each path on its own line, then
 * `Aborting`.
 */
function mergeCheckoutRefusal(dirty: readonly string[], untracked: readonly string[]): string {
  const list = (paths: readonly string[]) => [...paths].sort(comparePaths).map((path) => `\t${path}\n`).join("");
  let text = "";
  if (dirty.length > 0) {
    text += "error: Your local changes to the following files would be overwritten by merge:\n" + list(dirty) +
      "Please commit your changes or stash them before you merge.\n";
  }
  if (untracked.length > 0) {
    text += "error: The following untracked working tree files would be overwritten by merge:\n" + list(untracked) +
      "Please move or remove them before you merge.\n";
  }
  return `${text}Aborting\n`;
}

/**
 * Applies a tree merge on top of `index` (whose stage-0 entries equal "ours" for every changed
 * path) and the work tree. Refuses, before changing anything, when a path the merge changes has
 * local modifications or an untracked file in the way.
 */
export async function applyMerge(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  merge: TreeMerge,
  action: string,
): Promise<{ changed: string[]; conflicts: string[] }> {
  const ignore = new IgnoreRules(repo.dir, repo.commondir, repo.ignoreCase, (p) => policy.hidden(p) !== null);
  refuseSkipWorktree(index, merge.changes.keys(), action);
  refuseUnaddressable([...merge.changes.keys()].filter((path) => !policy.hidden(path)), action);
  // A merge that would write into a git directory is refused whole, as a checkout is.
  const intoGitDir = [...merge.changes.keys()].find((path) => policy.hidden(path) === "gitdir");
  if (intoGitDir !== undefined) throw hiddenPathDenied(intoGitDir, "gitdir", `${action} changed nothing`);
  const dirty: string[] = [];
  const untracked: string[] = [];
  for (const [path, merged] of merge.changes) {
    if (policy.hidden(path)) continue;
    const current = index.entries.get(path);
    if (current) {
      if ((await worktreeState(repo, current, index.fileMtimeMs)) === "dirty") dirty.push(path);
    } else {
      const info = lstatTracked(repo, path);
      if (!info) continue;
      const target = merged.kind === "clean" ? merged.entry : undefined;
      if (info.isDirectory || ignore.isIgnored(path, false)) continue;
      if (target && (await worktreeHolds(repo, path, target.oid))) continue;
      untracked.push(path);
    }
  }
  if (dirty.length + untracked.length > 0) {
    throw withPrinted(
      localChangesError([...dirty, ...untracked], action, "Commit or stash them first (`git stash push`), then retry."),
      { stdout: "", stderr: mergeCheckoutRefusal(dirty, untracked) },
    );
  }
  // A secret the merge changes cleanly follows it on disk, as git's merge would write it (never shown), unless its
  // file holds a local change pterm cannot show or save; a conflicted secret is left as it is.
  const inStep = new Set<string>();
  for (const [path, merged] of merge.changes) {
    if (merged.kind !== "clean" || policy.hidden(path) !== "secret") continue;
    if (await holdsNothingUnsaved(repo, index.entries.get(path), merged.entry, path, index.fileMtimeMs)) {
      inStep.add(path);
    }
  }
  const untouched = (path: string) => policy.hidden(path) !== null && !inStep.has(path);
  const writer = new WorktreeWriter(repo);
  const visible = [...merge.changes].filter(([path]) => !untouched(path));
  writer.refuseGitDirectories(
    visible.flatMap(([path, merged]) => {
      const entry = merged.kind === "clean" ? merged.entry : (merged.ours ?? merged.theirs);
      const mode = entry ? treeModeToMode(entry.mode) : S_IFGITLINK;
      return mode === S_IFGITLINK ? [] : [[path, mode] as const];
    }),
    visible.filter(([, merged]) => merged.kind === "clean" && !merged.entry).map(([path]) => path),
    action,
  );
  const changed: string[] = [];
  const attributeFiles = new Map<string, string | null>();
  for (const [path, merged] of merge.changes) {
    if (isAttributesFile(path) && merged.kind === "clean") attributeFiles.set(path, merged.entry?.oid ?? null);
  }
  conversionFor(repo, index).expectAttributes(attributeFiles);
  // Deletions first, so a file that turns into a folder is out of the way.
  for (const [path, merged] of merge.changes) {
    if (merged.kind !== "clean" || merged.entry) continue;
    index.remove(path);
    if (!untouched(path)) writer.removeFile(path);
    changed.push(path);
  }
  for (const [path, merged] of merge.changes) {
    const hidden = policy.hidden(path) !== null;
    if (merged.kind === "clean") {
      if (!merged.entry) continue;
      if (untouched(path)) index.set(emptyEntry(path, merged.entry.oid, treeModeToMode(merged.entry.mode)));
      else index.set(await writeBlob(repo, writer, path, merged.entry), true);
      changed.push(path);
      continue;
    }
    const stages: IndexEntry[] = [];
    if (merged.base) stages.push(emptyEntry(path, merged.base.oid, treeModeToMode(merged.base.mode), 1));
    if (merged.ours) stages.push(emptyEntry(path, merged.ours.oid, treeModeToMode(merged.ours.mode), 2));
    if (merged.theirs) stages.push(emptyEntry(path, merged.theirs.oid, treeModeToMode(merged.theirs.mode), 3));
    index.setConflict(path, stages);
    if (hidden) continue;
    const content = merged.worktree;
    if (content instanceof Uint8Array) {
      const mode = treeModeToMode((merged.ours ?? merged.theirs)!.mode);
      writer.writeFile(path, mode === S_IFLNK ? content : await conversionFor(repo).toWorktree(path, content), mode);
    } else if (content) {
      await writeBlob(repo, writer, path, content);
    }
    changed.push(path);
  }
  return { changed: [...new Set(changed)].sort(comparePaths), conflicts: merge.conflicts };
}

// ---- merge bases -------------------------------------------------------------------------------

/** Every commit reachable from `oid` (itself included), with its parents. */
async function ancestors(
  read: (oid: string) => Promise<{ parents: readonly string[] }>,
  oid: string,
): Promise<Map<string, readonly string[]>> {
  const seen = new Map<string, readonly string[]>();
  const stack = [oid];
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    const commit = await read(next);
    seen.set(next, commit.parents);
    stack.push(...commit.parents);
  }
  return seen;
}

const commitReader = (repo: Repo) => async (oid: string): Promise<Commit> => await readCommit(repo, oid);

export async function isAncestor(repo: Repo, maybeAncestor: string, of: string): Promise<boolean> {
  return (await ancestors(commitReader(repo), of)).has(maybeAncestor);
}

/**
 * The best common ancestors of `a` and `b`: common ancestors that are not an ancestor of another
 * common one — i.e. not a parent of any common commit (every ancestor of a common commit is common).
 */
/** The merge bases of two commits (`git merge-base --all`), for `a...b` and fast-forward checks. */
export async function mergeBases(repo: Repo, a: string, b: string): Promise<string[]> {
  return await mergeBasesOf((oid) => readCommit(repo, oid), a, b);
}

async function mergeBasesOf(
  read: (oid: string) => Promise<{ parents: readonly string[] }>,
  a: string,
  b: string,
): Promise<string[]> {
  const fromA = await ancestors(read, a);
  const fromB = await ancestors(read, b);
  const common = [...fromA.keys()].filter((c) => fromB.has(c));
  const dominated = new Set<string>();
  for (const c of common) for (const parent of fromA.get(c)!) dominated.add(parent);
  return common.filter((c) => !dominated.has(c));
}
