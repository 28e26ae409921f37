/** Committing the index: write-tree, the commit object, HEAD's branch moved under its lock. */

import { PtermError } from "../../../core/errors.ts";
import { folderNames } from "../../../core/fs/names.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import { emptyEntry, Index, treeModeToMode } from "../worktree/index_file.ts";
import { cleanupMessage, parseCommit, serializeCommit, type Signature, splitMessage } from "../odb/objects.ts";
import { advanceHead, exists, readHead, resolveRefOid } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { flattenTree, writeTreeFromIndex } from "../odb/tree.ts";

/** State files a merge, revert or cherry-pick in progress leaves in .git. */
export const SEQUENCE_FILES = [
  "MERGE_HEAD",
  "MERGE_MSG",
  "MERGE_MODE",
  "REVERT_HEAD",
  "CHERRY_PICK_HEAD",
  "AUTO_MERGE",
  "SQUASH_MSG",
];

export function clearSequenceState(repo: Repo): void {
  for (const name of SEQUENCE_FILES) {
    try {
      Deno.removeSync(`${repo.gitdir}/${name}`);
    } catch { /* absent */ }
  }
}

/**
 * What git's checkout does after it switched (remove_branch_state): a merge, cherry-pick or revert in
 * progress is given up — its state files go — with git's warnings for a pick or a revert, returned for
 * stderr. The work tree and index stay as the switch left them.
 */
export function endBranchState(repo: Repo): string {
  const names = folderNames(repo.gitdir) ?? new Set<string>();
  let warnings = "";
  if (names.has("CHERRY_PICK_HEAD")) warnings += "warning: cancelling a cherry picking in progress\n";
  if (names.has("REVERT_HEAD")) warnings += "warning: cancelling a revert in progress\n";
  if (SEQUENCE_FILES.some((name) => names.has(name))) clearSequenceState(repo);
  return warnings;
}

export function readMergeHeads(repo: Repo): string[] {
  try {
    return Deno.readTextFileSync(`${repo.gitdir}/MERGE_HEAD`).split("\n").map((l) => l.trim()).filter((l) =>
      /^[0-9a-f]{40}$/.test(l)
    );
  } catch {
    return [];
  }
}

export interface CommitOptions {
  readonly message: string;
  readonly author: GitAuthor;
  readonly allowEmpty?: boolean;
  /** Extra parents after HEAD (a merge); MERGE_HEAD is used when omitted. */
  readonly extraParents?: readonly string[];
  /** Reflog verb, e.g. "commit", "merge B: Merge made by ...". */
  readonly reflogMessage?: string;
  /**
   * Replace HEAD's commit instead of adding one (git commit --amend): its parents are kept, and so
   * is its author unless `keepAuthor` is false (an explicit --author); the committer is now.
   */
  readonly amend?: { readonly keepAuthor: boolean };
  /** The author line to record instead of `author` now (a cherry-pick keeps the picked commit's). */
  readonly authorSignature?: Signature;
  /**
   * Who commits, when not the author (git commit --author names the author only; the committer stays the
   * repository's identity). An amended commit given another author keeps its author date, as git does.
   */
  readonly committer?: GitAuthor;
}

