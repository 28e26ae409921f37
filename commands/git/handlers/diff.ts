/**
 * `diff`: one git subcommand's handler (its declaration is under sub/).
 */

import { wordDiffPatch } from "../diff/word_diff.ts";
import { encoder } from "../odb/bytes.ts";
import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { diffFlags } from "../sub/diff.ts";
import {
  changesBetween,
  diffPrefixes,
  type FileChange,
  lineAlgorithm,
  renderDiff,
  type RenderedDiff,
} from "../diff/diff.ts";
import { combinedDiff, type CombinedParent } from "../diff/combined_diff.ts";
import { type Index, modeToTreeMode, readIndexFile, S_IFGITLINK } from "../worktree/index_file.ts";
import { readCommit } from "../history/log.ts";
import { readHead } from "../repo/refs.ts";
import { resolveCommit } from "../history/revparse.ts";
import type { Repo } from "../repo/repo.ts";
import { worktreeStatus } from "../porcelain/status.ts";
import { type FlatEntry, flattenTree, pathWithin } from "../odb/tree.ts";
import { lstatTracked, type PathPolicy, worktreeMode } from "../worktree/worktree.ts";
import { openFromFlags, splitRevsAndPaths, userPaths } from "./common.ts";
import { bytesToByteString, comparePaths } from "../odb/bytes.ts";
import { concatBytes } from "../diff/line_diff.ts";
import { emit, filterChanges, rangeEnds, strictUtf8, withRenames } from "./history_shared.ts";

export function indexFlat(index: Index): Map<string, FlatEntry> {
  const out = new Map<string, FlatEntry>();
  for (const [path, e] of index.entries) {
    if (!e.intentToAdd) out.set(path, { mode: modeToTreeMode(e.mode), oid: e.oid });
  }
  return out;
}

export async function treeOfRev(repo: Repo, rev: string): Promise<string> {
  return (await readCommit(repo, await resolveCommit(repo, rev))).tree;
}

/** The tree to compare against the work tree: HEAD's, or none before the first commit. */
export async function headFlat(repo: Repo): Promise<Map<string, FlatEntry>> {
  const head = readHead(repo);
  return head.oid ? await flattenTree(repo, (await readCommit(repo, head.oid)).tree) : new Map();
}

/** Changes from `base` (a flattened tree) to the work tree, for paths tracked in the index or in base. */
export async function changesToWorktree(
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  base: Map<string, FlatEntry> | null,
): Promise<FileChange[]> {
  const work = await worktreeStatus(repo, index, policy, { untracked: false });
  const out: FileChange[] = [];
  const paths = new Set<string>(
    base ? [...base.keys(), ...index.entries.keys(), ...index.conflicts.keys()] : work.unstaged.keys(),
  );
  for (const path of paths) {
    const entry = index.entries.get(path);
    const old = base ? base.get(path) : entry ? { mode: modeToTreeMode(entry.mode), oid: entry.oid } : undefined;
    const change = work.unstaged.get(path);
    let next: FileChange["new"] = null;
    const conflict = !entry && base ? index.conflicts.get(path) : undefined;
    if (conflict) {
      // A path with a conflict in progress: against a commit, git diffs the work-tree file as it is.
      const info = lstatTracked(repo, path);
      const recorded = conflict.find((e) => e.stage === 2) ?? conflict[conflict.length - 1];
      if (info) next = { kind: "worktree", mode: modeToTreeMode(worktreeMode(repo, info, recorded.mode)) };
    } else if (entry && change !== "D") {
      if (change === undefined) next = { kind: "blob", mode: modeToTreeMode(entry.mode), oid: entry.oid };
      else {
        const info = lstatTracked(repo, path);
        // A submodule stays a gitlink; its checkout's commit is read by the diff itself.
        const mode = entry.mode === S_IFGITLINK
          ? "160000"
          : info
          ? modeToTreeMode(worktreeMode(repo, info, entry.mode))
          : null;
        next = info && mode ? { kind: "worktree", mode } : null;
      }
    }
    if (!old && !next) continue;
    if (old && next?.kind === "blob" && next.oid === old.oid && next.mode === old.mode) continue;
    out.push({ path, old: old ? { kind: "blob", ...old } : null, new: next });
  }
  return out;
}

