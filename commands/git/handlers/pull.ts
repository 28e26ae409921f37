/**
 * `pull`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { pullFlags } from "../sub/pull.ts";
import { signatureNow } from "../repo/identity.ts";
import { fetchInto, mapRef } from "../remote/operations.ts";
import { readHead, resolveRefOid } from "../repo/refs.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import { authorOf, openFromFlags } from "./common.ts";
import { reopenRepo } from "../repo/repo.ts";
import { connectionFor, gate, maxFetchBytes, pruneOf, refspecsOf, remoteUrlOf, reportFetch } from "./remote_shared.ts";

export const pull: Handler<
  typeof pullFlags,
  readonly [{ name: "remote-name"; description: string }, { name: "branch"; description: string }]
> = async (
  ctx,
) => {
  const opened = await openFromFlags(ctx);
  const { rel, policy } = opened;
  let repo = opened.repo;
  const branch = readHead(repo).branch;
  if (!branch) throw new PtermError("InvalidArgs", "HEAD is detached: check out a branch to pull into.");
  // git pull rebases with --rebase, or when branch.<name>.rebase (else pull.rebase) says so; `--no-rebase` wins.
  const rebaseSetting = repo.config.get(`branch.${branch}.rebase`) !== undefined
    ? `branch.${branch}.rebase`
    : "pull.rebase";
  const rebaseValue = repo.config.get(rebaseSetting);
  const noRebase = (ctx.flags as Record<string, unknown>)["no-rebase"] === true;
  let rebase = ctx.flags.rebase === true && !noRebase;
  if (!noRebase && !ctx.flags.rebase && rebaseValue !== undefined) {
    if (/^(true|yes|on|1|)$/i.test(rebaseValue)) rebase = true;
    else if (!/^(false|no|off|0)$/i.test(rebaseValue)) {
      // merges (--rebase-merges) and interactive: rebases pterm does not run; refused by name, not ignored.
      throw new PtermError(
        "InvalidArgs",
        `${rebaseSetting} is \`${rebaseValue}\` in the repository's config, so git would rebase that way; pterm's ` +
          "pull rebases only as plain `git pull --rebase` does. `git pull --rebase --confirm` rebases plainly, " +
          "`git pull --no-rebase --confirm` merges; nothing was fetched.",
      );
    }
  }
  if (rebase) {
    // As git's pull: a rebase needs a clean work tree, checked before anything is fetched.
    const { requireClean } = await import("../porcelain/rebase.ts");
    const { printedBy } = await import("../porcelain/printed.ts");
    try {
      await requireClean(repo, loadIndex(repo), policy, "pull with rebase");
    } catch (error) {
      const printed = printedBy(error);
      if (printed) ctx.stderr.write(printed.stderr);
      throw error;
    }
  }
  const name = repo.config.get(`branch.${branch}.remote`);
  const merge = repo.config.get(`branch.${branch}.merge`);
  // `git pull origin main`: pterm pulls the branch's upstream, so a named one must be that upstream.
  const askedRemote = ctx.positionals["remote-name"] as string | undefined;
  const askedBranch = ctx.positionals.branch as string | undefined;
  if (
    (askedRemote !== undefined && askedRemote !== name) ||
    (askedBranch !== undefined && `refs/heads/${askedBranch.replace(/^refs\/heads\//, "")}` !== merge)
  ) {
    throw new PtermError(
      "InvalidArgs",
      `pterm's pull merges ${branch}'s upstream${
        name && merge ? ` (${name} ${merge.replace(/^refs\/heads\//, "")})` : ""
      }; ` +
        `to merge another remote branch run \`git fetch ${askedRemote ?? "origin"} --confirm\`, then ` +
        `\`git merge ${askedRemote ?? "origin"}/${askedBranch ?? "<branch>"}\`. Nothing was fetched.`,
    );
  }
  if (!name || !merge) {
    throw new PtermError(
      "InvalidArgs",
      `${branch} has no upstream (branch.${branch}.remote and .merge in .git/config). Push it once with ` +
        `\`git push --repo ${rel} --branch ${branch} --set-upstream --confirm\`, or merge a fetched branch with ` +
        `\`git merge --repo ${rel} --branch origin/<name>\`.`,
    );
  }
  const remote = gate(
    ctx,
    remoteUrlOf(repo, name, rel),
    (url) =>
      `pull: fetching ${name} (${url}) and ${rebase ? "rebasing" : "merging"} ${branch} ${
        rebase ? "onto" : "with"
      } its ` +
      `${merge.replace(/^refs\/heads\//, "")}`,
    `the URL of remote ${name}`,
  );
  const refspecs = refspecsOf(repo, name);
  const tracking = refspecs.map((spec) => mapRef(spec, merge)).find((r) => r !== null);
  if (!tracking) {
    throw new PtermError(
      "UnsupportedFormat",
      `${merge} (the upstream of ${branch}) is not fetched by remote.${name}.fetch; fix the refspec with the real git.`,
    );
  }
  const trackedBefore = resolveRefOid(repo, tracking);
  const fetched = await fetchInto({
    connection: await connectionFor(ctx, remote),
    repo,
    remoteName: name,
    refspecs,
    prune: pruneOf(ctx, repo, name),
    maxBytes: maxFetchBytes(ctx),
    who: signatureNow(authorOf(ctx, repo)),
  });
  reportFetch(ctx, name, fetched.refs);
  // A fresh view of the repository: its object store sees the pack the fetch added.
  // The call's command-line settings (a `-c core.quotePath=…` included) stay the rebase's.
  repo = reopenRepo(repo, ctx.workspace.root);
  if (!resolveRefOid(repo, tracking)) {
    throw new PtermError(
      "NotFound",
      `${name} has no ${merge.replace(/^refs\/heads\//, "")} to pull (${tracking} is absent).`,
    );
  }
  const upstreamName = merge.replace(/^refs\/heads\//, "");
  if (ctx.flags["ff-only"]) {
    const ours = readHead(repo).oid;
    const theirs = resolveRefOid(repo, tracking)!;
    const { mergeBases } = await import("../merge/merge.ts");
    const bases = ours ? await mergeBases(repo, ours, theirs) : [];
    if (ours && ours !== theirs && !bases.includes(ours) && !bases.includes(theirs)) {
      throw new PtermError(
        "Rejected",
        `not possible to fast-forward ${branch} to ${name}/${upstreamName}: the branches have diverged. The fetch ` +
          `is done (${tracking} moved); nothing was merged. \`git pull --confirm\` makes a merge commit.`,
      );
    }
  }
  // git names the reflog entries after the command line as given (its GIT_REFLOG_ACTION), a merge's as a rebase's.
  const reflogAction = [
    "pull",
    ...(ctx.flags.rebase ? ["--rebase"] : []),
    ...(noRebase ? ["--no-rebase"] : []),
    ...(ctx.flags["ff-only"] ? ["--ff-only"] : []),
    ...(askedRemote ? [askedRemote] : []),
    ...(askedBranch ? [askedBranch] : []),
  ].join(" ");
  const ours = readHead(repo).oid;
  const theirs = resolveRefOid(repo, tracking)!;
  const { isAncestor } = await import("../merge/merge.ts");
  if (rebase && !(ours && ours !== theirs && (await isAncestor(repo, ours, theirs)))) {
    // git's pull --rebase: `git rebase --onto <fetched> <fork point>`, the fork point being where the branch left
    // the remote-tracking branch before this fetch (else the fetched commit); a fast-forward merges instead (as
    // git's pull, named after the pull: `pull --rebase: Fast-forward`).
    const forkPoint = trackedBefore && ours && (await isAncestor(repo, trackedBefore, ours)) ? trackedBefore : theirs;
    const { startRebase } = await import("../porcelain/rebase.ts");
    const { reportRebase } = await import("./rebase.ts");
    const rebased = await withRepoLock(repo, () =>
      startRebase(repo, loadIndex(repo), policy, {
        upstream: forkPoint,
        onto: theirs,
        author: authorOf(ctx, repo),
        action: reflogAction,
        adviceSkipped: repo.config.getBool("advice.skippedCherryPicks", true),
      }));
    const report = reportRebase(ctx, rel, rebased);
    return {
      repo_path: rel,
      remote: name,
      url: remote.url,
      merged: tracking,
      commit_id: null,
      head: report.head,
      changed_paths: report.changed_paths,
      conflicts: [],
      fetched: fetched.refs,
      transfer: fetched.stats,
      outcome: rebased.outcome === "up-to-date" ? "up-to-date" as const : "rebased" as const,
    };
  }
  // Merging loads most of pterm's git (diff3, renames, checkout): only pull needs it.
  const { mergeInto } = await import("../porcelain/merge_into.ts");
  const outcome = await withRepoLock(repo, () =>
    mergeInto(repo, loadIndex(repo), policy, tracking, {
      noFf: false,
      message: `Merge branch '${upstreamName}' of ${remote.url.replace(/\.git$/, "")}`,
      author: authorOf(ctx, repo),
      reflogAction,
    }));
  const fields = {
    repo_path: rel,
    remote: name,
    url: remote.url,
    merged: tracking,
    commit_id: outcome.commit_id,
    head: outcome.head,
    changed_paths: outcome.changed,
    conflicts: outcome.conflicts,
    fetched: fetched.refs,
    transfer: fetched.stats,
  };
  // git's text of the merge (of its stop, before pterm's error).
  ctx.stdout.write(outcome.printed.stdout);
  ctx.stderr.write(outcome.printed.stderr);
  if (outcome.outcome === "conflict") {
    throw new PtermError(
      "Conflict",
      `merging ${name}/${upstreamName} conflicted in ${outcome.conflicts.join(", ")}; those files contain conflict ` +
        `markers. Edit them, \`git add\` them and \`git commit\`, or \`git merge --repo ${rel} --abort\`.`,
      { result: { ...fields, outcome: "conflict" } },
    );
  }
  return { ...fields, outcome: outcome.outcome };
};
