/**
 * The three-way text merge of `merge`, `cherry-pick`, `revert` and `stash apply`, as git's
 * merge-ort asks xdiff for it (ll-merge.c's ll_xdl_merge): histogram diff, the zealous level,
 * the configured conflict style, marker size and labels — xmerge.ts does the work. `git apply
 * --3way` calls ll_merge with no options of its own, so its merge diffs with Myers.
 */

import { type ConflictStyle, type DiffAlgorithm, MERGE_ZEALOUS, xmerge } from "./xmerge.ts";

export type { ConflictStyle } from "./xmerge.ts";
export { HistogramLimit } from "../diff/histogram.ts";

export interface MergeLabels {
  readonly ours: string;
  readonly theirs: string;
  /** The base's label, shown by the diff3 and zdiff3 styles after `|||||||`. */
  readonly base?: string;
}

export interface TextMergeResult {
  readonly text: string;
  readonly conflicts: number;
}

/**
 * A three-way merge of byte strings (one character per byte). With `union` (the `merge=union`
 * attribute) a conflicting region takes our lines and then theirs, without markers, and counts
 * as resolved.
 */
export function mergeText(
  base: string,
  ours: string,
  theirs: string,
  labels: MergeLabels,
  options: { union?: boolean; markerSize?: number; style?: ConflictStyle; algorithm?: DiffAlgorithm } = {},
): TextMergeResult {
  // merge-ort settles these before asking xdiff (and xdiff would give the same).
  if (ours === theirs) return { text: ours, conflicts: 0 };
  if (base === ours) return { text: theirs, conflicts: 0 };
  if (base === theirs) return { text: ours, conflicts: 0 };
  return xmerge(base, ours, theirs, {
    algorithm: options.algorithm ?? "histogram",
    level: MERGE_ZEALOUS,
    style: options.style ?? "merge",
    favor: options.union ? "union" : undefined,
    markerSize: options.markerSize,
    ours: labels.ours,
    base: labels.base,
    theirs: labels.theirs,
  });
}
