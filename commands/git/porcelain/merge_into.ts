/** Merging a commit into HEAD: fast-forward, squash, or a merge that stops on conflicts. */

import { PtermError } from "../../../core/errors.ts";
import { switchTrees } from "../worktree/checkout.ts";
import { commitIndex, readMergeHeads } from "./commit.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import type { Index } from "../worktree/index_file.ts";
import { ancestorsOf, readCommit, walkLog } from "../history/log.ts";
import { prettyCommit } from "../history/pretty.ts";
import { applyMerge, isAncestor, mergeBaseTree, mergeTrees } from "../merge/merge.ts";
import { messageWithConflicts } from "../merge/sequence.ts";
import { mergeMessages } from "../merge/merge_messages.ts";
import type { GitText } from "./printed.ts";
import { movedHeadText } from "./summary_text.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { advanceHead, readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { dwimRef, resolveCommit } from "../history/revparse.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { requireIndexMatchesHead, treeOf, writeStateFile } from "./state.ts";

export type MergeOutcome =
  & (
    | { outcome: "up-to-date"; head: string; commit_id: null }
    | { outcome: "fast-forward" | "merge"; head: string; commit_id: string }
    | { outcome: "conflict" | "squashed"; head: string; commit_id: null }
  )
  & {
    changed: string[];
    conflicts: string[];
    /**
     * What git's merge prints, byte for byte: `Updating a..b` and `Fast-forward`, or merge-ort's lines and
     * `Merge made by the 'ort' strategy.`, each with the diffstat and summary of HEAD's move; where it stops
     * on conflicts, merge-ort's lines and `Automatic merge failed; …`.
     */
    printed: GitText;
  };

/** git's first lines of a fast-forward from `from` to `to`. */
const fastForwardLines = (repo: Repo, from: string, to: string) =>
  `Updating ${abbreviate(repo, from)}..${abbreviate(repo, to)}\nFast-forward\n`;

const SQUASHED = "Squash commit -- not updating HEAD\n";
const CONFLICTS_LEFT = "Automatic merge failed; fix conflicts and then commit the result.\n";

/**
 * `git merge --squash`: the other side's changes merged into index and work tree (a fast-forward
 * too) without moving HEAD or recording a merge: no MERGE_HEAD, and SQUASH_MSG holds git's
 * "Squashed commit of the following:" with each commit in git's medium format, for the commit
 * that follows (`git commit` without -m takes it).
 */
async function squashInto(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  head: string,
  theirs: string,
): Promise<MergeOutcome> {
  let changed: string[];
  let conflicts: string[] = [];
  let printed: GitText;
  if (await isAncestor(repo, head, theirs)) {
    await requireIndexMatchesHead(repo, index, "merge");
    const result = await switchTrees(
      repo,
      index,
      policy,
      await treeOf(repo, head),
      await treeOf(repo, theirs),
      "safe",
      "merge",
    );
    changed = result.changed;
    printed = {
      stdout: fastForwardLines(repo, head, theirs) + SQUASHED + await movedHeadText(repo, head, theirs),
      stderr: "",
    };
  } else {
    await requireIndexMatchesHead(repo, index, "merge");
    const base = await mergeBaseTree(repo, head, theirs);
    const trees = { base: base.tree, ours: await treeOf(repo, head), theirs: await treeOf(repo, theirs) };
    const merge = await mergeTrees(repo, trees.base, trees.ours, trees.theirs, {
      ours: "HEAD",
      theirs: rev,
      base: base.label,
    });
    const applied = await applyMerge(repo, index, policy, merge, "merge");
    changed = applied.changed;
    conflicts = applied.conflicts;
    const lines = await mergeMessages(repo, trees, merge, applied, rev);
    printed = conflicts.length
      ? { stdout: lines + SQUASHED + CONFLICTS_LEFT, stderr: "" }
      : { stdout: lines + SQUASHED, stderr: "Automatic merge went well; stopped before committing as requested\n" };
  }
  const listed = await walkLog(repo, theirs, Number.MAX_SAFE_INTEGER, null, await ancestorsOf(repo, head));
  const context = { repo, date: "default" as const, decorations: null, abbrevCommit: false };
  const entries: string[] = [];
  for (const c of listed) {
    entries.push(prettyCommit(context, { kind: "builtin", name: "medium" }, c.id, await readCommit(repo, c.id)));
  }
  writeStateFile(repo, "SQUASH_MSG", `Squashed commit of the following:\n\n${entries.join("\n")}`);
  return { outcome: "squashed", head, commit_id: null, changed, conflicts, printed };
}

