/**
 * `merge`: one git subcommand's handler (its declaration is under sub/).
 */

import { skippedHooks } from "../repo/hooks.ts";
import type { Handler } from "../../../core/context.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { PtermError } from "../../../core/errors.ts";
import type { mergeFlags } from "../sub/merge.ts";
import { mergeInto } from "../porcelain/merge_into.ts";
import { readHead } from "../repo/refs.ts";
import { resolveCommit } from "../history/revparse.ts";
import { mergeBases } from "../merge/merge.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags } from "./common.ts";
import { finishSequence, printingGitRefusal, sequenceAction } from "./change_shared.ts";

export const merge: Handler<typeof mergeFlags> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx, repo);
  const action = sequenceAction(ctx.flags);
  if (action) {
    if (ctx.flags.branch) throw new PtermError("InvalidArgs", `--${action} takes no branch.`);
    const done = await finishSequence(ctx, opened, "merge", action);
    return {
      repo_path: rel,
      outcome: action === "continue" ? "merge" as const : action === "quit" ? "quit" as const : "aborted" as const,
      commit_id: done.commit_id,
      head: readHead(repo).oid,
      changed_paths: done.changed_paths,
      conflicts: [],
    };
  }
  if (!ctx.flags.branch) throw new PtermError("InvalidArgs", "say what to merge: `git merge <branch>`.");
  const branchName = ctx.flags.branch;
  if (ctx.flags.squash && (ctx.flags["no-ff"] || ctx.flags.message !== undefined)) {
    throw new PtermError(
      "InvalidArgs",
      "--squash makes no commit, so it takes no --no-ff or -m: give the message to the `git commit` that follows.",
    );
  }
  if (ctx.flags["ff-only"]) {
    if (ctx.flags["no-ff"]) throw new PtermError("InvalidArgs", "--ff-only and --no-ff contradict each other.");
    const head = readHead(repo).oid;
    const theirs = await resolveCommit(repo, branchName);
    if (
      head && head !== theirs && !(await mergeBases(repo, head, theirs)).includes(head) &&
      !(await mergeBases(repo, head, theirs)).includes(theirs)
    ) {
      throw new PtermError(
        "Rejected",
        `not possible to fast-forward to ${branchName}: the branches have diverged. Nothing was changed. ` +
          `\`git merge ${quoteWord(branchName)}\` makes a merge commit.`,
      );
    }
  }
  const outcome = await printingGitRefusal(ctx, "Merge with strategy ort failed.", () =>
    withRepoLock(
      repo,
      () =>
        mergeInto(repo, loadIndex(repo), policy, branchName, {
          noFf: ctx.flags["no-ff"],
          message: ctx.flags.message,
          author,
          squash: ctx.flags.squash,
        }),
    ));
  const fields = {
    repo_path: rel,
    commit_id: outcome.commit_id,
    head: outcome.head,
    changed_paths: outcome.changed,
    conflicts: outcome.conflicts,
  };
  // git's text of the merge (of its stop, before pterm's error).
  ctx.stdout.write(outcome.printed.stdout);
  ctx.stderr.write(outcome.printed.stderr);
  if (outcome.outcome === "squashed") {
    if (outcome.conflicts.length > 0) {
      throw new PtermError(
        "Conflict",
        `squashing ${branchName} conflicted in ${outcome.conflicts.join(", ")}; those files contain conflict ` +
          "markers. Edit them, `git add` them and `git commit` (the message is prepared), or `git reset --hard` " +
          "to give up (HEAD did not move).",
        { result: { ...fields, outcome: "squashed" } },
      );
    }
    return { ...fields, outcome: outcome.outcome };
  }
  if (outcome.outcome === "conflict") {
    throw new PtermError(
      "Conflict",
      `merging ${branchName} conflicted in ${outcome.conflicts.join(", ")}; those files contain conflict markers. ` +
        "Edit them, `git add` them and `git commit`, or `git merge --abort`.",
      { result: { ...fields, outcome: "conflict" } },
    );
  }
  const hooks = outcome.outcome === "up-to-date" ? null : skippedHooks(
    repo,
    outcome.outcome === "fast-forward"
      ? ["post-merge"]
      : ["pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge"],
  );
  if (hooks) ctx.stderr.write(`[Warning] ${hooks}\n`);
  return { ...fields, outcome: outcome.outcome };
};
