/**
 * `lsFiles`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { lsFilesFlags } from "../sub/ls_files.ts";
import { pathWithin } from "../odb/tree.ts";
import { computeStatus } from "../porcelain/status.ts";
import { quoteName } from "../odb/bytes.ts";
import { readIndexFile } from "../worktree/index_file.ts";
import { bounded, openFromFlags, userPaths } from "./common.ts";
import { lstatTracked } from "../worktree/worktree.ts";
import { hashWorktreeFile } from "../worktree/compare.ts";

export const lsFiles: Handler<typeof lsFilesFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const scope = userPaths(ctx.flags.path);
  const inScope = (path: string) => scope.length === 0 || scope.some((s) => s === "" || pathWithin(path, s));
  const index = readIndexFile(repo.gitdir);
  const wanted = ctx.flags.others
    ? "others"
    : ctx.flags.modified
    ? "modified"
    : ctx.flags.deleted
    ? "deleted"
    : ctx.flags.unmerged
    ? "unmerged"
    : "cached";
  let files: { path: string; mode?: string; oid?: string; stage?: number }[];
  if (wanted === "cached" || wanted === "unmerged") {
    files = wanted === "unmerged"
      ? []
      : [...index.entries.values()].filter((e) => inScope(e.path) && !policy.hidden(e.path)).map((e) => ({
        path: e.path,
        mode: e.mode.toString(8).padStart(6, "0"),
        oid: e.oid,
        stage: 0,
      }));
    for (const [path, stages] of index.conflicts) {
      if (!inScope(path)) continue;
      for (const e of stages) {
        files.push({ path, mode: e.mode.toString(8).padStart(6, "0"), oid: e.oid, stage: e.stage });
      }
    }
  } else {
    const report = await computeStatus(repo, index, policy, {
      untracked: wanted === "others",
      paths: scope.length ? scope : null,
    });
    files = wanted === "others"
      ? report.untracked.map((path) => ({ path }))
      : [...report.unstaged.entries()].filter(([, change]) => wanted === "deleted" ? change === "D" : true).map((
        [path],
      ) => ({ path }));
    // Each stage of a path with a conflict in progress, as git's show_files meets the index's entries:
    // deleted when the file is gone, modified when gone or when its content is not that stage's blob.
    if (wanted !== "others") {
      for (const [path, stages] of index.conflicts) {
        if (!inScope(path) || policy.hidden(path)) continue;
        const info = lstatTracked(repo, path);
        for (const e of stages) {
          const listed = !info || (wanted === "modified" && await hashWorktreeFile(repo, path, info) !== e.oid);
          if (listed) files.push({ path, mode: e.mode.toString(8).padStart(6, "0"), oid: e.oid, stage: e.stage });
        }
      }
    }
  }
  if (wanted === "others" && !ctx.flags["exclude-standard"]) {
    // pterm never walks what .gitignore leaves out (build output, dependencies): said, as git lists them here.
    ctx.stderr.write(
      "[Note] ignored files are left out, as with --exclude-standard; git lists them too without it " +
        "(pterm does not list ignored files).\n",
    );
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.stage ?? 0) - (b.stage ?? 0)));
  const listed = bounded(files, 5000);
  ctx.stdout.write(
    listed.items.map((f) =>
      (ctx.flags.stage || wanted === "unmerged") && f.oid
        ? `${f.mode} ${f.oid} ${f.stage}\t${quoteName(f.path, repo.quotePath)}`
        : quoteName(f.path, repo.quotePath)
    ).join("\n") + (listed.items.length ? "\n" : ""),
  );
  return { repo_path: rel, which: wanted, files: listed.items, truncated: listed.truncated };
};
