/**
 * `add`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { addFlags } from "../sub/add.ts";
import { stage } from "../worktree/add.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { unaddressableWarning } from "../porcelain/status.ts";
import { bounded, openFromFlags, userPaths } from "./common.ts";
import { comparePaths } from "../odb/bytes.ts";
import { stageTracked } from "./basic_shared.ts";

export const add: Handler<typeof addFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const specs = userPaths(ctx.flags.path);
  if (ctx.flags.all && ctx.flags.update) {
    throw new PtermError("InvalidArgs", "give -A (everything, new files too) or -u (tracked files only), not both.");
  }
  if (!ctx.flags.all && !ctx.flags.update && specs.length === 0) {
    throw new PtermError(
      "InvalidArgs",
      "git add needs something to stage: `git add <path>…`, `git add .` or `git add -A` (everything), " +
        "`git add -u` (tracked files only).",
    );
  }
  const result = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    if (ctx.flags.update) return await stageTracked(ctx, repo, index, policy, specs);
    return await stage(repo, index, policy, ctx.flags.all ? ["", ...specs] : specs, {
      force: ctx.flags.force,
      signal: ctx.signal,
      onProgress: (done, total) => ctx.progress({ progress: done, total, message: "files staged" }),
    });
  });
  // git add prints nothing; with -v each path it staged (tracked files' changes first, then new files).
  if (ctx.flags.verbose) {
    const tracked = [
      ...result.updated.map((path) => ({ path, line: `add '${path}'\n` })),
      ...result.removed.map((path) => ({ path, line: `remove '${path}'\n` })),
    ].sort((a, b) => comparePaths(a.path, b.path));
    const added = [...result.added].sort(comparePaths).map((path) => `add '${path}'\n`);
    ctx.stdout.write(tracked.map((t) => t.line).join("") + added.join(""));
  }
  if (result.unaddressable.length) ctx.stderr.write(unaddressableWarning(result.unaddressable));
  const added = bounded(result.added);
  const updated = bounded(result.updated);
  const removed = bounded(result.removed);
  return {
    repo_path: rel,
    added_patterns: ctx.flags.all || (ctx.flags.update && specs.length === 0) ? ["."] : (ctx.flags.path ?? []),
    added: added.items,
    updated: updated.items,
    removed: removed.items,
    truncated: added.truncated || updated.truncated || removed.truncated,
    withheld: result.withheld,
  };
};
