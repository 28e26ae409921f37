/** init, status, add, commit, log. */

import { skippedHooks } from "../lib/hooks.ts";
import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { CommandContext } from "../../../core/context.ts";
import type { addFlags, commitFlags, initFlags, lsFilesFlags, revParseFlags, statusFlags } from "../spec.ts";
import { stage, type StageResult } from "../lib/add.ts";
import { commitIndex, onlyPathsIndex, partialCommitFiles } from "../lib/commit.ts";
import { preparedMessage, sequenceCommitOptions, sequenceInProgress, squashMessage } from "../lib/sequence.ts";
import { type Tracking, trackingInfo } from "../lib/upstream.ts";
import { describeCommit, readCommit } from "../lib/log.ts";
import { checkBranchName, readHead, resolveRefOid } from "../lib/refs.ts";
import { excludePtermState, gitPath, initRepo, openRepo, type Repo } from "../lib/repo.ts";
import { resolveRevision } from "../lib/revparse.ts";
import type { GitAuthor } from "../lib/identity.ts";
import type { Index } from "../lib/index_file.ts";
import { pathWithin } from "../lib/tree.ts";
import { hiddenPathDenied, lstatTracked, type PathPolicy } from "../lib/worktree.ts";
import { loadIndex, tryWriteRefreshedIndex, withRepoLock } from "../lib/state.ts";
import {
  computeStatus,
  stagedRenames,
  type StatusCounts,
  statusCounts,
  type StatusFile,
  statusFiles,
  type StatusReport,
  unaddressableWarning,
  worktreeStatus,
} from "../lib/status.ts";
import { quoteName } from "../lib/bytes.ts";
import { readIndexFile } from "../lib/index_file.ts";
import { monitoredStatus } from "../lib/fsmonitor.ts";
import { authorOf, bounded, openFromFlags, plural, userPaths } from "./common.ts";

export const init: Handler<typeof initFlags> = async (ctx) => {
  const branch = ctx.flags["initial-branch"];
  checkBranchName(branch);
  const dir = ctx.flags.dir ?? ".";
  const confined = await ctx.workspace.resolve(dir, "write", { label: "--dir" });
  if (confined.exists && !Deno.statSync(confined.abs).isDirectory) {
    throw new PtermError("AlreadyExists", `--dir ${dir} exists and is a file; choose a folder.`);
  }
  const { created } = initRepo(confined.abs, branch);
  // A repository at the workspace root keeps pterm's own state out of real git's view (issue 15 §5).
  if (confined.rel === ".") excludePtermState(openRepo(confined.abs, ".", ctx.workspace.root).commondir);
  const gitDir = confined.rel === "." ? ".git" : `${confined.rel}/.git`;
  let initialBranch = branch;
  if (!created) {
    // Through openRepo: a gitfile's git folder is found (and confined) as for any other command.
    const existing = openRepo(confined.abs, confined.rel, ctx.workspace.root);
    const head = Deno.readTextFileSync(gitPath(existing, "HEAD")).trim();
    initialBranch = head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : branch;
  }
  ctx.stdout.write(
    created
      ? `Initialized empty Git repository in ${gitDir}/ (branch ${branch})\n`
      : `${confined.rel} already is a git repository; left it unchanged.\n`,
  );
  return { repo_path: confined.rel, git_dir: gitDir, created, initial_branch: initialBranch };
};

/**
 * git's short format: two status letters (a space for unchanged) and the path, quoted as git quotes.
 * A submodule changed only inside is ` m` (modified content) or ` ?` (untracked content) there, as
 * in `git status --short`; `--porcelain` keeps ` M`, as git's porcelain v1 does.
 */
