/**
 * `push`: one git subcommand's handler (its declaration is under sub/).
 */

import { skippedHooks } from "../repo/hooks.ts";
import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { pushFlags } from "../sub/push.ts";
import { signatureNow } from "../repo/identity.ts";
import type { RemoteUrl } from "../remote/gate.ts";
import { pushTo, unpushedCommits } from "../remote/operations.ts";
import { isValidRefName, listRefs, readHead, resolveRefOid } from "../repo/refs.ts";
import { authorOf, openFromFlags, plural } from "./common.ts";
import type { Repo } from "../repo/repo.ts";
import { type AnyContext, connectionFor, gate, remoteUrlOf } from "./remote_shared.ts";

/**
 * The tags `git push` sends, or null for a branch push: --tags (every local tag), a refspec naming
 * refs/tags/..., or a name that is a local tag and not a local branch (both: ambiguous, refused).
 */
export function tagsToPush(ctx: AnyContext, repo: Repo): string[] | null {
  const named = ctx.flags.branch as string | undefined;
  if (ctx.flags.tags) {
    if (named !== undefined) {
      throw new PtermError("InvalidArgs", "--tags pushes every tag; give no branch with it (push the branch apart).");
    }
    return [...listRefs(repo, "refs/tags").keys()];
  }
  if (named === undefined) return null;
  if (named.startsWith("refs/tags/")) return [named];
  const isTag = resolveRefOid(repo, `refs/tags/${named}`) !== null;
  const isBranch = resolveRefOid(repo, `refs/heads/${named}`) !== null;
  if (isTag && isBranch) {
    throw new PtermError(
      "InvalidArgs",
      `${named} is both a branch and a tag here; say which: refs/heads/${named} or refs/tags/${named}. Nothing was pushed.`,
    );
  }
  return isTag ? [`refs/tags/${named}`] : null;
}

