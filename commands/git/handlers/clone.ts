/**
 * `clone`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { cloneFlags } from "../sub/clone.ts";
import { signatureNow } from "../repo/identity.ts";
import { cloneInto } from "../remote/operations.ts";
import { staleAfterMs } from "../remote/leftovers.ts";
import { authorOf, plural } from "./common.ts";
import { connectionFor, gate, maxFetchBytes } from "./remote_shared.ts";

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
    who: signatureNow(authorOf(ctx, null)),
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
      `[Warning] ${plural(outcome.withheld.length, "tracked file")} not written: ${shown} (pterm's own state ` +
        "and files inside a git directory are never written into the work tree; they stay in the index, so " +
        "`git status` does not list them; the real git would show them as deleted).\n",
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
