/**
 * `clean`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { cleanFlags } from "../sub/clean.ts";
import { comparePaths, quoteName } from "../odb/bytes.ts";
import { worktreeStatus } from "../porcelain/status.ts";
import { pathWithin } from "../odb/tree.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { bounded, openFromFlags, plural, userPaths } from "./common.ts";

export const clean: Handler<typeof cleanFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const dryRun = ctx.flags["dry-run"];
  if (!ctx.flags.force && !dryRun) {
    throw new PtermError(
      "InvalidArgs",
      "git clean deletes untracked files, so it needs -f (as git's clean.requireForce): `git clean -n` lists " +
        "them first, `git clean -f` deletes them (`-fd` folders too).",
    );
  }
  const scope = userPaths(ctx.flags.path);
  const result = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    const report = await worktreeStatus(repo, index, policy, { untracked: true, submodules: "all" });
    // Folders that hold a tracked file: without -d, git clean leaves wholly untracked folders alone.
    const trackedDirs = new Set<string>([""]);
    for (const path of index.entries.keys()) {
      for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) trackedDirs.add(path.slice(0, i));
    }
    const parent = (path: string) => path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    const removed: string[] = [];
    const withheld: string[] = [];
    const skipped: string[] = [];
    const emptied = new Set<string>();
    for (const path of [...(report.untracked ?? [])].sort(comparePaths)) {
      if (scope.length && !scope.some((s) => s === "" || pathWithin(path, s))) continue;
      if (!ctx.flags.directories && !trackedDirs.has(parent(path))) continue;
      if (policy.hidden(path)) {
        withheld.push(path);
        continue;
      }
      // A folder among the untracked entries is a repository of its own: git clean skips it (unless -ff).
      const info = await Deno.lstat(`${repo.dir}/${path}`).catch(() => null);
      if (!info) continue;
      if (info.isDirectory) {
        skipped.push(path);
        continue;
      }
      if (!dryRun) {
        try {
          await Deno.remove(`${repo.dir}/${path}`);
        } catch (error) {
          throw new PtermError(
            "WriteFailed",
            `could not delete ${quoteName(path, repo.quotePath)} (${(error as Error).name}); ${
              plural(removed.length, "file")
            } ` +
              "were deleted before it and the rest are left as they were. Run `git clean -n` to see what remains.",
          );
        }
      }
      removed.push(path);
      for (let dir = parent(path); dir && !trackedDirs.has(dir); dir = parent(dir)) emptied.add(dir);
    }
    if (!dryRun && ctx.flags.directories) {
      // Deepest first; a folder that still holds something (an ignored or secret file) stays, as in git.
      for (const dir of [...emptied].sort((a, b) => b.length - a.length)) {
        await Deno.remove(`${repo.dir}/${dir}`).catch(() => {});
      }
    }
    return { removed, withheld, skipped };
  });
  const verb = dryRun ? "Would remove" : "Removing";
  ctx.stdout.write(
    result.removed.length
      ? result.removed.map((p) => `${verb} ${quoteName(p, repo.quotePath)}`).join("\n") + "\n"
      : "Nothing to clean.\n",
  );
  if (result.withheld.length) {
    ctx.stderr.write(`${plural(result.withheld.length, "secret path")} left in place (pterm never touches them).\n`);
  }
  for (const path of result.skipped) ctx.stderr.write(`Skipping repository ${quoteName(path, repo.quotePath)}\n`);
  const listed = bounded(result.removed);
  return {
    repo_path: rel,
    dry_run: dryRun,
    removed: listed.items,
    withheld: result.withheld,
    skipped: result.skipped,
    truncated: listed.truncated,
  };
};
