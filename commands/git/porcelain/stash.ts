/**
 * The stash, stored exactly as git stores it so either tool can read the other's entries:
 * `refs/stash` points to a "WIP" commit whose tree is the work tree (tracked files), whose first
 * parent is HEAD and second parent an "index on" commit holding the index; earlier entries live
 * in the reflog of refs/stash (stash@{n}).
 */

import { PtermError } from "../../../core/errors.ts";
import { ZERO_OID } from "../odb/bytes.ts";
import { restorePaths, switchTrees, writeBlob } from "../worktree/checkout.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import { emptyEntry, Index, treeModeToMode } from "../worktree/index_file.ts";
import { LockFile } from "../repo/lock.ts";
import { readCommit } from "../history/log.ts";
import { applyMerge, mergeTrees } from "../merge/merge.ts";
import { mergeMessages } from "../merge/merge_messages.ts";
import { sha1 } from "../odb/codec.ts";
import { objectHeader, serializeCommit, splitMessage } from "../odb/objects.ts";
import { deleteRef, readHead, readReflog, type ReflogEntry, updateRef, writeReflog } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { indexVsTree, worktreeStatus } from "./status.ts";
import { type FlatEntry, flattenTree, pathWithin, writeTreeFromIndex } from "../odb/tree.ts";
import { lstatTracked, type PathPolicy, worktreeMode, WorktreeWriter } from "../worktree/worktree.ts";
import { worktreeBlob } from "../worktree/convert.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { clearSequenceState } from "./commit.ts";

const STASH_REF = "refs/stash";

export interface StashEntry {
  ref: string;
  commit_id: string;
  message: string;
}

export function listStash(repo: Repo): StashEntry[] {
  const entries = readReflog(repo, STASH_REF);
  return entries.reverse().map((e, i) => ({ ref: `stash@{${i}}`, commit_id: e.newOid, message: e.message }));
}

export function parseStashRef(text: string | undefined): number {
  if (text === undefined) return 0;
  const match = /^(?:stash@\{(\d+)\}|(\d+))$/.exec(text);
  if (!match) {
    throw new PtermError("InvalidArgs", `\`${text}\` is not a stash entry; write stash@{N} or N (see git stash list).`);
  }
  return Number(match[1] ?? match[2]);
}

function entryAt(repo: Repo, n: number): ReflogEntry {
  const entries = readReflog(repo, STASH_REF);
  const entry = entries[entries.length - 1 - n];
  if (!entry) {
    throw new PtermError(
      "NotFound",
      entries.length === 0
        ? "the stash is empty."
        : `there is no stash@{${n}} (the stash has ${entries.length} entries).`,
    );
  }
  return entry;
}

function cloneIndex(index: Index): Index {
  const copy = new Index();
  for (const [path, entry] of index.entries) copy.entries.set(path, { ...entry });
  copy.cacheTree = index.cacheTree ? structuredClone(index.cacheTree) : null;
  return copy;
}

/** A work-tree file stored as the blob git would stage (its conversions applied); its id. */
async function storeWorktreeFile(repo: Repo, path: string, info: Deno.FileInfo): Promise<string> {
  const content = await worktreeBlob(repo, path, info, { staging: true });
  const header = objectHeader("blob", content.length);
  const oid = await sha1(header, content);
  await repo.objects.writeHashed(oid, header, content);
  return oid;
}

