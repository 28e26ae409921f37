/** Switching HEAD to a branch or commit and the work tree with it. */

import { PtermError } from "../../../core/errors.ts";
import { switchTrees } from "../worktree/checkout.ts";
import { type GitAuthor, signatureNow } from "../repo/identity.ts";
import type { Index } from "../worktree/index_file.ts";
import {
  checkBranchName,
  readHead,
  readRawRef,
  resolveRefOid,
  setHeadDetached,
  setHeadSymbolic,
  updateRef,
} from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { resolveCommit } from "../history/revparse.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { refuseIfCheckedOutElsewhere } from "./branches.ts";
import { treeOf } from "./state.ts";

export interface SwitchOutcome {
  branch: string | null;
  head: string;
  changed: string[];
  withheld: string[];
}

/** Switches HEAD to a branch (or, detached, to a commit), updating index and work tree safely. */
export async function switchTo(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  target: string,
  options: { detach?: boolean; force?: boolean; createBranch?: string; author: GitAuthor },
): Promise<SwitchOutcome> {
  const head = readHead(repo);
  const who = signatureNow(options.author);
  let branchRef: string | null = null;
  let commit: string;
  if (options.createBranch) {
    checkBranchName(options.createBranch);
    if (resolveRefOid(repo, `refs/heads/${options.createBranch}`)) {
      throw new PtermError(
        "AlreadyExists",
        `a branch named ${options.createBranch} already exists; check it out without --create.`,
      );
    }
    commit = await resolveCommit(repo, target);
    branchRef = `refs/heads/${options.createBranch}`;
  } else {
    const local = options.detach ? null : readRawRef(repo, `refs/heads/${target}`) ? `refs/heads/${target}` : null;
    branchRef = local;
    if (local && local !== head.ref) refuseIfCheckedOutElsewhere(repo, local, "check out");
    commit = local ? resolveRefOid(repo, local)! : await resolveCommit(repo, target);
  }
  const result = await switchTrees(
    repo,
    index,
    policy,
    await treeOf(repo, head.oid),
    await treeOf(repo, commit),
    options.force ? "force" : "safe",
  );
  // git's reflog names a detached HEAD it leaves by its full object name.
  const fromName = head.branch ?? head.oid ?? "(unborn)";
  if (options.createBranch) {
    await updateRef(repo, branchRef!, commit, { expected: null, message: `branch: Created from ${target}`, who });
  }
  if (branchRef) {
    const toName = branchRef.slice(11);
    await setHeadSymbolic(repo, branchRef, who, `checkout: moving from ${fromName} to ${toName}`);
  } else {
    await setHeadDetached(repo, commit, who, `checkout: moving from ${fromName} to ${target}`);
  }
  return {
    branch: branchRef ? branchRef.slice(11) : null,
    head: commit,
    changed: result.changed,
    withheld: result.withheld,
  };
}
