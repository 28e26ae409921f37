/** What every git handler does first: confine and open the repository, pick the author, bound lists. */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { type GitAuthor, parseAuthor, repositoryIdentity } from "../repo/identity.ts";
import { GitConfig } from "../repo/config.ts";
import { quoteWord } from "../../../core/grammar.ts";
import { defaultRepository, hasDotGit } from "../repo/locate.ts";
import { excludePtermState, openRepo, type Repo } from "../repo/repo.ts";
import { commandLineSettings } from "../repo/command_line_config.ts";
import { normalizeUserPath, type PathPolicy, pathPolicy } from "../worktree/worktree.ts";
import { readIndexFile } from "../worktree/index_file.ts";
import { resolveRevision } from "../history/revparse.ts";

/** Per-file lists in results stop here; `truncated` says so. */
export const MAX_LISTED = 1000;

export interface Opened {
  readonly repo: Repo;
  readonly policy: PathPolicy;
  /** The repository relative to the workspace root, as given back in results. */
  readonly rel: string;
}

// deno-lint-ignore no-explicit-any
type AnyContext = CommandContext<any, any>;

/**
 * Opens the repository the call names with --repo, or the one it means without it (see
 * lib/locate.ts). A folder inside a repository is refused with the line that names its top.
 */
export async function openFromFlags(ctx: AnyContext, access: "read" | "write" = "write"): Promise<Opened> {
  const given = ctx.flags.repo as string | undefined;
  const configured = (ctx.config as { default_repo?: string } | undefined)?.default_repo;
  const target = given ?? defaultRepository(ctx.workspace.root, configured, ctx.command);
  const label = given !== undefined ? "--repo" : target === configured ? "git.default_repo" : "the repository";
  const confined = await ctx.workspace.resolve(target, access, { label });
  if (!confined.exists) {
    throw new PtermError(
      "NotFound",
      `${label} ${target} does not exist. Create a repository with \`git init --dir ${quoteWord(target)}\`.`,
    );
  }
  if (!hasDotGit(confined.abs)) refuseInsideRepository(ctx, confined.rel);
  // The command line's settings (git's `-c`, its --config) are read over the repository's own.
  const settings = commandLineSettings(ctx.flags.config as string[] | undefined);
  const repo = openRepo(confined.abs, confined.rel, ctx.workspace.root, settings);
  // A root repository keeps pterm's own state out of real git's view too.
  if (confined.rel === ".") excludePtermState(repo.commondir);
  return { repo, policy: pathPolicy(confined.rel, confined.abs), rel: confined.rel };
}

/** `--repo proj/src` where proj is the repository: say which --repo and which paths mean it. */
function refuseInsideRepository(ctx: AnyContext, rel: string): void {
  const parts = rel === "." ? [] : rel.split("/");
  for (let n = parts.length - 1; n >= 0; n--) {
    const top = n === 0 ? "." : parts.slice(0, n).join("/");
    if (!hasDotGit(n === 0 ? ctx.workspace.root : `${ctx.workspace.root}/${top}`)) continue;
    const inner = parts.slice(n).join("/");
    throw new PtermError(
      "NotARepository",
      `${rel} is a folder inside the repository ${top}, not a repository's top folder: run \`${ctx.command} --repo ${
        quoteWord(top)
      }\` and give paths relative to ${top} (e.g. ${inner}/<file>).`,
    );
  }
}

/**
 * `--author` when given, else the repository's identity (see repositoryIdentity for git's order); `null` for a
 * repository not made yet (a clone), which has no config of its own.
 */
export function authorOf(ctx: AnyContext, repo: Repo | null): GitAuthor {
  const flag = ctx.flags.author as string | undefined;
  return flag ? parseAuthor(flag) : repositoryIdentity(repo?.config ?? new GitConfig(), ctx.config);
}

/** The --path values, normalized relative to the work tree ("" for the whole tree). */
export function userPaths(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((p) => {
    // git expands `*.py` in a pathspec itself; pterm's git matches literal paths and folders only, so a
    // glob is refused by name rather than reported as matching nothing. (`[` stays literal: `pages/[id].tsx`
    // names a file far more often than a character class, and git matches it literally too.)
    if (/[*?]/.test(p)) {
      throw new PtermError(
        "InvalidArgs",
        `\`${p}\` is a glob pathspec; git in pterm takes literal paths and folders (a folder means everything in ` +
          "it). Name the files (`git status -s` and `git ls-files` list them) or their folder.",
      );
    }
    return normalizeUserPath(p);
  });
}

