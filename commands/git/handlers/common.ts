/** What every git handler does first: confine and open the repository, pick the author, bound lists. */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { authorFromConfig, type GitAuthor, parseAuthor } from "../lib/identity.ts";
import { openRepo, type Repo } from "../lib/repo.ts";
import { normalizeUserPath, type PathPolicy, pathPolicy } from "../lib/worktree.ts";

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

export async function openFromFlags(ctx: AnyContext, access: "read" | "write" = "write"): Promise<Opened> {
  const confined = await ctx.workspace.resolve(String(ctx.flags.repo), access, { label: "--repo" });
  if (!confined.exists) {
    throw new PtermError(
      "NotFound",
      `--repo ${ctx.flags.repo} does not exist. Create a repository with \`git init --dir ${ctx.flags.repo}\`.`,
    );
  }
  const repo = openRepo(confined.abs, confined.rel, ctx.workspace.root);
  return { repo, policy: pathPolicy(confined.rel), rel: confined.rel };
}

export function authorOf(ctx: AnyContext): GitAuthor {
  const flag = ctx.flags.author as string | undefined;
  return flag ? parseAuthor(flag) : authorFromConfig(ctx.config);
}

/** The --path values, normalized relative to the work tree ("" for the whole tree). */
export function userPaths(values: readonly string[] | undefined): string[] {
  return (values ?? []).map((p) => normalizeUserPath(p));
}

export function bounded<T>(list: readonly T[], max = MAX_LISTED): { items: T[]; truncated: boolean } {
  return { items: list.slice(0, max), truncated: list.length > max };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
