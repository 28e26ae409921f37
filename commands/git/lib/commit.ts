/** Committing the index: write-tree, the commit object, HEAD's branch moved under its lock. */

import { PtermError } from "../../../core/errors.ts";
import { type GitAuthor, signatureNow } from "./identity.ts";
import type { Index } from "./index_file.ts";
import { cleanupMessage, parseCommit, serializeCommit, splitMessage } from "./objects.ts";
import { advanceHead, readHead, resolveRefOid } from "./refs.ts";
import type { Repo } from "./repo.ts";
import { writeTreeFromIndex } from "./tree.ts";

/** State files a merge, revert or cherry-pick in progress leaves in .git. */
export const SEQUENCE_FILES = [
  "MERGE_HEAD",
  "MERGE_MSG",
  "MERGE_MODE",
  "REVERT_HEAD",
  "CHERRY_PICK_HEAD",
  "AUTO_MERGE",
];

export function clearSequenceState(repo: Repo): void {
  for (const name of SEQUENCE_FILES) {
    try {
      Deno.removeSync(`${repo.gitdir}/${name}`);
    } catch { /* absent */ }
  }
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
}

/** Commits `index` (of a held lock) on HEAD; NothingToCommit when it equals HEAD's tree (unless allowed). */
export async function commitIndex(repo: Repo, index: Index, options: CommitOptions): Promise<string> {
  const message = cleanupMessage(options.message);
  if (message === "") {
    throw new PtermError("InvalidArgs", "the commit message is empty; give --message with some text.");
  }
  const head = readHead(repo);
  const mergeHeads = options.extraParents ?? readMergeHeads(repo);
  const tree = await writeTreeFromIndex(repo, index);
  // The cache tree was refreshed; write it back with the commit.
  index.dirty = true;
  const parents = head.oid ? [head.oid, ...mergeHeads] : [...mergeHeads];
  if (!options.allowEmpty && mergeHeads.length === 0) {
    const parentTree = head.oid ? parseCommit(await repo.objects.readTyped(head.oid, "commit")).tree : null;
    const empty = parentTree ? parentTree === tree : index.entries.size === 0;
    if (empty) {
      throw new PtermError(
        "NothingToCommit",
        "nothing to commit: the index is the same as HEAD. Stage changes with `git add` first (see `git status`), " +
          "or pass --allow-empty.",
      );
    }
  }
  const signature = signatureNow(options.author);
  const oid = await repo.objects.write(
    "commit",
    serializeCommit({ tree, parents, author: signature, committer: signature, message }),
  );
  const subject = splitMessage(message).subject;
  const verb = parents.length === 0 ? "commit (initial)" : parents.length > 1 ? "commit (merge)" : "commit";
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
