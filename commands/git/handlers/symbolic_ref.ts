/**
 * `symbolicRef`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { symbolicRefFlags } from "../sub/symbolic_ref.ts";
import { readRawRef } from "../repo/refs.ts";
import { openFromFlags } from "./common.ts";
import { shortRefName } from "./plumbing_shared.ts";

export const symbolicRef: Handler<
  typeof symbolicRefFlags,
  readonly [{ name: "args"; description: string; variadic: true }]
> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx, "read");
  const words = ctx.positionals.args;
  if (words.length > 1) {
    throw new PtermError(
      "InvalidArgs",
      "pterm's symbolic-ref only reads (`git symbolic-ref HEAD`); to point HEAD at a branch run `git switch <branch>`.",
    );
  }
  const name = words[0] ?? "HEAD";
  const raw = name === "HEAD" || name.startsWith("refs/") ? readRawRef(repo, name) : null;
  if (!raw || raw.kind !== "symbolic") {
    if (ctx.flags.quiet) throw new PtermError("NoMatch", `${name} is not a symbolic ref.`, { hint: "" });
    throw new PtermError(
      "NotFound",
      `ref ${name} is not a symbolic ref${
        name === "HEAD" ? " (HEAD is detached: `git rev-parse HEAD` names its commit)" : ""
      }.`,
    );
  }
  const target = ctx.flags.short ? shortRefName(repo, raw.target) : raw.target;
  ctx.stdout.write(target + "\n");
  return { repo_path: rel, ref: name, target: raw.target };
};
