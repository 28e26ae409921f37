/**
 * What git's merge machinery (merge-ort) prints to stdout while it merges: the lines a merge, cherry-pick, revert
 * or a rebase's pick shows when it stops on conflicts.
 */

import { comparePaths } from "../odb/bytes.ts";
import { lookupPath } from "../history/revparse.ts";
import type { Repo } from "../repo/repo.ts";
import type { TreeMerge } from "./merge.ts";

/**
 * What git's merge prints to stdout for a pick (merge-ort's messages, in the order of the paths they are about):
 * `Auto-merging <path>` for each file both sides changed, and a `CONFLICT (…)` line for each conflict — of
 * contents (content, add/add, modify/delete) at its path, of names as ort words them: a rename/delete at the new
 * name (followed by the modify/delete of that name when the renamed file changed too), a rename/rename at the
 * old one, its two new names not reported on their own.
 */
export async function mergeMessages(
  repo: Repo,
  trees: { base: string | null; ours: string | null; theirs: string | null },
  merge: TreeMerge,
  applied: { readonly changed: readonly string[]; readonly conflicts: readonly string[] },
  theirsLabel: string,
  oursLabel = "HEAD",
): Promise<string> {
  // Every path the merge touched: what it changed, what conflicts, and what both sides changed even
  // where the result is ours (merge-ort merged it, and says so).
  const paths = [...new Set([...applied.changed, ...applied.conflicts, ...merge.bothChanged])];
  const conflicts = new Set(applied.conflicts);
  const renameConflicts = merge.renameConflicts;
  const at = async (tree: string | null, path: string) => tree ? await lookupPath(repo, tree, path) : null;
  const label = (side: "ours" | "theirs") => side === "ours" ? oursLabel : theirsLabel;
  const other = (side: "ours" | "theirs") => side === "ours" ? "theirs" : "ours";
  const byName = new Map<string, string>();
  const silent = new Set<string>();
  for (const r of renameConflicts) {
    if (r.kind === "rename/rename") {
      byName.set(
        r.from,
        `CONFLICT (rename/rename): ${r.from} renamed to ${r.ours} in ${oursLabel} and to ${r.theirs} in ${theirsLabel}.\n`,
      );
      silent.add(r.ours).add(r.theirs);
      continue;
    }
    let line = `CONFLICT (rename/delete): ${r.from} renamed to ${r.to} in ${label(r.renamedIn)}, but deleted in ` +
      `${label(other(r.renamedIn))}.\n`;
    const [before, renamed] = await Promise.all([
      at(trees.base, r.from),
      at(r.renamedIn === "ours" ? trees.ours : trees.theirs, r.to),
    ]);
    if ((before?.oid ?? null) !== (renamed?.oid ?? null)) {
      line += `CONFLICT (modify/delete): ${r.to} deleted in ${label(other(r.renamedIn))} and modified in ` +
        `${label(r.renamedIn)}.  Version ${label(r.renamedIn)} of ${r.to} left in tree.\n`;
    }
    byName.set(r.to, line);
    silent.add(r.to);
  }
  let out = "";
  for (const path of [...new Set([...paths, ...byName.keys()])].sort(comparePaths)) {
    if (byName.has(path)) out += byName.get(path);
    if (silent.has(path) || byName.has(path)) continue;
    const [base, ours, theirs] = await Promise.all([
      at(trees.base, path),
      at(trees.ours, path),
      at(trees.theirs, path),
    ]);
    const differs = (a: typeof base, b: typeof base) => (a?.oid ?? null) !== (b?.oid ?? null);
    if (ours && theirs && differs(base, ours) && differs(base, theirs) && differs(ours, theirs)) {
      out += `Auto-merging ${path}\n`;
    }
    if (!conflicts.has(path)) continue;
    if (ours && theirs) out += `CONFLICT (${base ? "content" : "add/add"}): Merge conflict in ${path}\n`;
    else if (ours) {
      out += `CONFLICT (modify/delete): ${path} deleted in ${theirsLabel} and modified in ${oursLabel}.  ` +
        `Version ${oursLabel} of ${path} left in tree.\n`;
    } else if (theirs) {
      out += `CONFLICT (modify/delete): ${path} deleted in ${oursLabel} and modified in ${theirsLabel}.  ` +
        `Version ${theirsLabel} of ${path} left in tree.\n`;
    }
  }
  return out;
}
