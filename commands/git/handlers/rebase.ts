/**
 * `rebase`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { rebaseFlags } from "../sub/rebase.ts";
import {
  abortRebase,
  continueRebase,
  noRebase,
  type RebaseOutcome,
  skipRebase,
  startRebase,
} from "../porcelain/rebase.ts";
import { quitSequence, rebaseStateDir } from "../merge/sequence.ts";
import { printedBy } from "../porcelain/printed.ts";
import { readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { type AnyContext, type Pos, sequenceAction } from "./change_shared.ts";
import { authorOf, openFromFlags } from "./common.ts";

/** The upstream `git rebase` without one rebases onto: the branch's `branch.<name>.remote`/`.merge`, as git reads them. */
export function configuredUpstream(repo: Repo, branch: string | null): string | null {
  if (!branch) return null;
  const remote = repo.config.get(`branch.${branch}.remote`);
  const merge = repo.config.get(`branch.${branch}.merge`);
  if (!remote || !merge) return null;
  if (remote === ".") return merge;
  return `refs/remotes/${remote}/${merge.replace(/^refs\/heads\//, "")}`;
}

/**
 * What a rebase printed goes out as git printed it (stdout and stderr); a stop is an error (exit 1, code Conflict,
 * or the refusal that stopped a pick), its state kept for `--continue`, `--skip` or `--abort`.
 */
export function reportRebase(
  ctx: AnyContext,
  rel: string,
  outcome: RebaseOutcome,
  extra: Record<string, unknown> = {},
) {
  ctx.stdout.write(outcome.text.stdout);
  ctx.stderr.write(outcome.text.stderr);
  const { text: _text, error, ...fields } = outcome;
  const result = { repo_path: rel, ...extra, ...fields };
  if (error) {
    throw new PtermError(
      error.code,
      `${error.message}\nThe rebase stopped before ${outcome.stopped_at?.slice(0, 7)} (nothing of it applied); ` +
        "fix that, then `git rebase --continue`, or `git rebase --abort`.",
      { result: { ...error.result, ...result } },
    );
  }
  if (outcome.outcome === "stopped") {
    throw new PtermError(
      "Conflict",
      `the rebase stopped at ${outcome.stopped_at?.slice(0, 7)}: ${outcome.conflicts.join(", ")} in conflict.`,
      {
        result,
        hint: "edit the files, `git add` them and `git rebase --continue`; `git rebase --skip` drops this commit, " +
          "`git rebase --abort` gives the rebase up.",
      },
    );
  }
  return result;
}

/** Runs a rebase step; a refusal's own git text (stdout, stderr) goes out before its error. */
export async function printingRefusals<T>(ctx: AnyContext, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const printed = printedBy(error);
    if (printed) {
      ctx.stdout.write(printed.stdout);
      ctx.stderr.write(printed.stderr);
    }
    throw error;
  }
}

export const rebase: Handler<typeof rebaseFlags, Pos<"upstream" | "branch">> = (ctx) =>
  printingRefusals(ctx, () => rebaseSteps(ctx));

async function rebaseSteps(ctx: Parameters<typeof rebase>[0]) {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx, repo);
  const upstreamWord = ctx.positionals.upstream as string | undefined;
  const branchWord = ctx.positionals.branch as string | undefined;
  const action = sequenceAction(ctx.flags);
  if (action) {
    if (upstreamWord !== undefined || ctx.flags.onto !== undefined) {
      throw new PtermError(
        "InvalidArgs",
        `--${action} takes no upstream, branch or --onto: \`git rebase --${action}\`.`,
      );
    }
    if (action === "quit") {
      if (!rebaseStateDir(repo)) throw noRebase("quit");
      quitSequence(repo, "rebase");
      return { repo_path: rel, action, outcome: "quit", head: readHead(repo).oid };
    }
    if (action === "abort") {
      const aborted = await withRepoLock(repo, () => abortRebase(repo, loadIndex(repo), policy, author));
      return { repo_path: rel, action, outcome: "aborted", ...aborted };
    }
    const outcome = await withRepoLock(repo, () => {
      const index = loadIndex(repo);
      return action === "continue"
        ? continueRebase(repo, index, policy, author)
        : skipRebase(repo, index, policy, author);
    });
    return reportRebase(ctx, rel, outcome, { action });
  }
  const upstream = upstreamWord ?? configuredUpstream(repo, readHead(repo).branch);
  if (upstream === undefined || upstream === null) {
    throw new PtermError(
      "InvalidArgs",
      "say what to rebase onto: `git rebase main` (this branch has no upstream to default to).",
    );
  }
  const outcome = await withRepoLock(repo, () =>
    startRebase(repo, loadIndex(repo), policy, {
      upstream,
      onto: ctx.flags.onto,
      branch: branchWord,
      author,
      adviceSkipped: repo.config.getBool("advice.skippedCherryPicks", true),
    }));
  return reportRebase(ctx, rel, outcome, { action: "start" });
}
