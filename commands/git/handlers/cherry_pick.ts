/**
 * `cherryPick`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { cherryPickFlags } from "../sub/cherry_pick.ts";
import { cherryPickCommit } from "../porcelain/pick.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags } from "./common.ts";
import { commitSummaryText, SEQUENCER_SUMMARY } from "../porcelain/summary_text.ts";
import { finishSequence, type Pos, printingGitRefusal, sequenceAction } from "./change_shared.ts";

export const cherryPick: Handler<typeof cherryPickFlags, Pos<"commit">> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx, repo);
  const rev = ctx.positionals.commit as string | undefined;
  const action = sequenceAction(ctx.flags);
  if (action) {
    if (rev !== undefined || ctx.flags["no-commit"]) {
      throw new PtermError("InvalidArgs", `--${action} takes no commit and no --no-commit.`);
    }
    const done = await finishSequence(ctx, opened, "cherry-pick", action);
    return {
      repo_path: rel,
      action,
      picked: done.applied!,
      commit_id: done.commit_id,
      changed_paths: done.changed_paths,
      conflicts: [],
    };
  }
  if (rev === undefined) {
    throw new PtermError(
      "InvalidArgs",
      "say which commit to pick: `git cherry-pick <commit>` (or --continue, --abort, --quit, --skip).",
    );
  }
  const { printed, ...result } = await printingGitRefusal(ctx, "fatal: cherry-pick failed", () =>
    withRepoLock(
      repo,
      () =>
        cherryPickCommit(repo, loadIndex(repo), policy, rev, {
          noCommit: ctx.flags["no-commit"],
          author,
          recordOrigin: ctx.flags.x,
          allowEmpty: ctx.flags["allow-empty"],
          keepRedundant: ctx.flags["keep-redundant-commits"],
        }),
    ));
  const fields = { repo_path: rel, ...result };
  if (result.conflicts.length > 0) {
    // git's text of the stop (the merge's lines, then its advice), before pterm's error.
    ctx.stdout.write(printed?.stdout ?? "");
    ctx.stderr.write(printed?.stderr ?? "");
    throw new PtermError(
      "Conflict",
      `picking ${result.picked.slice(0, 7)} conflicted in ${result.conflicts.join(", ")}; those files contain ` +
        "conflict markers. Edit them, `git add` them and `git cherry-pick --continue`, or " +
        "`git cherry-pick --abort` to give up.",
      { result: fields },
    );
  }
  // git's summary of the commit it made (with -n it prints nothing: the change is staged, the result says so).
  if (result.commit_id) ctx.stdout.write(await commitSummaryText(repo, result.commit_id, SEQUENCER_SUMMARY));
  return fields;
};
