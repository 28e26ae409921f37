/**
 * `showRef`: one git subcommand's handler (its declaration is under sub/).
 */

import type { Handler } from "../../../core/context.ts";
import { PtermError } from "../../../core/errors.ts";
import type { showRefFlags } from "../sub/show_ref.ts";
import { listRefs, readHead, resolveRefOid } from "../repo/refs.ts";
import { peel } from "../history/revparse.ts";
import { openFromFlags } from "./common.ts";

export const showRef: Handler<
  typeof showRefFlags,
  readonly [{ name: "patterns"; description: string; variadic: true }]
> = async (ctx) => {
  const { repo, rel } = await openFromFlags(ctx, "read");
  const { flags } = ctx;
  const patterns = ctx.positionals.patterns;
  const found: { name: string; oid: string }[] = [];
  if (flags.verify) {
    if (patterns.length === 0) {
      throw new PtermError("InvalidArgs", "--verify needs a full ref name: `git show-ref --verify refs/heads/main`.");
    }
    for (const name of patterns) {
      const oid = name === "HEAD" || name.startsWith("refs/") ? resolveRefOid(repo, name) : null;
      if (!oid) {
        throw new PtermError("NotFound", `'${name}' - not a valid ref (give the full name: refs/heads/<branch>).`);
      }
      found.push({ name, oid });
    }
  } else {
    const head = readHead(repo).oid;
    if (flags.head && head) found.push({ name: "HEAD", oid: head });
    for (const [name, oid] of listRefs(repo, "refs")) {
      if (flags.heads || flags.tags) {
        if (!((flags.heads && name.startsWith("refs/heads/")) || (flags.tags && name.startsWith("refs/tags/")))) {
          continue;
        }
      }
      if (patterns.length && !patterns.some((p) => name === p || name.endsWith(`/${p}`))) continue;
      found.push({ name, oid });
    }
  }
  const lines: string[] = [];
  for (const { name, oid } of found) {
    lines.push(flags.hash ? oid : `${oid} ${name}`);
    if (flags.dereference && name !== "HEAD") {
      const peeled = await peel(repo, oid);
      if (peeled.oid !== oid) lines.push(flags.hash ? peeled.oid : `${peeled.oid} ${name}^{}`);
    }
  }
  if (found.length === 0) {
    // As git: nothing matched is exit status 1, with nothing printed.
    throw new PtermError("NoMatch", "no ref matches; `git show-ref` lists them all.", { hint: "" });
  }
  if (!flags.quiet) ctx.stdout.write(lines.map((l) => l + "\n").join(""));
  return { repo_path: rel, refs: found.map((f) => ({ name: f.name, id: f.oid })) };
};