export async function stashPush(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  author: GitAuthor,
  message: string | undefined,
  /** `-u`: untracked files (not ignored ones) go into a third parent and leave the work tree, as git does. */
  includeUntracked = false,
  /**
   * `git stash push -- <pathspec>`: only these paths (relative, a folder meaning what it holds) are saved and
   * reset; the entry's index commit is still the whole index, as git's.
   */
  specs: readonly string[] = [],
): Promise<{ commit_id: string; message: string; changed: string[] } | null> {
  const inScope = (path: string) => specs.length === 0 || specs.some((s) => s === "" || pathWithin(path, s));
  const head = readHead(repo);
  if (!head.oid) {
    throw new PtermError("NotFound", "there is no commit yet, so there is nothing to stash against; commit first.");
  }
  if (index.hasConflicts()) {
    throw new PtermError(
      "Conflict",
      "the index has unresolved conflicts; resolve them (edit, git add) before stashing.",
    );
  }
  for (const spec of specs) {
    // As git: each pathspec must name a file the index knows.
    if (spec !== "" && ![...index.entries.keys()].some((path) => pathWithin(path, spec))) {
      throw new PtermError(
        "NotFound",
        `pathspec '${spec}' did not match any file(s) known to git; nothing was stashed. Did you forget to ` +
          "`git add` it?",
      );
    }
  }
  const headCommit = await readCommit(repo, head.oid);
  const staged = new Map([...await indexVsTree(repo, index, headCommit.tree)].filter(([path]) => inScope(path)));
  // git stash leaves submodules alone (its ignore_submodules): their checkouts are neither saved nor reset.
  const work = await worktreeStatus(repo, index, policy, { untracked: includeUntracked, submodules: "all" });
  work.unstaged = new Map([...work.unstaged].filter(([path]) => inScope(path)));
  const untracked = includeUntracked
    ? (work.untracked ?? []).filter((path) => !policy.hidden(path) && inScope(path))
    : [];
  if (staged.size === 0 && work.unstaged.size === 0 && untracked.length === 0) return null;
  const branch = head.branch ?? "(no branch)";
  const subject = splitMessage(headCommit.message).subject;
  const sig = signatureNow(author);
  const indexTree = await writeTreeFromIndex(repo, cloneIndex(index));
  const indexCommit = await repo.objects.write(
    "commit",
    serializeCommit({
      tree: indexTree,
      parents: [head.oid],
      author: sig,
      committer: sig,
      message: `index on ${branch}: ${abbreviate(repo, head.oid)} ${subject}\n`,
    }),
  );
  const worktree = cloneIndex(index);
  for (const [path, change] of work.unstaged) {
    if (change === "D") {
      worktree.remove(path);
      continue;
    }
    const info = lstatTracked(repo, path);
    if (!info) continue;
    const oid = await storeWorktreeFile(repo, path, info);
    worktree.set({ ...emptyEntry(path, oid, worktreeMode(repo, info, index.entries.get(path)?.mode)) });
  }
  // As git (diff against HEAD, not only the index): a file HEAD has that the index dropped (`git rm --cached`)
  // but that is still in the work tree is saved with its work-tree content.
  const headFiles = await flattenTree(repo, headCommit.tree);
  for (const [path] of headFiles) {
    if (index.entries.has(path) || policy.hidden(path) || !inScope(path)) continue;
    const info = lstatTracked(repo, path);
    if (!info || info.isDirectory) continue;
    const oid = await storeWorktreeFile(repo, path, info);
    worktree.set({ ...emptyEntry(path, oid, worktreeMode(repo, info, undefined)) });
  }
  const worktreeTree = await writeTreeFromIndex(repo, worktree);
  let untrackedCommit: string | null = null;
  // git records the untracked-files commit whenever -u is given, with the empty tree when there are none.
  if (includeUntracked) {
    const files = new Index();
    for (const path of untracked) {
      const info = lstatTracked(repo, path);
      if (!info) continue;
      const oid = await storeWorktreeFile(repo, path, info);
      files.set(emptyEntry(path, oid, worktreeMode(repo, info, undefined)));
    }
    untrackedCommit = await repo.objects.write(
      "commit",
      serializeCommit({
        tree: await writeTreeFromIndex(repo, files),
        parents: [],
        author: sig,
        committer: sig,
        message: `untracked files on ${branch}: ${abbreviate(repo, head.oid)} ${subject}\n`,
      }),
    );
  }
  const title = message !== undefined && message.trim() !== ""
    ? `On ${branch}: ${message.trim()}`
    : `WIP on ${branch}: ${abbreviate(repo, head.oid)} ${subject}`;
  const wip = await repo.objects.write(
    "commit",
    serializeCommit({
      tree: worktreeTree,
      parents: untrackedCommit ? [head.oid, indexCommit, untrackedCommit] : [head.oid, indexCommit],
      author: sig,
      committer: sig,
      // git writes the stash commit's message without a final newline (the index and untracked commits have one).
      message: title,
    }),
  );
  const current = readReflog(repo, STASH_REF);
  await updateRef(repo, STASH_REF, wip, {
    expected: current.length ? current[current.length - 1].newOid : null,
    message: title,
    who: sig,
    forceLog: true,
  });
  // As git: the untracked files go first (`git clean`), then the reset brings back what HEAD has.
  for (const path of untracked) {
    try {
      Deno.removeSync(`${repo.dir}/${path}`);
    } catch (error) {
      // The entry is saved already: nothing is lost, but the work tree is not yet what -u promised.
      throw new PtermError(
        "WriteFailed",
        `stash@{0} holds the changes, but the untracked file ${path} could not be removed ` +
          `(${(error as Error).name}); it and the files after it are still in the work tree, and tracked files ` +
          "were not reset. `git stash pop` brings the entry back once the file can be changed.",
      );
    }
    // Folders the untracked files leave empty go too, as git stash -u leaves no trace of them.
    for (let dir = path.slice(0, path.lastIndexOf("/")); dir; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/")))) {
      try {
        Deno.removeSync(`${repo.dir}/${dir}`);
      } catch {
        break;
      }
    }
  }
  if (specs.length === 0) {
    const reset = await switchTrees(repo, index, policy, headCommit.tree, headCommit.tree, "hard", "stash");
    // git's stash resets with `reset --hard`, which gives up a merge, cherry-pick or revert in progress
    // (remove_branch_state); a stash of named paths resets only those, and keeps it.
    clearSequenceState(repo);
    return { commit_id: wip, message: title, changed: [...reset.changed, ...untracked] };
  }
  // Only the named paths go back to HEAD, in the index and the work tree (git's `add -u`, then the reverse of
  // HEAD's diff to the index applied with --index); a file HEAD lacks leaves both.
  const changed: string[] = [];
  for (const path of [...index.entries.keys()]) {
    if (!inScope(path) || headFiles.has(path) || policy.hidden(path)) continue;
    index.remove(path);
    Deno.removeSync(`${repo.dir}/${path}`);
    changed.push(path);
  }
  const inHead = specs.filter((s) => [...headFiles.keys()].some((path) => s === "" || pathWithin(path, s)));
  if (inHead.length) changed.push(...(await restorePaths(repo, index, policy, headCommit.tree, false, inHead)).changed);
  return { commit_id: wip, message: title, changed: [...changed, ...untracked] };
}

