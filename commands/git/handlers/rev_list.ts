/**
 * `revList`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { revListFlags } from "../sub/rev_list.ts";
import type { Repo } from "../repo/repo.ts";
import { listRefs, readHead } from "../repo/refs.ts";
import { peelTo, resolveCommit } from "../history/revparse.ts";
import { ancestorsOf, walkLog } from "../history/log.ts";
import { openFromFlags, userPaths } from "./common.ts";

/** What git's revision words select: the commits to start from and those whose history is left out. */
export interface Selection {
  readonly include: string[];
  readonly exclude: string[];
  /** `A...B`: the common history of each pair is left out. */
  readonly symmetric: [string, string][];
}

/** Parses `A`, `^A`, `A..B` and `A...B` (an empty end is HEAD) into commits, as git's revision walk does. */
export async function selectRevisions(repo: Repo, words: readonly string[]): Promise<Selection> {
  const selection: Selection = { include: [], exclude: [], symmetric: [] };
  for (const word of words) {
    const range = /^(.*?)(\.\.\.?)(.*)$/.exec(word);
    if (word.startsWith("^")) selection.exclude.push(await resolveCommit(repo, word.slice(1)));
    else if (range && !word.includes(":")) {
      const left = await resolveCommit(repo, range[1] || "HEAD");
      const right = await resolveCommit(repo, range[3] || "HEAD");
      if (range[2] === "..") {
        selection.include.push(right);
        selection.exclude.push(left);
      } else {
        selection.include.push(left, right);
        selection.symmetric.push([left, right]);
      }
    } else selection.include.push(await resolveCommit(repo, word));
  }
  return selection;
}

/**
 * The commits `--all` starts from, in git's order: every ref in name order (those that lead to a commit),
 * then HEAD. Commits of the same date are listed in the order they were reached, so the order matters.
 */
export async function allRefCommits(repo: Repo): Promise<string[]> {
  const starts: string[] = [];
  for (const [, oid] of listRefs(repo, "refs")) {
    try {
      starts.push(await peelTo(repo, oid, "commit", oid));
    } catch { /* a tag of a tree or blob leads to no commit */ }
  }
  const head = readHead(repo).oid;
  if (head) starts.push(head);
  return starts;
}

/** The commits of a selection in git's default order (newest committer date first), at most `max`. */
export async function walkSelection(
  repo: Repo,
  selection: Selection,
  max: number,
  paths: readonly string[],
): Promise<string[]> {
  const hide = new Set<string>();
  for (const oid of selection.exclude) for (const a of await ancestorsOf(repo, oid)) hide.add(a);
  for (const [a, b] of selection.symmetric) {
    const fromB = await ancestorsOf(repo, b);
    for (const c of await ancestorsOf(repo, a)) if (fromB.has(c)) hide.add(c);
  }
  const starts = selection.include.filter((oid) => !hide.has(oid));
  if (starts.length === 0 || max === 0) return [];
  const found = await walkLog(repo, starts[0], max, paths.length ? paths : null, hide, { starts: starts.slice(1) });
  return found.map((c) => c.id);
}

export const revList: Handler<typeof revListFlags, readonly [{ name: "revs"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    const selection = await selectRevisions(repo, ctx.positionals.revs);
    if (ctx.flags.all) selection.include.push(...await allRefCommits(repo));
    if (selection.include.length === 0 && selection.exclude.length === 0) {
      throw new PtermError(
        "InvalidArgs",
        "git rev-list needs a revision: `git rev-list HEAD`, `git rev-list main..feature` or `git rev-list --all`.",
      );
    }
    const max = ctx.flags.max ?? Number.MAX_SAFE_INTEGER;
    const commits = await walkSelection(repo, selection, max, userPaths(ctx.flags.path));
    if (ctx.flags.reverse) commits.reverse();
    if (ctx.flags.count) ctx.stdout.write(`${commits.length}\n`);
    else ctx.stdout.write(commits.map((c) => c + "\n").join(""));
    return { repo_path: rel, count: commits.length, commits: ctx.flags.count ? [] : commits };
  };