function shortStatus(files: readonly StatusFile[], porcelain: boolean): string {
  const shown = bounded(files, 1000);
  const lines = shown.items.map((f) => {
    let xy = f.xy;
    if (!porcelain && f.submodule && xy[1] === "M" && f.submodule[1] !== "C") {
      xy = xy[0] + (f.submodule[2] === "M" ? "m" : "?");
    }
    const from = f.orig_path !== undefined ? `${quoteName(f.orig_path)} -> ` : "";
    return `${xy.replaceAll(".", " ")} ${from}${quoteName(f.path)}`;
  });
  if (shown.truncated) lines.push(`... and ${files.length - shown.items.length} more (see the result)`);
  return lines.length ? lines.join("\n") + "\n" : "";
}

/** What git's long status says after a submodule's path: `(new commits, modified content, untracked content)`. */
function submoduleNote(code: string | undefined): string {
  if (!code) return "";
  const parts = [
    code[1] === "C" ? "new commits" : null,
    code[2] === "M" ? "modified content" : null,
    code[3] === "U" ? "untracked content" : null,
  ].filter((p) => p !== null);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** git status -sb's first line: `## main...origin/main [ahead 1, behind 2]`, `## HEAD (no branch)`. */
function branchLine(report: StatusReport, tracking: Tracking | null): string {
  if (!report.branch) return "## HEAD (no branch)\n";
  let line = `## ${report.head ? "" : "No commits yet on "}${report.branch}`;
  if (tracking) {
    line += `...${tracking.name}`;
    const counts = [
      ...(tracking.ahead ? [`ahead ${tracking.ahead}`] : []),
      ...(tracking.behind ? [`behind ${tracking.behind}`] : []),
    ];
    if (tracking.gone) line += " [gone]";
    else if (tracking.ahead === null) line += " [different]";
    else if (counts.length) line += ` [${counts.join(", ")}]`;
  }
  return `${line}\n`;
}

/** git's long status sentence about the upstream. */
function trackingSentence(tracking: Tracking): string {
  const commits = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;
  const name = `'${tracking.name}'`;
  if (tracking.gone) return `Your branch is based on ${name}, but the upstream is gone.`;
  if (tracking.ahead === null) return `Your branch and ${name} refer to different commits.`;
  if (tracking.ahead && tracking.behind) {
    return `Your branch and ${name} have diverged,\nand have ${tracking.ahead} and ${tracking.behind} different ` +
      "commits each, respectively.";
  }
  if (tracking.ahead) return `Your branch is ahead of ${name} by ${commits(tracking.ahead)}.`;
  if (tracking.behind) {
    return `Your branch is behind ${name} by ${commits(tracking.behind)}, and can be fast-forwarded.`;
  }
  return `Your branch is up to date with ${name}.`;
}

function longStatus(
  report: StatusReport,
  files: readonly StatusFile[],
  counts: StatusCounts,
  progress: string | null,
  tracking: Tracking | null,
): string {
  const lines = [report.branch ? `On branch ${report.branch}` : `HEAD detached at ${report.head?.slice(0, 7)}`];
  if (tracking) lines.push(trackingSentence(tracking));
  if (!report.head) lines.push("No commits yet");
  if (progress) {
    lines.push(
      `A ${progress} is in progress: resolve conflicts, git add them, then \`git ${progress} --continue\` (or ` +
        `\`git ${progress} --abort\`).`,
    );
  }
  if (files.length === 0) lines.push("nothing to commit, working tree clean");
  else {
    const staged = counts.added + counts.changed + counts.removed;
    const unstaged = counts.modified + counts.missing;
    lines.push(
      `staged: ${staged} (added ${counts.added}, changed ${counts.changed}, removed ${counts.removed}); ` +
        `unstaged: ${unstaged} (modified ${counts.modified}, missing ${counts.missing}); ` +
        `untracked: ${counts.untracked}; conflicting: ${counts.conflicting}`,
    );
    const shown = bounded(files, 200);
    for (const f of shown.items) {
      const from = f.orig_path !== undefined ? `${f.orig_path} -> ` : "";
      lines.push(`  ${f.xy} ${from}${f.path}${submoduleNote(f.submodule)}`);
    }
    if (shown.truncated) lines.push(`  ... and ${files.length - shown.items.length} more`);
  }
  if (report.withheld.length) lines.push(`withheld (secret paths, not inspected): ${report.withheld.length}`);
  return lines.join("\n") + "\n";
}

export const status: Handler<typeof statusFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const scope = userPaths(ctx.flags.path);
  const untracked = ctx.flags["untracked-files"] !== "no";
  const options = { untracked, paths: scope.length ? scope : null };
  // In a warm worker the work tree's side may come from a watcher-checked cache (lib/fsmonitor.ts).
  const { index, work } = await monitoredStatus({ warm: ctx.warm === true }, repo, policy, options);
  const report = await computeStatus(repo, index, policy, options, work);
  if (report.refreshed.length > 0) {
    for (const entry of report.refreshed) index.set(entry, true);
    await tryWriteRefreshedIndex(repo, index);
  }
  const counts = statusCounts(report);
  const files = statusFiles(report, await stagedRenames(repo, index, report));
  // status.aheadBehind=false spares the history walk, as in git (whose --porcelain counts anyway).
  const count = ctx.flags.porcelain === true || repo.config.getBool("status.aheadBehind", true);
  const tracking = report.branch ? await trackingInfo(repo, report.branch, count) : null;
  const isClean = files.length === 0;
  const progress = sequenceInProgress(repo);
  const short = ctx.flags.short || ctx.flags.porcelain;
  ctx.stdout.write(
    (short && ctx.flags.branch ? branchLine(report, tracking) : "") +
      (short
        ? shortStatus(files, ctx.flags.porcelain === true)
        : longStatus(report, files, counts, progress, tracking)),
  );
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
    upstream: tracking,
  };
};

