/** Trees: flattening a tree into paths, and writing the index as trees (git write-tree) with its cache tree. */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths, EMPTY_TREE_OID } from "./bytes.ts";
import { type CacheTreeNode, type Index, type IndexEntry, modeToTreeMode } from "../worktree/index_file.ts";
import { MODE_TREE, parseTree, serializeTree, type TreeEntry } from "./objects.ts";
import type { Repo } from "../repo/repo.ts";

export interface FlatEntry {
  readonly mode: string;
  readonly oid: string;
}

/** Every blob / link / gitlink of `tree` by full path (in tree order). */
export async function flattenTree(repo: Repo, tree: string | null): Promise<Map<string, FlatEntry>> {
  const out = new Map<string, FlatEntry>();
  if (!tree) return out;
  const walk = async (oid: string, prefix: string): Promise<void> => {
    for (const entry of parseTree(await repo.objects.readTyped(oid, "tree"), oid)) {
      const path = prefix + entry.name;
      if (entry.mode === MODE_TREE) await walk(entry.oid, path + "/");
      else out.set(path, { mode: entry.mode, oid: entry.oid });
    }
  };
  await walk(tree, "");
  return out;
}

/** `tree` flattened, but only below the given paths (files or folders); for path-limited operations. */
export async function flattenTreeUnder(
  repo: Repo,
  tree: string | null,
  paths: readonly string[] | null,
): Promise<Map<string, FlatEntry>> {
  const all = await flattenTree(repo, tree);
  if (!paths) return all;
  const out = new Map<string, FlatEntry>();
  for (const [path, entry] of all) if (paths.some((p) => pathWithin(path, p))) out.set(path, entry);
  return out;
}

/** Whether `path` is `spec` or inside the folder `spec` ("." or "" means everything). */
export function pathWithin(path: string, spec: string): boolean {
  if (spec === "" || spec === ".") return true;
  return path === spec || path.startsWith(spec.endsWith("/") ? spec : spec + "/");
}

/** The tree oid recorded for `dir` in a valid cache tree, else null. */
export function cachedTreeOid(index: Index, dir: string): string | null {
  let node: CacheTreeNode | null = index.cacheTree;
  if (!node) return null;
  if (dir !== "") {
    for (const part of dir.split("/")) {
      node = node.children.find((c) => c.name === part) ?? null;
      if (!node) return null;
    }
  }
  return node.entryCount >= 0 ? node.oid : null;
}

/**
 * Writes the index's stage-0 entries as tree objects and returns the root tree; reuses the
 * still-valid parts of the cache tree and leaves the index with a complete, valid one.
 */
export async function writeTreeFromIndex(repo: Repo, index: Index): Promise<string> {
  if (index.hasConflicts()) {
    const paths = [...index.conflicts.keys()].sort(comparePaths);
    throw new PtermError(
      "Conflict",
      `the index has unresolved conflicts (${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", ..." : ""}); ` +
        "edit those files, stage them with `git add`, then commit.",
      { result: { conflicts: paths } },
    );
  }
  const entries = [...index.entries.values()].filter((e) => !e.intentToAdd).sort((a, b) =>
    comparePaths(a.path, b.path)
  );
  const old = index.cacheTree;
  const build = async (
    start: number,
    end: number,
    prefixLength: number,
    name: string,
    cached: CacheTreeNode | null,
  ): Promise<CacheTreeNode> => {
    if (cached && cached.entryCount === end - start && cached.oid) {
      return cached;
    }
    const treeEntries: TreeEntry[] = [];
    const children: CacheTreeNode[] = [];
    let i = start;
    while (i < end) {
      const rest = entries[i].path.slice(prefixLength);
      const slash = rest.indexOf("/");
      if (slash < 0) {
        treeEntries.push({ mode: modeToTreeMode(entries[i].mode), name: rest, oid: entries[i].oid });
        i++;
        continue;
      }
      const dirName = rest.slice(0, slash);
      const dirPrefix = entries[i].path.slice(0, prefixLength + slash + 1);
      let j = i + 1;
      while (j < end && entries[j].path.startsWith(dirPrefix)) j++;
      const child = await build(
        i,
        j,
        dirPrefix.length,
        dirName,
        cached?.children.find((c) => c.name === dirName) ?? null,
      );
      children.push(child);
      treeEntries.push({ mode: MODE_TREE, name: dirName, oid: child.oid! });
      i = j;
    }
    const oid = treeEntries.length === 0 && prefixLength === 0
      ? await repo.objects.write("tree", new Uint8Array())
      : await repo.objects.write("tree", serializeTree(treeEntries));
    return { name, entryCount: end - start, oid, children };
  };
  const root = await build(0, entries.length, 0, "", old);
  index.cacheTree = root;
  return root.oid ?? EMPTY_TREE_OID;
}

/** Index entries (stat data empty) for every file of `tree`. */
export async function indexEntriesFromTree(
  repo: Repo,
  tree: string | null,
  makeEntry: (path: string, entry: FlatEntry) => IndexEntry,
): Promise<IndexEntry[]> {
  const flat = await flattenTree(repo, tree);
  return [...flat].map(([path, entry]) => makeEntry(path, entry));
}

/** A cache tree describing `tree` exactly (valid for an index that was just read from it). */
export async function cacheTreeFor(repo: Repo, tree: string | null): Promise<CacheTreeNode | null> {
  if (!tree) return null;
  const build = async (oid: string, name: string): Promise<CacheTreeNode> => {
    let count = 0;
    const children: CacheTreeNode[] = [];
    for (const entry of parseTree(await repo.objects.readTyped(oid, "tree"), oid)) {
      if (entry.mode === MODE_TREE) {
        const child = await build(entry.oid, entry.name);
        children.push(child);
        count += child.entryCount;
      } else count++;
    }
    return { name, entryCount: count, oid, children };
  };
  return await build(tree, "");
}
