/**
 * git hooks pterm does not run. pterm starts no programs, so a commit, merge, checkout or push
 * through it is what `--no-verify` would be to the real git: a project's `pre-commit` lint, a
 * `commit-msg` check or a `pre-push` test run is skipped. The call still does what it says, but
 * the agent must be told, or it takes the project's checks for passed.
 */

import type { Repo } from "./repo.ts";

export type HookName =
  | "pre-commit"
  | "prepare-commit-msg"
  | "commit-msg"
  | "post-commit"
  | "pre-merge-commit"
  | "post-merge"
  | "post-checkout"
  | "pre-push"
  | "reference-transaction";

/**
 * Where git looks for hooks: `core.hooksPath` (relative to the work tree), else the repository's
 * shared git folder's `hooks/` (a linked worktree's or a submodule's hooks are the common dir's).
 */
function hooksDir(repo: Repo): { dir: string; shown: string } {
  const configured = repo.config.get("core.hookspath");
  if (!configured) {
    const own = repo.commondir === `${repo.dir}/.git`;
    return {
      dir: `${repo.commondir}/hooks`,
      shown: own ? ".git/hooks" : "the hooks/ of the repository's shared git folder",
    };
  }
  const dir = configured.startsWith("/") ? configured : `${repo.dir}/${configured}`;
  return { dir, shown: configured };
}

/**
 * The hooks among `names` that the real git would run here: an executable file of that name
 * (samples end in `.sample` and are not run). A hooks folder pterm may not read (outside the
 * workspace) is reported as such, never taken for an empty one.
 */
export function skippedHooks(repo: Repo, names: readonly HookName[]): string | null {
  const { dir, shown } = hooksDir(repo);
  const found: string[] = [];
  for (const name of names) {
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(`${dir}/${name}`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) continue;
      return `git hooks were not looked at or run: core.hooksPath (${shown}) is outside what pterm may read. ` +
        "pterm runs no programs; run the project's checks yourself.";
    }
    if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) found.push(name);
  }
  if (found.length === 0) return null;
  return `git hooks not run: ${found.join(", ")} (in ${shown}); pterm runs no programs, as the real git with ` +
    "--no-verify. Run what they check yourself (see the hook files) before you push.";
}