/**
 * Stages what `git add -u` / `git commit -a` stage: modifications and deletions of tracked files
 * (under `scope`, if given), never a new file.
 */
async function stageTracked(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  repo: Repo,
  index: Index,
  policy: PathPolicy,
  scope: readonly string[],
): Promise<StageResult> {
  const work = await worktreeStatus(repo, index, policy, { untracked: false, submodules: "none" });
  const changed = [...work.unstaged.keys()].filter((path) =>
    !policy.hidden(path) && (scope.length === 0 || scope.some((s) => s === "" || pathWithin(path, s)))
  );
  if (changed.length === 0) return { added: [], updated: [], removed: [], withheld: [], unaddressable: [] };
  return await stage(repo, index, policy, changed, {
    signal: ctx.signal,
    onProgress: (done, total) => ctx.progress({ progress: done, total, message: "files staged" }),
  });
}

export const add: Handler<typeof addFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const specs = userPaths(ctx.flags.path);
  if (ctx.flags.all && ctx.flags.update) {
    throw new PtermError("InvalidArgs", "give -A (everything, new files too) or -u (tracked files only), not both.");
  }
  if (!ctx.flags.all && !ctx.flags.update && specs.length === 0) {
    throw new PtermError(
      "InvalidArgs",
      "git add needs something to stage: `git add <path>…`, `git add .` or `git add -A` (everything), " +
        "`git add -u` (tracked files only).",
    );
  }
  const result = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    if (ctx.flags.update) return await stageTracked(ctx, repo, index, policy, specs);
    return await stage(repo, index, policy, ctx.flags.all ? ["", ...specs] : specs, {
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
    added_patterns: ctx.flags.all || (ctx.flags.update && specs.length === 0) ? ["."] : (ctx.flags.path ?? []),
    added: added.items,
    updated: updated.items,
    removed: removed.items,
    truncated: added.truncated || updated.truncated || removed.truncated,
    withheld: result.withheld,
  };
};

/**
 * The message of a commit: each -m a paragraph (as git joins them), or stdin with `-F -`; with
 * --amend and neither, the amended commit's own.
 */
