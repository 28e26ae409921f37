/**
 * What several of the remote handlers share (entries/remote.ts lists them).
 */

import type { CommandContext } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import { allowedRemote, parseProxyUrl, policyOf, proxyOf, type RemoteUrl, rewriteRemoteUrl } from "../remote/gate.ts";
import { type fetchInto, parseRefspec } from "../remote/operations.ts";
import type { Connection } from "../remote/transport.ts";
import type { Repo } from "../repo/repo.ts";

/** git.max_fetch_bytes when pterm.json does not set it. */
export const DEFAULT_MAX_FETCH_BYTES = 2 * 2 ** 30;

// deno-lint-ignore no-explicit-any
export type AnyContext = CommandContext<any, any>;

/** The `git` section of pterm.json (the kernel hands each command its own section). */
export function gitSection(ctx: AnyContext): Record<string, unknown> | undefined {
  return ctx.config as Record<string, unknown> | undefined;
}

/** The remote, allowed by pterm.json, and the call confirmed; otherwise the refusal that says what to do. */
/**
 * The remote, allowed by pterm.json, and the call confirmed; otherwise the refusal that says what
 * the call would do (`action` describes it, given the remote's URL).
 */
export function gate(ctx: AnyContext, url: string, action: (url: string) => string, label?: string): RemoteUrl {
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
export async function trustedCertificates(ctx: AnyContext): Promise<string | undefined> {
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

export async function connectionFor(ctx: AnyContext, remote: RemoteUrl): Promise<Connection> {
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

export function maxFetchBytes(ctx: AnyContext): number {
  const value = gitSection(ctx)?.max_fetch_bytes;
  return typeof value === "number" ? value : DEFAULT_MAX_FETCH_BYTES;
}

/** `url` after the repository's url.*.insteadOf (pushInsteadOf for a push), as git reads remote URLs. */
export function rewrittenUrl(repo: Repo, url: string, push: boolean): string {
  let text = "";
  try {
    text = Deno.readTextFileSync(`${repo.commondir}/config`);
  } catch { /* no config: nothing to rewrite */ }
  return rewriteRemoteUrl(text, url, push);
}

/** The URL of a configured remote (after url.*.insteadOf), or NotFound saying how to add one. */
export function remoteUrlOf(repo: Repo, name: string, rel: string, push = false): string {
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

export function refspecsOf(repo: Repo, name: string) {
  // Keys are `section.subsection.key` with section and key in lower case; the remote's name keeps its case.
  const specs = repo.config.values.get(`remote.${name}.fetch`) ?? [];
  return (specs.length ? specs : [`+refs/heads/*:refs/remotes/${name}/*`]).map(parseRefspec);
}

/**
 * Whether a fetch from remote `name` prunes without --prune: `remote.<name>.prune`, else
 * `fetch.prune`, from the repository's config, as git's fetch (and so its pull) reads them.
 */
export function pruneConfigured(repo: Repo, name: string): boolean {
  return repo.config.getBool(`remote.${name}.prune`, repo.config.getBool("fetch.prune", false));
}

/** Whether this fetch (or pull) prunes: --prune, else --no-prune, else the config (as git's fetch decides). */
export function pruneOf(ctx: AnyContext, repo: Repo, name: string): boolean {
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

export function reportFetch(
  ctx: AnyContext,
  name: string,
  refs: Awaited<ReturnType<typeof fetchInto>>["refs"],
): number {
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