/** Commits `index` (of a held lock) on HEAD; NothingToCommit when it equals HEAD's tree (unless allowed). */
export async function commitIndex(repo: Repo, index: Index, options: CommitOptions): Promise<string> {
  const message = cleanupMessage(options.message);
  if (message === "") {
    throw new PtermError("InvalidArgs", "the commit message is empty; give --message with some text.");
  }
  const head = readHead(repo);
  const mergeHeads = options.extraParents ?? readMergeHeads(repo);
  const amended = options.amend && head.oid ? parseCommit(await repo.objects.readTyped(head.oid, "commit")) : null;
  if (options.amend && !amended) {
    throw new PtermError("NothingToCommit", "there is no commit to amend yet; make the first one with `git commit`.");
  }
  if (amended && mergeHeads.length) {
    throw new PtermError(
      "UncommittedChanges",
      "a merge is in progress; finish it with `git commit` (or `git merge --abort`) before amending.",
    );
  }
  const tree = await writeTreeFromIndex(repo, index);
  // The cache tree was refreshed; write it back with the commit.
  index.dirty = true;
  const parents = amended ? [...amended.parents] : head.oid ? [head.oid, ...mergeHeads] : [...mergeHeads];
  if (!options.allowEmpty && mergeHeads.length === 0) {
    // Amending compares with the amended commit's parent, as git does ("would make it empty").
    const base = amended ? amended.parents[0] : head.oid;
    const parentTree = base ? parseCommit(await repo.objects.readTyped(base, "commit")).tree : null;
    const empty = parentTree ? parentTree === tree : index.entries.size === 0;
    if (empty) {
      throw new PtermError(
        "NothingToCommit",
        amended
          ? "amending would make the last commit empty (its tree would equal its parent's); pass --allow-empty to do it anyway."
          : "nothing to commit: the index is the same as HEAD. Stage changes with `git add` first (see `git status`), " +
            "or pass --allow-empty.",
      );
    }
  }
  const signature = signatureNow(options.committer ?? options.author);
  const authored = signatureNow(options.author);
  const author = options.authorSignature ??
    (amended
      ? options.amend?.keepAuthor
        ? amended.author
        : { ...authored, timestamp: amended.author.timestamp, tzOffset: amended.author.tzOffset }
      : authored);
  const oid = await repo.objects.write(
    "commit",
    serializeCommit({ tree, parents, author, committer: signature, message }),
  );
  const subject = splitMessage(message).subject;
  const verb = amended
    ? "commit (amend)"
    : parents.length === 0
    ? "commit (initial)"
    : parents.length > 1
    ? "commit (merge)"
    : exists(`${repo.gitdir}/CHERRY_PICK_HEAD`)
    ? "commit (cherry-pick)"
    : "commit";
  await advanceHead(repo, oid, {
    expected: head.oid,
    message: options.reflogMessage ?? `${verb}: ${subject}`,
    who: signature,
  });
  clearSequenceState(repo);
  return oid;
}

/** The commit HEAD names, or null on an unborn branch. */
export function headOid(repo: Repo): string | null {
  return resolveRefOid(repo, "HEAD");
}

/**
 * `git commit <paths>` (git's --only): a commit of HEAD's tree with just these paths taken from
 * the work tree; the real index gets the same paths staged, and whatever else was staged stays
 * staged for a later commit. Refused during a merge, as git does.
 */
/** HEAD's files, flattened; empty before the first commit. */
async function headFiles(repo: Repo) {
  const head = readHead(repo);
  return head.oid
    ? await flattenTree(repo, parseCommit(await repo.objects.readTyped(head.oid, "commit")).tree)
    : new Map<string, never>();
}

/**
 * The files `git commit <paths>` takes from the work tree: those the paths match among the files
 * git knows — the index's and HEAD's (git's list_paths over HEAD overlaid on the index) — never
 * an untracked file in a named folder. A file only HEAD has counts when it is in the work tree
 * (it is added back, as git adds it); one that is gone is left to `onlyPathsIndex`, which leaves
 * it out of the commit.
 */
export async function partialCommitFiles(
  repo: Repo,
  index: Index,
  specs: readonly string[],
  inScope: (path: string, spec: string) => boolean,
  exists: (path: string) => boolean,
): Promise<string[]> {
  const files = new Set<string>();
  const matches = (path: string) => specs.some((spec) => inScope(path, spec));
  for (const path of index.entries.keys()) if (matches(path)) files.add(path);
  for (const path of (await headFiles(repo)).keys()) {
    if (!files.has(path) && matches(path) && exists(path)) files.add(path);
  }
  return [...files];
}

export async function onlyPathsIndex(
  repo: Repo,
  index: Index,
  specs: readonly string[],
  inScope: (path: string, spec: string) => boolean,
): Promise<Index> {
  if (readMergeHeads(repo).length) {
    throw new PtermError(
      "UncommittedChanges",
      "a merge is in progress: git cannot commit only some paths of it; `git commit` commits the whole merge.",
    );
  }
  const headTree = await headFiles(repo);
  const only = new Index();
  for (const [path, entry] of headTree) only.set(emptyEntry(path, entry.oid, treeModeToMode(entry.mode)));
  for (const spec of specs) {
    const inIndex = [...index.entries.keys()].filter((p) => inScope(p, spec));
    const inHead = [...headTree.keys()].filter((p) => inScope(p, spec));
    if (inIndex.length === 0 && inHead.length === 0) {
      throw new PtermError(
        "NotFound",
        `pathspec \`${spec}\` did not match any file known to git; \`git add\` a new file before committing it.`,
      );
    }
    for (const path of inHead) if (!index.entries.has(path)) only.remove(path);
    for (const path of inIndex) only.set({ ...index.entries.get(path)! });
  }
  return only;
}