export const diff: Handler<typeof diffFlags, readonly [{ name: "args"; description: string; variadic: true }]> = async (
  ctx,
) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const split = await splitRevsAndPaths(ctx, repo, ctx.positionals.args, 2);
  const scope = userPaths([...ctx.flags.path, ...split.paths]);
  const staged = ctx.flags.staged;
  let [from, to] = split.revs as (string | undefined)[];
  if (from !== undefined && to === undefined) {
    const ends = await rangeEnds(repo, from);
    if (ends) [from, to] = ends;
  } else if (from !== undefined && (await rangeEnds(repo, from) || (to && await rangeEnds(repo, to)))) {
    throw new PtermError("InvalidArgs", "give either two commits or one `a..b` range, not both.");
  }
  const index = readIndexFile(repo.gitdir);
  let changes: FileChange[];
  let labels: [string, string];
  /** Paths with a conflict in progress, shown as git shows them (see unmergedChanges). */
  let unmerged: UnmergedView = { changes: [], combined: [] };
  if (to !== undefined) {
    if (staged) {
      throw new PtermError("InvalidArgs", "--staged compares with the index; do not give two commits with it.");
    }
    changes = changesBetween(
      await flattenTree(repo, await treeOfRev(repo, from!)),
      await flattenTree(repo, await treeOfRev(repo, to)),
    );
    labels = [from!, to];
  } else if (from !== undefined) {
    const base = await flattenTree(repo, await treeOfRev(repo, from));
    changes = staged ? changesBetween(base, indexFlat(index)) : await changesToWorktree(repo, index, policy, base);
    labels = [from, staged ? "index" : "worktree"];
    if (staged) unmerged = unmergedChanges(repo, index, false, false);
  } else if (staged) {
    changes = changesBetween(await headFlat(repo), indexFlat(index));
    labels = ["HEAD", "index"];
    unmerged = unmergedChanges(repo, index, false, false);
  } else {
    changes = await changesToWorktree(repo, index, policy, null);
    labels = ["index", "worktree"];
    // git combines only for the patch: the name and stat views list each side's change instead.
    unmerged = unmergedChanges(
      repo,
      index,
      true,
      !ctx.flags.stat && !ctx.flags.numstat && !ctx.flags.shortstat && !ctx.flags["name-only"] &&
        !ctx.flags["name-status"],
    );
  }
  // Against the index, a conflicted path is its `* Unmerged path` line, never a deletion of its stage-0 entry.
  if (staged) changes = changes.filter((c) => !index.conflicts.has(c.path));
  const { kept, withheld } = filterChanges(changes, scope, policy);
  const unmergedKept = filterChanges(unmerged.changes, scope, policy).kept;
  const combinedKept = unmerged.combined.filter((c) =>
    !policy.hidden(c.path) && (!scope.length || scope.some((s) => pathWithin(c.path, s)))
  );
  const algorithm = lineAlgorithm(repo, ctx.flags);
  const patchView = !ctx.flags.stat && !ctx.flags.numstat && !ctx.flags.shortstat && !ctx.flags["name-only"] &&
    !ctx.flags["name-status"];
  const prefixes = patchView ? diffPrefixes(repo) : undefined;
  const rendered = await renderDiff(repo, [...await withRenames(repo, kept, ctx.flags), ...unmergedKept], {
    context: ctx.flags.context,
    algorithm,
    prefixes,
  });
  // git prints each unmerged path's combined diff first (diff-files shows them as it meets them), then the rest.
  const combined: { path: string; bytes: Uint8Array }[] = [];
  for (const { path, parents } of combinedKept) {
    const bytes = await combinedDiff(repo, path, parents, {
      prefixes,
      context: ctx.flags.context,
      dense: !ctx.flags.combined,
      algorithm,
    });
    combined.push({ path, bytes });
  }
  // git's word diff is for two-sided diffs: a combined diff prints as it is.
  const shown = ctx.flags["word-diff"] ? asWordDiff(rendered) : rendered;
  const out = await emit(ctx, combined.length ? withCombined(shown, combined) : shown, ctx.flags);
  const unmergedPaths = [...new Set([...combinedKept.map((c) => c.path), ...unmergedKept.map((c) => c.path)])]
    .sort(comparePaths);
  return { repo_path: rel, from: labels[0], to: labels[1], ...out, withheld, unmerged: unmergedPaths };
};

