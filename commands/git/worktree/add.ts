/** Staging: `git add -A [-- paths]` (deletions staged too), `--force` for ignored files. */

import { PtermError } from "../../../core/errors.ts";
import { Pacer } from "../../../core/pace.ts";
import { bytesEqual, comparePaths } from "../odb/bytes.ts";
import { IgnoreRules } from "./ignore.ts";
import { emptyEntry, entryFromStat, entryFromWrite, type Index, S_IFGITLINK, S_IFLNK } from "./index_file.ts";
import { submoduleHead } from "../repo/submodule.ts";
import { sha1 } from "../odb/codec.ts";
import { conversionFor, worktreeBlob } from "./convert.ts";
import { objectHeader } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { worktreeStatus } from "../porcelain/status.ts";
import { pathWithin } from "../odb/tree.ts";
import { hiddenPathDenied, lstatTracked, type PathPolicy, worktreeMode } from "./worktree.ts";

export interface StageResult {
  /** Paths newly added to the index. */
  readonly added: string[];
  /** Paths whose staged content or mode changed. */
  readonly updated: string[];
  /** Paths removed from the index (deleted in the work tree). */
  readonly removed: string[];
  /** Paths pterm left alone because they are secret (or pterm's own state). */
  readonly withheld: string[];
  /** Paths whose names are not UTF-8: pterm cannot open them; their index entries stay as they were. */
  readonly unaddressable: string[];
}

/**
 * Stages `specs` (normalized paths relative to the work tree; "" is everything) into `index`,
 * the in-memory index of a held lock.
 */
export async function stage(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  specs: readonly string[],
  options: {
    force?: boolean;
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
    /**
     * The caller wrote these files itself in this call (a patch): their stat data is recorded whole,
     * as git's apply and checkout record a file they wrote, instead of smudged as a file modified in
     * the last moments by someone else is. git's own racy check still reads any entry not older than
     * the index file.
     */
    written?: boolean;
    /**
     * The content to record for these paths instead of the work-tree file read back in git's form:
     * git apply stages its result as it made it (a line it added with CRLF stays so in the blob, though
     * the file converted back would lose the CR).
     */
    blobs?: ReadonlyMap<string, Uint8Array>;
  } = {},
): Promise<StageResult> {
  conversionFor(repo, index);
  const all = specs.includes("");
  const scope = all ? null : specs;
  for (const spec of specs) {
    const hidden = spec === "" ? null : policy.hidden(spec);
    if (hidden) throw hiddenPathDenied(spec, hidden, "it is never staged");
  }
  const ignore = new IgnoreRules(repo.dir, repo.commondir, repo.ignoreCase, (p) => policy.hidden(p) !== null);
  const forced: string[] = [];
  if (!all) {
    for (const spec of specs) {
      const tracked = index.entries.has(spec) || index.conflicts.has(spec) ||
        [...index.entries.keys()].some((p) => pathWithin(p, spec));
      const info = lstatTracked(repo, spec);
      if (!tracked && info === null) {
        throw new PtermError(
          "NotFound",
          `pathspec \`${spec}\` did not match any files (neither in the work tree nor in the index).`,
        );
      }
      if (!tracked && info && ignore.isIgnored(spec, info.isDirectory)) {
        if (!options.force) {
          throw new PtermError(
            "InvalidArgs",
            `\`${spec}\` is ignored by a .gitignore (or .git/info/exclude); add --force to stage it anyway.`,
          );
        }
        forced.push(spec);
      }
    }
  }
  // Submodules' new commits are found whatever their `ignore` setting says, as git add finds them.
  const work = await worktreeStatus(repo, index, policy, { untracked: true, paths: scope, submodules: "none" });
  refuseSkipWorktreeOnly(index, specs, work.untracked);
  const toWrite: string[] = [...work.untracked.filter((p) => !p.endsWith("/"))];
  // A repository nested in the work tree is added as a gitlink to its checked-out commit, as git does.
  const nested: { path: string; head: string }[] = [];
  for (const untracked of work.untracked.filter((p) => p.endsWith("/"))) {
    const path = untracked.slice(0, -1);
    const head = submoduleHead(repo, path);
    if (!head) {
      throw new PtermError(
        "InvalidArgs",
        `\`${path}\` is a git repository with no commit checked out, so there is nothing to add for it (git refuses ` +
          "too); commit in it first, or list it in .gitignore.",
      );
    }
    nested.push({ path, head });
  }
  const removed: string[] = [];
  const updated: string[] = [];
  for (const [path, change] of work.unstaged) {
    const tracked = index.entries.get(path);
    if (change === "D") {
      index.remove(path);
      removed.push(path);
    } else if (tracked?.mode === S_IFGITLINK) {
      // A submodule at another commit: stage the commit its checkout is at, as git add does (changes
      // inside it, or untracked files there, are the submodule's own business: nothing to stage here).
      const head = submoduleHead(repo, path);
      if (head && head !== tracked.oid) {
        index.set(emptyEntry(path, head, S_IFGITLINK), true);
        updated.push(path);
      }
    } else toWrite.push(path);
  }
  for (const path of index.conflicts.keys()) {
    if (scope && !scope.some((s) => pathWithin(path, s))) continue;
    if (policy.hidden(path)) continue;
    if (lstatTracked(repo, path)) toWrite.push(path);
    else {
      index.remove(path);
      removed.push(path);
    }
  }
  for (const spec of forced) {
    const info = lstatTracked(repo, spec);
    if (info?.isDirectory) toWrite.push(...listFiles(repo, spec, policy));
    else toWrite.push(spec);
  }
  for (const entry of work.refreshed) index.set(entry, true);
  const added: string[] = [];
  for (const { path, head } of nested) {
    index.set(emptyEntry(path, head, S_IFGITLINK), true);
    added.push(path);
  }

  if (toWrite.length > 0) {
    const paths = [...new Set(toWrite)].sort(comparePaths);
    const realFolders = new Set<string>();
    const pacer = new Pacer();
    for (const [done, path] of paths.entries()) {
      // Nothing is written to the index before the loop ends, so stopping here leaves it as it was.
      // The loop runs synchronously (hashing is synchronous past the first calls): every so often it
      // lets the worker take in messages, or a cancellation would arrive only after the index is written.
      if (options.signal && pacer.due()) await pacer.turn();
      options.signal?.throwIfAborted();
      options.onProgress?.(done, paths.length);
      const info = lstatTracked(repo, path, realFolders);
      if (!info || info.isDirectory) continue;
      const statTime = Date.now();
      const given = info.isFile ? options.blobs?.get(path) : undefined;
      const content = given ?? await worktreeBlob(repo, path, info, { staging: true });
      const header = objectHeader("blob", content.length);
      const oid = await sha1(header, content);
      await repo.objects.writeHashed(oid, header, content);
      const old = index.entries.get(path);
      const mode = worktreeMode(repo, info, old?.mode ?? (index.conflicts.get(path)?.find((e) => e.stage === 2)?.mode));
      const entryMode = info.isSymlink ? S_IFLNK : mode;
      const entry = options.written
        ? entryFromWrite(path, oid, entryMode, info)
        : entryFromStat(path, oid, entryMode, info, statTime);
      index.set(entry, true);
      // A given blob the file does not convert back to (a line added with CRLF, written under eol=crlf):
      // git's index write finds the file newer than the index it read and, its content differing,
      // smudges the entry, so every reader compares content and sees the difference. So here.
      if (given && !bytesEqual(await worktreeBlob(repo, path, info), given)) entry.size = 0;
      if (old) updated.push(path);
      else added.push(path);
    }
    options.onProgress?.(paths.length, paths.length);
  }
  return { added, updated, removed, withheld: work.withheld, unaddressable: work.unaddressable };
}

