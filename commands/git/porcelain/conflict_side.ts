/**
 * `git checkout --ours/--theirs <path>` and `git restore --ours/--theirs <path>`: an unmerged path's work-tree
 * file becomes one side of the conflict (stage 2 ours, stage 3 theirs); the index keeps the conflict, as in
 * git, so `git add` still records the resolution. Merged paths are checked out from the index.
 */

import { PtermError } from "../../../core/errors.ts";
import { comparePaths } from "../odb/bytes.ts";
import { pathWithin } from "../odb/tree.ts";
import type { Repo } from "../repo/repo.ts";
import { restorePaths, writeBlob } from "../worktree/checkout.ts";
import { type Index, modeToTreeMode } from "../worktree/index_file.ts";
import { hiddenPathDenied, type PathPolicy, WorktreeWriter } from "../worktree/worktree.ts";

export type ConflictSide = "ours" | "theirs";

/** Which side of a conflict --ours/--theirs asks for (both at once is refused). */
export function conflictSide(flags: { ours?: boolean; theirs?: boolean }): ConflictSide | null {
  if (flags.ours && flags.theirs) throw new PtermError("InvalidArgs", "--ours and --theirs: give one of them.");
  return flags.ours ? "ours" : flags.theirs ? "theirs" : null;
}

export async function checkoutConflictSide(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  specs: readonly string[],
  side: ConflictSide,
  /**
   * A conflicted path whose side deleted the file: git checkout refuses it; git restore (no overlay) removes
   * the work-tree file.
   */
  missingSide: "refuse" | "remove",
): Promise<{ changed: string[]; withheld: string[] }> {
  const inScope = (path: string) => specs.some((s) => s === "" || pathWithin(path, s));
  for (const spec of specs) {
    const known = [...index.entries.keys(), ...index.conflicts.keys()].some((p) => spec === "" || pathWithin(p, spec));
    if (!known) {
      throw new PtermError(
        "NotFound",
        `pathspec '${spec}' did not match any file(s) known to git; nothing was changed.`,
      );
    }
  }
  const stage = side === "ours" ? 2 : 3;
  const conflicted = [...index.conflicts.keys()].filter(inScope).sort(comparePaths);
  const withheld = conflicted.filter((path) => policy.hidden(path));
  const sides = conflicted.filter((path) => !policy.hidden(path)).map((path) => {
    const entry = index.conflicts.get(path)!.find((e) => e.stage === stage);
    // As git, before anything is written: a side that deleted the file has no version to check out.
    if (!entry && missingSide === "refuse") {
      throw new PtermError(
        "NotFound",
        `path '${path}' does not have ${side === "ours" ? "our" : "their"} version; nothing was changed. Keep the ` +
          `other side with \`git checkout --${side === "ours" ? "theirs" : "ours"} -- ${path}\`, or remove it with ` +
          `\`git rm ${path}\`.`,
      );
    }
    return { path, entry };
  });
  for (const { path } of sides) {
    const hidden = policy.hidden(path);
    if (hidden) throw hiddenPathDenied(path, hidden, "nothing was changed");
  }
  const writer = new WorktreeWriter(repo);
  const changed: string[] = [];
  for (const { path, entry } of sides) {
    if (entry) await writeBlob(repo, writer, path, { oid: entry.oid, mode: modeToTreeMode(entry.mode) });
    else {
      try {
        Deno.removeSync(`${repo.dir}/${path}`);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        continue;
      }
    }
    changed.push(path);
  }
  const merged = [...index.entries.keys()].filter(inScope);
  if (merged.length) {
    const restored = await restorePaths(repo, index, policy, null, true, merged);
    changed.push(...restored.changed);
    withheld.push(...restored.withheld);
  }
  return { changed, withheld };
}
