/** Reverting and cherry-picking one commit onto HEAD, stopping on conflicts with git's state files. */

import { PtermError } from "../../../core/errors.ts";
import { EMPTY_TREE_OID } from "../odb/bytes.ts";
import { commitIndex } from "./commit.ts";
import type { GitAuthor } from "../repo/identity.ts";
import type { Index } from "../worktree/index_file.ts";
import { readCommit } from "../history/log.ts";
import { applyMerge, mergeTrees, type TreeMerge } from "../merge/merge.ts";
import { mergeMessages } from "../merge/merge_messages.ts";
import { messageWithConflicts } from "../merge/sequence.ts";
import { splitMessage } from "../odb/objects.ts";
import { readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { resolveCommit } from "../history/revparse.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { requireIndexMatchesHead, treeOf, writeStateFile } from "./state.ts";
import type { GitText } from "./printed.ts";

/**
 * What git's sequencer prints where a cherry-pick or revert stops on conflicts: the merge's lines (stdout), then
 * `error: could not apply|revert <id>... <subject>` and its advice (stderr; none in a rebase's role, whose advice
 * is the rebase's own).
 */
async function stopText(
  repo: Repo,
  stop: { kind: "cherry-pick" | "revert" | "rebase"; oid: string; subject: string; noCommit: boolean },
  trees: { base: string | null; ours: string | null; theirs: string | null },
  merge: TreeMerge,
  applied: { changed: string[]; conflicts: string[] },
  theirsLabel: string,
): Promise<GitText> {
  const stdout = await mergeMessages(repo, trees, merge, applied, theirsLabel);
  if (stop.kind === "rebase") return { stdout, stderr: "" };
  const { kind } = stop;
  let stderr = `error: could not ${kind === "revert" ? "revert" : "apply"} ${abbreviate(repo, stop.oid)}... ` +
    `${stop.subject}\n`;
  stderr += stop.noCommit
    ? "hint: after resolving the conflicts, mark the corrected paths\nhint: with 'git add <paths>' or 'git rm <paths>'\n"
    : `hint: After resolving the conflicts, mark them with\nhint: "git add/rm <pathspec>", then run\n` +
      `hint: "git ${kind} --continue".\nhint: You can instead skip this commit with "git ${kind} --skip".\n` +
      `hint: To abort and get back to the state before "git ${kind}",\nhint: run "git ${kind} --abort".\n`;
  return { stdout, stderr };
}

/** The trees a revert of `rev` merges: the commit's own as base, its parent's as theirs. */
export async function revertTrees(repo: Repo, rev: string) {
  const oid = await resolveCommit(repo, rev);
  const commit = await readCommit(repo, oid);
  if (commit.parents.length > 1) {
    throw new PtermError(
      "InvalidArgs",
      `${oid.slice(0, 7)} is a merge commit; reverting merges is not supported (it needs a choice of parent).`,
    );
  }
  const parentTree = commit.parents.length ? await treeOf(repo, commit.parents[0]) : null;
  return { oid, commit, base: commit.tree, theirs: parentTree };
}

export async function revertCommit(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  options: { noCommit: boolean; author: GitAuthor },
): Promise<
  { reverted: string; commit_id: string | null; changed_paths: string[]; conflicts: string[]; printed?: GitText }
> {
  const head = readHead(repo);
  if (!head.oid) throw new PtermError("NotFound", "there are no commits yet, so there is nothing to revert onto.");
  await requireIndexMatchesHead(repo, index, "revert");
  const { oid, commit, base, theirs } = await revertTrees(repo, rev);
  const short = abbreviate(repo, oid);
  const subject = splitMessage(commit.message).subject;
  const theirsLabel = `parent of ${short} (${subject})`;
  const oursTree = await treeOf(repo, head.oid);
  const merge = await mergeTrees(repo, base, oursTree, theirs, {
    ours: "HEAD",
    theirs: theirsLabel,
    base: `${short} (${subject})`,
  });
  const applied = await applyMerge(repo, index, policy, merge, "revert");
  const message = `Revert "${subject}"\n\nThis reverts commit ${oid}.\n`;
  if (applied.conflicts.length > 0 || options.noCommit) {
    writeStateFile(repo, "MERGE_MSG", messageWithConflicts(message, applied.conflicts));
    if (applied.conflicts.length === 0) {
      return { reverted: oid, commit_id: null, changed_paths: applied.changed, conflicts: [] };
    }
    writeStateFile(repo, "REVERT_HEAD", `${oid}\n`);
    return {
      reverted: oid,
      commit_id: null,
      changed_paths: applied.changed,
      conflicts: applied.conflicts,
      printed: await stopText(
        repo,
        { kind: "revert", oid, subject, noCommit: options.noCommit },
        { base, ours: oursTree, theirs },
        merge,
        applied,
        theirsLabel,
      ),
    };
  }
  let commitId: string;
  try {
    commitId = await commitIndex(repo, index, { message, author: options.author, extraParents: [] });
  } catch (error) {
    if (!(error instanceof PtermError) || error.code !== "NothingToCommit") throw error;
    // git's revert commits nothing either ("nothing to commit, working tree clean") and leaves its message.
    writeStateFile(repo, "MERGE_MSG", message);
    throw new PtermError(
      "NothingToCommit",
      `reverting ${short} changes nothing on HEAD (its change is not there to undo), so there is nothing to commit; ` +
        "git stops the same way. Nothing was changed.",
    );
  }
  return { reverted: oid, commit_id: commitId, changed_paths: applied.changed, conflicts: [] };
}

/**
 * `git cherry-pick <rev>`: the change `rev` made to its parent, merged onto HEAD and committed
 * with its message and author (the committer is now); conflicts stop before the commit, as git
 * does, with CHERRY_PICK_HEAD and MERGE_MSG written.
 */
/**
 * `git cherry-pick -x`: the message with `(cherry picked from commit <id>)` appended — after a
 * blank line, unless the message already ends with a trailer block (`Signed-off-by: …`, an
 * earlier such line), as git's sequencer appends it.
 */
function withOrigin(message: string, oid: string): string {
  const text = message.endsWith("\n") ? message : `${message}\n`;
  const paragraphs = text.trimEnd().split(/\n[ \t]*\n/);
  const last = paragraphs[paragraphs.length - 1].split("\n");
  const trailers = paragraphs.length > 1 &&
    last.every((line) => /^[A-Za-z0-9-]+: /.test(line) || /^\(cherry picked from commit [0-9a-f]+\)$/.test(line));
  return `${text}${trailers ? "" : "\n"}(cherry picked from commit ${oid})\n`;
}

export async function cherryPickCommit(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  options: {
    noCommit: boolean;
    author: GitAuthor;
    recordOrigin?: boolean;
    /** git's --allow-empty: a commit that was empty to begin with is picked as an empty commit. */
    allowEmpty?: boolean;
    /** git's --keep-redundant-commits: a change already in HEAD is still recorded, as an empty commit. */
    keepRedundant?: boolean;
    /**
     * The pick is one step of a rebase (git's sequencer in its rebase role): a conflict stops with REBASE_HEAD
     * instead of CHERRY_PICK_HEAD, the commit is logged as `rebase (pick): <subject>`, and a change already in
     * HEAD is dropped (git's default --empty=drop) instead of stopping.
     */
    rebase?: { reflogMessage: string };
  },
): Promise<
  {
    picked: string;
    commit_id: string | null;
    changed_paths: string[];
    conflicts: string[];
    redundant?: boolean;
    /** What git prints where the pick stops on conflicts. */
    printed?: GitText;
  }
> {
  const head = readHead(repo);
  if (!head.oid) throw new PtermError("NotFound", "there are no commits yet to pick onto; commit first.");
  await requireIndexMatchesHead(repo, index, "cherry-pick");
  const oid = await resolveCommit(repo, rev);
  const commit = await readCommit(repo, oid);
  if (commit.parents.length > 1) {
    throw new PtermError(
      "InvalidArgs",
      `${oid.slice(0, 7)} is a merge commit; picking merges is not supported (it needs a choice of parent).`,
    );
  }
  const parentTree = commit.parents.length ? await treeOf(repo, commit.parents[0]) : null;
  const subject = splitMessage(commit.message).subject;
  const theirsLabel = `${abbreviate(repo, oid)} (${subject})`;
  const oursTree = await treeOf(repo, head.oid);
  const merge = await mergeTrees(repo, parentTree, oursTree, commit.tree, {
    ours: "HEAD",
    theirs: theirsLabel,
    base: parentTree === null ? "(empty tree)" : `parent of ${abbreviate(repo, oid)} (${subject})`,
  });
  const applied = await applyMerge(repo, index, policy, merge, options.rebase ? "rebase" : "cherry-pick");
  const message = options.recordOrigin ? withOrigin(commit.message, oid) : commit.message;
  const stopFile = options.rebase ? "REBASE_HEAD" : "CHERRY_PICK_HEAD";
  if (applied.conflicts.length > 0 || options.noCommit) {
    writeStateFile(repo, "MERGE_MSG", messageWithConflicts(message, applied.conflicts));
    if (applied.conflicts.length === 0) {
      return { picked: oid, commit_id: null, changed_paths: applied.changed, conflicts: [] };
    }
    writeStateFile(repo, stopFile, `${oid}\n`);
    return {
      picked: oid,
      commit_id: null,
      changed_paths: applied.changed,
      conflicts: applied.conflicts,
      printed: await stopText(
        repo,
        { kind: options.rebase ? "rebase" : "cherry-pick", oid, subject, noCommit: options.noCommit },
        { base: parentTree, ours: oursTree, theirs: commit.tree },
        merge,
        applied,
        theirsLabel,
      ),
    };
  }
  const initiallyEmpty = commit.tree === (parentTree ?? EMPTY_TREE_OID);
  let commitId: string;
  try {
    commitId = await commitIndex(repo, index, {
      message,
      author: options.author,
      authorSignature: commit.author,
      extraParents: [],
      reflogMessage: options.rebase?.reflogMessage ?? `cherry-pick: ${subject}`,
      allowEmpty: options.keepRedundant || (initiallyEmpty && options.allowEmpty),
    });
  } catch (error) {
    if (!(error instanceof PtermError) || error.code !== "NothingToCommit") throw error;
    if (options.rebase) {
      return { picked: oid, commit_id: null, changed_paths: applied.changed, conflicts: [], redundant: true };
    }
    // As git's sequencer: an empty pick stops with the cherry-pick in progress (CHERRY_PICK_HEAD, MERGE_MSG),
    // so that --skip, --abort, --continue and `git commit --allow-empty` conclude it.
    writeStateFile(repo, "MERGE_MSG", message);
    writeStateFile(repo, "CHERRY_PICK_HEAD", `${oid}\n`);
    throw new PtermError(
      "NothingToCommit",
      `${
        initiallyEmpty
          ? `${abbreviate(repo, oid)} is an empty commit`
          : `the change of ${abbreviate(repo, oid)} is already in HEAD`
      }; the cherry-pick stopped in progress, as git stops it.\n` +
        "The previous cherry-pick is now empty, possibly due to conflict resolution.\n" +
        "If you wish to commit it anyway, use:\n\n    git commit --allow-empty\n\n" +
        "Otherwise, please use 'git cherry-pick --skip'",
    );
  }
  return { picked: oid, commit_id: commitId, changed_paths: applied.changed, conflicts: [] };
}
