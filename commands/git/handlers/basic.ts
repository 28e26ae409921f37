/** init, status, add, commit, log. */

import { skippedHooks } from "../repo/hooks.ts";
import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { CommandContext } from "../../../core/context.ts";
import type { addFlags, commitFlags, initFlags, lsFilesFlags, revParseFlags, statusFlags } from "../spec.ts";
import { stage, type StageResult } from "../worktree/add.ts";
import { commitIndex, onlyPathsIndex, partialCommitFiles } from "../porcelain/commit.ts";
import {
  preparedMessage,
  type Sequence,
  sequenceCommit,
  sequenceCommitOptions,
  sequenceInProgress,
  squashMessage,
} from "../merge/sequence.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { type Tracking, trackingInfo } from "../porcelain/upstream.ts";
import { describeCommit, readCommit } from "../history/log.ts";
import { checkBranchName, readHead, readReflog, resolveRefOid } from "../repo/refs.ts";
import { excludePtermState, gitPath, initRepo, openRepo, type Repo } from "../repo/repo.ts";
import { dwimRef, peel, resolveRevision } from "../history/revparse.ts";
import type { GitAuthor } from "../repo/identity.ts";
import type { Index } from "../worktree/index_file.ts";
import { pathWithin } from "../odb/tree.ts";
import { hiddenPathDenied, lstatTracked, type PathPolicy } from "../worktree/worktree.ts";
import { loadIndex, tryWriteRefreshedIndex, withRepoLock } from "../repo/state.ts";
import {
  computeStatus,
  stagedRenames,
  statusCounts,
  type StatusFile,
  statusFiles,
  type StatusReport,
  unaddressableWarning,
  UNMERGED_LABELS,
  worktreeStatus,
} from "../porcelain/status.ts";
import { quoteName } from "../odb/bytes.ts";
import { readIndexFile } from "../worktree/index_file.ts";
import { monitoredStatus } from "../worktree/fsmonitor.ts";
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
/** A name as git's short status writes it: quoted as everywhere, and also when it holds a space (QUOTE_PATH_QUOTE_SP). */
function shortName(path: string): string {
  const quoted = quoteName(path);
  return quoted.startsWith('"') || !path.includes(" ") ? quoted : `"${quoted}"`;
}

function shortStatus(files: readonly StatusFile[], untracked: readonly string[], porcelain: boolean): string {
  // git's order (wt_shortstatus_print): tracked and unmerged paths by name, then the untracked ones.
  const tracked = files.filter((f) => f.xy !== "??");
  const shown = bounded(tracked, 1000);
  const lines = shown.items.map((f) => {
    let xy = f.xy;
    if (!porcelain && f.submodule && xy[1] === "M" && f.submodule[1] !== "C") {
      xy = xy[0] + (f.submodule[2] === "M" ? "m" : "?");
    }
    const from = f.orig_path !== undefined ? `${shortName(f.orig_path)} -> ` : "";
    return `${xy.replaceAll(".", " ")} ${from}${shortName(f.path)}`;
  });
  if (shown.truncated) lines.push(`... and ${tracked.length - shown.items.length} more (see the result)`);
  for (const path of untracked.slice(0, Math.max(0, 1000 - shown.items.length))) lines.push(`?? ${shortName(path)}`);
  if (untracked.length > Math.max(0, 1000 - shown.items.length)) lines.push("... more untracked (see the result)");
  return lines.length ? lines.join("\n") + "\n" : "";
}

/**
 * The untracked entries as git lists them: with `-uall` every file; otherwise (git's "normal") a
 * folder that holds no tracked file is one `dir/` entry, its topmost such folder.
 */
