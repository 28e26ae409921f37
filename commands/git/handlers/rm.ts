/**
 * `rm`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { rmFlags } from "../sub/rm.ts";
import { removePaths } from "../worktree/rm_mv.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { openFromFlags, userPaths } from "./common.ts";

export const rm: Handler<typeof rmFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const specs = userPaths(ctx.flags.path);
  if (specs.length === 0) throw new PtermError("InvalidArgs", "git rm needs at least one --path.");
  const removed = await withRepoLock(repo, () =>
    removePaths(repo, loadIndex(repo), policy, specs, {
      cached: ctx.flags.cached,
      recursive: ctx.flags.recursive,
      force: ctx.flags.force,
    }));
  ctx.stdout.write(removed.map((p) => `rm '${p}'`).join("\n") + "\n");
  return { repo_path: rel, removed, cached: ctx.flags.cached };
};
