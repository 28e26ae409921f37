/**
 * `stashShow`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { stashShowFlags } from "../sub/stash.ts";
import { changesBetween, diffPrefixes, lineAlgorithm, renderDiff } from "../diff/diff.ts";
import { readCommit } from "../history/log.ts";
import { listStash, parseStashRef } from "../porcelain/stash.ts";
import { flattenTree } from "../odb/tree.ts";
import { openFromFlags, plural } from "./common.ts";
import { emit, filterChanges, withRenames } from "./history_shared.ts";

/**
 * `git stash show [-p] [-u] [stash@{N}]`: what the entry saved against the commit it was made on
 * (its first parent) — a diffstat by default, as git's stash.showStat, the patch with -p; with -u
 * the untracked files it saved (its third parent) as added files, as git 2.32+.
 */
export const stashShow: Handler<typeof stashShowFlags, readonly [{ name: "stash"; description: string }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const n = parseStashRef(ctx.positionals.stash as string | undefined);
  const entry = listStash(repo)[n];
  if (!entry) {
    throw new PtermError(
      "NotFound",
      `there is no stash@{${n}}; \`git stash list --repo ${rel}\` lists the entries.`,
    );
  }
  const commit = await readCommit(repo, entry.commit_id);
  const base = await flattenTree(repo, (await readCommit(repo, commit.parents[0])).tree);
  const saved = await flattenTree(repo, commit.tree);
  if (ctx.flags["include-untracked"] && commit.parents[2]) {
    for (const [path, file] of await flattenTree(repo, (await readCommit(repo, commit.parents[2])).tree)) {
      saved.set(path, file);
    }
  }
  const { kept, withheld } = filterChanges(changesBetween(base, saved), [], policy);
  const rendered = await renderDiff(repo, await withRenames(repo, kept, { "find-renames": 50 }), {
    algorithm: lineAlgorithm(repo, {}),
    prefixes: ctx.flags.patch ? diffPrefixes(repo) : undefined,
  });
  const stat = !ctx.flags.patch || ctx.flags.stat;
  const out = await emit(
    ctx,
    rendered,
    {
      stat: stat && !ctx.flags["name-only"] && !ctx.flags["name-status"],
      "name-only": ctx.flags["name-only"],
      "name-status": ctx.flags["name-status"],
    },
    "",
    "",
  );
  if (withheld.length) ctx.stderr.write(`${plural(withheld.length, "secret path")} withheld from the diff.\n`);
  return { repo_path: rel, stash: `stash@{${n}}`, commit_id: entry.commit_id, ...out, withheld };
};
