/**
 * What git prints after it makes a commit or moves HEAD, byte for byte: `git commit`'s summary
 * (sequencer.c's print_commit_summary, shared by commit, cherry-pick, revert and a rebase's resumed
 * pick) and the diffstat with its summary that `git merge` and `git pull` print (builtin/merge.c's
 * finish). Renames are found as git finds them there (the default score, whatever diff.renames says).
 */

import { abbreviate } from "../odb/abbrev.ts";
import { comparePaths } from "../odb/bytes.ts";
import { MODE_TREE, parseTree, splitMessage } from "../odb/objects.ts";
import { type FileChange, findRenames, renderDiff, renderShortStat, renderStat } from "../diff/diff.ts";
import { renderSummary } from "../diff/summary.ts";
import { readCommit } from "../history/log.ts";
import { formatDate } from "../history/pretty.ts";
import { readHead } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import type { WorktreeChange } from "./status.ts";

/** What changed between two trees (null: the empty tree), walking only the folders whose trees differ. */
export async function treeChanges(repo: Repo, from: string | null, to: string | null): Promise<FileChange[]> {
  const out: FileChange[] = [];
  const entries = async (tree: string | null) =>
    new Map(tree ? parseTree(await repo.objects.readTyped(tree, "tree"), tree).map((e) => [e.name, e]) : []);
  const walk = async (a: string | null, b: string | null, prefix: string): Promise<void> => {
    if (a === b) return;
    const [before, after] = [await entries(a), await entries(b)];
    for (const name of new Set([...before.keys(), ...after.keys()])) {
      const x = before.get(name);
      const y = after.get(name);
      if (x && y && x.oid === y.oid && x.mode === y.mode) continue;
      const xTree = x?.mode === MODE_TREE ? x.oid : null;
      const yTree = y?.mode === MODE_TREE ? y.oid : null;
      if (xTree || yTree) await walk(xTree, yTree, `${prefix}${name}/`);
      const oldFile = x && !xTree ? { kind: "blob" as const, oid: x.oid, mode: x.mode } : null;
      const newFile = y && !yTree ? { kind: "blob" as const, oid: y.oid, mode: y.mode } : null;
      if (oldFile || newFile) out.push({ path: `${prefix}${name}`, old: oldFile, new: newFile });
    }
  };
  await walk(from, to, "");
  return out.sort((a, b) => comparePaths(a.path, b.path));
}

/** What a commit changed against its first parent (against the empty tree for a root commit). */
export async function commitChanges(repo: Repo, oid: string): Promise<FileChange[]> {
  const commit = await readCommit(repo, oid);
  const parentTree = commit.parents.length ? (await readCommit(repo, commit.parents[0])).tree : null;
  return await treeChanges(repo, parentTree, commit.tree);
}

export interface CommitSummaryOptions {
  /** The commit's author date on a ` Date:` line: git's sequencer always, `git commit` with --amend or --date. */
  readonly showDate: boolean;
  /** The first commit on its branch (`(root-commit)` after the branch's name). */
  readonly initial: boolean;
}

/** The sequencer's summary (cherry-pick, revert): always with the author date. */
export const SEQUENCER_SUMMARY: CommitSummaryOptions = { showDate: true, initial: false };

/**
 * git's summary of a commit it made: `[<branch> <id>] <subject>`, ` Author:` when the author is not the
 * committer, ` Date:` when asked, then the shortstat and the summary against the first parent (nothing
 * for a merge, nor for a commit that changed nothing).
 */
export async function commitSummaryText(repo: Repo, oid: string, options: CommitSummaryOptions): Promise<string> {
  const commit = await readCommit(repo, oid);
  const branch = readHead(repo).branch;
  let text = `[${branch ?? "detached HEAD"}${options.initial ? " (root-commit)" : ""} ${abbreviate(repo, oid)}] ` +
    `${splitMessage(commit.message).subject}\n`;
  const author = `${commit.author.name} <${commit.author.email}>`;
  if (author !== `${commit.committer.name} <${commit.committer.email}>`) text += ` Author: ${author}\n`;
  if (options.showDate) text += ` Date: ${formatDate(commit.author, "default")}\n`;
  if (commit.parents.length > 1) return text;
  const rendered = await renderDiff(repo, await findRenames(repo, await commitChanges(repo, oid)));
  return text + renderShortStat(rendered) + renderSummary(rendered.files, repo.quotePath);
}

/** The diffstat and summary `git merge` and `git pull` print after HEAD moved from one commit to another. */
export async function movedHeadText(repo: Repo, from: string, to: string): Promise<string> {
  const [a, b] = [(await readCommit(repo, from)).tree, (await readCommit(repo, to)).tree];
  const rendered = await renderDiff(repo, await findRenames(repo, await treeChanges(repo, a, b)));
  return renderStat(rendered) + renderSummary(rendered.files, repo.quotePath);
}

/** A commit as git's messages name it (pp_commit_easy's oneline): `<id> <subject>`. */
export async function commitOneLine(repo: Repo, oid: string): Promise<string> {
  return `${abbreviate(repo, oid)} ${splitMessage((await readCommit(repo, oid)).message).subject}`;
}

/** git's line after HEAD moved by a reset --hard (or a switch to a detached HEAD): `HEAD is now at <id> <subject>`. */
export async function headNowAtText(repo: Repo, oid: string): Promise<string> {
  return `HEAD is now at ${await commitOneLine(repo, oid)}\n`;
}

/**
 * What git reset (mixed, or of paths) prints after it: every tracked path whose work-tree file differs from the
 * new index (`M`, `D`, `T`, `A` for an intent-to-add), under `Unstaged changes after reset:` — nothing when none.
 */
export function unstagedAfterResetText(unstaged: ReadonlyMap<string, WorktreeChange>): string {
  const lines = [...unstaged].sort(([a], [b]) => comparePaths(a, b)).map(([path, code]) => `${code}\t${path}\n`);
  return lines.length ? `Unstaged changes after reset:\n${lines.join("")}` : "";
}
