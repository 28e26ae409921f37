/** git ls-remote and clone: the subcommands that reach a remote (commands/git/remote/). */

import type { CommandContext, Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { cloneFlags, lsRemoteFlags } from "../spec.ts";
import { signatureNow } from "../lib/identity.ts";
import { allowedRemote, policyOf, type RemoteUrl } from "../remote/gate.ts";
import { cloneInto, lsRemote as listRemote } from "../remote/operations.ts";
import type { Connection } from "../remote/transport.ts";
import { authorOf, plural } from "./common.ts";

/** git.max_fetch_bytes when pterm.json does not set it. */
const DEFAULT_MAX_FETCH_BYTES = 2 * 2 ** 30;

// deno-lint-ignore no-explicit-any
type AnyContext = CommandContext<any, any>;

/** The `git` section of pterm.json (the kernel hands each command its own section). */
function gitSection(ctx: AnyContext): Record<string, unknown> | undefined {
  return ctx.config as Record<string, unknown> | undefined;
}

/** The remote, allowed by pterm.json, and the call confirmed; otherwise the refusal that says what to do. */
function gate(ctx: AnyContext, url: string, action: string): RemoteUrl {
  const remote = allowedRemote(url, policyOf(gitSection(ctx)));
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
