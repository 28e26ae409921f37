/**
 * `stashPushHandler`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { stashPushFlags } from "../sub/stash.ts";
import { stashPush } from "../porcelain/stash.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags, userPaths } from "./common.ts";

export const stashPushHandler: Handler<typeof stashPushFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx, repo);
  const result = await withRepoLock(
    repo,
    () =>
      stashPush(
        repo,
        loadIndex(repo),
        policy,
        author,
        ctx.flags.message,
        ctx.flags["include-untracked"],
        userPaths(ctx.flags.path),
      ),
  );
  if (!result) {
    ctx.stdout.write("No local changes to save.\n");
    return { repo_path: rel, stash: null, commit_id: null, message: null, changed_paths: [] };
  }
  ctx.stdout.write(`Saved working directory and index state ${result.message}\n`);
  return {
    repo_path: rel,
    stash: "stash@{0}",
    commit_id: result.commit_id,
    message: result.message,
    changed_paths: result.changed,
  };
};
