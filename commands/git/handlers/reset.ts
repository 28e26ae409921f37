/**
 * `reset`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { resetFlags } from "../sub/reset.ts";
import { refreshAfterReset, resetPaths, resetTo } from "../porcelain/reset.ts";
import { readHead } from "../repo/refs.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { authorOf, bounded, openFromFlags, splitRevsAndPaths, userPaths } from "./common.ts";
import { headNowAtText } from "../porcelain/summary_text.ts";

export const reset: Handler<typeof resetFlags, readonly [{ name: "args"; description: string; variadic: true }]> =
  async (
    ctx,
  ) => {
    const { repo, policy, rel } = await openFromFlags(ctx);
    const modes = (["soft", "mixed", "hard"] as const).filter((m) => ctx.flags[m]);
    if (modes.length > 1) throw new PtermError("InvalidArgs", "give only one of --soft, --mixed, --hard.");
    const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 1);
    const rev = split.revs[0];
    const specs = userPaths([...ctx.flags.path, ...split.paths]);
    if (specs.length > 0) {
      if (modes.length && modes[0] !== "mixed") {
        throw new PtermError(
          "InvalidArgs",
          `--${modes[0]} cannot be combined with --path (paths only reset the index).`,
        );
      }
      const { changed, printed } = await withRepoLock(repo, async () => {
        const index = loadIndex(repo);
        const changed = await resetPaths(repo, index, rev ?? null, specs);
        return { changed, printed: await refreshAfterReset(repo, index, policy) };
      });
      ctx.stdout.write(printed);
      const listed = bounded(changed);
      return {
        repo_path: rel,
        mode: "paths",
        head: readHead(repo).oid,
        changed_paths: listed.items,
        truncated: listed.truncated,
      };
    }
    const mode = modes[0] ?? "mixed";
    const author = authorOf(ctx, repo);
    const result = await withRepoLock(repo, () => resetTo(repo, loadIndex(repo), policy, rev ?? "HEAD", mode, author));
    // git's text: the head line after --hard, the unstaged paths after a mixed reset, nothing after --soft.
    if (mode === "hard") ctx.stdout.write(await headNowAtText(repo, result.head));
    else ctx.stdout.write(result.printed);
    const listed = bounded(result.changed_paths);
    return { repo_path: rel, mode, head: result.head, changed_paths: listed.items, truncated: listed.truncated };
  };
