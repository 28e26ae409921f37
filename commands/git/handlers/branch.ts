/**
 * `branch`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { branchFlags } from "../sub/branch.ts";
import { createBranch, deleteBranch, listBranches, renameBranch } from "../porcelain/branches.ts";
import { readHead, resolveRefOid } from "../repo/refs.ts";
import { listRemoteBranches } from "../remote/tracking.ts";
import { removeConfigValues } from "../repo/config_edit.ts";
import { upstreamForNewBranch, upstreamNamed } from "../porcelain/upstream.ts";
import { configuredUpstream, type Upstream, upstreamLabel } from "../repo/upstream_config.ts";
import { withRepoLock } from "../repo/state.ts";
import {
  type BranchListOptions,
  branchListText,
  checkFormat,
  formatRef,
  listedRefs,
} from "../porcelain/branch_list.ts";
import { detachedLine } from "./status.ts";
import { authorOf, type Opened, openFromFlags, refuseUnfollowedLayout } from "./common.ts";
import { type AnyContext, matchesPattern, type Pos, recordUpstream, trackChoice } from "./change_shared.ts";
import { abbreviate } from "../odb/abbrev.ts";

/** `git branch --set-upstream-to <upstream> [<name>]` and `--unset-upstream [<name>]`. */
export async function changeUpstream(
  ctx: AnyContext,
  opened: Opened,
  name: string | undefined,
  current: string | null,
  setTo: string | undefined,
) {
  const { repo, rel } = opened;
  const target = name ?? current;
  if (!target) {
    throw new PtermError("InvalidArgs", "HEAD is detached: name the branch whose upstream to change.");
  }
  const commit = resolveRefOid(repo, `refs/heads/${target}`);
  if (!commit) throw new PtermError("NotFound", `there is no branch ${target}; list branches with \`git branch\`.`);
  let upstream: Upstream | null = null;
  if (setTo !== undefined) {
    upstream = upstreamNamed(repo, setTo);
    ctx.stdout.write(await recordUpstream(repo, target, upstream));
  } else {
    if (!configuredUpstream(repo, target)) {
      throw new PtermError("NotFound", `the branch ${target} has no upstream; nothing to remove.`);
    }
    await removeConfigValues(repo, "branch", target, ["remote", "merge"]);
    ctx.stdout.write(`Removed the upstream of ${target}.\n`);
  }
  return {
    repo_path: rel,
    current,
    action: setTo !== undefined ? "set-upstream" as const : "unset-upstream" as const,
    branches: listBranches(repo),
    name: target,
    commit,
    upstream: upstream && upstreamLabel(upstream),
  };
}

