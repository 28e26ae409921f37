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
import { authorOf, openFromFlags, plural } from "./common.ts";
import { openRepo } from "../repo/repo.ts";
import { connectionFor, gate, maxFetchBytes, pruneOf, refspecsOf, remoteUrlOf, reportFetch } from "./remote_shared.ts";

export const pull: Handler<
  typeof pullFlags,
  readonly [{ name: "remote-name"; description: string }, { name: "branch"; description: string }]
> = async (
  ctx,
) => {
  if (ctx.flags.rebase) {
    throw new PtermError(
      "InvalidArgs",
      "git pull --rebase is not available in pterm: `git pull --confirm` merges the upstream (a fast-forward when " +
        "you have no commits of your own); nothing was fetched.",
    );
  }
  const opened = await openFromFlags(ctx);
  const { rel, policy } = opened;
  let repo = opened.repo;
  const branch = readHead(repo).branch;
  if (!branch) throw new PtermError("InvalidArgs", "HEAD is detached: check out a branch to pull into.");
  // git pull rebases when branch.<name>.rebase (else pull.rebase) says so; pterm's pull merges only, so such a
  // setting is refused by name rather than ignored (`--no-rebase` overrides it, as in git).
  const rebaseSetting = repo.config.get(`branch.${branch}.rebase`) !== undefined
    ? `branch.${branch}.rebase`
    : "pull.rebase";
  const rebaseValue = repo.config.get(rebaseSetting);
  const noRebase = (ctx.flags as Record<string, unknown>)["no-rebase"] === true;
  if (!noRebase && rebaseValue !== undefined && !/^(false|no|off|0)$/i.test(rebaseValue)) {
    throw new PtermError(
      "InvalidArgs",
      `${rebaseSetting} is \`${rebaseValue}\` in the repository's config, so git would rebase; pterm's pull only ` +
        "merges. `git pull --no-rebase --confirm` merges as git does with that flag; nothing was fetched.",
    );
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
    (url) => `pull: fetching ${name} (${url}) and merging its ${merge.replace(/^refs\/heads\//, "")} into ${branch}`,
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
  repo = openRepo(repo.dir, repo.label, ctx.workspace.root);
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
  // Merging loads most of pterm's git (diff3, renames, checkout): only pull needs it.
  const { mergeInto } = await import("../porcelain/merge_into.ts");
  const outcome = await withRepoLock(repo, () =>
    mergeInto(repo, loadIndex(repo), policy, tracking, {
      noFf: false,
      message: `Merge branch '${upstreamName}' of ${remote.url.replace(/\.git$/, "")}`,
      author: authorOf(ctx, repo),
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
  if (outcome.outcome === "conflict") {
    throw new PtermError(
      "Conflict",
      `merging ${name}/${upstreamName} conflicted in ${outcome.conflicts.join(", ")}; those files contain conflict ` +
        `markers. Edit them, \`git add\` them and \`git commit\`, or \`git merge --repo ${rel} --abort\`.`,
      { result: { ...fields, outcome: "conflict" } },
    );
  }
  ctx.stdout.write(
    outcome.outcome === "up-to-date"
      ? "Already up to date.\n"
      : outcome.outcome === "fast-forward"
      ? `Fast-forward to ${outcome.head.slice(0, 7)} (${plural(outcome.changed.length, "path")} changed).\n`
      : `Merged ${name}/${upstreamName}: ${outcome.head.slice(0, 7)}.\n`,
  );
  return { ...fields, outcome: outcome.outcome };
};
