/** `reset` to a commit (soft, mixed, hard) or of paths, and the paths a reset or revert would change. */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths } from "../odb/bytes.ts";
import { resetIndexTo, switchTrees } from "../worktree/checkout.ts";
import { clearSequenceState, readMergeHeads } from "./commit.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import type { Index } from "../worktree/index_file.ts";
import { mergeTrees } from "../merge/merge.ts";
import { advanceHead, readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { resolveCommit } from "../history/revparse.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { revertTrees } from "./pick.ts";
import { treeOf, writeStateFile } from "./state.ts";
import { worktreeStatus } from "./status.ts";
import { unstagedAfterResetText } from "./summary_text.ts";

export type ResetMode = "soft" | "mixed" | "hard";

export async function resetTo(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  mode: ResetMode,
  author: GitAuthor,
): Promise<{ head: string; changed_paths: string[]; printed: string }> {
  const target = await resolveCommit(repo, rev);
  const head = readHead(repo);
  if (mode === "soft" && (index.hasConflicts() || readMergeHeads(repo).length > 0)) {
    throw new PtermError("Conflict", "cannot do a soft reset in the middle of a merge; use --mixed or --hard.");
  }
  const targetTree = await treeOf(repo, target);
  let changed: string[] = [];
  let printed = "";
  if (mode === "mixed") {
    changed = await resetIndexTo(repo, index, targetTree, null);
    printed = await refreshAfterReset(repo, index, policy);
  }
  if (mode === "hard") {
    const result = await switchTrees(repo, index, policy, await treeOf(repo, head.oid), targetTree, "hard", "reset");
    changed = result.changed;
  }
  if (head.oid) writeStateFile(repo, "ORIG_HEAD", `${head.oid}\n`);
  await advanceHead(repo, target, {
    expected: head.oid,
    message: `reset: moving to ${rev}`,
    who: signatureNow(author),
  });
  clearSequenceState(repo);
  return { head: target, changed_paths: changed, printed };
}

/**
 * The end of git's mixed reset, with paths or without (`refresh_index`): every entry whose file holds
 * its content takes the file's stat data, so `git apply --index`, `git diff` and a person's `git
 * status` trust the file without reading it. The entries a reset just took from a tree have none
 * until then. (`restore --staged` leaves them without, as git's does.) Returns what git prints
 * from that pass: the tracked paths whose files differ from the new index.
 */
export async function refreshAfterReset(repo: Repo, index: Index, policy: PathPolicy): Promise<string> {
  const work = await worktreeStatus(repo, index, policy, { untracked: false });
  for (const entry of work.refreshed) index.set(entry, true);
  return unstagedAfterResetText(work.unstaged);
}

/** `reset [<rev>] -- <paths>`: those index entries take the version of rev (HEAD by default). */
export async function resetPaths(repo: Repo, index: Index, rev: string | null, specs: readonly string[]) {
  let tree: string | null = null;
  if (rev !== null || readHead(repo).oid) tree = await treeOf(repo, await resolveCommit(repo, rev ?? "HEAD"));
  return await resetIndexTo(repo, index, tree, specs);
}

/** Work-tree paths a reset or revert would change (so a caller can back them up first). */
export async function pathsChangedBy(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  op: { kind: "reset"; ref: string; mode: ResetMode } | { kind: "revert"; ref: string },
): Promise<string[]> {
  const head = readHead(repo);
  if (op.kind === "reset") {
    if (op.mode !== "hard") return [];
    const target = await resolveCommit(repo, op.ref);
    const result = await switchTrees(
      repo,
      index,
      policy,
      await treeOf(repo, head.oid),
      await treeOf(repo, target),
      "hard",
      "reset",
      { dryRun: true },
    );
    return result.changed.filter((p) => !policy.hidden(p)).sort(comparePaths);
  }
  const { base, theirs } = await revertTrees(repo, op.ref);
  const merge = await mergeTrees(repo, base, await treeOf(repo, head.oid), theirs, { ours: "HEAD", theirs: "revert" });
  return [...merge.changes.keys()].filter((p) => !policy.hidden(p)).sort(comparePaths);
}