export function bounded<T>(list: readonly T[], max = MAX_LISTED): { items: T[]; truncated: boolean } {
  return { items: list.slice(0, max), truncated: list.length > max };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Whether `word` names a revision here (`a..b` and `a...b` when both ends do; an empty end is HEAD). */
export async function isRevision(repo: Repo, word: string): Promise<boolean> {
  const range = word.match(/^(.*?)(\.\.\.?)(.*)$/);
  const ends = range && !word.includes(":") ? [range[1] || "HEAD", range[3] || "HEAD"] : [word];
  for (const end of ends) {
    try {
      await resolveRevision(repo, end);
    } catch {
      return false;
    }
  }
  return true;
}

/** Whether `word` is a path in the work tree or the index (a deleted tracked file still counts). */
/** Whether `word` names a path in the work tree or the index (as splitRevsAndPaths would take it). */
export function isPathWord(repo: Repo, word: string): boolean {
  return isTrackedOrPresent(repo, word, () => new Set(readIndexFile(repo.gitdir).entries.keys()));
}

function isTrackedOrPresent(repo: Repo, word: string, indexPaths: () => ReadonlySet<string>): boolean {
  let rel: string;
  try {
    rel = normalizeUserPath(word);
  } catch {
    return false;
  }
  if (rel === "") return true;
  try {
    Deno.lstatSync(`${repo.dir}/${rel}`);
    return true;
  } catch { /* not in the work tree */ }
  const tracked = indexPaths();
  if (tracked.has(rel)) return true;
  const folder = `${rel}/`;
  for (const path of tracked) if (path.startsWith(folder)) return true;
  return false;
}

/**
 * Splits git's `[<rev>…] [<path>…]` words as git does without `--`: revisions come first; a word
 * that is no revision but a path in the work tree (or the index) starts the paths; a word that is
 * both, or neither, is refused with the spelling that says which (`--`).
 */
export async function splitRevsAndPaths(
  ctx: AnyContext,
  repo: Repo,
  words: readonly string[],
  maxRevs: number,
): Promise<{ revs: string[]; paths: string[] }> {
  const revs: string[] = [];
  const paths: string[] = [];
  // The index is read once, and only if a word is not in the work tree.
  let tracked: ReadonlySet<string> | null = null;
  const indexPaths = () => tracked ??= new Set(readIndexFile(repo.gitdir).entries.keys());
  for (const word of words) {
    if (paths.length) {
      paths.push(word);
      continue;
    }
    const rev = await isRevision(repo, word);
    const path = isTrackedOrPresent(repo, word, indexPaths);
    if (rev && path && word !== ".") {
      throw new PtermError(
        "InvalidArgs",
        `\`${word}\` is both a revision and a path; say which: \`${ctx.command} ${quoteWord(word)} --\` for the ` +
          `revision, \`${ctx.command} -- ${quoteWord(word)}\` for the path.`,
      );
    }
    if (rev && word !== ".") {
      if (revs.length >= maxRevs) {
        throw new PtermError(
          "InvalidArgs",
          `${ctx.command} takes at most ${maxRevs === 1 ? "one revision" : `${maxRevs} revisions`}; ` +
            `\`${word}\` is another. Paths go after \`--\`.`,
        );
      }
      revs.push(word);
    } else if (path) {
      paths.push(word);
    } else {
      throw new PtermError(
        "NotFound",
        `\`${word}\` is neither a revision nor a path in the work tree (as git says: unknown revision or path). ` +
          `Check \`git branch\`, \`git log\` or \`git ls-files\`; a path that no longer exists goes after \`--\`.`,
      );
    }
  }
  return { revs, paths };
}

/**
 * The settings that change how `git branch`, `git tag` or `git status` lay out their lists, which
 * pterm does not follow, refused by name (never ignored): columns (`column.ui` or
 * `column.<command>` on — `always`, or a layout alone; `auto` prints none, as pterm's output is no
 * terminal; `columns` false for a list git never sets in columns: branch -v, tag -n) and, for branch and tag, an order other than git's default by name (`<command>.sort`).
 */
export function refuseUnfollowedLayout(repo: Repo, command: "branch" | "tag" | "status", columns = true): void {
  for (const key of columns ? [`column.${command}`, "column.ui"] : []) {
    const value = repo.config.get(key);
    if (value === undefined) continue;
    const words = value.toLowerCase().split(/[\s,]+/).filter(Boolean);
    if (words.includes("never") || words.includes("auto")) break;
    throw new PtermError(
      "UnsupportedFormat",
      `${key}=${value} is not followed here: pterm prints git's lists one per line, without columns: ` +
        `\`git config --unset ${key}\` (or set it to auto, which prints no columns when not on a terminal).`,
    );
  }
  if (command === "status") return;
  const sort = repo.config.get(`${command}.sort`);
  if (sort !== undefined && sort !== "refname") {
    throw new PtermError(
      "InvalidArgs",
      `${command}.sort=${sort} is not followed here; pterm lists ${command === "branch" ? "branches" : "tags"} by ` +
        `name: \`git config --unset ${command}.sort\`.`,
    );
  }
}
