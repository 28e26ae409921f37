/**
 * `status`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import type { statusFlags } from "../sub/status.ts";
import { type Sequence, sequenceCommit, sequenceInProgress } from "../merge/sequence.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { rebaseStatusLines } from "../porcelain/rebase_status.ts";
import { type Tracking, trackingInfo } from "../porcelain/upstream.ts";
import { readReflog, resolveRefOid } from "../repo/refs.ts";
import type { Repo } from "../repo/repo.ts";
import { dwimRef, peel } from "../history/revparse.ts";
import type { Index } from "../worktree/index_file.ts";
import { tryWriteRefreshedIndex } from "../repo/state.ts";
import {
  computeStatus,
  stagedRenames,
  statusCounts,
  type StatusFile,
  statusFiles,
  type StatusReport,
  unaddressableWarning,
  UNMERGED_LABELS,
} from "../porcelain/status.ts";
import { quoteName } from "../odb/bytes.ts";
import { monitoredStatus } from "../worktree/fsmonitor.ts";
import { bounded, openFromFlags, refuseUnfollowedLayout, userPaths } from "./common.ts";
import type { PathPolicy } from "../worktree/worktree.ts";
import { loadIndex } from "../repo/state.ts";

/**
 * git's short format: two status letters (a space for unchanged) and the path, quoted as git quotes.
 * A submodule changed only inside is ` m` (modified content) or ` ?` (untracked content) there, as
 * in `git status --short`; `--porcelain` keeps ` M`, as git's porcelain v1 does.
 */
/** A name as git's short status writes it: quoted as everywhere, and also when it holds a space (QUOTE_PATH_QUOTE_SP). */
export function shortName(path: string, quotePath: boolean): string {
  const quoted = quoteName(path, quotePath);
  return quoted.startsWith('"') || !path.includes(" ") ? quoted : `"${quoted}"`;
}

export function shortStatus(
  files: readonly StatusFile[],
  untracked: readonly string[],
  porcelain: boolean,
  quotePath: boolean,
): string {
  // git's order (wt_shortstatus_print): tracked and unmerged paths by name, then the untracked ones.
  const tracked = files.filter((f) => f.xy !== "??");
  const shown = bounded(tracked, 1000);
  const lines = shown.items.map((f) => {
    let xy = f.xy;
    if (!porcelain && f.submodule && xy[1] === "M" && f.submodule[1] !== "C") {
      xy = xy[0] + (f.submodule[2] === "M" ? "m" : "?");
    }
    const from = f.orig_path !== undefined ? `${shortName(f.orig_path, quotePath)} -> ` : "";
    return `${xy.replaceAll(".", " ")} ${from}${shortName(f.path, quotePath)}`;
  });
  if (shown.truncated) lines.push(`... and ${tracked.length - shown.items.length} more (see the result)`);
  for (const path of untracked.slice(0, Math.max(0, 1000 - shown.items.length))) {
    lines.push(`?? ${shortName(path, quotePath)}`);
  }
  if (untracked.length > Math.max(0, 1000 - shown.items.length)) lines.push("... more untracked (see the result)");
  return lines.length ? lines.join("\n") + "\n" : "";
}

/**
 * The untracked entries as git lists them: with `-uall` every file; otherwise (git's "normal") a
 * folder that holds no tracked file is one `dir/` entry, its topmost such folder.
 */
