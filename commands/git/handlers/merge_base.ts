/**
 * `mergeBase`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { mergeBaseFlags } from "../sub/merge_base.ts";
import { resolveCommit } from "../history/revparse.ts";
import { isAncestor, mergeBases } from "../merge/merge.ts";
import { openFromFlags } from "./common.ts";

export const mergeBase: Handler<
  typeof mergeBaseFlags,
  readonly [{ name: "commits"; description: string; variadic: true }]
> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx, "read");
  const words = ctx.positionals.commits;
  if (words.length !== 2) {
    throw new PtermError("InvalidArgs", "git merge-base takes two commits: `git merge-base main feature`.");
  }
  const [a, b] = [await resolveCommit(repo, words[0]), await resolveCommit(repo, words[1])];
  if (ctx.flags["is-ancestor"]) {
    const yes = await isAncestor(repo, a, b);
    // As git: the answer is the exit status alone (1: not an ancestor).
    if (!yes) throw new PtermError("NoMatch", `${words[0]} is not an ancestor of ${words[1]}.`, { hint: "" });
    return { repo_path: rel, bases: [], is_ancestor: true };
  }
  const bases = await mergeBases(repo, a, b);
  // git names the newest base first (by committer date).
  const dated = await Promise.all(
    bases.map(async (oid) => ({ oid, at: (await repo.objects.readCommit(oid)).committer.timestamp })),
  );
  dated.sort((x, y) => y.at - x.at);
  const shown = ctx.flags.all ? dated.map((d) => d.oid) : dated.slice(0, 1).map((d) => d.oid);
  if (shown.length === 0) throw new PtermError("NoMatch", `${words[0]} and ${words[1]} have no common ancestor.`);
  ctx.stdout.write(shown.map((oid) => oid + "\n").join(""));
  return { repo_path: rel, bases: shown, is_ancestor: null };
};
