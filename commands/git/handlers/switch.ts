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
import { checkoutTarget, type Pos, switchHead, trackChoice, warnSkippedCheckoutHook } from "./change_shared.ts";

export const switchHandler: Handler<typeof switchFlags, Pos<"branch">> = async (ctx) => {
  const opened = await openFromFlags(ctx);
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