export function untrackedAsGit(untracked: readonly string[], index: Index, all: boolean): string[] {
  if (all) return [...untracked];
  // The folders that hold tracked files are gathered only when something is untracked: a clean
  // status of a large index does not walk its every path.
  if (untracked.length === 0) return [];
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
export function submoduleNote(code: string | undefined): string {
  if (!code) return "";
  const parts = [
    code[1] === "C" ? "new commits" : null,
    code[2] === "M" ? "modified content" : null,
    code[3] === "U" ? "untracked content" : null,
  ].filter((p) => p !== null);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** git status -sb's first line: `## main...origin/main [ahead 1, behind 2]`, `## HEAD (no branch)`. */
export function branchLine(report: StatusReport, tracking: Tracking | null): string {
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
export function trackingLines(tracking: Tracking, hints: boolean): string[] {
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
export function sequenceLines(progress: Sequence, picked: string | null, unmerged: boolean, hints: boolean): string[] {
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

export const STAGED_LABELS: Record<string, string> = {
  A: "new file:",
  M: "modified:",
  D: "deleted:",
  T: "typechange:",
  R: "renamed:",
};

export const UNSTAGED_LABELS: Record<string, string> = {
  M: "modified:",
  D: "deleted:",
  T: "typechange:",
  A: "new file:",
};

/**
 * git's line for a detached HEAD (wt_status_get_detached_from): the last `checkout: moving from …
 * to <target>` in HEAD's reflog names what was checked out — as its ref (tags and remote branches
 * shortened) when the ref still names the commit it moved to, else that commit abbreviated — and
 * HEAD is "at" it while it has not moved since, "from" it after; without such an entry, "Not
 * currently on any branch."
 */
export async function detachedLine(repo: Repo, head: string | null): Promise<string> {
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
export interface LongStatusContext {
  /** The first line: `On branch <name>`, or git's line for a detached HEAD. */
  readonly branchLine: string;
  readonly tracking: Tracking | null;
  readonly progress: Sequence | null;
  /** The abbreviated commit a cherry-pick or revert in progress applies. */
  readonly picked: string | null;
  /** The block of a rebase in progress (its done and next commands, what to run), in place of `sequenceLines`. */
  readonly rebaseLines?: readonly string[];
  readonly hints: boolean;
  readonly untrackedShown: boolean;
  /** The untracked entries as git lists them in this mode (folders collapsed to `dir/` unless `-uall`). */
  readonly untracked: readonly string[];
  /** core.quotePath: whether names' characters outside ASCII are escaped. */
  readonly quotePath: boolean;
}

/**
 * `git status` in git's long form (wt-status.c's wt_longstatus_print, colour off): the branch, the
 * upstream, the operation in progress, then the staged, unmerged, unstaged and untracked sections
 * with git's hints (advice.statusHints), and git's closing sentence.
 */
export function longStatus(report: StatusReport, files: readonly StatusFile[], context: LongStatusContext): string {
  const { tracking, progress, hints, quotePath } = context;
  const lines = [context.branchLine];
  if (tracking && report.head) lines.push(...trackingLines(tracking, hints), "");
  const unmergedFiles = files.filter((f) => report.unmerged.has(f.path));
  if (context.rebaseLines) lines.push(...context.rebaseLines);
  else if (progress && progress !== "rebase") {
    lines.push(...sequenceLines(progress, context.picked, unmergedFiles.length > 0, hints));
  }
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
      const name = f.orig_path !== undefined
        ? `${quoteName(f.orig_path, quotePath)} -> ${quoteName(f.path, quotePath)}`
        : quoteName(f.path, quotePath);
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
    for (const f of unmergedFiles) lines.push(`\t${UNMERGED_LABELS[f.xy].padEnd(17)}${quoteName(f.path, quotePath)}`);
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
      lines.push(
        `\t${UNSTAGED_LABELS[f.xy[1]].padEnd(12)}${quoteName(f.path, quotePath)}${submoduleNote(f.submodule)}`,
      );
    }
    lines.push("");
  }
  if (context.untrackedShown && context.untracked.length) {
    lines.push("Untracked files:");
    if (hints) lines.push('  (use "git add <file>..." to include in what will be committed)');
    for (const path of context.untracked) lines.push(`\t${quoteName(path, quotePath)}`);
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
export function untrackedFilesMode(flag: string | undefined, repo: Repo): "no" | "normal" | "all" {
  if (flag === "no" || flag === "normal" || flag === "all") return flag;
  const setting = repo.config.get("status.showUntrackedFiles")?.trim().toLowerCase();
  if (setting === undefined) return "normal";
  if (setting === "all") return "all";
  return ["no", "false", "off", "0"].includes(setting) ? "no" : "normal";
}

/**
 * git's long status (what `git status` prints, and what git's stash apply prints after it): the branch line, a
 * rebase's, merge's or pick's block, the upstream, the staged, unstaged, unmerged and untracked lists with git's hints.
 */
export async function longStatusText(
  repo: Repo,
  report: StatusReport,
  files: readonly StatusFile[],
  shown: { tracking: Tracking | null; untrackedShown: boolean; untracked: readonly string[] },
): Promise<string> {
  const progress = sequenceInProgress(repo);
  const picked = progress && progress !== "merge" ? sequenceCommit(repo, progress) : null;
  const hints = repo.config.getBool("advice.statusHints", true);
  const rebasing = progress === "rebase" ? rebaseStatusLines(repo, report.unmerged.size > 0, hints) : null;
  return longStatus(report, files, {
    branchLine: report.branch
      ? `On branch ${report.branch}`
      : rebasing?.branchLine ?? await detachedLine(repo, report.head),
    rebaseLines: rebasing?.lines,
    tracking: shown.tracking,
    progress,
    picked: picked ? abbreviate(repo, picked) : null,
    hints,
    untrackedShown: shown.untrackedShown,
    untracked: shown.untracked,
    quotePath: repo.quotePath,
  });
}

/** `git status` as git prints it after another command (stash apply): the repository's settings, every path. */
export async function statusAfter(repo: Repo, policy: PathPolicy): Promise<string> {
  const mode = untrackedFilesMode(undefined, repo);
  const index = loadIndex(repo);
  const report = await computeStatus(repo, index, policy, { untracked: mode !== "no", paths: null });
  const files = statusFiles(report, await stagedRenames(repo, index, report));
  const tracking = report.branch
    ? await trackingInfo(repo, report.branch, repo.config.getBool("status.aheadBehind", true))
    : null;
  return await longStatusText(repo, report, files, {
    tracking,
    untrackedShown: mode !== "no",
    untracked: untrackedAsGit(report.untracked, index, mode === "all"),
  });
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
  // Columns apply to the long form's untracked list only, as in git.
  if (!short && shownUntracked.length) refuseUnfollowedLayout(repo, "status");
  let text: string;
  if (short) {
    text = (ctx.flags.branch ? branchLine(report, tracking) : "") +
      shortStatus(files, shownUntracked, ctx.flags.porcelain === true, repo.quotePath);
  } else {
    text = await longStatusText(repo, report, files, {
      tracking,
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
