/**
 * What several of the change handlers share (entries/change.ts lists them).
 */

import { skippedHooks } from "../repo/hooks.ts";
import type { CommandContext, Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { stashRefFlags } from "../sub/stash.ts";
import { ancestorsOf, readCommit, walkLog } from "../history/log.ts";
import { abbreviate } from "../odb/abbrev.ts";
import { comparePaths, quoteName } from "../odb/bytes.ts";
import { resolveCommit } from "../history/revparse.ts";
import { commitOneLine, headNowAtText } from "../porcelain/summary_text.ts";
import { computeStatus } from "../porcelain/status.ts";
import { trackingInfo } from "../porcelain/upstream.ts";
import { statusAfter, trackingLines } from "./status.ts";
import { createBranch } from "../porcelain/branches.ts";
import { abortSequence, continueSequence } from "../porcelain/sequence_control.ts";
import { endBranchState } from "../porcelain/commit.ts";
import { switchTo } from "../porcelain/switch.ts";
import { checkBranchName, listRefs, readHead, resolveRefOid } from "../repo/refs.ts";
import { quitSequence, type Sequence, sequenceCommit } from "../merge/sequence.ts";
import { setConfigValues } from "../repo/config_edit.ts";
import { type TrackChoice, upstreamForNewBranch } from "../porcelain/upstream.ts";
import { type Upstream, upstreamLabel } from "../repo/upstream_config.ts";
import { dwimRef, noPriorCheckout, priorCheckout } from "../history/revparse.ts";
import { wildmatch } from "../worktree/wildmatch.ts";
import { parseStashRef, stashApply, stashDrop } from "../porcelain/stash.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { printedBy } from "../porcelain/printed.ts";
import { authorOf, bounded, type Opened, openFromFlags, plural } from "./common.ts";

export type Pos<N extends string> = readonly { name: N; description: string }[];

/** A `--list` pattern as git's branch and tag lists match it (wildmatch without pathname: `*` spans `/`). */
export function matchesPattern(name: string, pattern: string | undefined): boolean {
  return pattern === undefined || wildmatch(pattern, name, { pathname: false });
}

/** `--track` / `--no-track` as one choice. */
export function trackChoice(flags: { track?: boolean; "no-track"?: boolean }): TrackChoice {
  if (flags.track && flags["no-track"]) throw new PtermError("InvalidArgs", "give either --track or --no-track.");
  return flags.track ? "track" : flags["no-track"] ? "no-track" : "default";
}

/** Writes `branch.<name>.remote` / `.merge` and returns git's line about it. */
export async function recordUpstream(repo: Opened["repo"], name: string, upstream: Upstream): Promise<string> {
  await setConfigValues(repo, "branch", name, [["remote", upstream.remote], ["merge", upstream.merge]]);
  return `branch '${name}' set up to track '${upstreamLabel(upstream)}'.\n`;
}

// deno-lint-ignore no-explicit-any
export type AnyContext = CommandContext<any, any>;

/**
 * The word `git switch` and `git checkout` go to: `-` is `@{-1}`, and `@{-n}` is the branch (or, after a detached
 * HEAD, the commit) checked out n switches ago, as git's interpret_branch_name reads HEAD's log — so going back
 * lands on the branch itself, not a detached HEAD at its commit.
 */
export function checkoutTarget(repo: Opened["repo"], word: string): string {
  const spelled = word === "-" ? "@{-1}" : word;
  const prior = /^@\{-(\d+)\}$/.exec(spelled);
  if (!prior || Number(prior[1]) === 0) return word;
  const name = priorCheckout(repo, Number(prior[1]));
  if (name === null) throw noPriorCheckout(word);
  return name;
}

/**
 * What git's checkout and switch print after HEAD moved (builtin/checkout.c): on stdout the local changes carried
 * over (`M\tpath`, HEAD against the work tree, unless forced) and the branch's standing against its upstream; on
 * stderr leaving a detached HEAD (`Previous HEAD position was …`, or the warning about commits left behind), then
 * `Switched to branch 'x'` (`a new branch`, `and reset`, `Already on`), or for a detached HEAD git's advice (when it
 * came from a branch without --detach) and `HEAD is now at <id> <subject>`.
 */
async function switchedText(
  repo: Opened["repo"],
  policy: Opened["policy"],
  step: {
    before: ReturnType<typeof readHead>;
    after: { branch: string | null; head: string };
    target: string;
    created: boolean;
    startGiven: boolean;
    forceCreate: boolean;
    resetExisting: boolean;
    explicitDetach: boolean;
    force: boolean;
  },
): Promise<{ localChanges: string; stdout: string; stderr: string }> {
  const { before, after } = step;
  let localChanges = "";
  // git skips the work tree (and so this list) for a new branch at HEAD's commit (checkout.c's
  // skip_merge_working_tree), unless forced, detached explicitly or made with -B.
  const treeSkipped = step.created && !step.startGiven && !step.forceCreate && !step.explicitDetach &&
    before.oid === after.head;
  if (!step.force && !treeSkipped) {
    const report = await computeStatus(repo, loadIndex(repo), policy, { untracked: false });
    const paths = [...new Set([...report.staged.keys(), ...report.unstaged.keys()])].sort(comparePaths);
    for (const path of paths) {
      const staged = report.staged.get(path);
      const unstaged = report.unstaged.get(path);
      const code = staged === "A" || staged === "D"
        ? staged
        : unstaged === "D"
        ? "D"
        : staged === "T" || unstaged === "T"
        ? "T"
        : "M";
      localChanges += `${code}\t${quoteName(path, repo.quotePath)}\n`;
    }
  }
  let stdout = "";
  let stderr = "";
  if (!before.branch && before.oid && before.oid !== after.head) {
    stderr += await leftDetachedText(repo, before.oid, after.head);
  }
  if (after.branch) {
    if (before.branch === after.branch) {
      stderr += step.resetExisting ? `Reset branch '${after.branch}'\n` : `Already on '${after.branch}'\n`;
    } else if (step.created) {
      stderr += step.resetExisting
        ? `Switched to and reset branch '${after.branch}'\n`
        : `Switched to a new branch '${after.branch}'\n`;
    } else stderr += `Switched to branch '${after.branch}'\n`;
  } else {
    if (before.branch && !step.explicitDetach && repo.config.getBool("advice.detachedHead", true)) {
      stderr += detachedHeadAdvice(step.target);
    }
    stderr += await headNowAtText(repo, after.head);
  }
  // git reports the upstream of the branch it switched to, or that the word named when HEAD was detached at it;
  // not of a branch it made from a start point.
  const reported = after.branch
    ? (step.created && step.startGiven ? null : after.branch)
    : resolveRefOid(repo, `refs/heads/${step.target}`)
    ? step.target
    : null;
  const tracking = reported ? await trackingInfo(repo, reported, true) : null;
  if (tracking) stdout += trackingLines(tracking, repo.config.getBool("advice.statusHints", true)).join("\n") + "\n";
  return { localChanges, stdout, stderr };
}

/** git's advice on entering a detached HEAD (checkout.c's detach_advice). */
function detachedHeadAdvice(name: string): string {
  return `Note: switching to '${name}'.\n\n` +
    "You are in 'detached HEAD' state. You can look around, make experimental\n" +
    "changes and commit them, and you can discard any commits you make in this\n" +
    "state without impacting any branches by switching back to a branch.\n\n" +
    "If you want to create a new branch to retain commits you create, you may\n" +
    "do so (now or later) by using -c with the switch command. Example:\n\n" +
    "  git switch -c <new-branch-name>\n\n" +
    "Or undo this operation with:\n\n" +
    "  git switch -\n\n" +
    "Turn off this advice by setting config variable advice.detachedHead to false\n\n";
}

/** Commits left behind listed in git's warning; more are counted (checkout.c's ORPHAN_CUTOFF). */
const ORPHANS_LISTED = 4;

/**
 * What git prints when HEAD leaves a detached commit (checkout.c's orphaned_commit_warning): where it was, or,
 * when commits reachable from it are reachable from no ref and not from the new HEAD, the warning naming them.
 */
async function leftDetachedText(repo: Opened["repo"], old: string, now: string): Promise<string> {
  const kept = await ancestorsOf(repo, now);
  for (const name of listRefs(repo, "refs").keys()) {
    let tip: string;
    try {
      tip = await resolveCommit(repo, name);
    } catch {
      continue; // a ref to a tree or blob holds no commit
    }
    if (!kept.has(tip)) { for (const oid of await ancestorsOf(repo, tip)) kept.add(oid); }
  }
  const lost = await walkLog(repo, old, Number.MAX_SAFE_INTEGER, null, kept);
  if (lost.length === 0) return `Previous HEAD position was ${await commitOneLine(repo, old)}\n`;
  const line = async (oid: string) => `  ${await commitOneLine(repo, oid)}\n`;
  let listed = "";
  for (const c of lost.slice(0, ORPHANS_LISTED)) listed += await line(c.id);
  const more = lost.length - ORPHANS_LISTED;
  if (more === 1) listed += await line(lost[ORPHANS_LISTED].id);
  else if (more > 1) listed += ` ... and ${more} more.\n`;
  const one = lost.length === 1;
  let text = `Warning: you are leaving ${lost.length} commit${one ? "" : "s"} behind, not connected to\n` +
    `any of your branches:\n\n${listed}\n`;
  if (repo.config.getBool("advice.detachedHead", true)) {
    text += `If you want to keep ${one ? "it" : "them"} by creating a new branch, this may be a good time\n` +
      `to do so with:\n\n git branch <new-branch-name> ${abbreviate(repo, old)}\n\n`;
  }
  return text;
}

/** Switches HEAD (creating the branch first if asked): the shared body of checkout and switch. */
export async function switchHead(
  ctx: AnyContext,
  opened: Opened,
  target: string | undefined,
  options: { create?: string; forceCreate?: string; detach: boolean; force: boolean; track: TrackChoice },
) {
  const { repo, policy, rel } = opened;
  const author = authorOf(ctx, repo);
  if (options.create && options.forceCreate) {
    throw new PtermError("InvalidArgs", "give either the create or the force-create flag, not both.");
  }
  let newBranch = options.create ?? options.forceCreate;
  if (!newBranch && options.track === "track") {
    // `git switch --track origin/fix`: the new branch is named after the remote one, as git does.
    const full = target ? dwimRef(repo, target) : null;
    const remoteBranch = full?.match(/^refs\/remotes\/[^/]+\/(.+)$/)?.[1];
    if (!remoteBranch) {
      throw new PtermError(
        "InvalidArgs",
        "--track without a new branch name needs a remote-tracking branch to name it after (e.g. origin/fix); " +
          "otherwise give the name: `--create <branch>`.",
      );
    }
    newBranch = options.create = remoteBranch;
  }
  if (newBranch && options.detach) throw new PtermError("InvalidArgs", "a new branch cannot be --detach'ed.");
  if (options.forceCreate) checkBranchName(options.forceCreate);
  // Decided before anything changes: an impossible --track refuses the whole call.
  const upstream = newBranch ? upstreamForNewBranch(repo, newBranch, target ?? "HEAD", options.track) : null;
  if (!newBranch && options.track !== "default") {
    throw new PtermError("InvalidArgs", "--track / --no-track go with a new branch (--create <branch>).");
  }
  const before = readHead(repo);
  const resetExisting = !!options.forceCreate && resolveRefOid(repo, `refs/heads/${options.forceCreate}`) !== null;
  let cancelled = "";
  const outcome = await withRepoLock(repo, async () => {
    const index = loadIndex(repo);
    let switched;
    if (options.forceCreate && resolveRefOid(repo, `refs/heads/${options.forceCreate}`)) {
      // -B / -C: the branch is reset to the start point, then checked out.
      const detached = await switchTo(repo, index, policy, target ?? "HEAD", {
        detach: true,
        force: options.force,
        author,
      });
      await createBranch(repo, options.forceCreate, detached.head, author, true);
      switched = await switchTo(repo, loadIndex(repo), policy, options.forceCreate, { force: options.force, author });
    } else {
      switched = await switchTo(repo, index, policy, target ?? "HEAD", {
        detach: options.detach,
        force: options.force,
        createBranch: newBranch,
        author,
      });
    }
    // As git's checkout: a merge, cherry-pick or revert in progress ends with the switch (git switch
    // refused to start one).
    cancelled = endBranchState(repo);
    return switched;
  });
  const action = newBranch ? "create" : outcome.branch ? "switch" : "detach";
  // The branch exists now: its upstream is recorded after it, as git writes it after creating the ref.
  const tracking = upstream && newBranch ? await recordUpstream(repo, newBranch, upstream) : "";
  const printed = await switchedText(repo, opened.policy, {
    before,
    after: outcome,
    target: target ?? "HEAD",
    startGiven: target !== undefined,
    created: newBranch !== undefined,
    forceCreate: options.forceCreate !== undefined,
    resetExisting,
    explicitDetach: options.detach,
    force: options.force,
  });
  ctx.stdout.write(printed.localChanges + tracking + printed.stdout);
  ctx.stderr.write(printed.stderr + cancelled);
  const listed = bounded(outcome.changed);
  return {
    repo_path: rel,
    action,
    branch: outcome.branch,
    head: outcome.head,
    changed_paths: listed.items,
    truncated: listed.truncated,
    withheld: outcome.withheld,
    ...(newBranch ? { upstream: upstream && upstreamLabel(upstream) } : {}),
  };
}

/** git runs `post-checkout` after a switch; pterm runs no programs, and says so. */
export function warnSkippedCheckoutHook(ctx: AnyContext, repo: Opened["repo"]): void {
  const hooks = skippedHooks(repo, ["post-checkout"]);
  if (hooks) ctx.stderr.write(`[Warning] ${hooks}\n`);
}

/**
 * git's line for a dropped stash entry: the entry as it was named (a bare number and no name at all are
 * `refs/stash@{N}`, as git's get_stash_info spells them) and its full commit id.
 */
export function droppedStashText(word: string | undefined, oid: string): string {
  const named = word === undefined ? "refs/stash@{0}" : /^\d+$/.test(word) ? `refs/stash@{${word}}` : word;
  return `Dropped ${named} (${oid})\n`;
}

export function applyHandler(pop: boolean): Handler<typeof stashRefFlags, Pos<"stash">> {
  return async (ctx) => {
    const { repo, policy, rel } = await openFromFlags(ctx);
    const n = parseStashRef(ctx.positionals.stash as string | undefined);
    const result = await withRepoLock(repo, async () => {
      const applied = await stashApply(repo, loadIndex(repo), policy, n);
      let dropped = false;
      if (pop && applied.conflicts.length === 0) {
        await stashDrop(repo, n);
        dropped = true;
      }
      return { ...applied, dropped };
    });
    const fields = {
      repo_path: rel,
      stash: `stash@{${n}}`,
      commit_id: result.commit_id,
      changed_paths: result.changed,
      conflicts: result.conflicts,
      dropped: result.dropped,
    };
    // git's text: merge-ort's lines, the status after the apply (git runs `git status`), then the drop's line
    // (or, for a pop that stopped on conflicts, that the entry is kept).
    ctx.stdout.write(result.printed + await statusAfter(repo, policy));
    if (result.conflicts.length > 0) {
      if (pop) ctx.stdout.write("The stash entry is kept in case you need it again.\n");
      throw new PtermError(
        "Conflict",
        `applying stash@{${n}} conflicted in ${result.conflicts.join(", ")}; the files contain conflict markers. ` +
          "Edit them, `git add` them; the stash entry is kept.",
        { result: fields },
      );
    }
    if (result.dropped) {
      ctx.stdout.write(droppedStashText(ctx.positionals.stash as string | undefined, result.commit_id));
    }
    return fields;
  };
}

/** Which of --continue, --abort, --quit, --skip was given (at most one), or null. */
export function sequenceAction(
  flags: { continue?: boolean; abort?: boolean; quit?: boolean; skip?: boolean },
): "continue" | "abort" | "quit" | "skip" | null {
  const given = (["continue", "abort", "quit", "skip"] as const).filter((name) => flags[name]);
  if (given.length > 1) throw new PtermError("InvalidArgs", `give one of ${given.map((g) => `--${g}`).join(", ")}.`);
  return given[0] ?? null;
}

/**
 * `git cherry-pick|revert|merge --continue|--abort|--quit|--skip` on the operation that stopped.
 * --skip drops the one commit being applied: pterm applies one at a time, so it is --abort.
 */
export async function finishSequence(
  ctx: AnyContext,
  opened: Opened,
  kind: Sequence,
  action: "continue" | "abort" | "quit" | "skip",
) {
  const { repo, policy } = opened;
  const applied = kind === "merge" ? null : sequenceCommit(repo, kind);
  const title = kind === "merge" ? "Merge" : kind === "revert" ? "Revert" : "Cherry-pick";
  if (action === "quit") {
    quitSequence(repo, kind);
    ctx.stdout.write(`${title} forgotten; index and work tree are as they were.\n`);
    return { applied, commit_id: null, changed_paths: [] as string[] };
  }
  if (action === "continue") {
    const id = await withRepoLock(
      repo,
      () => continueSequence(repo, loadIndex(repo), kind, authorOf(ctx, repo), ctx.flags.author !== undefined),
    );
    const made = await readCommit(repo, id);
    ctx.stdout.write(
      `[${readHead(repo).branch ?? "detached HEAD"} ${id.slice(0, 7)}] ${made.message.split("\n")[0]}\n`,
    );
    return { applied, commit_id: id, changed_paths: [] as string[] };
  }
  const changed = await withRepoLock(repo, () => abortSequence(repo, loadIndex(repo), policy, kind));
  ctx.stdout.write(
    `${title} ${action === "skip" ? "skipped" : "aborted"}; ${plural(changed.length, "path")} restored.\n`,
  );
  return { applied, commit_id: null, changed_paths: changed };
}

/**
 * Runs a merge, cherry-pick or revert; a refusal that carries git's own text (files in the merge's way) writes it
 * out first, then git's closing line for the command (`fatal: cherry-pick failed`), as git prints them.
 */
export async function printingGitRefusal<T>(ctx: AnyContext, closing: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const printed = printedBy(error);
    if (printed) {
      ctx.stdout.write(printed.stdout);
      ctx.stderr.write(`${printed.stderr}${closing}\n`);
    }
    throw error;
  }
}
