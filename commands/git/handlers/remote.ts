/** git ls-remote and clone: the subcommands that reach a remote (commands/git/remote/). */

import { skippedHooks } from "../repo/hooks.ts";
import type { CommandContext, Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { cloneFlags, fetchFlags, lsRemoteFlags, pullFlags, pushFlags, remoteFlags } from "../spec.ts";
import { signatureNow } from "../repo/identity.ts";
import {
  allowedRemote,
  parseProxyUrl,
  parseRemoteUrl,
  policyOf,
  proxyOf,
  type RemoteUrl,
  rewriteRemoteUrl,
} from "../remote/gate.ts";
import { configSubsections, removeConfigSection, removeConfigValues, setConfigValues } from "../repo/config_edit.ts";
import {
  cloneInto,
  fetchInto,
  lsRemote as listRemote,
  mapRef,
  parseRefspec,
  pushTo,
  unpushedCommits,
} from "../remote/operations.ts";
import { deleteRef, isValidRefName, listRefs, readHead, readRawRef, resolveRefOid } from "../repo/refs.ts";
import { loadIndex, withRepoLock } from "../repo/state.ts";
import type { Connection } from "../remote/transport.ts";
import { staleAfterMs } from "../remote/leftovers.ts";
import { authorOf, openFromFlags, plural } from "./common.ts";
import { openRepo, type Repo } from "../repo/repo.ts";

/** git.max_fetch_bytes when pterm.json does not set it. */
const DEFAULT_MAX_FETCH_BYTES = 2 * 2 ** 30;

type RemotePositionals = readonly { name: "action" | "name" | "url"; description: string }[];

// deno-lint-ignore no-explicit-any
type AnyContext = CommandContext<any, any>;

/** The `git` section of pterm.json (the kernel hands each command its own section). */
function gitSection(ctx: AnyContext): Record<string, unknown> | undefined {
  return ctx.config as Record<string, unknown> | undefined;
}

/** The remote, allowed by pterm.json, and the call confirmed; otherwise the refusal that says what to do. */
/**
 * The remote, allowed by pterm.json, and the call confirmed; otherwise the refusal that says what
 * the call would do (`action` describes it, given the remote's URL).
 */
function gate(ctx: AnyContext, url: string, action: (url: string) => string, label?: string): RemoteUrl {
  const remote = allowedRemote(url, policyOf(gitSection(ctx)), label);
  if (ctx.flags.confirm !== true) {
    throw new PtermError(
      "ConfirmRequired",
      `${action(remote.url)}: this reaches the network and needs --confirm; nothing was sent. Run the same command ` +
        "with --confirm to do it.",
      { helpFor: ctx.command },
    );
  }
  return remote;
}

/** The PEM text of git.ca_file, read through the workspace's confinement (a path inside the root). */
async function trustedCertificates(ctx: AnyContext): Promise<string | undefined> {
  const file = gitSection(ctx)?.ca_file;
  if (typeof file !== "string") return undefined;
  const confined = await ctx.workspace.resolve(file, "read", { label: "git.ca_file in pterm.json" });
  let text: string;
  try {
    text = await Deno.readTextFile(confined.abs);
  } catch {
    throw new PtermError("InvalidConfig", `git.ca_file (${confined.rel}) cannot be read; fix pterm.json or the file.`);
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----")) {
    throw new PtermError("InvalidConfig", `git.ca_file (${confined.rel}) holds no PEM certificate.`);
  }
  return text;
}

async function connectionFor(ctx: AnyContext, remote: RemoteUrl): Promise<Connection> {
  return {
    remote,
    policy: policyOf(gitSection(ctx)),
    root: ctx.workspace.root,
    caCerts: await trustedCertificates(ctx),
    proxy: proxyOf(gitSection(ctx)) ? parseProxyUrl(proxyOf(gitSection(ctx))!) : undefined,
    signal: ctx.signal,
    onProgress: (stage, done, total) =>
      ctx.progress({
        progress: done,
        total,
        message: stage === "receiving" ? "receiving pack bytes" : "indexing objects",
      }),
  };
}

function maxFetchBytes(ctx: AnyContext): number {
  const value = gitSection(ctx)?.max_fetch_bytes;
  return typeof value === "number" ? value : DEFAULT_MAX_FETCH_BYTES;
}

export const lsRemote: Handler<typeof lsRemoteFlags> = async (ctx) => {
  const remote = gate(ctx, ctx.flags.url, (url) => `ls-remote: listing the branches and tags of ${url}`);
  const refs = await listRemote(await connectionFor(ctx, remote));
  for (const ref of refs) ctx.stdout.write(`${ref.oid}\t${ref.name}\n`);
  if (refs.length === 0) ctx.stdout.write(`${remote.url} is empty (no branches or tags).\n`);
  return {
    url: remote.url,
    refs: refs.map((r) => ({
      name: r.name,
      oid: r.oid,
      ...(r.peeled ? { peeled: r.peeled } : {}),
      ...(r.symref ? { symref: r.symref } : {}),
    })),
  };
};

/** The folder `git clone <url>` makes without one given: the URL's last part, without `.git` (as git names it). */
export function cloneDirOf(url: string): string {
  const path = url.replace(/[?#].*$/, "").replace(/\/+$/, "").replace(/\.git$/, "").replace(/\/+$/, "");
  const name = path.slice(path.lastIndexOf("/") + 1).replace(/:.*$/, "");
  if (!name || name === "." || name === ".." || name.startsWith(".")) {
    throw new PtermError("InvalidArgs", `the URL ${url} names no folder to clone into; give one: --dir <folder>.`);
  }
  return name;
}

export const clone: Handler<typeof cloneFlags> = async (ctx) => {
  const dir = ctx.flags.dir ?? cloneDirOf(ctx.flags.url);
  const remote = gate(ctx, ctx.flags.url, (url) => `clone: copying ${url} into ${dir}`);
  const confined = await ctx.workspace.resolve(dir, "write", { label: "--dir" });
  const outcome = await cloneInto({
    connection: await connectionFor(ctx, remote),
    dir: confined.abs,
    rel: confined.rel,
    branch: ctx.flags.branch,
    depth: ctx.flags.depth,
    singleBranch: ctx.flags["single-branch"],
    maxBytes: maxFetchBytes(ctx),
    staleMs: staleAfterMs(ctx.limits.timeout_ms_max),
    who: signatureNow(authorOf(ctx)),
  });
  ctx.stdout.write(
    `Cloned ${remote.url} into ${confined.rel}: ${plural(outcome.stats.objects, "object")} ` +
      `(${outcome.stats.bytes} bytes) in ${outcome.stats.elapsed_ms} ms` +
      (outcome.branch
        ? `, branch ${outcome.branch} checked out (${plural(outcome.files, "file")})`
        : ", empty repository") +
      (outcome.shallow ? ", shallow" : "") + ".\n",
  );
  if (outcome.withheld.length) {
    const shown = outcome.withheld.slice(0, 5).join(", ") +
      (outcome.withheld.length > 5 ? ` and ${outcome.withheld.length - 5} more` : "");
    ctx.stderr.write(
      `[Warning] ${plural(outcome.withheld.length, "tracked file")} not written: ${shown} (secret paths, or ` +
        "pterm's own state, are never written into the work tree; they stay in the index, so `git status` does not " +
        "list them; the real git would show them as deleted).\n",
    );
  }
  return {
    repo_path: confined.rel,
    url: remote.url,
    branch: outcome.branch,
    head: outcome.head,
    refs: outcome.refs,
    files: outcome.files,
    withheld: outcome.withheld,
    shallow: outcome.shallow,
    transfer: outcome.stats,
  };
};

/** `url` after the repository's url.*.insteadOf (pushInsteadOf for a push), as git reads remote URLs. */
function rewrittenUrl(repo: Repo, url: string, push: boolean): string {
  let text = "";
  try {
    text = Deno.readTextFileSync(`${repo.commondir}/config`);
  } catch { /* no config: nothing to rewrite */ }
  return rewriteRemoteUrl(text, url, push);
}

/** The URL of a configured remote (after url.*.insteadOf), or NotFound saying how to add one. */
function remoteUrlOf(repo: Repo, name: string, rel: string, push = false): string {
  const url = repo.config.get(`remote.${name}.url`);
  if (url === undefined) {
    throw new PtermError(
      "NotFound",
      `${rel} has no remote named ${name}; list them with \`git remote --repo ${rel}\`, or add one with ` +
        `\`git remote --repo ${rel} add ${name} <url>\`.`,
    );
  }
  return rewrittenUrl(repo, url, push);
}

function refspecsOf(repo: Repo, name: string) {
  // Keys are `section.subsection.key` with section and key in lower case; the remote's name keeps its case.
  const specs = repo.config.values.get(`remote.${name}.fetch`) ?? [];
  return (specs.length ? specs : [`+refs/heads/*:refs/remotes/${name}/*`]).map(parseRefspec);
}

/**
 * Whether a fetch from remote `name` prunes without --prune: `remote.<name>.prune`, else
 * `fetch.prune`, from the repository's config, as git's fetch (and so its pull) reads them.
 */
function pruneConfigured(repo: Repo, name: string): boolean {
  return repo.config.getBool(`remote.${name}.prune`, repo.config.getBool("fetch.prune", false));
}

/** Whether this fetch (or pull) prunes: --prune, else --no-prune, else the config (as git's fetch decides). */
function pruneOf(ctx: AnyContext, repo: Repo, name: string): boolean {
  if (ctx.flags.prune === true && ctx.flags["no-prune"] === true) {
    throw new PtermError(
      "InvalidArgs",
      "--prune and --no-prune contradict each other; give one (--no-prune keeps remote-tracking branches even " +
        "where fetch.prune or remote.<name>.prune is set). Nothing was fetched.",
      { helpFor: ctx.command },
    );
  }
  if (ctx.flags.prune === true) return true;
  if (ctx.flags["no-prune"] === true) return false;
  return pruneConfigured(repo, name);
}

function reportFetch(ctx: AnyContext, name: string, refs: Awaited<ReturnType<typeof fetchInto>>["refs"]): number {
  const changed = refs.filter((r) => r.status !== "up-to-date");
  for (const ref of changed) {
    const short = (oid: string | null) => oid?.slice(0, 7) ?? "";
    if (ref.status === "pruned") {
      ctx.stdout.write(` - ${"[deleted]".padEnd(16)} (none) -> ${ref.local.replace(/^refs\/remotes\//, "")}\n`);
      continue;
    }
    const range = ref.status === "new" ? "[new]" : `${short(ref.old)}..${short(ref.new)}`;
    ctx.stdout.write(
      `${ref.status === "rejected" ? "! " : "  "}${range.padEnd(16)} ${ref.remote} -> ${ref.local}` +
        (ref.status === "rejected" ? ` (rejected: ${ref.reason})` : ref.status === "forced" ? " (forced update)" : "") +
        "\n",
    );
  }
  if (changed.length === 0) ctx.stdout.write(`${name} had nothing new.\n`);
  return changed.length;
}

/**
 * `git fetch origin <branch>`: only that branch, into the remote-tracking ref its remote's fetch
 * refspecs map it to (git's opportunistic update), with FETCH_HEAD naming it alone.
 */
function fetchBranchRefspec(
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
    who: signatureNow(authorOf(ctx)),
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

/**
 * The tags `git push` sends, or null for a branch push: --tags (every local tag), a refspec naming
 * refs/tags/..., or a name that is a local tag and not a local branch (both: ambiguous, refused).
 */
function tagsToPush(ctx: AnyContext, repo: Repo): string[] | null {
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
async function pushRefsOf(ctx: AnyContext, repo: Repo, rel: string, tags: string[] | null) {
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
function pushDestination(
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
function branchRefspec(
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
    who: signatureNow(authorOf(ctx)),
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
    who: signatureNow(authorOf(ctx)),
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
  const { mergeInto } = await import("../porcelain/ops.ts");
  const outcome = await withRepoLock(repo, () =>
    mergeInto(repo, loadIndex(repo), policy, tracking, {
      noFf: false,
      message: `Merge branch '${upstreamName}' of ${remote.url.replace(/\.git$/, "")}`,
      author: authorOf(ctx),
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

/** `git remote`: list, add, remove, set-url — .git/config and refs only, never the network. */
export const remotes: Handler<typeof remoteFlags, RemotePositionals> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const action = (ctx.positionals.action as string | undefined) ?? "list";
  const name = ctx.positionals.name as string | undefined;
  const url = ctx.positionals.url as string | undefined;
  const policy = policyOf(gitSection(ctx));
  const describeAll = (fresh: Repo) => {
    const text = Deno.readTextFileSync(`${fresh.commondir}/config`);
    return configSubsections(text, "remote").map((remote) => {
      const configured = fresh.config.get(`remote.${remote}.url`);
      const where = configured === undefined ? null : rewrittenUrl(fresh, configured, false);
      let allowed = false;
      try {
        if (where !== null) allowed = !!allowedRemote(where, policy);
      } catch { /* not allowed, or not a URL pterm speaks */ }
      return { name: remote, url: where, fetch: fresh.config.values.get(`remote.${remote}.fetch`) ?? [], allowed };
    });
  };
  const reopened = () => openRepo(repo.dir, repo.label, ctx.workspace.root);
  const exists = (remote: string) => repo.config.get(`remote.${remote}.url`) !== undefined;
  const needName = (what: string) => {
    if (!name) {
      throw new PtermError("InvalidArgs", `${what} needs the remote's name: git remote --repo ${rel} ${what} <name>.`);
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..") || !isValidRefName(`refs/remotes/${name}`)) {
      throw new PtermError("InvalidArgs", `\`${name}\` is not a usable remote name (letters, digits, . _ -).`);
    }
    return name;
  };
  const needUrl = (what: string) => {
    if (!url) {
      throw new PtermError("InvalidArgs", `${what} needs a URL: git remote --repo ${rel} ${what} <name> <url>.`);
    }
    return parseRemoteUrl(url, "the URL").url;
  };
  if (action === "list") {
    if (name || url) throw new PtermError("InvalidArgs", "list takes no name or URL.");
    const all = describeAll(repo);
    ctx.stdout.write(
      all.length
        ? all.map((r) => `${r.name}\t${r.url ?? "(no url)"}${r.allowed ? "" : "\t(not in git.remotes.allow)"}`).join(
          "\n",
        ) +
          "\n"
        : `${rel} has no remotes; add one with \`git remote --repo ${rel} add origin <url>\`.\n`,
    );
    return { repo_path: rel, action: "list", remotes: all };
  }
  if (action === "add") {
    const remote = needName("add");
    const where = needUrl("add");
    if (exists(remote)) {
      throw new PtermError("AlreadyExists", `remote ${remote} already exists; change its URL with set-url.`);
    }
    await setConfigValues(repo, "remote", remote, [["url", where], [
      "fetch",
      `+refs/heads/*:refs/remotes/${remote}/*`,
    ]]);
    ctx.stdout.write(
      `Added remote ${remote} (${where}); \`git fetch --repo ${rel} --remote ${remote} --confirm\` fetches it.\n`,
    );
    return { repo_path: rel, action: "add", remotes: describeAll(reopened()) };
  }
  if (action === "get-url") {
    if (url) throw new PtermError("InvalidArgs", "get-url takes only the remote's name.");
    const remote = needName("get-url");
    const described = describeAll(repo).find((r) => r.name === remote);
    if (!described || described.url === null) {
      throw new PtermError(
        "NotFound",
        `there is no remote ${remote}; list them with \`git remote --repo ${rel}\`.`,
      );
    }
    // As git's get-url: the URL after url.<base>.insteadOf.
    ctx.stdout.write(`${described.url}\n`);
    return { repo_path: rel, action: "get-url", remotes: [described] };
  }
  if (action === "set-url") {
    const remote = needName("set-url");
    const where = needUrl("set-url");
    if (!exists(remote)) throw new PtermError("NotFound", `there is no remote ${remote}; add it with add.`);
    await setConfigValues(repo, "remote", remote, [["url", where]]);
    ctx.stdout.write(`${remote} now points to ${where}.\n`);
    return { repo_path: rel, action: "set-url", remotes: describeAll(reopened()) };
  }
  if (action === "remove") {
    if (url) throw new PtermError("InvalidArgs", "remove takes only the remote's name.");
    const remote = needName("remove");
    if (!exists(remote)) throw new PtermError("NotFound", `there is no remote ${remote}.`);
    // As git: its remote-tracking branches go, and branches stop tracking it.
    let removed = 0;
    const symbolic: string[] = [];
    for (const ref of listRefs(repo, `refs/remotes/${remote}`).keys()) {
      if (readRawRef(repo, ref)?.kind === "symbolic") symbolic.push(ref);
      else {
        await deleteRef(repo, ref);
        removed++;
      }
    }
    for (const ref of symbolic) {
      await Deno.remove(`${repo.commondir}/${ref}`).catch(() => {});
      await Deno.remove(`${repo.commondir}/logs/${ref}`).catch(() => {});
      removed++;
    }
    await Deno.remove(`${repo.commondir}/refs/remotes/${remote}`, { recursive: true }).catch(() => {});
    for (const branch of configSubsections(Deno.readTextFileSync(`${repo.commondir}/config`), "branch")) {
      if (repo.config.get(`branch.${branch}.remote`) === remote) {
        await removeConfigValues(repo, "branch", branch, ["remote", "merge"]);
      }
    }
    await removeConfigSection(repo, "remote", remote);
    ctx.stdout.write(`Removed remote ${remote} and ${plural(removed, "remote-tracking ref")}.\n`);
    return { repo_path: rel, action: "remove", remotes: describeAll(reopened()), removed_refs: removed };
  }
  throw new PtermError("InvalidArgs", `unknown action ${action}: use list, add, remove, set-url or get-url.`);
};