/** git push --tags, git push origin <tag>, git push origin --delete <name>. */
export async function pushRefsOf(ctx: AnyContext, repo: Repo, rel: string, tags: string[] | null) {
  const name = ctx.flags.remote as string;
  for (const flag of ["set-upstream", "force-with-lease"] as const) {
    if (ctx.flags[flag]) {
      throw new PtermError(
        "InvalidArgs",
        `--${flag} applies to pushing a branch, not to ${tags ? "tags" : "--delete"}; nothing was pushed.`,
      );
    }
  }
  const url = remoteUrlOf(repo, name, rel, true);
  const { deleteRemoteRef, pushTags } = await import("../remote/push_refs.ts");
  let outcome;
  let remote: RemoteUrl;
  if (ctx.flags.delete) {
    const target = ctx.flags.branch as string | undefined;
    if (target === undefined || ctx.flags.tags) {
      throw new PtermError(
        "InvalidArgs",
        "--delete needs the one branch (or tag) to delete: `git push origin --delete <name> --confirm`.",
        { helpFor: ctx.command },
      );
    }
    remote = gate(ctx, url, (url) => `push: deleting ${target} at ${url}`, `the URL of remote ${name}`);
    outcome = await deleteRemoteRef(await connectionFor(ctx, remote), repo, name, target);
  } else {
    const list = tags!;
    if (list.length === 0) {
      throw new PtermError("NotFound", `${rel} has no tags to push (create one with \`git tag\`).`);
    }
    const shown = list.slice(0, 10).map((t) => t.replace(/^refs\/tags\//, "")).join(", ") +
      (list.length > 10 ? ` and ${list.length - 10} more` : "");
    remote = gate(
      ctx,
      url,
      (url) => `push: sending tag${list.length === 1 ? "" : "s"} ${shown} (those it lacks) to ${url}`,
      `the URL of remote ${name}`,
    );
    outcome = await pushTags(await connectionFor(ctx, remote), repo, list);
  }
  const changed = outcome.refs.filter((r) => r.status !== "up-to-date");
  for (const ref of changed) {
    const short = ref.ref.replace(/^refs\/(heads|tags)\//, "");
    ctx.stdout.write(
      ref.status === "deleted" ? ` - [deleted]         ${short}\n` : ` * [new tag]         ${short} -> ${short}\n`,
    );
  }
  if (changed.length === 0) {
    ctx.stdout.write(`${name} already has ${plural(outcome.refs.length, "tag")}; nothing to push.\n`);
  }
  return {
    repo_path: rel,
    remote: name,
    url: remote.url,
    refs: outcome.refs,
    commits: outcome.commits,
    objects: outcome.objects,
    elapsed_ms: outcome.elapsed_ms,
  };
}

/**
 * Where `git push` sends `branch`, as the real git decides it. A branch named on the line
 * (`git push origin fix`: the refspec `fix`) goes to the branch of the same name there, whatever
 * it tracks; without one, `push.default` decides (simple, git's default: the upstream, but only
 * when it has the same name). pterm asks for --set-upstream before it creates a branch there.
 */
export function pushDestination(
  repo: Repo,
  rel: string,
  remote: string,
  branch: string,
  upstream: string | undefined,
  options: { named: boolean; setUpstream: boolean },
): string {
  const sameName = `refs/heads/${branch}`;
  const retry = `\`git push --repo ${rel} --branch ${branch} --set-upstream --confirm\``;
  if (options.setUpstream) return sameName;
  if (!upstream) {
    throw new PtermError(
      "InvalidArgs",
      `${branch} has no upstream on ${remote}. To create ${branch} there and remember it, run ${retry}.`,
    );
  }
  if (upstream === sameName) return sameName;
  const upstreamName = upstream.replace(/^refs\/heads\//, "");
  const mode = (repo.config.get("push.default") ?? "simple").toLowerCase();
  if (!options.named && (mode === "upstream" || mode === "tracking")) return upstream;
  if (!options.named && mode === "current") return sameName;
  const why = options.named
    ? `\`git push ${remote} ${branch}\` sends ${branch} to the branch of the same name there, as git does, but ` +
      `${branch} tracks ${upstreamName}`
    : `${branch} tracks ${upstreamName} on ${remote}, a branch of another name, and git's push.default=${mode} ` +
      "pushes only to a branch of the same name";
  throw new PtermError(
    "Rejected",
    `${why}; nothing was sent. To push to ${branch} there and track it, run ${retry}; to update ${upstreamName}, ` +
      `set push.default=upstream in the repository's config and run \`git push --repo ${rel}\` (or use the real ` +
      `git: \`git push ${remote} ${branch}:${upstreamName}\`).`,
  );
}

/**
 * A branch push as git's refspec spells it: `fix`, `HEAD` (the current branch), `fix:other` or
 * `HEAD:refs/heads/other` (an explicit destination branch). A forced (`+`) refspec, a deletion
 * (`:other`) and a destination outside refs/heads/ are refused, each saying what to run instead.
 */
export function branchRefspec(
  rel: string,
  spelled: string | undefined,
  current: string | null,
): { branch: string | undefined; destination: string | null } {
  if (spelled === undefined) return { branch: current ?? undefined, destination: null };
  if (spelled.startsWith("+")) {
    throw new PtermError(
      "InvalidArgs",
      `a forced refspec (${spelled}) is not available: pterm's only force is --force-with-lease, which overwrites ` +
        "the remote branch only where your last fetch saw it. Nothing was pushed.",
    );
  }
  const colon = spelled.indexOf(":");
  const source = colon < 0 ? spelled : spelled.slice(0, colon);
  const target = colon < 0 ? null : spelled.slice(colon + 1);
  if (source === "") {
    throw new PtermError(
      "InvalidArgs",
      `\`:${target}\` deletes ${target} on the remote; pterm spells that \`git push --repo ${rel} --delete ${target} ` +
        "--confirm`. Nothing was pushed.",
    );
  }
  const local = source === "HEAD" || source === "@" ? current : source.replace(/^refs\/heads\//, "");
  if (local === null) {
    throw new PtermError("InvalidArgs", "HEAD is detached: say which branch to push with --branch <name>.");
  }
  if (target === null) return { branch: local, destination: null };
  const destination = target.startsWith("refs/") ? target : `refs/heads/${target}`;
  if (!destination.startsWith("refs/heads/") || !isValidRefName(destination)) {
    throw new PtermError(
      "InvalidArgs",
      `the destination \`${target}\` is not a branch name; pterm pushes a branch to a branch (\`main:other\`) ` +
        "or tags with --tags. Nothing was pushed.",
    );
  }
  return { branch: local, destination };
}

export const push: Handler<typeof pushFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const head = readHead(repo);
  const spelled = ctx.flags.branch;
  const refspec = spelled !== undefined && !ctx.flags.delete && (spelled.includes(":") || spelled === "HEAD" ||
      spelled === "@" || spelled.startsWith("+"))
    ? branchRefspec(rel, spelled, head.branch)
    : null;
  const tags = ctx.flags.delete || refspec ? null : tagsToPush(ctx, repo);
  if (ctx.flags.delete || tags) return await pushRefsOf(ctx, repo, rel, tags);
  const branch = refspec?.branch ?? ctx.flags.branch ?? head.branch;
  if (!branch) {
    throw new PtermError("InvalidArgs", "HEAD is detached: say which branch to push with --branch <name>.");
  }
  const local = resolveRefOid(repo, `refs/heads/${branch}`);
  if (!local) throw new PtermError("NotFound", `there is no branch ${branch} with commits to push.`);
  const configured = repo.config.get(`branch.${branch}.remote`);
  const name = ctx.flags.remote;
  const upstream = configured === name ? repo.config.get(`branch.${branch}.merge`) : undefined;
  // An explicit destination (`main:other`) is where it goes, as in git, whatever the branch tracks.
  const destination = refspec?.destination ?? pushDestination(repo, rel, name, branch, upstream, {
    named: ctx.flags.branch !== undefined,
    setUpstream: ctx.flags["set-upstream"],
  });
  const url = remoteUrlOf(repo, name, rel, true);
  const count = await unpushedCommits(repo, name, local);
  const remote = gate(
    ctx,
    url,
    (url) =>
      `push: sending ${count} commit${count === 1 ? "" : "s"} of ${branch} to ${
        destination.replace(/^refs\/heads\//, "")
      } at ${url}`,
    `the URL of remote ${name}`,
  );
  const outcome = await pushTo({
    connection: await connectionFor(ctx, remote),
    repo,
    remoteName: name,
    branch,
    destination,
    forceWithLease: ctx.flags["force-with-lease"],
    setUpstream: ctx.flags["set-upstream"],
    who: signatureNow(authorOf(ctx, repo)),
  });
  const target = destination.replace(/^refs\/heads\//, "");
  ctx.stdout.write(
    outcome.status === "up-to-date"
      ? `${name}/${target} is already at ${local.slice(0, 7)}; nothing to push.\n`
      : `${outcome.old ? `${outcome.old.slice(0, 7)}..` : "[new] "}${local.slice(0, 7)}  ${branch} -> ${target} ` +
        `(${plural(outcome.commits, "commit")}, ${plural(outcome.objects, "object")}` +
        `${outcome.status === "forced" ? ", forced" : ""})\n`,
  );
  if (ctx.flags["set-upstream"]) ctx.stdout.write(`${branch} now tracks ${name}/${target}.\n`);
  const hooks = skippedHooks(repo, ["pre-push"]);
  if (hooks) ctx.stderr.write(`[Warning] ${hooks}\n`);
  return {
    repo_path: rel,
    remote: name,
    url: remote.url,
    branch,
    ref: destination,
    old: outcome.old,
    new: outcome.new,
    status: outcome.status,
    commits: outcome.commits,
    objects: outcome.objects,
    upstream_set: ctx.flags["set-upstream"],
    elapsed_ms: outcome.elapsed_ms,
  };
};