/** The diff with its patch shown as git's plain word diff (the other views are unchanged). */
function asWordDiff(rendered: RenderedDiff): RenderedDiff {
  const patch = wordDiffPatch(rendered.patch);
  return { ...rendered, patch, patchBytes: encoder.encode(patch) };
}

export interface UnmergedView {
  /** `* Unmerged path` entries, with the diff git adds after some (see unmergedChanges). */
  changes: FileChange[];
  /** Paths both sides of the conflict have: their combined diff. */
  combined: { path: string; parents: CombinedParent[] }[];
}

/**
 * The conflicted paths as git's diff shows them. Against the work tree (diff-files): with `combine`
 * (the patch view), a path both sides have (index stages 2 and 3) gets the combined diff; any
 * other gets `* Unmerged path`, and where our side has it (stage 2), the diff of that side with
 * the work tree after it. Against HEAD (`--staged`, diff-index): the `* Unmerged path` line alone.
 */
export function unmergedChanges(repo: Repo, index: Index, worktree: boolean, combine = worktree): UnmergedView {
  const view: UnmergedView = { changes: [], combined: [] };
  for (const path of [...index.conflicts.keys()].sort(comparePaths)) {
    const stages = index.conflicts.get(path)!;
    const ours = stages.find((e) => e.stage === 2);
    const theirs = stages.find((e) => e.stage === 3);
    if (combine && ours && theirs) {
      view.combined.push({
        path,
        parents: [ours, theirs].map((e) => ({ oid: e.oid, mode: modeToTreeMode(e.mode) })),
      });
      continue;
    }
    let old: FileChange["old"] = null;
    let next: FileChange["new"] = null;
    if (worktree && ours) {
      old = { kind: "blob", mode: modeToTreeMode(ours.mode), oid: ours.oid };
      // Gone from the work tree: git shows our side deleted.
      const info = lstatTracked(repo, path);
      if (info) next = { kind: "worktree", mode: modeToTreeMode(worktreeMode(repo, info, ours.mode)) };
    }
    view.changes.push({ path, old, new: next, unmerged: true });
  }
  return view;
}

/**
 * The rendered diff with the combined diffs before it, as one patch. A combined diff whose lines
 * are not UTF-8 shows each byte as one character in the text, and its path joins `notUtf8` (the
 * patch's bytes then go to an artifact, as for any other such file).
 */
export function withCombined(
  rendered: RenderedDiff,
  combined: readonly { path: string; bytes: Uint8Array }[],
): RenderedDiff {
  const texts = combined.map((c) => strictUtf8(c.bytes));
  const notUtf8 = combined.filter((_, i) => texts[i] === null).map((c) => c.path);
  const patchBytes = concatBytes([...combined.map((c) => c.bytes), rendered.patchBytes]);
  let text: string | undefined;
  return {
    ...rendered,
    patchBytes,
    notUtf8: [...notUtf8, ...rendered.notUtf8],
    get patch() {
      return text ??= combined.map((c, i) => texts[i] ?? bytesToByteString(c.bytes)).join("") + rendered.patch;
    },
  };
}
