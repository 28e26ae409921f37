/** Continuing or aborting a merge, cherry-pick or revert in progress. */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths } from "../odb/bytes.ts";
import { writeBlob, writesInStep } from "../worktree/checkout.ts";
import { clearSequenceState, commitIndex } from "./commit.ts";
import type { GitAuthor } from "../repo/identity.ts";
import { emptyEntry, type Index, treeModeToMode } from "../worktree/index_file.ts";
import { readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { indexVsTree } from "./status.ts";
import { type PathPolicy, WorktreeWriter } from "../worktree/worktree.ts";
import { flattenTree } from "../odb/tree.ts";
import {
  concludingMessage,
  preparedMessage,
  requireSequence,
  type Sequence,
  sequenceCommitOptions,
} from "../merge/sequence.ts";
import { treeOf } from "./state.ts";

/**
 * `git merge|cherry-pick|revert --abort`: index and work tree back to HEAD for every path the
 * operation staged or left in conflict; other files are left alone, and the state files go.
 */
export async function abortSequence(repo: Repo, index: Index, policy: PathPolicy, kind: Sequence): Promise<string[]> {
  requireSequence(repo, kind, "abort");
  const tree = await treeOf(repo, readHead(repo).oid);
  const staged = await indexVsTree(repo, index, tree);
  const paths = [...new Set([...staged.keys(), ...index.conflicts.keys()])].sort(comparePaths);
  const flat = await flattenTree(repo, tree);
  const writer = new WorktreeWriter(repo);
  const racy = index.fileMtimeMs;
  for (const path of paths) {
    const target = flat.get(path);
    const inStep = await writesInStep(repo, policy, path, index.entries.get(path), target, racy);
    if (!target) {
      index.remove(path);
      if (inStep) writer.removeFile(path);
      continue;
    }
    if (inStep) index.set(await writeBlob(repo, writer, path, target), true);
    else index.set(emptyEntry(path, target.oid, treeModeToMode(target.mode)));
  }
  clearSequenceState(repo);
  return paths;
}

/**
 * `git merge|cherry-pick|revert --continue`: the resolved index committed with the message the
 * operation prepared (MERGE_MSG) as git's editor saves it (its comment lines stripped), as git does; a cherry-pick keeps the picked commit's author
 * unless one is given. Conflicts still in the index refuse it.
 */
export async function continueSequence(
  repo: Repo,
  index: Index,
  kind: Sequence,
  author: GitAuthor,
  explicitAuthor: boolean,
): Promise<string> {
  requireSequence(repo, kind, "continue");
  if (index.hasConflicts()) {
    throw new PtermError(
      "Conflict",
      `these files are still in conflict: ${[...index.conflicts.keys()].sort(comparePaths).join(", ")}. Edit ` +
        `them, \`git add\` them, then \`git ${kind} --continue\` again (or \`git ${kind} --abort\`).`,
    );
  }
  try {
    return await commitIndex(repo, index, {
      message: concludingMessage(preparedMessage(repo) ?? ""),
      author,
      ...(await sequenceCommitOptions(repo, explicitAuthor)),
      allowEmpty: kind === "merge",
    });
  } catch (error) {
    if (!(error instanceof PtermError) || error.code !== "NothingToCommit") throw error;
    // As git: the resolution left HEAD's files, so the pick or revert would be an empty commit.
    throw new PtermError(
      "NothingToCommit",
      `the ${kind} is now empty (the resolution left HEAD's files); \`git ${kind} --skip\` drops it, or ` +
        "`git commit --allow-empty` records it anyway.",
    );
  }
}
