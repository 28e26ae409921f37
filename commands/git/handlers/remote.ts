/** git ls-remote and clone: the subcommands that reach a remote (commands/git/remote/). */

import type { CommandContext, Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { cloneFlags, fetchFlags, lsRemoteFlags } from "../spec.ts";
import { signatureNow } from "../lib/identity.ts";
import { allowedRemote, policyOf, type RemoteUrl } from "../remote/gate.ts";
import { cloneInto, fetchInto, lsRemote as listRemote, parseRefspec } from "../remote/operations.ts";
import type { Connection } from "../remote/transport.ts";
import { authorOf, openFromFlags, plural } from "./common.ts";
import type { Repo } from "../lib/repo.ts";

/** git.max_fetch_bytes when pterm.json does not set it. */
const DEFAULT_MAX_FETCH_BYTES = 2 * 2 ** 30;

// deno-lint-ignore no-explicit-any
type AnyContext = CommandContext<any, any>;

/** The `git` section of pterm.json (the kernel hands each command its own section). */
function gitSection(ctx: AnyContext): Record<string, unknown> | undefined {
  return ctx.config as Record<string, unknown> | undefined;
}

/** The remote, allowed by pterm.json, and the call confirmed; otherwise the refusal that says what to do. */
function gate(ctx: AnyContext, url: string, action: string, label?: string): RemoteUrl {
  const remote = allowedRemote(url, policyOf(gitSection(ctx)), label);
  if (ctx.flags.confirm !== true) {
    throw new PtermError(
      "ConfirmRequired",
      `${action} ${remote.url} reaches the network; nothing was sent. Run it again with --confirm to do it.`,
      { helpFor: ctx.command },
    );
  }
  return remote;
}

function connectionFor(ctx: AnyContext, remote: RemoteUrl): Connection {
  return {
    remote,
    root: ctx.workspace.root,
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
  const remote = gate(ctx, ctx.flags.url, "ls-remote: listing the refs of");
  const refs = await listRemote(connectionFor(ctx, remote));
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

export const clone: Handler<typeof cloneFlags> = async (ctx) => {
  const remote = gate(ctx, ctx.flags.url, "clone: copying");
  const confined = await ctx.workspace.resolve(ctx.flags.dir, "write", { label: "--dir" });
  const outcome = await cloneInto({
    connection: connectionFor(ctx, remote),
    dir: confined.abs,
    rel: confined.rel,
    branch: ctx.flags.branch,
    depth: ctx.flags.depth,
    maxBytes: maxFetchBytes(ctx),
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
  return {
    repo_path: confined.rel,
    url: remote.url,
    branch: outcome.branch,
    head: outcome.head,
    refs: outcome.refs,
    files: outcome.files,
    shallow: outcome.shallow,
    transfer: outcome.stats,
  };
};

/** The URL of a configured remote, or NotFound saying how to add one. */
function remoteUrlOf(repo: Repo, name: string, rel: string): string {
  const url = repo.config.get(`remote.${name}.url`);
  if (url === undefined) {
    throw new PtermError(
      "NotFound",
      `${rel} has no remote named ${name}; list them with \`git remote --repo ${rel}\`, or add one with ` +
        `\`git remote --repo ${rel} add ${name} <url>\`.`,
    );
  }
  return url;
}

export const fetch: Handler<typeof fetchFlags> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx);
  const name = ctx.flags.remote;
  const remote = gate(
    ctx,
    remoteUrlOf(repo, name, rel),
    `fetch: bringing in what is new at ${name} =`,
    `the URL of remote ${name}`,
  );
  // Keys are `section.subsection.key` with section and key in lower case; the remote's name keeps its case.
  const specs = repo.config.values.get(`remote.${name}.fetch`) ?? [];
  const refspecs = (specs.length ? specs : [`+refs/heads/*:refs/remotes/${name}/*`]).map(parseRefspec);
  const result = await fetchInto({
    connection: connectionFor(ctx, remote),
    repo,
    remoteName: name,
    refspecs,
    maxBytes: maxFetchBytes(ctx),
    who: signatureNow(authorOf(ctx)),
  });
  const changed = result.refs.filter((r) => r.status !== "up-to-date");
  for (const ref of changed) {
    const short = (oid: string | null) => oid?.slice(0, 7) ?? "";
    const range = ref.status === "new" ? "[new]" : `${short(ref.old)}..${short(ref.new)}`;
    ctx.stdout.write(
      `${ref.status === "rejected" ? "! " : "  "}${range.padEnd(16)} ${ref.remote} -> ${ref.local}` +
        (ref.status === "rejected" ? ` (rejected: ${ref.reason})` : ref.status === "forced" ? " (forced update)" : "") +
        "\n",
    );
  }
  if (changed.length === 0) ctx.stdout.write(`${name} had nothing new.\n`);
  return {
    repo_path: rel,
    remote: name,
    url: remote.url,
    refs: result.refs,
    updated: changed.filter((r) => r.status !== "rejected").length,
    rejected: changed.filter((r) => r.status === "rejected").length,
    transfer: result.stats,
  };
};
