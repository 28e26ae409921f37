/**
 * `mv`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { mvFlags } from "../sub/mv.ts";
import { movePath } from "../worktree/rm_mv.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { normalizeUserPath } from "../worktree/worktree.ts";
import { openFromFlags } from "./common.ts";
import type { Pos } from "./change_shared.ts";

export const mv: Handler<typeof mvFlags, Pos<"source" | "destination">> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const source = normalizeUserPath(ctx.positionals.source as string);
  const destination = normalizeUserPath(ctx.positionals.destination as string);
  const moved = await withRepoLock(
    repo,
    () => Promise.resolve(movePath(repo, loadIndex(repo), policy, source, destination, ctx.flags.force)),
  );
  // git mv prints nothing; the result lists what moved.
  return { repo_path: rel, moved };
};
