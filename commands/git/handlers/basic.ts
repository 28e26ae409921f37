/** init, status, add, commit, log. */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { addFlags, commitFlags, initFlags, logFlags, statusFlags } from "../spec.ts";
import { stage } from "../lib/add.ts";
import { commitIndex } from "../lib/commit.ts";
import { describeCommit, readCommit, walkLog } from "../lib/log.ts";
import { checkBranchName, readHead } from "../lib/refs.ts";
import { initRepo } from "../lib/repo.ts";
import { resolveCommit } from "../lib/revparse.ts";
import { loadIndex, tryWriteRefreshedIndex, withRepoLock } from "../lib/state.ts";
import { computeStatus, statusCounts, statusFiles, unaddressableWarning } from "../lib/status.ts";
import { readIndexFile } from "../lib/index_file.ts";
import { authorOf, bounded, openFromFlags, plural, userPaths } from "./common.ts";

export const init: Handler<typeof initFlags> = async (ctx) => {
  const branch = ctx.flags["initial-branch"];
  checkBranchName(branch);
  const confined = await ctx.workspace.resolve(ctx.flags.dir, "write", { label: "--dir" });
  if (confined.exists && !Deno.statSync(confined.abs).isDirectory) {
    throw new PtermError("AlreadyExists", `--dir ${ctx.flags.dir} exists and is a file; choose a folder.`);
  }
  const { created } = initRepo(confined.abs, branch);
  const gitDir = confined.rel === "." ? ".git" : `${confined.rel}/.git`;
  let initialBranch = branch;
  if (!created) {
    const head = Deno.readTextFileSync(`${confined.abs}/.git/HEAD`).trim();
    initialBranch = head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : branch;
  }
  ctx.stdout.write(
    created
      ? `Initialized empty Git repository in ${gitDir}/ (branch ${branch})\n`
      : `${confined.rel} already is a git repository; left it unchanged.\n`,
  );
  return { repo_path: confined.rel, git_dir: gitDir, created, initial_branch: initialBranch };
};

function inProgress(gitdir: string): "merge" | "revert" | null {
  const has = (name: string) => {
    try {
      Deno.statSync(`${gitdir}/${name}`);
      return true;
    } catch {
      return false;
    }
  };
  return has("MERGE_HEAD") ? "merge" : has("REVERT_HEAD") ? "revert" : null;
}

export const status: Handler<typeof statusFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const scope = userPaths(ctx.flags.path);
  const index = readIndexFile(repo.gitdir);
  const report = await computeStatus(repo, index, policy, { untracked: true, paths: scope.length ? scope : null });
  if (report.refreshed.length > 0) {
    for (const entry of report.refreshed) index.set(entry, true);
    await tryWriteRefreshedIndex(repo, index);
  }
  const counts = statusCounts(report);
  const files = statusFiles(report);
  const isClean = files.length === 0;
  const progress = inProgress(repo.gitdir);
  const lines = [report.branch ? `On branch ${report.branch}` : `HEAD detached at ${report.head?.slice(0, 7)}`];
  if (!report.head) lines.push("No commits yet");
  if (progress) lines.push(`A ${progress} is in progress: resolve conflicts, git add them, then git commit.`);
  if (isClean) lines.push("nothing to commit, working tree clean");
  else {
    const staged = counts.added + counts.changed + counts.removed;
    const unstaged = counts.modified + counts.missing;
    lines.push(
      `staged: ${staged} (added ${counts.added}, changed ${counts.changed}, removed ${counts.removed}); ` +
        `unstaged: ${unstaged} (modified ${counts.modified}, missing ${counts.missing}); ` +
        `untracked: ${counts.untracked}; conflicting: ${counts.conflicting}`,
    );
    const shown = bounded(files, 200);
    for (const f of shown.items) lines.push(`  ${f.xy} ${f.path}`);
    if (shown.truncated) lines.push(`  ... and ${files.length - shown.items.length} more`);
  }
  if (report.withheld.length) lines.push(`withheld (secret paths, not inspected): ${report.withheld.length}`);
  ctx.stdout.write(lines.join("\n") + "\n");
  if (report.unaddressable.length) ctx.stderr.write(unaddressableWarning(report.unaddressable));
  const listed = bounded(files);
  return {
    repo_path: rel,
    branch: report.branch,
    head: report.head,
    is_clean: isClean,
    counts,
    files: listed.items,
    truncated: listed.truncated,
    withheld: report.withheld,
    in_progress: progress,
  };
};

export const add: Handler<typeof addFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const specs = userPaths(ctx.flags.path);
  if (!ctx.flags.all && specs.length === 0) {
    throw new PtermError("InvalidArgs", "git add needs --all or at least one --path.");
  }
  const patterns = ctx.flags.all ? ["", ...specs] : specs;
  const result = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    return await stage(repo, index, policy, patterns, {
      force: ctx.flags.force,
      signal: ctx.signal,
      onProgress: (done, total) => ctx.progress({ progress: done, total, message: "files staged" }),
    });
  });
  const total = result.added.length + result.updated.length + result.removed.length;
  ctx.stdout.write(
    total === 0
      ? "Nothing new to stage.\n"
      : `Staged ${plural(result.added.length, "new file")}, ${plural(result.updated.length, "changed file")}, ` +
        `${plural(result.removed.length, "deletion")}.\n`,
  );
  if (result.unaddressable.length) ctx.stderr.write(unaddressableWarning(result.unaddressable));
  const added = bounded(result.added);
  const updated = bounded(result.updated);
  const removed = bounded(result.removed);
  return {
    repo_path: rel,
    added_patterns: ctx.flags.all ? ["."] : (ctx.flags.path ?? []),
    added: added.items,
    updated: updated.items,
    removed: removed.items,
    truncated: added.truncated || updated.truncated || removed.truncated,
    withheld: result.withheld,
  };
};

export const commit: Handler<typeof commitFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx);
  const id = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    return await commitIndex(repo, index, {
      message: ctx.flags.message,
      author,
      allowEmpty: ctx.flags["allow-empty"],
    });
  });
  const made = describeCommit(id, await readCommit(repo, id));
  const branch = readHead(repo).branch;
  ctx.stdout.write(`[${branch ?? "detached HEAD"} ${made.short_id}] ${made.subject}\n`);
  return {
    repo_path: rel,
    commit_id: id,
    short_id: made.short_id,
    branch,
    parents: made.parents,
    subject: made.subject,
  };
};

export const log: Handler<typeof logFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx, "read");
  const ref = ctx.flags.ref ?? "HEAD";
  if (ref === "HEAD" && !readHead(repo).oid) {
    ctx.stdout.write("No commits yet.\n");
    return { repo_path: rel, commits: [] };
  }
  const start = await resolveCommit(repo, ref);
  const path = ctx.flags.path === undefined ? null : userPaths([ctx.flags.path])[0] || null;
  const commits = await walkLog(repo, start, ctx.flags.max, path);
  ctx.stdout.write(
    commits.map((c) => `${c.short_id} ${c.author.time.slice(0, 10)} ${c.author.name}: ${c.subject}`).join("\n") + "\n",
  );
  return { repo_path: rel, commits };
};