export async function mergeInto(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  rev: string,
  options: {
    noFf: boolean;
    message?: string;
    author: GitAuthor;
    squash?: boolean;
    /** What the reflog entries are named after (git's GIT_REFLOG_ACTION): `merge <rev>`, or a pull's command line. */
    reflogAction?: string;
  },
): Promise<MergeOutcome> {
  const head = readHead(repo);
  if (readMergeHeads(repo).length > 0 || index.hasConflicts()) {
    throw new PtermError(
      "Conflict",
      "a merge is already in progress; commit the resolution or run `git merge --abort`.",
    );
  }
  const theirs = await resolveCommit(repo, rev);
  if (!head.oid) {
    throw new PtermError(
      "NotFound",
      "the current branch has no commits yet; commit first (or check out the other branch).",
    );
  }
  if (await isAncestor(repo, theirs, head.oid)) {
    return {
      outcome: "up-to-date",
      head: head.oid,
      commit_id: null,
      changed: [],
      conflicts: [],
      printed: {
        stdout: options.squash ? "Already up to date. (nothing to squash)\n" : "Already up to date.\n",
        stderr: "",
      },
    };
  }
  const who = signatureNow(options.author);
  const action = options.reflogAction ?? `merge ${rev}`;
  // How git's fmt-merge-msg names what is merged.
  const full = dwimRef(repo, rev) ?? "";
  const theirsName = full.startsWith("refs/heads/")
    ? `branch '${rev}'`
    : full.startsWith("refs/tags/")
    ? `tag '${rev}'`
    : full.startsWith("refs/remotes/")
    ? `remote-tracking branch '${rev}'`
    : `commit '${rev}'`;
  if (options.squash) return await squashInto(repo, index, policy, rev, head.oid, theirs);
  if (!options.noFf && (await isAncestor(repo, head.oid, theirs))) {
    const result = await switchTrees(
      repo,
      index,
      policy,
      await treeOf(repo, head.oid),
      await treeOf(repo, theirs),
      "safe",
      "merge",
    );
    writeStateFile(repo, "ORIG_HEAD", `${head.oid}\n`);
    await advanceHead(repo, theirs, { expected: head.oid, message: `${action}: Fast-forward`, who });
    return {
      outcome: "fast-forward",
      head: theirs,
      commit_id: theirs,
      changed: result.changed,
      conflicts: [],
      printed: {
        stdout: fastForwardLines(repo, head.oid, theirs) + await movedHeadText(repo, head.oid, theirs),
        stderr: "",
      },
    };
  }
  await requireIndexMatchesHead(repo, index, "merge");
  const base = await mergeBaseTree(repo, head.oid, theirs);
  const [oursTree, theirsTree] = [await treeOf(repo, head.oid), await treeOf(repo, theirs)];
  const merge = await mergeTrees(repo, base.tree, oursTree, theirsTree, {
    ours: "HEAD",
    theirs: rev,
    base: base.label,
  });
  const applied = await applyMerge(repo, index, policy, merge, "merge");
  // merge-ort's lines (`Auto-merging`, `CONFLICT (…)`), printed whether the merge stops or not.
  const lines = await mergeMessages(
    repo,
    { base: base.tree, ours: oursTree, theirs: theirsTree },
    merge,
    applied,
    rev,
  );
  // git's fmt-merge-msg: " into <branch>" except for main and master (merge.suppressDest), " into HEAD" detached.
  const into = head.branch ? (["main", "master"].includes(head.branch) ? "" : ` into ${head.branch}`) : " into HEAD";
  const message = options.message ?? `Merge ${theirsName}${into}`;
  writeStateFile(repo, "ORIG_HEAD", `${head.oid}\n`);
  if (applied.conflicts.length > 0) {
    writeStateFile(repo, "MERGE_HEAD", `${theirs}\n`);
    writeStateFile(repo, "MERGE_MSG", messageWithConflicts(`${message}\n`, applied.conflicts));
    writeStateFile(repo, "MERGE_MODE", options.noFf ? "no-ff" : "");
    return {
      outcome: "conflict",
      head: head.oid,
      commit_id: null,
      changed: applied.changed,
      conflicts: applied.conflicts,
      printed: { stdout: lines + CONFLICTS_LEFT, stderr: "" },
    };
  }
  const commitId = await commitIndex(repo, index, {
    message,
    author: options.author,
    allowEmpty: true,
    extraParents: [theirs],
    reflogMessage: `${action}: Merge made by the 'ort' strategy.`,
  });
  return {
    outcome: "merge",
    head: commitId,
    commit_id: commitId,
    changed: applied.changed,
    conflicts: [],
    printed: {
      stdout: `${lines}Merge made by the 'ort' strategy.\n${await movedHeadText(repo, head.oid, commitId)}`,
      stderr: "",
    },
  };
}
