/**
 * `revert`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { revertFlags } from "../sub/revert.ts";
import { revertCommit } from "../porcelain/pick.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags } from "./common.ts";
import { commitSummaryText, SEQUENCER_SUMMARY } from "../porcelain/summary_text.ts";
import { finishSequence, printingGitRefusal, sequenceAction } from "./change_shared.ts";

export const revert: Handler<typeof revertFlags> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx, repo);
  const ref = ctx.flags.ref;
  const action = sequenceAction(ctx.flags);
  if (action) {
    if (ref !== undefined || ctx.flags["no-commit"]) {
      throw new PtermError("InvalidArgs", `--${action} takes no commit and no --no-commit.`);
    }
    const done = await finishSequence(ctx, opened, "revert", action);
    return {
      repo_path: rel,
      action,
      reverted: done.applied!,
      commit_id: done.commit_id,
      changed_paths: done.changed_paths,
      conflicts: [],
    };
  }
  if (!ref) {
    throw new PtermError(
      "InvalidArgs",
      "say which commit to revert: `git revert <commit>` (e.g. HEAD), or --continue, --abort, --quit, --skip.",
    );
  }
  const result = await printingGitRefusal(ctx, "fatal: revert failed", () =>
    withRepoLock(
      repo,
      () => revertCommit(repo, loadIndex(repo), policy, ref, { noCommit: ctx.flags["no-commit"], author }),
    ));
  const fields = {
    repo_path: rel,
    reverted: result.reverted,
    commit_id: result.commit_id,
    changed_paths: result.changed_paths,
    conflicts: result.conflicts,
  };
  if (result.conflicts.length > 0) {
    // git's text of the stop (the merge's lines, then its advice), before pterm's error.
    ctx.stdout.write(result.printed?.stdout ?? "");
    ctx.stderr.write(result.printed?.stderr ?? "");
    throw new PtermError(
      "Conflict",
      `reverting ${result.reverted.slice(0, 7)} conflicted in ${
        result.conflicts.join(", ")
      }; the files contain conflict markers. ` +
        "Edit them, `git add` them and `git revert --continue` (or `git revert --abort` to give up).",
      { result: fields },
    );
  }
  // git's summary of the commit it made (with -n it prints nothing: the change is staged, the result says so).
  if (result.commit_id) ctx.stdout.write(await commitSummaryText(repo, result.commit_id, SEQUENCER_SUMMARY));
  return fields;
};