export async function stashApply(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  n: number,
): Promise<{ commit_id: string; changed: string[]; conflicts: string[]; printed: string }> {
  const entry = entryAt(repo, n);
  if (index.hasConflicts()) {
    throw new PtermError("Conflict", "the index has unresolved conflicts; resolve them before applying a stash.");
  }
  const wip = await readCommit(repo, entry.newOid);
  if (wip.parents.length < 1) throw new PtermError("CorruptRepository", `stash@{${n}} is not a stash commit.`);
  // Untracked files of `stash -u` come back only where nothing is in the way, checked before anything is written.
  const untracked = wip.parents.length > 2
    ? await flattenTree(repo, (await readCommit(repo, wip.parents[2])).tree)
    : new Map<string, FlatEntry>();
  const exists = (path: string) => {
    try {
      Deno.lstatSync(`${repo.dir}/${path}`);
      return true;
    } catch {
      return false;
    }
  };
  const inTheWay = [...untracked.keys()].filter(exists);
  if (inTheWay.length) {
    throw new PtermError(
      "UncommittedChanges",
      `stash@{${n}} holds untracked files that exist in the work tree already: ${inTheWay.slice(0, 20).join(", ")}. ` +
        "Move or delete them, then apply the stash again; nothing was changed.",
    );
  }
  const baseTree = (await readCommit(repo, wip.parents[0])).tree;
  const oursIndex = cloneIndex(index);
  const oursTree = await writeTreeFromIndex(repo, oursIndex);
  const merge = await mergeTrees(repo, baseTree, oursTree, wip.tree, {
    ours: "Updated upstream",
    theirs: "Stashed changes",
    base: "Stash base",
  });
  const applied = await applyMerge(repo, index, policy, merge, "stash apply");
  // merge-ort's lines, with the names git's stash gives the two sides.
  const printed = await mergeMessages(
    repo,
    { base: baseTree, ours: oursTree, theirs: wip.tree },
    merge,
    applied,
    "Stashed changes",
    "Updated upstream",
  );
  const writer = new WorktreeWriter(repo);
  for (const [path, target] of untracked) {
    await writeBlob(repo, writer, path, target);
    applied.changed.push(path);
  }
  if (applied.conflicts.length === 0) {
    // Like git: the index goes back to what it was, except that files new in the stash stay staged.
    const ours = await flattenTree(repo, oursTree);
    for (const path of applied.changed) {
      const before = ours.get(path);
      if (before) index.set(emptyEntry(path, before.oid, treeModeToMode(before.mode)));
    }
  }
  return { commit_id: entry.newOid, changed: applied.changed, conflicts: applied.conflicts, printed };
}

export async function stashDrop(repo: Repo, n: number): Promise<string> {
  const entry = entryAt(repo, n);
  const lock = await LockFile.acquire(`${repo.commondir}/${STASH_REF}`, "the stash");
  try {
    const entries = readReflog(repo, STASH_REF);
    const k = entries.length - 1 - n;
    const rest = entries.filter((_, i) => i !== k);
    if (rest.length === 0) {
      lock.rollback();
      await deleteRef(repo, STASH_REF);
      return entry.newOid;
    }
    // Keep the chain consistent (git reflog delete --rewrite): the next entry's old value is the previous one's new.
    if (k < rest.length) rest[k] = { ...rest[k], oldOid: k > 0 ? rest[k - 1].newOid : ZERO_OID };
    writeReflog(repo, STASH_REF, rest);
    lock.commit(`${rest[rest.length - 1].newOid}\n`);
    return entry.newOid;
  } finally {
    lock.rollback();
  }
}

export async function stashClear(repo: Repo): Promise<number> {
  const count = readReflog(repo, STASH_REF).length;
  if (count > 0) await deleteRef(repo, STASH_REF);
  return count;
}
