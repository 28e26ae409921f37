/**
 * `switchHandler`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { PtermError } from "../../../core/errors.ts";
import type { switchFlags } from "../sub/switch.ts";
import { isValidRefName, resolveRefOid } from "../repo/refs.ts";
import { guessRemoteBranch } from "../porcelain/upstream.ts";
import { isRevision, openFromFlags } from "./common.ts";
import { type Sequence, sequenceInProgress } from "../merge/sequence.ts";
import { checkoutTarget, type Pos, switchHead, trackChoice, warnSkippedCheckoutHook } from "./change_shared.ts";

/** git switch's refusal while an operation is in progress (git checkout would end it instead). */
const SWITCH_REFUSED: Record<Sequence, string> = {
  merge: "cannot switch branch while merging: conclude the merge with `git commit` or give it up with " +
    "`git merge --abort`, then switch.",
  rebase: "cannot switch branch while rebasing: go on with `git rebase --continue` or give it up with " +
    "`git rebase --abort`, then switch.",
  "cherry-pick": "cannot switch branch while cherry-picking: go on with `git cherry-pick --continue`, or end " +
    "it with `git cherry-pick --abort` (or `--quit`, which keeps the work tree as it is), then switch.",
  revert: "cannot switch branch while reverting: go on with `git revert --continue`, or end it with " +
    "`git revert --abort` (or `--quit`, which keeps the work tree as it is), then switch.",
};

export const switchHandler: Handler<typeof switchFlags, Pos<"branch">> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const inProgress = sequenceInProgress(opened.repo);
  if (inProgress) throw new PtermError("Conflict", SWITCH_REFUSED[inProgress]);
  const given = ctx.positionals.branch as string | undefined;
  const target = given === undefined ? undefined : checkoutTarget(opened.repo, given);
  const creating = ctx.flags.create ?? ctx.flags["force-create"];
  const track = trackChoice(ctx.flags);
  if (!creating && !target) {
    throw new PtermError("InvalidArgs", "name the branch: `git switch <branch>` (or `git switch -c <new-branch>`).");
  }
  const guessed = !creating && !ctx.flags.detach && track !== "track" && target &&
      !resolveRefOid(opened.repo, `refs/heads/${target}`)
    ? guessRemoteBranch(opened.repo, target)
    : null;
  if (guessed) {
    // git's guess: `git switch fix` with only origin/fix creates fix tracking it.
    const switched = await switchHead(ctx, opened, guessed.slice(13), {
      create: target,
      detach: false,
      force: ctx.flags.force,
      track,
    });
    warnSkippedCheckoutHook(ctx, opened.repo);
    return switched;
  }
  if (
    !creating && !ctx.flags.detach && track !== "track" && target &&
    !resolveRefOid(opened.repo, `refs/heads/${target}`)
  ) {
    // git switch takes branches only; a commit needs --detach, a new name needs -c.
    const known = await isRevision(opened.repo, target);
    throw new PtermError(
      "NotFound",
      known
        ? `\`${target}\` is not a branch: \`git switch --detach ${quoteWord(target)}\` goes to it as a detached HEAD.`
        : isValidRefName(`refs/heads/${target}`)
        ? `there is no branch \`${target}\`: create it with \`git switch -c ${quoteWord(target)}\`.`
        : `there is no branch \`${target}\`, and it is not a valid branch name; \`git branch\` lists the branches.`,
    );
  }
  const switched = await switchHead(ctx, opened, target, {
    create: ctx.flags.create,
    forceCreate: ctx.flags["force-create"],
    detach: ctx.flags.detach,
    force: ctx.flags.force,
    track,
  });
  warnSkippedCheckoutHook(ctx, opened.repo);
  return switched;
};
