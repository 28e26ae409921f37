/**
 * `checkout`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { PtermError } from "../../../core/errors.ts";
import type { checkoutFlags } from "../sub/checkout.ts";
import { readCommit } from "../history/log.ts";
import { restorePaths, type SwitchResult } from "../worktree/checkout.ts";
import { checkoutConflictSide, type ConflictSide, conflictSide } from "../porcelain/conflict_side.ts";
import { readHead } from "../repo/refs.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { guessRemoteBranch } from "../porcelain/upstream.ts";
import { resolveCommit } from "../history/revparse.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { bounded, isPathWord, isRevision, type Opened, openFromFlags, splitRevsAndPaths, userPaths } from "./common.ts";
import { type AnyContext, checkoutTarget, switchHead, trackChoice, warnSkippedCheckoutHook } from "./change_shared.ts";

/** Restores paths from a commit (or the index) into index and work tree: `git checkout [<rev>] -- <path>…`. */
export async function restoreFiles(ctx: AnyContext, opened: Opened, target: string | undefined, specs: string[]) {
  const { repo, policy } = opened;
  let tree: string | null = null;
  const result = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    tree = target === undefined ? null : (await readCommit(repo, await resolveCommit(repo, target))).tree;
    return await restorePaths(repo, index, policy, tree, target === undefined, specs);
  });
  return restored(ctx, opened, result, tree === null ? "the index" : abbreviate(repo, tree));
}

/**
 * What a restore of paths says and returns. As git: `Updated N paths from the index` (or from the
 * source's abbreviated tree) on stderr, counting the files written — unless the paths came after
 * `--` or -q was given, when git says nothing.
 */
function restored(ctx: AnyContext, { repo, rel }: Opened, result: SwitchResult, from: string) {
  const flags = ctx.flags as { path?: readonly string[]; quiet?: boolean };
  if (!flags.quiet && (flags.path ?? []).length === 0) {
    const count = result.changed.length;
    ctx.stderr.write(`Updated ${count} ${count === 1 ? "path" : "paths"} from ${from}\n`);
  }
  const listed = bounded(result.changed);
  const head = readHead(repo);
  return {
    repo_path: rel,
    action: "restore",
    branch: head.branch,
    head: head.oid,
    changed_paths: listed.items,
    truncated: listed.truncated,
    withheld: result.withheld,
  };
}

/** `git checkout --ours/--theirs -- <path>`: one side of each conflicted path into the work tree. */
export async function restoreSide(ctx: AnyContext, opened: Opened, specs: string[], side: ConflictSide) {
  const { repo, policy } = opened;
  const result = await withRepoLock(
    repo,
    async () => await checkoutConflictSide(repo, loadIndex(repo), policy, specs, side, "refuse"),
  );
  return restored(ctx, opened, result, "the index");
}

export const checkout: Handler<typeof checkoutFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (ctx) => {
    const opened = await openFromFlags(ctx);
    // The first word may be `-` or `@{-n}`: the branch checked out before, which git goes back to as a branch.
    const words = ctx.positionals.args.map((word, i) => i === 0 ? checkoutTarget(opened.repo, word) : word);
    const track = trackChoice(ctx.flags);
    if (
      words.length === 1 && ctx.flags.path.length === 0 && !ctx.flags.create && !ctx.flags["force-create"] &&
      !ctx.flags.detach && track !== "track" && !(await isRevision(opened.repo, words[0]))
    ) {
      // git's guess: `git checkout fix` with only origin/fix creates fix tracking it.
      const guessed = guessRemoteBranch(opened.repo, words[0]);
      if (guessed) {
        if (isPathWord(opened.repo, words[0])) {
          throw new PtermError(
            "InvalidArgs",
            `\`${words[0]}\` is both a path and the remote-tracking branch ${guessed.slice(13)}; say which: ` +
              `\`git checkout --create ${quoteWord(words[0])} ${guessed.slice(13)}\` for the branch, ` +
              `\`git checkout -- ${quoteWord(words[0])}\` for the path.`,
          );
        }
        const switched = await switchHead(ctx, opened, guessed.slice(13), {
          create: words[0],
          detach: false,
          force: ctx.flags.force,
          track,
        });
        warnSkippedCheckoutHook(ctx, opened.repo);
        return switched;
      }
    }
    const split = await splitRevsAndPaths(ctx, opened.repo, words, 1);
    const target = split.revs[0];
    const specs = userPaths([...ctx.flags.path, ...split.paths]);
    const side = conflictSide(ctx.flags);
    if (side) {
      if (target !== undefined || specs.length === 0) {
        throw new PtermError(
          "InvalidArgs",
          `--${side} checks out one side of a conflicted path, without a commit: \`git checkout --${side} -- <path>\`.`,
        );
      }
      return await restoreSide(ctx, opened, specs, side);
    }
    if (specs.length > 0) {
      if (ctx.flags.create || ctx.flags["force-create"] || ctx.flags.detach) {
        throw new PtermError("InvalidArgs", "paths restore files; they cannot be combined with -b, -B or --detach.");
      }
      return await restoreFiles(ctx, opened, target, specs);
    }
    if (!target && !ctx.flags.create && !ctx.flags["force-create"]) {
      throw new PtermError(
        "InvalidArgs",
        "say what to check out: a branch, a tag or a commit (`git checkout main`), -b <new-branch>, or paths " +
          "after `--` to restore.",
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
