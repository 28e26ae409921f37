/**
 * `git blame`: which commit last changed each line of a file. As git's blame does, each commit
 * hands the lines its parent already had (the unchanged regions of a line diff) on to that parent
 * — all of them when the file is the same there — and keeps the rest; commits are visited newest
 * first, so a line a merge took from its second parent is blamed on the commit that wrote it. A
 * line of the work tree that no commit has is "Not Committed Yet". Renames are not followed (git
 * follows a whole-file rename): a line is blamed on the commit that created the path.
 */

import { keptLines } from "../diff/line_diff.ts";
import { readCommit } from "./log.ts";
import type { Commit } from "../odb/objects.ts";
import type { Repo } from "../repo/repo.ts";
import { lookupPath } from "./revparse.ts";

/** The pseudo-commit of lines only the work tree has, as git names it. */
export const NOT_COMMITTED = "0000000000000000000000000000000000000000";

export interface BlamedLine {
  /** 1-based line number in the blamed version. */
  readonly line: number;
  readonly commit: string;
  /** true for a commit with no parent (git marks it `^`). */
  readonly boundary: boolean;
  readonly text: string;
}

interface Pending {
  /** Index in the final text. */
  readonly final: number;
  /** Index in this commit's version. */
  readonly here: number;
}

interface Visit {
  oid: string;
  commit: Commit;
  blob: string;
  lines: string[];
  pending: Pending[];
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Blames `finalText` (the file at `start`, or the work tree's version of it when `worktree` is
 * true) line by line.
 */
export async function blame(
  repo: Repo,
  start: string | null,
  path: string,
  finalText: string,
  worktree: boolean,
): Promise<BlamedLine[]> {
  const decoder = new TextDecoder();
  const finalLines = splitLines(finalText);
  const owner: (string | null)[] = new Array(finalLines.length).fill(null);
  const boundary: boolean[] = new Array(finalLines.length).fill(false);
  const queue = new Map<string, Visit>();
  const readVersion = async (oid: string) => {
    const commit = await readCommit(repo, oid);
    const found = await lookupPath(repo, commit.tree, path);
    if (!found || found.mode === "40000" || found.mode === "160000") return null;
    return { commit, blob: found.oid };
  };
  const enqueue = async (oid: string, pending: Pending[], known?: { commit: Commit; blob: string }) => {
    const seen = queue.get(oid);
    if (seen) {
      seen.pending.push(...pending);
      return;
    }
    const version = known ?? await readVersion(oid);
    if (!version) return;
    const text = decoder.decode((await repo.objects.read(version.blob)).content);
    queue.set(oid, { oid, commit: version.commit, blob: version.blob, lines: splitLines(text), pending: [...pending] });
  };

  let pending: Pending[] = finalLines.map((_, i) => ({ final: i, here: i }));
  if (start !== null) {
    const top = await readVersion(start);
    if (top && worktree) {
      // Lines the work tree shares with the start commit go on; the others are not committed yet.
      const text = decoder.decode((await repo.objects.read(top.blob)).content);
      const { kept } = handOn(splitLines(text), finalLines, pending);
      for (const p of pending) if (!kept.has(p.final)) owner[p.final] = NOT_COMMITTED;
      pending = pending.filter((p) => kept.has(p.final)).map((p) => ({ final: p.final, here: kept.get(p.final)! }));
    }
    if (top) await enqueue(start, pending, top);
  }
  while (queue.size > 0) {
    // Newest first (committer date), as git's blame walks.
    let next: Visit | null = null;
    for (const visit of queue.values()) {
      if (!next || visit.commit.committer.timestamp > next.commit.committer.timestamp) next = visit;
    }
    const visit = next!;
    queue.delete(visit.oid);
    let left = visit.pending;
    for (const parent of visit.commit.parents) {
      if (left.length === 0) break;
      const version = await readVersion(parent);
      if (!version) continue;
      if (version.blob === visit.blob) {
        await enqueue(parent, left, version);
        left = [];
        break;
      }
      const text = decoder.decode((await repo.objects.read(version.blob)).content);
      const parentLines = splitLines(text);
      const { kept } = handOn(parentLines, visit.lines, left);
      const passed = left.filter((p) => kept.has(p.final)).map((p) => ({ final: p.final, here: kept.get(p.final)! }));
      if (passed.length) await enqueue(parent, passed, version);
      left = left.filter((p) => !kept.has(p.final));
    }
    for (const p of left) {
      owner[p.final] = visit.oid;
      boundary[p.final] = visit.commit.parents.length === 0;
    }
  }
  return finalLines.map((text, i) => ({
    line: i + 1,
    commit: owner[i] ?? NOT_COMMITTED,
    boundary: boundary[i],
    text,
  }));
}

/** Which pending lines of `child` the `parent` version already has: final index → index in the parent. */
function handOn(
  parent: readonly string[],
  child: readonly string[],
  pending: readonly Pending[],
): { kept: Map<number, number> } {
  const childToParent = keptLines(parent, child);
  const kept = new Map<number, number>();
  for (const p of pending) {
    const at = childToParent[p.here];
    if (at !== undefined && at >= 0) kept.set(p.final, at);
  }
  return { kept };
}
