/**
 * `fetch`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { fetchFlags } from "../sub/fetch.ts";
import { signatureNow } from "../repo/identity.ts";
import { fetchInto, mapRef, type parseRefspec } from "../remote/operations.ts";
import { authorOf, openFromFlags } from "./common.ts";
import type { Repo } from "../repo/repo.ts";
import { connectionFor, gate, maxFetchBytes, pruneOf, refspecsOf, remoteUrlOf, reportFetch } from "./remote_shared.ts";

/**
 * `git fetch origin <branch>`: only that branch, into the remote-tracking ref its remote's fetch
 * refspecs map it to (git's opportunistic update), with FETCH_HEAD naming it alone.
 */
export function fetchBranchRefspec(
  repo: Repo,
  name: string,
  branch: string,
): { spec: ReturnType<typeof parseRefspec>; ref: string } {
  if (branch.includes(":") || branch.startsWith("+") || branch.includes("*")) {
    throw new PtermError(
      "InvalidArgs",
      `\`${branch}\`: pterm fetches a branch by name (\`git fetch origin main\`), into its remote-tracking branch; ` +
        "refspecs with `:`, `+` or `*` are not taken.",
    );
  }
  const ref = branch.startsWith("refs/") ? branch : `refs/heads/${branch}`;
  if (!ref.startsWith("refs/heads/")) {
    throw new PtermError(
      "InvalidArgs",
      `\`${branch}\` is not a branch: pterm fetches one branch by name; tags come with every fetch ` +
        `(\`git fetch --repo ${repo.label} --confirm\`).`,
    );
  }
  for (const spec of refspecsOf(repo, name)) {
    const local = mapRef(spec, ref);
    if (local) return { spec: { force: spec.force, src: ref, dst: local }, ref };
  }
  throw new PtermError(
    "InvalidArgs",
    `${name}'s fetch refspecs do not map ${ref} to a remote-tracking branch (a single-branch clone?); ` +
      `\`git fetch --repo <repo> --confirm\` fetches what they name.`,
  );
}

export const fetch: Handler<
  typeof fetchFlags,
  readonly [{ name: "remote-name"; description: string }, { name: "branch"; description: string }]
> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const name = ctx.flags.remote;
  const only = ctx.positionals.branch === undefined ? null : fetchBranchRefspec(repo, name, ctx.positionals.branch);
  const remote = gate(
    ctx,
    remoteUrlOf(repo, name, rel),
    (url) => `fetch: bringing in what is new at ${name} (${url})`,
    `the URL of remote ${name}`,
  );
  const result = await fetchInto({
    connection: await connectionFor(ctx, remote),
    repo,
    remoteName: name,
    refspecs: only ? [only.spec] : refspecsOf(repo, name),
    prune: pruneOf(ctx, repo, name),
    maxBytes: maxFetchBytes(ctx),
    who: signatureNow(authorOf(ctx, repo)),
    required: only ? [only.ref] : [],
  });
  reportFetch(ctx, name, result.refs);
  const changed = result.refs.filter((r) => r.status !== "up-to-date");
  return {
    repo_path: rel,
    remote: name,
    url: remote.url,
    refs: result.refs,
    updated: changed.filter((r) => r.status !== "rejected" && r.status !== "pruned").length,
    rejected: changed.filter((r) => r.status === "rejected").length,
    pruned: changed.filter((r) => r.status === "pruned").length,
    transfer: result.stats,
  };
};