function commitMessage(
  // deno-lint-ignore no-explicit-any
  ctx: CommandContext<any, any>,
  warnings: string[],
): string | null {
  const parts = ctx.flags.message as string[];
  const file = ctx.flags.file as string | undefined;
  if (file !== undefined && file !== "-") {
    throw new PtermError(
      "InvalidArgs",
      `-F reads the message from the call's stdin only: write \`-F -\` and put the message in stdin ` +
        `(pterm does not read ${file} as a message file).`,
    );
  }
  if (file !== undefined && parts.length) {
    throw new PtermError("InvalidArgs", "give the message with -m or with -F -, not both.");
  }
  if (file !== undefined) return ctx.stdin ?? "";
  if (parts.length === 0) return null;
  if (parts.some((p) => p.includes("\\n"))) {
    // git keeps a backslash-n as two characters; so does pterm, but it says so (issue 15).
    warnings.push(
      "the message contains `\\n` (a backslash and an n), which git keeps as two characters, not a line break; " +
        "for a body give -m again per paragraph (`-m subject -m body`) or pass the message on stdin with -F -. " +
        "Fix it with `git commit --amend -m … -m …`.",
    );
  }
  return parts.join("\n\n");
}

export const commit: Handler<typeof commitFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx);
  const author = authorOf(ctx);
  const warnings: string[] = [];
  let message = commitMessage(ctx, warnings);
  const amend = ctx.flags.amend;
  // Concluding a merge, cherry-pick or revert: git's message is the one it prepared (git commit --no-edit).
  if (message === null && !amend) message = sequenceInProgress(repo) ? preparedMessage(repo) : squashMessage(repo);
  if (message === null && !amend) {
    throw new PtermError(
      "InvalidArgs",
      'git commit needs a message: `git commit -m "subject"` (or -m twice for a body, or -F - with the message on stdin).',
    );
  }
  const only = userPaths(ctx.flags.path);
  if (only.length && ctx.flags.all) {
    throw new PtermError("InvalidArgs", "give paths or -a, not both: `git commit -a` commits every tracked change.");
  }
  const id = await withRepoLock(repo, async () => {
    let index = loadIndex(repo);
    if (ctx.flags.all) await stageTracked(ctx, repo, index, policy, []);
    if (only.length) {
      // `git commit <paths>`: those paths as they are in the work tree, the rest as HEAD has it.
      for (const spec of only) {
        const hidden = spec === "" ? null : policy.hidden(spec);
        if (hidden) throw hiddenPathDenied(spec, hidden, "it is never committed");
      }
      const tracked = (p: string, spec: string) => spec === "" || pathWithin(p, spec);
      const exists = (p: string) => lstatTracked(repo, p) !== null;
      const files = await partialCommitFiles(repo, index, only, tracked, exists);
      if (files.length) await stage(repo, index, policy, files, { signal: ctx.signal });
      index = await onlyPathsIndex(repo, index, only, tracked);
    }
    if (message === null) {
      const head = readHead(repo).oid;
      if (!head) throw new PtermError("NothingToCommit", "there is no commit to amend yet; make the first one.");
      message = (await readCommit(repo, head)).message;
    }
    if (ctx.flags.signoff) message = withSignoff(message, author);
    return await commitIndex(repo, index, {
      message,
      author,
      ...(amend ? {} : await sequenceCommitOptions(repo, ctx.flags.author !== undefined)),
      allowEmpty: ctx.flags["allow-empty"],
      amend: amend ? { keepAuthor: ctx.flags.author === undefined } : undefined,
    });
  });
  const made = describeCommit(id, await readCommit(repo, id));
  const branch = readHead(repo).branch;
  const hooks = skippedHooks(
    repo,
    ctx.flags["no-verify"]
      ? ["prepare-commit-msg", "post-commit"]
      : ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"],
  );
  if (hooks) warnings.push(hooks);
  ctx.stdout.write(`[${branch ?? "detached HEAD"} ${made.short_id}] ${made.subject}\n`);
  for (const warning of warnings) ctx.stderr.write(`[Warning] ${warning}\n`);
  return {
    repo_path: rel,
    commit_id: id,
    short_id: made.short_id,
    branch,
    parents: made.parents,
    subject: made.subject,
    amended: amend,
    warnings,
  };
};