export const branch: Handler<typeof branchFlags, Pos<"name" | "start">> = async (ctx) => {
  const opened = await openFromFlags(ctx);
  const { repo, rel } = opened;
  let name = ctx.positionals.name as string | undefined;
  let start = ctx.positionals.start as string | undefined;
  const author = authorOf(ctx, repo);
  const head = readHead(repo);
  const current = head.branch && head.ref?.startsWith("refs/heads/") ? head.branch : null;
  const base = { repo_path: rel, current };
  const remove = ctx.flags.delete || ctx.flags["force-delete"];
  const move = ctx.flags.move || ctx.flags["force-move"];
  const force = ctx.flags.force || ctx.flags["force-delete"] || ctx.flags["force-move"];
  if (remove && move) {
    throw new PtermError("InvalidArgs", "give either --delete (-d/-D) or --move (-m/-M), not both.");
  }
  const setUpstream = ctx.flags["set-upstream-to"];
  if (setUpstream !== undefined || ctx.flags["unset-upstream"]) {
    if (setUpstream !== undefined && ctx.flags["unset-upstream"]) {
      throw new PtermError("InvalidArgs", "give either --set-upstream-to or --unset-upstream.");
    }
    if (remove || move || start) {
      throw new PtermError(
        "InvalidArgs",
        "--set-upstream-to / --unset-upstream take at most one branch name: `git branch -u origin/main [<branch>]`.",
      );
    }
    return await changeUpstream(ctx, opened, name, current, setUpstream);
  }
  if (ctx.flags["show-current"]) {
    ctx.stdout.write(current ? `${current}\n` : "");
    return { ...base, action: "show-current", branches: [], name: current, commit: head.oid };
  }
  // `git branch -m new` renames the current branch.
  if (move && name && !start) {
    if (!current) throw new PtermError("InvalidArgs", "HEAD is detached: name the branch to rename: -m <old> <new>.");
    [name, start] = [current, name];
  }
  const remotesWanted = ctx.flags.all || ctx.flags.remotes;
  if (!name || ctx.flags.list || remotesWanted) {
    if (remove || move) {
      throw new PtermError("InvalidArgs", "name the branch: `git branch -d <name>` or `git branch -m <old> <new>`.");
    }
    if (start) throw new PtermError("InvalidArgs", "--list takes one pattern.");
    const branches = listBranches(repo).filter((b) => matchesPattern(b.name, name));
    const remotes = remotesWanted ? listRemoteBranches(repo).filter((b) => matchesPattern(b.name, name)) : [];
    refuseUnfollowedLayout(repo, "branch", ctx.flags.verbose.length === 0);
    if (ctx.flags.format !== undefined) checkFormat(ctx.flags.format);
    const options: BranchListOptions = {
      verbose: ctx.flags.verbose.length,
      // -r lists the remote-tracking branches alone (no local one, no detached HEAD line), as git.
      locals: !ctx.flags.remotes || ctx.flags.all,
      remotes: remotesWanted,
      detached: ctx.flags.remotes && !ctx.flags.all
        ? null
        : head.ref === null && head.oid
        ? `(${await detachedDescription(repo, head.oid)})`
        : null,
      headOid: head.oid,
      headRef: head.ref,
      matches: (n) => matchesPattern(n, name),
    };
    const listed = listedRefs(repo, options);
    if (ctx.flags.format !== undefined) {
      let text = "";
      for (const r of listed) text += await formatRef(repo, r, ctx.flags.format) + "\n";
      ctx.stdout.write(text);
    } else ctx.stdout.write(await branchListText(repo, listed, options));
    return {
      ...base,
      action: "list",
      // -r lists no local branch.
      branches: ctx.flags.remotes && !ctx.flags.all ? [] : branches,
      // Only with --all or --remotes, as git branch -a and -r list them.
      ...(remotesWanted ? { remote_branches: remotes } : {}),
      name: null,
      commit: null,
    };
  }
  if (remove) {
    if (start) throw new PtermError("InvalidArgs", "--delete takes one branch name.");
    const oid = await withRepoLock(repo, () => deleteBranch(repo, name, force));
    ctx.stdout.write(`Deleted branch ${name} (was ${abbreviate(repo, oid)}).\n`);
    return { ...base, action: "delete", branches: listBranches(repo), name, commit: oid };
  }
  if (move) {
    const newName = start!;
    const oid = await withRepoLock(repo, () => renameBranch(repo, name, newName, author, force));
    const after = readHead(repo);
    return {
      ...base,
      current: after.branch,
      action: "rename",
      branches: listBranches(repo),
      name: newName,
      commit: oid,
    };
  }
  // Decided before anything is written: an impossible --track refuses the whole call.
  const upstream = upstreamForNewBranch(repo, name, start ?? "HEAD", trackChoice(ctx.flags));
  const created = await withRepoLock(repo, async () => {
    const oid = await createBranch(repo, name, start ?? "HEAD", author, force);
    return { oid, tracking: upstream ? await recordUpstream(repo, name, upstream) : "" };
  });
  // git branch prints nothing for a new branch but the upstream it set up.
  ctx.stdout.write(created.tracking);
  return {
    ...base,
    action: "create",
    branches: listBranches(repo),
    name,
    commit: created.oid,
    upstream: upstream && upstreamLabel(upstream),
  };
};

/** git's description of a detached HEAD in a branch list: `HEAD detached at v1.0`, or `no branch`. */
async function detachedDescription(repo: Parameters<typeof detachedLine>[0], head: string): Promise<string> {
  const line = await detachedLine(repo, head);
  return line.startsWith("HEAD detached") ? line : "no branch";
}