/**
 * A path given by name that matches only skip-worktree entries (`git update-index --skip-worktree`)
 * is refused, as git refuses it; `--all` and folders with other matches simply leave them out.
 */
function refuseSkipWorktreeOnly(index: Index, specs: readonly string[], untracked: readonly string[]): void {
  const onlySkipped: string[] = [];
  for (const spec of specs) {
    if (spec === "") continue;
    let skipped = false;
    let other = untracked.some((p) => pathWithin(p.endsWith("/") ? p.slice(0, -1) : p, spec));
    for (const [path, entry] of index.entries) {
      if (other) break;
      if (!pathWithin(path, spec)) continue;
      if (entry.skipWorktree) skipped = true;
      else other = true;
    }
    if (skipped && !other) onlySkipped.push(spec);
  }
  if (onlySkipped.length > 0) {
    throw new PtermError(
      "InvalidArgs",
      `${onlySkipped.map((p) => `\`${p}\``).join(", ")} matched only skip-worktree entries (set with ` +
        "`git update-index --skip-worktree`), which git leaves out of the index updates; nothing was staged. " +
        "Run `git update-index --no-skip-worktree <path>` with the real git first if you mean to stage them.",
    );
  }
}

/** Every file below `dir` (ignored ones included; hidden ones and nested repositories skipped). */
function listFiles(repo: Repo, dir: string, policy: PathPolicy): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of Deno.readDirSync(`${repo.dir}/${rel}`)) {
      if (entry.name === ".git") continue;
      const path = `${rel}/${entry.name}`;
      if (policy.hidden(path)) continue;
      if (entry.isDirectory) {
        try {
          Deno.lstatSync(`${repo.dir}/${path}/.git`);
          continue;
        } catch { /* not a nested repository */ }
        walk(path);
      } else if (entry.isFile || entry.isSymlink) out.push(path);
    }
  };
  walk(dir);
  return out;
}
