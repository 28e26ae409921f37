/**
 * What several of the basic handlers share (entries/basic.ts lists them).
 */

import type { CommandContext } from "../../../core/context.ts";
import { stage, type StageResult } from "../worktree/add.ts";
import type { Repo } from "../repo/repo.ts";
import type { Index } from "../worktree/index_file.ts";
import { pathWithin } from "../odb/tree.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { worktreeStatus } from "../porcelain/status.ts";

/**
 * Stages what `git add -u` / `git commit -a` stage: modifications and deletions of tracked files
 * (under `scope`, if given), never a new file.
 */
export async function stageTracked(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  scope: readonly string[],
): Promise<StageResult> {
  const work = await worktreeStatus(repo, index, policy, { untracked: false, submodules: "none" });
  const changed = [...work.unstaged.keys()].filter((path) =>
    !policy.hidden(path) && (scope.length === 0 || scope.some((s) => s === "" || pathWithin(path, s)))
  );
  if (changed.length === 0) return { added: [], updated: [], removed: [], withheld: [], unaddressable: [] };
  return await stage(repo, index, policy, changed, {
    signal: ctx.signal,
    onProgress: (done, total) => ctx.progress({ progress: done, total, message: "files staged" }),
  });
}