/** git's `-s`: a `Signed-off-by:` trailer, in the trailer block if the message ends with one. */
function withSignoff(message: string, author: GitAuthor): string {
  const line = `Signed-off-by: ${author.name} <${author.email}>`;
  const trimmed = message.replace(/\s+$/, "");
  if (trimmed.split("\n").includes(line)) return trimmed + "\n";
  const paragraphs = trimmed.split(/\n\s*\n/);
  const last = paragraphs[paragraphs.length - 1];
  const isTrailerBlock = paragraphs.length > 1 && last.split("\n").every((l) => /^[A-Za-z0-9-]+: /.test(l));
  return `${trimmed}${isTrailerBlock ? "\n" : "\n\n"}${line}\n`;
}

export const revParse: Handler<typeof revParseFlags, readonly [{ name: "revs"; description: string; variadic: true }]> =
  async (ctx) => {
    const { repo, rel } = await openFromFlags(ctx, "read");
    const words = ctx.positionals.revs;
    const values: string[] = [];
    if (ctx.flags["show-toplevel"]) values.push(rel);
    if (ctx.flags["git-dir"]) {
      // A gitfile's git folder (a submodule's .git/modules/<name>, a worktree's .git/worktrees/<name>), from the root.
      const root = ctx.workspace.root.endsWith("/") ? ctx.workspace.root : ctx.workspace.root + "/";
      values.push(
        repo.gitdir.startsWith(root) ? repo.gitdir.slice(root.length) : rel === "." ? ".git" : `${rel}/.git`,
      );
    }
    if (ctx.flags["is-inside-work-tree"]) values.push("true");
    if (ctx.flags.verify && words.length !== 1) {
      throw new PtermError("InvalidArgs", "--verify takes exactly one revision.");
    }
    for (const word of words) {
      if (ctx.flags["abbrev-ref"]) {
        const head = readHead(repo);
        if (word === "HEAD") {
          values.push(head.branch ?? "HEAD");
          continue;
        }
        const branch = word.replace(/^refs\/heads\//, "");
        if (resolveRefOid(repo, `refs/heads/${branch}`)) {
          values.push(branch);
          continue;
        }
      }
      let oid: string;
      try {
        oid = await resolveRevision(repo, word);
      } catch (error) {
        if (word === "HEAD" && !readHead(repo).oid) {
          throw new PtermError("NotFound", "HEAD names no commit yet: the repository has no commits.");
        }
        throw error;
      }
      values.push(ctx.flags.short ? oid.slice(0, 7) : oid);
    }
    if (values.length === 0) {
      throw new PtermError(
        "InvalidArgs",
        "git rev-parse needs a revision (`git rev-parse HEAD`) or one of --show-toplevel, --abbrev-ref HEAD, --git-dir.",
      );
    }
    ctx.stdout.write(values.join("\n") + "\n");
    return { repo_path: rel, values };
  };

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
    : "cached";
  let files: { path: string; mode?: string; oid?: string; stage?: number }[];
  if (wanted === "cached") {
    files = [...index.entries.values()].filter((e) => inScope(e.path) && !policy.hidden(e.path)).map((e) => ({
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
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.stage ?? 0) - (b.stage ?? 0)));
  const listed = bounded(files, 5000);
  ctx.stdout.write(
    listed.items.map((f) =>
      ctx.flags.stage && f.oid ? `${f.mode} ${f.oid} ${f.stage}\t${quoteName(f.path)}` : quoteName(f.path)
    ).join("\n") + (listed.items.length ? "\n" : ""),
  );
  return { repo_path: rel, which: wanted, files: listed.items, truncated: listed.truncated };
};
