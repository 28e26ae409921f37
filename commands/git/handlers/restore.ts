/**
 * `restore`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { restoreFlags } from "../sub/restore.ts";
import { readCommit } from "../history/log.ts";
import { restorePaths } from "../worktree/checkout.ts";
import { resetPaths } from "../porcelain/reset.ts";
import { readHead } from "../repo/refs.ts";
import { resolveCommit } from "../history/revparse.ts";
import { flattenTree, pathWithin } from "../odb/tree.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { bounded, openFromFlags, userPaths } from "./common.ts";
import { checkoutConflictSide, conflictSide } from "../porcelain/conflict_side.ts";

export const restore: Handler<typeof restoreFlags> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, policy, rel } = opened;
  const specs = userPaths(ctx.flags.path);
  if (specs.length === 0) {
    throw new PtermError(
      "InvalidArgs",
      "name what to restore: `git restore <path>…` (`git restore .` for everything).",
    );
  }
  const staged = ctx.flags.staged;
  const worktree = ctx.flags.worktree || !staged;
  const source = ctx.flags.source;
  const side = conflictSide(ctx.flags);
  if (side) {
    if (staged || source !== undefined) {
      throw new PtermError(
        "InvalidArgs",
        `--${side} restores the work tree from one side of a conflict; it takes neither --staged nor --source: ` +
          `\`git restore --${side} <path>\`.`,
      );
    }
    const restored = await withRepoLock(
      repo,
      async () => await checkoutConflictSide(repo, loadIndex(repo), policy, specs, side, "remove"),
    );
    const listed = bounded(restored.changed);
    return {
      repo_path: rel,
      staged: false,
      worktree: true,
      source: null,
      changed_paths: listed.items,
      truncated: listed.truncated,
      withheld: restored.withheld,
    };
  }
  const result = await withRepoLock(repo, async () => {
    let unstaged: string[] = [];
    if (staged) {
      // As git: every pathspec must name something the index or the source commit has.
      const index = loadIndex(repo);
      const head = readHead(repo).oid;
      const from = source ?? head;
      const tree = from
        ? await flattenTree(repo, (await readCommit(repo, await resolveCommit(repo, from))).tree)
        : null;
      for (const spec of specs) {
        const known = (path: string) => spec === "" || pathWithin(path, spec);
        const hit = [...index.entries.keys(), ...index.conflicts.keys()].some(known) ||
          [...(tree?.keys() ?? [])].some(known);
        if (!hit) {
          throw new PtermError(
            "NotFound",
            `pathspec \`${spec}\` did not match any file known to git; nothing was restored.`,
          );
        }
      }
      unstaged = await resetPaths(repo, index, source ?? null, specs);
    }
    let restored: { changed: string[]; withheld: string[] } = { changed: [], withheld: [] };
    if (worktree) {
      // The work tree comes from --source, else (with --staged) HEAD, else the index, as git restore does.
      const from = source ?? (staged ? "HEAD" : undefined);
      const tree = from === undefined ? null : (await readCommit(repo, await resolveCommit(repo, from))).tree;
      const index = loadIndex(repo);
      restored = await restorePaths(repo, index, policy, tree, from === undefined, specs, !staged && !!from);
    }
    return { unstaged, ...restored };
  });
  // git restore prints nothing: what changed is in the result.
  const changed = bounded([...new Set([...result.unstaged, ...result.changed])].sort());
  return {
    repo_path: rel,
    staged,
    worktree,
    source: source ?? null,
    changed_paths: changed.items,
    truncated: changed.truncated,
    withheld: result.withheld,
  };
};