function untrackedAsGit(untracked: readonly string[], index: Index, all: boolean): string[] {
  if (all) return [...untracked];
  const trackedDirs = new Set<string>();
  for (const path of [...index.entries.keys(), ...index.conflicts.keys()]) {
    for (let slash = path.indexOf("/"); slash > 0; slash = path.indexOf("/", slash + 1)) {
      trackedDirs.add(path.slice(0, slash));
    }
  }
  const out: string[] = [];
  for (const path of untracked) {
    let shown = path;
    for (let slash = path.indexOf("/"); slash > 0 && slash < path.length - 1; slash = path.indexOf("/", slash + 1)) {
      if (!trackedDirs.has(path.slice(0, slash))) {
        shown = path.slice(0, slash + 1);
        break;
      }
    }
    if (out[out.length - 1] !== shown) out.push(shown);
  }
  return out;
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

/** git's long status lines about the upstream, with the advice git adds when hints are on. */
function trackingLines(tracking: Tracking, hints: boolean): string[] {
  const commits = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;
  const name = `'${tracking.name}'`;
  const with_ = (sentence: string, advice: string) => hints ? [sentence, `  (${advice})`] : [sentence];
  if (tracking.gone) {
    return with_(
      `Your branch is based on ${name}, but the upstream is gone.`,
      'use "git branch --unset-upstream" to fixup',
    );
  }
  if (tracking.ahead === null) {
    return with_(`Your branch and ${name} refer to different commits.`, 'use "git status --ahead-behind" for details');
  }
  if (tracking.ahead && tracking.behind) {
    return with_(
      `Your branch and ${name} have diverged,\nand have ${tracking.ahead} and ${tracking.behind} different ` +
        "commits each, respectively.",
      'use "git pull" to merge the remote branch into yours',
    );
  }
  if (tracking.ahead) {
    return with_(
      `Your branch is ahead of ${name} by ${commits(tracking.ahead)}.`,
      'use "git push" to publish your local commits',
    );
  }
  if (tracking.behind) {
    return with_(
      `Your branch is behind ${name} by ${commits(tracking.behind)}, and can be fast-forwarded.`,
      'use "git pull" to update your local branch',
    );
  }
  return [`Your branch is up to date with ${name}.`];
}

/**
 * The block git's status prints while a merge, cherry-pick or revert is stopped (wt-status.c's
 * show_merge_in_progress, show_cherry_pick_in_progress, show_revert_in_progress), blank line included.
 */
function sequenceLines(progress: Sequence, picked: string | null, unmerged: boolean, hints: boolean): string[] {
  const lines: string[] = [];
  const hint = (text: string) => hints && lines.push(`  (${text})`);
  if (progress === "merge") {
    if (unmerged) {
      lines.push("You have unmerged paths.");
      hint('fix conflicts and run "git commit"');
      hint('use "git merge --abort" to abort the merge');
    } else {
      lines.push("All conflicts fixed but you are still merging.");
      hint('use "git commit" to conclude merge');
    }
  } else {
    const [doing, verb] = progress === "cherry-pick" ? ["cherry-picking", "cherry-pick"] : ["reverting", "revert"];
    lines.push(
      picked
        ? `You are currently ${doing} commit ${picked}.`
        : progress === "cherry-pick"
        ? "Cherry-pick currently in progress."
        : "Revert currently in progress.",
    );
    if (unmerged) hint(`fix conflicts and run "git ${verb} --continue"`);
    else if (!picked) hint(`run "git ${verb} --continue" to continue`);
    else hint(`all conflicts fixed: run "git ${verb} --continue"`);
    hint(`use "git ${verb} --skip" to skip this patch`);
    hint(`use "git ${verb} --abort" to cancel the ${verb} operation`);
  }
  lines.push("");
  return lines;
}

const STAGED_LABELS: Record<string, string> = {
  A: "new file:",
  M: "modified:",
  D: "deleted:",
  T: "typechange:",
  R: "renamed:",
};
const UNSTAGED_LABELS: Record<string, string> = { M: "modified:", D: "deleted:", T: "typechange:", A: "new file:" };

/**
 * git's line for a detached HEAD (wt_status_get_detached_from): the last `checkout: moving from …
 * to <target>` in HEAD's reflog names what was checked out — as its ref (tags and remote branches
 * shortened) when the ref still names the commit it moved to, else that commit abbreviated — and
 * HEAD is "at" it while it has not moved since, "from" it after; without such an entry, "Not
 * currently on any branch."
 */
async function detachedLine(repo: Repo, head: string | null): Promise<string> {
  const entries = readReflog(repo, "HEAD");
  for (let i = entries.length - 1; i >= 0; i--) {
    const message = entries[i].message;
    if (!message.startsWith("checkout: moving from ")) continue;
    const to = message.indexOf(" to ", "checkout: moving from ".length);
    if (to < 0) continue;
    const target = message.slice(to + 4).split("\n")[0];
    const moved = entries[i].newOid;
    let from = abbreviate(repo, moved);
    const ref = target === "HEAD" ? null : dwimRef(repo, target);
    const refOid = ref ? resolveRefOid(repo, ref) : null;
    if (ref && refOid) {
      const commit = refOid === moved ? moved : (await peel(repo, refOid).catch(() => null))?.oid;
      if (commit === moved) from = ref.replace(/^refs\/tags\//, "").replace(/^refs\/remotes\//, "");
    }
    return `HEAD detached ${head === moved ? "at" : "from"} ${from}`;
  }
  return "Not currently on any branch.";
}

/** What the long status needs besides the report and its files. */
interface LongStatusContext {
  /** The first line: `On branch <name>`, or git's line for a detached HEAD. */
  readonly branchLine: string;
  readonly tracking: Tracking | null;
  readonly progress: Sequence | null;
  /** The abbreviated commit a cherry-pick or revert in progress applies. */
  readonly picked: string | null;
  readonly hints: boolean;
  readonly untrackedShown: boolean;
  /** The untracked entries as git lists them in this mode (folders collapsed to `dir/` unless `-uall`). */
  readonly untracked: readonly string[];
}

/**
 * `git status` in git's long form (wt-status.c's wt_longstatus_print, colour off): the branch, the
 * upstream, the operation in progress, then the staged, unmerged, unstaged and untracked sections
 * with git's hints (advice.statusHints), and git's closing sentence.
 */
function longStatus(report: StatusReport, files: readonly StatusFile[], context: LongStatusContext): string {
  const { tracking, progress, hints } = context;
  const lines = [context.branchLine];
  if (tracking && report.head) lines.push(...trackingLines(tracking, hints), "");
  const unmergedFiles = files.filter((f) => report.unmerged.has(f.path));
  if (progress) lines.push(...sequenceLines(progress, context.picked, unmergedFiles.length > 0, hints));
  if (!report.head) lines.push("", "No commits yet", "");
  // A merge or cherry-pick in progress has no "unstage" hint (git's whence is not a plain commit); a revert has.
  const plainCommit = progress !== "merge" && progress !== "cherry-pick";
  const unstageHint = report.head
    ? 'use "git restore --staged <file>..." to unstage'
    : 'use "git rm --cached <file>..." to unstage';
  const staged = files.filter((f) => f.xy[0] !== "." && f.xy[0] !== "?" && !report.unmerged.has(f.path));
  if (staged.length) {
    lines.push("Changes to be committed:");
    if (hints && plainCommit) lines.push(`  (${unstageHint})`);
    for (const f of staged) {
      const name = f.orig_path !== undefined ? `${quoteName(f.orig_path)} -> ${quoteName(f.path)}` : quoteName(f.path);
      lines.push(`\t${STAGED_LABELS[f.xy[0]].padEnd(12)}${name}`);
    }
    lines.push("");
  }
  if (unmergedFiles.length) {
    const codes = unmergedFiles.map((f) => f.xy);
    const bothDeleted = codes.includes("DD");
    const deleteModify = codes.some((c) => c === "UD" || c === "DU");
    const notDeleted = codes.some((c) => c !== "DD" && c !== "UD" && c !== "DU");
    lines.push("Unmerged paths:");
    if (hints) {
      if (plainCommit) lines.push(`  (${unstageHint})`);
      if (!bothDeleted) {
        lines.push(
          deleteModify
            ? '  (use "git add/rm <file>..." as appropriate to mark resolution)'
            : '  (use "git add <file>..." to mark resolution)',
        );
      } else if (!deleteModify && !notDeleted) lines.push('  (use "git rm <file>..." to mark resolution)');
      else lines.push('  (use "git add/rm <file>..." as appropriate to mark resolution)');
    }
    for (const f of unmergedFiles) lines.push(`\t${UNMERGED_LABELS[f.xy].padEnd(17)}${quoteName(f.path)}`);
    lines.push("");
  }
  const changed = files.filter((f) => f.xy[1] !== "." && f.xy[1] !== "?" && !report.unmerged.has(f.path));
  if (changed.length) {
    const dirtySubmodule = changed.some((f) => f.submodule && (f.submodule[2] === "M" || f.submodule[3] === "U"));
    lines.push("Changes not staged for commit:");
    if (hints) {
      const verb = changed.some((f) => f.xy[1] === "D") ? "add/rm" : "add";
      lines.push(`  (use "git ${verb} <file>..." to update what will be committed)`);
      lines.push('  (use "git restore <file>..." to discard changes in working directory)');
      if (dirtySubmodule) lines.push("  (commit or discard the untracked or modified content in submodules)");
    }
    for (const f of changed) {
      lines.push(`\t${UNSTAGED_LABELS[f.xy[1]].padEnd(12)}${quoteName(f.path)}${submoduleNote(f.submodule)}`);
    }
    lines.push("");
  }
  if (context.untrackedShown && context.untracked.length) {
    lines.push("Untracked files:");
    if (hints) lines.push('  (use "git add <file>..." to include in what will be committed)');
    for (const path of context.untracked) lines.push(`\t${quoteName(path)}`);
    lines.push("");
  }
  const committable = staged.length > 0;
  if (!context.untrackedShown && committable) {
    lines.push(`Untracked files not listed${hints ? " (use -u option to show untracked files)" : ""}`);
  }
  if (!committable) {
    const dirty = changed.length > 0 || unmergedFiles.length > 0;
    if (dirty) {
      lines.push(`no changes added to commit${hints ? ' (use "git add" and/or "git commit -a")' : ""}`);
    } else if (context.untrackedShown && context.untracked.length) {
      lines.push(`nothing added to commit but untracked files present${hints ? ' (use "git add" to track)' : ""}`);
    } else if (!report.head) {
      lines.push(`nothing to commit${hints ? ' (create/copy files and use "git add" to track)' : ""}`);
    } else if (!context.untrackedShown) {
      lines.push(`nothing to commit${hints ? " (use -u to show untracked files)" : ""}`);
    } else lines.push("nothing to commit, working tree clean");
  }
  return lines.join("\n") + "\n";
}

/** `-u<mode>` if given, else git's `status.showUntrackedFiles` (no, normal, all; a false boolean is no), else normal. */
function untrackedFilesMode(flag: string | undefined, repo: Repo): "no" | "normal" | "all" {
  if (flag === "no" || flag === "normal" || flag === "all") return flag;
  const setting = repo.config.get("status.showUntrackedFiles")?.trim().toLowerCase();
  if (setting === undefined) return "normal";
  if (setting === "all") return "all";
  return ["no", "false", "off", "0"].includes(setting) ? "no" : "normal";
}

export const status: Handler<typeof statusFlags> = async (ctx) => {
  const { repo, policy, rel } = await openFromFlags(ctx, "read");
  const scope = userPaths(ctx.flags.path);
  const untrackedMode = untrackedFilesMode(ctx.flags["untracked-files"], repo);
  const untracked = untrackedMode !== "no";
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
  const shownUntracked = untrackedAsGit(report.untracked, index, untrackedMode === "all");
  let text: string;
  if (short) {
    text = (ctx.flags.branch ? branchLine(report, tracking) : "") +
      shortStatus(files, shownUntracked, ctx.flags.porcelain === true);
  } else {
    const picked = progress && progress !== "merge" ? sequenceCommit(repo, progress) : null;
    text = longStatus(report, files, {
      branchLine: report.branch ? `On branch ${report.branch}` : await detachedLine(repo, report.head),
      tracking,
      progress,
      picked: picked ? abbreviate(repo, picked) : null,
      hints: repo.config.getBool("advice.statusHints", true),
      untrackedShown: untracked,
      untracked: shownUntracked,
    });
    if (report.withheld.length) {
      ctx.stderr.write(
        `[Note] ${report.withheld.length} secret path(s) are tracked and not inspected (listed in result.withheld).\n`,
      );
    }
  }
  ctx.stdout.write(text);
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
